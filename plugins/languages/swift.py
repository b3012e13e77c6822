"""Swift (`.swift`): imports (`import Foundation`, `@testable import App`, `import struct A.B`), environment reads
(`ProcessInfo.processInfo.environment["K"]`, `getenv("K")`), and classes, structs, enums (with their cases),
protocols, actors, functions, initializers, properties, type aliases and nested types.

Members are `Type.member`. An `extension Foo { func bar() }` gives `Foo.bar` without defining `Foo` (Rust's `impl`
the same way), and its conformances (`extension Foo: P`) are Foo's bases. Any file of the repository may extend a
type, so a member one file lacks is looked for in the other `.swift` files of its module (`package_files`) before
it is called undefined; a member a superclass or protocol outside the repository may supply (`class A: NSObject`) stays in doubt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anchorcheck import Language, hookimpl
from anchorcheck.plugin import Define, Definitions, Facts, Parsed, definitions, enclosing_name, nested

if TYPE_CHECKING:
    from tree_sitter import Node

QUERIES = {
    "env": """
        (call_expression (simple_identifier) @function
            (call_suffix (value_arguments . (value_argument value: (_) @key)))) @read
        (call_expression (navigation_expression suffix: (navigation_suffix suffix: (simple_identifier) @member)) @environment
            (call_suffix (value_arguments "[" . (value_argument value: (_) @key)))) @read
    """,
    "whole_env": """
        (navigation_expression target: (navigation_expression suffix: (navigation_suffix suffix: (simple_identifier) @owner))
            suffix: (navigation_suffix suffix: (simple_identifier) @member)) @read
    """,
}
_ENV_FUNCTIONS = {"getenv", "secure_getenv"}
_ENV_MARKERS = (b"getenv", b"environment")
_STRINGS = ("line_string_literal", "multi_line_string_literal")
_EXTENSION = "\0"  # marks the names an extension qualifies (not defines) in the walk; `definitions_of` drops it


def extract(parsed: Parsed) -> Facts:
    facts = Facts()
    for node in (c for c in parsed.root.named_children if c.type == "import_declaration"):
        name = next((c for c in node.named_children if c.type == "identifier"), None)
        if name is not None:
            facts.imports.append((Parsed.text(name), Parsed.line(node), ""))
    if parsed.mentions(_ENV_MARKERS):
        _env_reads(parsed, facts)
    facts.defs = definitions_of(parsed)
    for node in nested(parsed.root, _TYPES, _BODIES):  # the classes, structs, enums, actors, protocols and extensions
        owner = enclosing_name(node, _TYPES)  # an extension by the type it extends, as written
        for specifier in (c for c in node.named_children if c.type == "inheritance_specifier"):
            base = _type_name(specifier.child_by_field_name("inherits_from"))
            if base:
                facts.bases.append((owner, base, Parsed.line(specifier)))
    return facts


def _env_reads(parsed: Parsed, facts: Facts) -> None:
    """`getenv("K")` and a subscript of `ProcessInfo.processInfo.environment` read K; that dictionary used any
    other way (kept in a name, handed on, iterated) may read any key."""
    subscripts = set()
    for _, found in parsed.matches("env"):
        read, key = found["read"][0], found["key"][0]
        if "function" in found and Parsed.text(found["function"][0]) in _ENV_FUNCTIONS:
            facts.add_env_read(read, _literal(key), _STRINGS)
        elif "member" in found and Parsed.text(found["environment"][0]).endswith("processInfo.environment"):
            subscripts.add(found["environment"][0].id)
            facts.add_env_read(read, _literal(key), _STRINGS)
    for _, found in parsed.matches("whole_env"):
        use = found["read"][0]
        if Parsed.text(found["owner"][0]) == "processInfo" and Parsed.text(found["member"][0]) == "environment" and use.id not in subscripts:
            facts.add_env_whole(use)


def _literal(key: Node) -> Node:
    """A string with `\\(...)` or an escape in it is computed: its first such part stands for it (no literal)."""
    if key.type not in _STRINGS:
        return key
    return next((c for c in key.named_children if c.type not in ("line_str_text", "multi_line_str_text")), key)


_TYPES = frozenset({"class_declaration", "protocol_declaration"})
_BODIES = frozenset({"class_body", "enum_class_body", "protocol_body"})


def _type_name(node: Node | None) -> str:
    """`Foo.Inner` for the type `Foo.Inner<T>` (a user type's identifiers, without type arguments); "" otherwise."""
    if node is None or node.type != "user_type":
        return ""
    return ".".join(Parsed.text(c) for c in node.named_children if c.type == "type_identifier")


def _first_name(node: Node) -> list[Node]:
    """A declaration's own name: the first `name` field (a function's return type, a typealias's target are the next)."""
    name = node.child_by_field_name("name")
    return [name] if name is not None else []


def _type_spelling(name: Node) -> str:
    """A type's name; what an extension names (a `user_type`) is marked as only qualifying its members."""
    return _type_name(name) + _EXTENSION if name.type == "user_type" else Parsed.text(name)


def _bound(node: Node) -> list[Node]:
    """`let a = 1` and `var b, c: Int` define their names; `let (a, b) = pair` both."""
    found = []
    stack = list(reversed(node.children_by_field_name("name")))
    while stack:
        pattern = stack.pop()
        if pattern.type == "simple_identifier":
            found.append(pattern)
        elif pattern.type == "pattern":
            stack.extend(reversed(pattern.named_children))
    return found


_RULES = Definitions(
    defines={
        **dict.fromkeys(("class_declaration", "protocol_declaration"), Define(name=_first_name, spelling=_type_spelling, nests=True)),
        **dict.fromkeys(("function_declaration", "protocol_function_declaration"), Define(name=_first_name, at_name=True)),
        "init_declaration": Define(name=_first_name, at_name=True),
        **dict.fromkeys(("property_declaration", "protocol_property_declaration"), Define(name=_bound, at_name=True)),
        "enum_entry": Define(name_types=frozenset({"simple_identifier"}), at_name=True),
        **dict.fromkeys(("typealias_declaration", "associatedtype_declaration"), Define(name=_first_name)),
    },
    transparent=_BODIES,
)


def definitions_of(parsed: Parsed) -> list[tuple[str, int]]:
    """Types, functions, properties and members by the walk alone: all of the facts' `defs`. An extension's own
    entry is dropped (it defines no type) and its members are the extended type's."""
    return [(name.replace(_EXTENSION, ""), line) for name, line in definitions(parsed.root, _RULES) if not name.endswith(_EXTENSION)]


def import_segments(module: str) -> tuple[str, ...]:
    return tuple(module.split("."))


def package_files(path: str, repo: object) -> tuple[str, ...]:
    """The other `.swift` files of the module: a Swift package's target (`Sources/App/`, `Tests/AppTests/`, every
    folder below), else the file's folder and below. The module sees its types without an import, and a type's
    members may be written in an extension in any of them (one in another module is not looked at)."""
    parts = path.split("/")
    at = max((n for n, part in enumerate(parts[:-2]) if part in _TARGET_FOLDERS), default=None)
    scope = "/".join(parts[: at + 2]) if at is not None else "/".join(parts[:-1])
    listed = getattr(repo, "paths")(scope=scope or None)
    return tuple(p for p in listed if p != path and p.endswith(".swift"))


_TARGET_FOLDERS = frozenset({"Sources", "Tests"})


LANGUAGE = Language(
    "swift", (".swift",), "swift", QUERIES, extract,
    import_segments=import_segments, env_markers=_ENV_MARKERS, package_files=package_files, definitions=definitions_of,
)


@hookimpl
def register_languages(register):  # noqa: ANN001, ANN201 - hook signature
    register(LANGUAGE)
