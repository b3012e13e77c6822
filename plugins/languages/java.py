"""Java: imports (plain, static, on-demand), `System.getenv("K")`, and types with their members.

Import names are dotted (`import:com.google.common` matches
`import com.google.common.collect.*`); members are `Type.member`, nested
types `Outer.Inner`.
"""

from __future__ import annotations

from tree_sitter import Node

from anchorcheck import Language, hookimpl
from anchorcheck.facts import Facts, Parsed

QUERIES = {
    "imports": "(import_declaration (_) @name) @stmt",
    "env": """
        (method_invocation object: (identifier) @object name: (identifier) @method
            arguments: (argument_list . (_) @key)) @read
    """,
}
_TYPES = {"class_declaration", "interface_declaration", "enum_declaration", "record_declaration", "annotation_type_declaration"}


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
    _types(parsed.root, "", facts)
    return facts


def _types(node: Node, prefix: str, facts: Facts) -> None:
    for child in node.named_children:
        if child.type not in _TYPES:
            continue
        name = child.child_by_field_name("name")
        if name is None:
            continue
        qualified = prefix + Parsed.text(name)
        facts.defs.append((qualified, Parsed.line(child)))
        body = child.child_by_field_name("body")
        if body is None:
            continue
        for member in body.named_children:
            if member.type in ("method_declaration", "constructor_declaration", "enum_constant"):
                member_name = member.child_by_field_name("name")
                if member_name is not None:
                    facts.defs.append((f"{qualified}.{Parsed.text(member_name)}", Parsed.line(member)))
            elif member.type in ("field_declaration", "constant_declaration"):
                for declarator in member.children_by_field_name("declarator"):
                    field_name = declarator.child_by_field_name("name")
                    if field_name is not None:
                        facts.defs.append((f"{qualified}.{Parsed.text(field_name)}", Parsed.line(declarator)))
        _types(body, qualified + ".", facts)


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
