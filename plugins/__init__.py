"""The verifier plugins that ship with anchorcheck, installed as `anchorcheck_plugins`.

`kinds/` holds one module per anchor kind, `languages/` one per source
language, `ecosystems/` one per package ecosystem and `formats/` one per
memory file format. Each registers through the `anchorcheck` entry-point
group, exactly as a third-party plugin does.
"""
