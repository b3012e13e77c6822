"""Go: import paths, `os.Getenv`/`os.LookupEnv`, and funcs, types, methods (`Type.Method`), consts, vars."""

from __future__ import annotations

from tree_sitter import Node

from anchorcheck import Language, hookimpl
from anchorcheck.facts import Facts, Parsed, string_value

QUERIES = {
    "imports": "(import_spec path: (_) @path)",
    "env": """
        (call_expression
            function: (selector_expression operand: (identifier) @package field: (field_identifier) @function)
            arguments: (argument_list . (_) @key)) @read
    """,
}
_ENV_FUNCTIONS = {"Getenv", "LookupEnv"}


def extract(parsed: Parsed) -> Facts:
    facts = Facts()
    for node in parsed.captures("imports").get("path", []):
        value = string_value(node)
        if value:
            facts.imports.append((value, Parsed.line(node), ""))
    for _, found in parsed.matches("env"):
        if Parsed.text(found["package"][0]) != "os" or Parsed.text(found["function"][0]) not in _ENV_FUNCTIONS:
            continue
        read, key = found["read"][0], found["key"][0]
        facts.add_env_read(read, key, ("interpreted_string_literal", "raw_string_literal"))
    for child in parsed.root.named_children:
        _definition(child, facts)
    return facts


def _definition(node: Node, facts: Facts) -> None:
    if node.type == "function_declaration":
        _add(facts, node.child_by_field_name("name"), "")
    elif node.type == "method_declaration":
        receiver = _receiver_type(node.child_by_field_name("receiver"))
        _add(facts, node.child_by_field_name("name"), f"{receiver}." if receiver else "")
    elif node.type in ("type_declaration", "const_declaration", "var_declaration"):
        for spec in node.named_children:
            for name in spec.children_by_field_name("name"):
                _add(facts, name, "")


def _add(facts: Facts, name: Node | None, prefix: str) -> None:
    if name is not None:
        facts.defs.append((prefix + Parsed.text(name), Parsed.line(name)))


def _receiver_type(receiver: Node | None) -> str | None:
    """`(t *T)` and `(t T[K])` both name the type T."""
    stack = [receiver] if receiver is not None else []
    while stack:
        node = stack.pop(0)
        if node.type == "type_identifier":
            return Parsed.text(node)
        stack.extend(node.named_children)
    return None


def import_segments(module: str) -> tuple[str, ...]:
    return tuple(module.split("/"))


LANGUAGE = Language(
    name="go",
    extensions=(".go",),
    grammar="go",
    queries=QUERIES,
    extract=extract,
    import_segments=import_segments,
    env_markers=(b"Getenv", b"LookupEnv"),
)


@hookimpl
def register_languages(register):  # noqa: ANN001, ANN201 - hook signature
    register(LANGUAGE)
