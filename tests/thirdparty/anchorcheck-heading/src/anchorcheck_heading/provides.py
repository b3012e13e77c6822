"""What two of this distribution's plugins register, so anchorcheck imports each only when it is needed.

Named under the `anchorcheck.provides` entry-point group. The `heading`
kind declares nothing, the way plugins written before declarations exist
do: it is imported at every start, and works the same.
"""

VENDORLIST = {"ecosystems": {"vendorlist": {"languages": ["python"]}}}
LUALANG = {"languages": {"lua": {"extensions": [".lua"], "source_roots": ["lua"]}}}
