"""Java: imports (plain, static, on-demand), `System.getenv("K")`, and types with their members.

Import names are dotted (`import:com.google.common` matches
`import com.google.common.collect.*`); members are `Type.member`, nested
types `Outer.Inner`.
"""

from __future__ import annotations

from anchorcheck import Language, hookimpl
from anchorcheck.facts import Define, Definitions, Facts, Parsed, definitions

QUERIES = {
    "imports": "(import_declaration (_) @name) @stmt",
    "env": """
        (method_invocation object: (identifier) @object name: (identifier) @method
            arguments: (argument_list . (_) @key)) @read
    """,
}


def extract(parsed: Parsed) -> Facts:
    facts = Facts()
    for _, found in parsed.matches("imports"):
        name = found["name"][0]
        if name.type in ("scoped_identifier", "identifier"):
            facts.imports.append((Parsed.text(name), Parsed.line(found["stmt"][0]), ""))
    for _, found in parsed.matches("env"):
        if Parsed.text(found["object"][0]) != "System" or Parsed.text(found["method"][0]) != "getenv":
            continue
        read, key = found["read"][0], found["key"][0]
        facts.add_env_read(read, key, ("string_literal",))
    facts.defs = definitions(parsed.root, _DEFINITIONS)
    return facts


# Types with their methods, constructors, enum constants and fields (`Type.member`), nested types (`Outer.Inner`).
_MEMBERS = Definitions(
    defines=dict.fromkeys(("method_declaration", "constructor_declaration", "enum_constant", "variable_declarator"), Define()),
    transparent=frozenset({"field_declaration", "constant_declaration", "enum_body_declarations"}),
)
_DEFINITIONS = Definitions(
    defines=dict.fromkeys(
        ("class_declaration", "interface_declaration", "enum_declaration", "record_declaration", "annotation_type_declaration"),
        Define(members=_MEMBERS, nests=True),
    )
)


def import_segments(module: str) -> tuple[str, ...]:
    return tuple(module.split("."))


LANGUAGE = Language(
    name="java",
    extensions=(".java",),
    grammar="java",
    queries=QUERIES,
    extract=extract,
    import_segments=import_segments,
    env_markers=(b"getenv",),
)


@hookimpl
def register_languages(register):  # noqa: ANN001, ANN201 - hook signature
    register(LANGUAGE)
