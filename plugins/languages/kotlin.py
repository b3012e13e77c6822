"""Kotlin (`.kt`, `.kts`): imports (plain, `.*`, aliased), `System.getenv("K")` (or `System.getenv()["K"]`,
`.get("K")` on it or on a name it is kept in), and classes, objects, interfaces, enums with their members.

Import names are dotted as in Java (`import:io.element.android` matches `import io.element.android.x.Y`);
members are `Type.member`: functions, properties, a data class's `val`/`var` constructor parameters, enum
entries, a companion object's members (called on the class), nested types `Outer.Inner`; an extension
function `fun Room.isDm()` is `Room.isDm`, as Go names a method by its receiver.

The grammar names almost no fields, so the walk finds names and bodies by node type.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anchorcheck import Language, hookimpl
from anchorcheck_plugins.languages import java
from anchorcheck.plugin import Define, Definitions, Facts, Parsed, definitions, nested, string_constants

if TYPE_CHECKING:
    from tree_sitter import Node

QUERIES = {
    "env": """
        (call_expression (navigation_expression (_) @object (navigation_suffix (simple_identifier) @method))
            (call_suffix (value_arguments . (value_argument (_) @key)))) @read
        (indexing_expression (_) @object (indexing_suffix . (_) @key)) @read
    """,
    "whole_env": """
        (call_expression (navigation_expression (_) @object (navigation_suffix (simple_identifier) @method))
            (call_suffix (value_arguments) @all)) @read
    """,
    "env_aliases": "(property_declaration (variable_declaration (simple_identifier) @alias) . (call_expression) @value)",
    "constants": "(property_declaration (variable_declaration (simple_identifier) @name) . (_) @value)",
}
_SYSTEM = {"System", "java.lang.System"}
_MAP_LOOKUPS = {"get", "getOrDefault", "getValue", "containsKey"}
_COUNTS = {"size", "isEmpty", "isNotEmpty", "count"}  # how many variables there are, not any one of them
_TYPES = frozenset({"class_declaration", "object_declaration"})
_ENV_MARKERS = (b"getenv",)


def extract(parsed: Parsed) -> Facts:
    # Imports and supertypes are found by walking the few nodes that hold them (the file's import list, its
    # classes and objects), not by queries, which walk the whole tree: a third of the extraction's time.
    facts = Facts()
    for imports in (c for c in parsed.root.named_children if c.type == "import_list"):
        for stmt in (c for c in imports.named_children if c.type == "import_header"):
            name = next((c for c in stmt.named_children if c.type == "identifier"), None)
            if name is not None:
                _import(facts, name, stmt)
    if parsed.mentions(_ENV_MARKERS):
        _env_reads(parsed, facts)
    facts.defs = definitions_of(parsed)
    for node in nested(parsed.root, _TYPES, ("class_body", "enum_class_body", "companion_object")):  # classes, interfaces, objects
        owner = _qualified(node)
        for specifier in (c for c in node.named_children if c.type == "delegation_specifier"):
            base = _base_type(specifier)
            if base is not None:
                facts.bases.append((owner, base, Parsed.line(specifier)))
        if any(child.type == "enum" for child in node.children):  # an enum class has `values()`, `entries`... of its own
            facts.bases.append((owner, "kotlin.Enum", Parsed.line(node)))
    return facts


def _import(facts: Facts, name: Node, stmt: Node) -> None:
    """`import a.b.C` binds C, `import a.b.C as D` binds D to it, `import a.b.*` every class of a.b."""
    written = Parsed.text(name)
    facts.imports.append((written, Parsed.line(stmt), ""))
    alias = next((c for c in stmt.named_children if c.type == "import_alias"), None)
    if any(child.type == "wildcard_import" for child in stmt.named_children):
        facts.bound.append(("*", written, "*", Parsed.line(stmt)))
        return
    simple = written.rpartition(".")[2]
    local = Parsed.text(alias.named_children[-1]) if alias is not None and alias.named_children else simple
    facts.bound.append((local, written, simple, Parsed.line(stmt)))


def _env_reads(parsed: Parsed, facts: Facts) -> None:
    """Reads by key of `System.getenv`, of the map it returns, and of a name that map is kept in; the map
    handed on, iterated or copied (in any other use) may read any key."""
    kept = {Parsed.text(found["alias"][0]) for _, found in parsed.matches("env_aliases") if _whole(found["value"][0], set())}
    constants = string_constants(parsed, "constants", ("string_literal",), _template)
    for _, found in parsed.matches("env"):
        read, key, target = found["read"][0], found["key"][0], found["object"][0]
        method = Parsed.text(found["method"][0]) if "method" in found else None
        if method is None or method in _MAP_LOOKUPS:
            reads = _whole(target, kept)
        else:
            reads = method == "getenv" and Parsed.text(target) in _SYSTEM
        if reads and not _written(read):
            facts.add_env_read(read, _template(key), ("string_literal",), constants)
    uses = [found["read"][0] for _, found in parsed.matches("whole_env") if _whole(found["read"][0], set())]
    for use in uses + (parsed.spellings(kept, frozenset({"simple_identifier"})) if kept else []):
        if _hands_on(use):
            facts.add_env_whole(use)


def _template(node: Node) -> Node:
    """A string with `$name` or `${...}` in it is computed: its first template part stands for it (no literal)."""
    if node.type != "string_literal":
        return node
    return next((c for c in node.named_children if c.type != "string_content"), node)


def _whole(node: Node, kept: set[str]) -> bool:
    """`System.getenv()`, the call without a key that returns the whole environment, or a name it is kept in."""
    if node.type == "simple_identifier":
        return Parsed.text(node) in kept
    if node.type != "call_expression" or len(node.named_children) != 2:
        return False
    callee, suffix = node.named_children
    arguments = suffix.named_children[0] if suffix.named_children else None
    if callee.type != "navigation_expression" or arguments is None or arguments.type != "value_arguments" or arguments.named_children:
        return False
    target, member = callee.named_children[0], callee.named_children[-1]
    return Parsed.text(target) in _SYSTEM and Parsed.text(member).lstrip(".") == "getenv"


def _written(read: Node) -> bool:
    """`env["K"] = v` writes the key (a copy's: the process environment is read-only in Kotlin)."""
    parent = read.parent
    return parent is not None and parent.type in ("assignment", "directly_assignable_expression")


def _hands_on(use: Node) -> bool:
    """Whether a use of the whole environment may read any key: not a lookup by key (`[k]`, `.get(k)`), a
    count, nor the declaration that keeps it in a name (followed through the name)."""
    parent = use.parent
    if parent is None or parent.type in ("variable_declaration", "property_declaration"):
        return False
    if parent.type == "indexing_expression":
        return parent.named_children[0] != use
    if parent.type == "navigation_expression" and parent.named_children[0] == use:
        member = Parsed.text(parent.named_children[-1]).lstrip(".?")
        return member not in _MAP_LOOKUPS | _COUNTS
    return True


def _base_type(specifier: Node) -> str | None:
    """The supertype a `: Base(x), Iface, Other by impl` entry names, dotted, without type arguments."""
    node: Node | None = specifier
    while node is not None and node.type != "user_type":
        node = next((c for c in node.named_children if c.type in ("user_type", "constructor_invocation", "explicit_delegation")), None)
    if node is None:
        return None
    written = ".".join(Parsed.text(c) for c in node.named_children if c.type == "type_identifier")
    return written if written not in ("Any", "kotlin.Any") else None


def _qualified(node: Node) -> str:
    """`Outer.Inner`: the names of the classes and objects around a declaration, itself included."""
    names = []
    current: Node | None = node
    while current is not None:
        if current.type in _TYPES:
            names.extend(Parsed.text(n) for n in _name(current))
        current = current.parent
    return ".".join(reversed(names))


_IMPLICIT = {"kotlin.Enum": frozenset({"values", "valueOf", "entries", "name", "ordinal", "compareTo"})}


def external_members(module: str, name: str) -> frozenset[str] | None:
    """The members every `enum class` has without writing them: `values()`, `valueOf`, `entries`, `name`, `ordinal`."""
    return _IMPLICIT.get(name) if not module else None


def _name(node: Node) -> list[Node]:
    """A declaration's name: its first own identifier (a class's type, a function's name after any receiver)."""
    return next(([c] for c in node.named_children if c.type in ("type_identifier", "simple_identifier")), [])


def _property_names(node: Node) -> list[Node]:
    """`val a = 1` defines a; `val (a, b) = pair` defines both."""
    found = []
    for child in node.named_children:
        declarations = child.named_children if child.type == "multi_variable_declaration" else [child]
        found += [n for d in declarations if d.type == "variable_declaration" for n in _name(d)]
    return found


def _constructor_property(node: Node) -> list[Node]:
    """A primary constructor's `val id: String` (or `var`) is a property of the class; a plain parameter is not."""
    return _name(node) if any(c.type == "binding_pattern_kind" for c in node.named_children) else []


def _bodies(node: Node) -> list[Node]:
    """What holds a class's members: its primary constructor (`val` parameters) and its body."""
    return [c for c in node.named_children if c.type in ("primary_constructor", "class_body", "enum_class_body")]


def _receiver(node: Node) -> str | None:
    """The type an extension is declared on (`fun Room.isDm()`, `val Room.size`): its member by name."""
    receiver = next((c for c in node.named_children if c.type == "receiver_type"), None)
    found = receiver
    while found is not None and found.type != "user_type":
        found = next(iter(found.named_children), None)
    names = [c for c in found.named_children if c.type == "type_identifier"] if found is not None else []
    return Parsed.text(names[-1]) if names else None


# Members of a class, object or interface; a nested class or object is walked by these rules too (nests).
# A companion object's members are the class's own: `Room.create()`, written like a Java static.
_MEMBERS = Definitions(
    defines={
        "function_declaration": Define(name=_name),
        "property_declaration": Define(name=_property_names, at_name=True),
        "class_parameter": Define(name=_constructor_property, at_name=True),
        "enum_entry": Define(name=_name, at_name=True),
        **dict.fromkeys(_TYPES, Define(name=_name, nests=True, body=_bodies)),
        "type_alias": Define(name=_name),
    },
    transparent=frozenset({"companion_object", "class_body"}),
)
_DEFINITIONS = Definitions(
    defines={
        **dict.fromkeys(_TYPES, Define(name=_name, members=_MEMBERS, body=_bodies)),
        "function_declaration": Define(name=_name, owner=_receiver),
        "property_declaration": Define(name=_property_names, at_name=True, owner=_receiver),
        "type_alias": Define(name=_name),
    },
)


def definitions_of(parsed: Parsed) -> list[tuple[str, int]]:
    """Classes, objects, functions, properties and their members by the walk alone: the first of the facts'
    `defs` (`Language.definitions`)."""
    return definitions(parsed.root, _DEFINITIONS)


def import_segments(module: str) -> tuple[str, ...]:
    return tuple(module.split("."))


def module_files(module: str, path: str, repo: object, roots: tuple[str, ...]) -> tuple[str, ...]:
    """The source of class `a.b.C`: a file `.../a/b/C.kt`, wherever the source root is (the convention;
    Kotlin lets a file hold any class, and one that does is not found)."""
    return java.class_files(module, repo, ".kt")


def package_files(path: str, repo: object) -> tuple[str, ...]:
    """The other `.kt` files of the directory: the package (by convention), whose names need no import."""
    return java.directory_files(path, repo, ".kt")


LANGUAGE = Language(
    name="kotlin",
    extensions=(".kt", ".kts"),
    grammar="kotlin",
    queries=QUERIES,
    extract=extract,
    import_segments=import_segments,
    env_markers=_ENV_MARKERS,
    module_files=module_files,
    package_files=package_files,
    external_members=external_members,
    definitions=definitions_of,
)


@hookimpl
def register_languages(register):  # noqa: ANN001, ANN201 - hook signature
    register(LANGUAGE)
