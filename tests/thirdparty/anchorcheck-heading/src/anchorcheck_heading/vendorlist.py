"""A package ecosystem of its own: `vendor.txt` lists `package  import_name` pairs.

It registers the package <-> import-name mapping, so `pkg:vendorlist/...` and
`import:` vouch for each other exactly as they do for the built-in ecosystems.
"""

from __future__ import annotations

from anchorcheck import Ecosystem, hookimpl
from anchorcheck.plugin import DIRECT, Declaration, FileFacts, ManifestStatus, PackageIndex, project_index


def read(context, scope):
    index = PackageIndex("vendorlist")
    for path in context.repo.files(scope):
        if path.rsplit("/", 1)[-1] != "vendor.txt":
            continue
        found = []
        for number, line in enumerate(context.repo.read_bytes(path).decode().splitlines(), 1):
            if line.split():
                package, module = (line.split() + [""])[:2]
                found.append(Declaration(package.lower(), DIRECT, path, number, written=module or package))
        index.add(FileFacts(found, ManifestStatus(path)))
    return index


def import_names(package, context=None):
    declared = project_index(context, "vendorlist", read).find(package.lower()) if context is not None else []
    return [d.written for d in declared] or [package.lower()]


def packages_for_import(module, context=None):
    top = module.split(".", 1)[0]
    declared = project_index(context, "vendorlist", read).declarations if context is not None else []
    return [d.name for d in declared if d.written == top]


@hookimpl
def register_ecosystems(register):
    register(
        Ecosystem(
            name="vendorlist",
            manifests=("vendor.txt",),
            read=read,
            summary="vendor.txt: package and import name per line",
            languages=("python",),
            import_names=import_names,
            packages_for_import=packages_for_import,
        )
    )
