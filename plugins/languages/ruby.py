"""Ruby: `require "x"` (a feature path, matched by `/` segment), `ENV` reads, modules/classes/methods.

`require_relative` loads a file of the project, so it is not an import.
Definitions nest with dots: `Outer.Store.save`, singleton methods included.
"""

from __future__ import annotations

from tree_sitter import Node

from anchorcheck import Language, hookimpl
from anchorcheck.facts import Facts, Parsed, string_value

QUERIES = {
    "imports": "(call method: (identifier) @method arguments: (argument_list . (string) @feature)) @stmt",
    "env": """
        (element_reference object: (constant) @object . (_) @key) @read
        (call receiver: (constant) @object method: (identifier) @method arguments: (argument_list . (_) @key)) @read
    """,
}
_REQUIRES = {"require", "load", "autoload_require"}
_ENV_METHODS = {"fetch", "key?", "has_key?", "include?"}


def extract(parsed: Parsed) -> Facts:
    facts = Facts()
    for _, found in parsed.matches("imports"):
        value = string_value(found["feature"][0])
        if Parsed.text(found["method"][0]) in _REQUIRES and value:
            facts.imports.append((value, Parsed.line(found["stmt"][0]), ""))
    for _, found in parsed.matches("env"):
        if Parsed.text(found["object"][0]) != "ENV":
            continue
        if "method" in found and Parsed.text(found["method"][0]) not in _ENV_METHODS:
            continue
        read, key = found["read"][0], found["key"][0]
        facts.add_env_read(read, key, ("string",))
    _definitions(parsed.root, "", facts)
    return facts


def _definitions(node: Node, prefix: str, facts: Facts) -> None:
    for child in node.named_children:
        if child.type in ("module", "class"):
            name = child.child_by_field_name("name")
            if name is None:
                continue
            qualified = prefix + Parsed.text(name).replace("::", ".")
            facts.defs.append((qualified, Parsed.line(child)))
            body = child.child_by_field_name("body")
            if body is not None:
                _definitions(body, qualified + ".", facts)
        elif child.type in ("method", "singleton_method"):
            name = child.child_by_field_name("name")
            if name is not None:
                facts.defs.append((prefix + Parsed.text(name), Parsed.line(child)))
        elif child.type == "assignment":
            left = child.child_by_field_name("left")
            if left is not None and left.type == "constant":
                facts.defs.append((prefix + Parsed.text(left), Parsed.line(child)))


def import_segments(module: str) -> tuple[str, ...]:
    return tuple(module.split("/"))


LANGUAGE = Language(
    name="ruby",
    extensions=(".rb", ".rake", ".gemspec"),
    filenames=("Rakefile", "Gemfile"),
    grammar="ruby",
    queries=QUERIES,
    extract=extract,
    import_segments=import_segments,
    env_markers=(b"ENV",),
)


@hookimpl
def register_languages(register):  # noqa: ANN001, ANN201 - hook signature
    register(LANGUAGE)
