"""A language of its own: Lua, with the same `sym:` and `import:` power as the built-in languages.

It registers a grammar and an `extract` (imports are `require("a.b")`,
definitions are functions and `M.x = ...` fields), and the capabilities
that find modules: `lua/` is a source root, `a.b` is `a/b.lua` or
`a/b/init.lua` below it, and `sym:lua:a.b.name` is its module form.
"""

from __future__ import annotations

from anchorcheck import Language, hookimpl
from anchorcheck.plugin import Define, Definitions, Facts, Parsed, definitions, string_value

QUERIES = {
    "requires": '(function_call name: (identifier) @fn arguments: (arguments . (string) @module)) @call',
}
def _assigned(statement):
    """`M = {}` defines M, `M.version = 1` defines M.version."""
    targets = statement.named_children[0] if statement.named_children else None
    if targets is None or targets.type != "variable_list":
        return []
    return [n for n in targets.named_children if n.type in ("identifier", "dot_index_expression")]


_DEFINITIONS = Definitions(
    defines={"function_declaration": Define(), "assignment_statement": Define(name=_assigned)},
    transparent=frozenset({"variable_declaration"}),
    scope=":",  # `function M:greet()` is M.greet
)


def extract(parsed):
    facts = Facts()
    for _, found in parsed.matches("requires"):
        if Parsed.text(found["fn"][0]) == "require":
            value = string_value(found["module"][0])
            if value:
                facts.imports.append((value, Parsed.line(found["call"][0]), ""))
    facts.defs = definitions(parsed.root, _DEFINITIONS)
    return facts


def module_files(module, path, repo, roots):
    base = module.replace(".", "/")
    candidates = [f"{root}{base}{suffix}" for root in roots for suffix in (".lua", "/init.lua")]
    return tuple(c for c in candidates if repo.is_file(c))


def import_segments(module):
    return tuple(module.split("."))


@hookimpl
def register_languages(register):
    register(
        Language(
            name="lua",
            extensions=(".lua",),
            grammar="lua",
            queries=QUERIES,
            extract=extract,
            import_segments=import_segments,
            source_roots=("lua",),
            module_files=module_files,
            module_prefix="lua",
        )
    )
