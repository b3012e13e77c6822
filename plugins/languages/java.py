"""Java: imports (plain, static, on-demand), `System.getenv("K")` (or `System.getenv().get("K")`, or
`java.lang.System` written out, or a bare `getenv("K")` after a static import), and types with
their members.

Import names are dotted (`import:com.google.common` matches
`import com.google.common.collect.*`); members are `Type.member`, nested
types `Outer.Inner`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anchorcheck import Language, hookimpl
from anchorcheck.plugin import Define, Definitions, Facts, Parsed, definitions, enclosing_name, string_constants

if TYPE_CHECKING:
    from tree_sitter import Node

QUERIES = {
    "imports": "(import_declaration (_) @name) @stmt",
    "env": """
        (method_invocation object: [(identifier) (field_access)] @object name: (identifier) @method
            arguments: (argument_list . (_) @key)) @read
        (method_invocation
            object: (method_invocation
                object: [(identifier) (field_access)] @object name: (identifier) @method arguments: (argument_list) @all)
            name: (identifier) @lookup arguments: (argument_list . (_) @key)) @read
    """,
    "whole_env": """
        (method_invocation object: [(identifier) (field_access)] @object name: (identifier) @method
            arguments: (argument_list) @all) @read
    """,
    "constants": "(variable_declarator name: (identifier) @name value: (_) @value)",
    "bases": """
        (class_declaration name: (identifier) @owner superclass: (superclass (_) @base))
        (class_declaration name: (identifier) @owner interfaces: (super_interfaces (type_list (_) @base)))
        (interface_declaration name: (identifier) @owner (extends_interfaces (type_list (_) @base)))
        (enum_declaration name: (identifier) @owner interfaces: (super_interfaces (type_list (_) @base)))
        (record_declaration name: (identifier) @owner interfaces: (super_interfaces (type_list (_) @base)))
    """,
    "types": "[(class_declaration) (interface_declaration) (enum_declaration) (record_declaration)] @type",
    "bare_calls": "(method_invocation !object name: (identifier) @method arguments: (argument_list . (_) @key)) @read",
    "env_aliases": """
        (variable_declarator name: (identifier) @alias
            value: (method_invocation object: [(identifier) (field_access)] @object name: (identifier) @method
                arguments: (argument_list) @all))
    """,
}
_MAP_LOOKUPS = {"get", "getOrDefault", "containsKey"}
_COUNTS = {"size", "isEmpty"}  # read how many variables there are, not any one of them
_SYSTEM = {"System", "java.lang.System"}  # java.lang is imported implicitly; the full name is the same class
_STATIC_GETENV = {"java.lang.System.getenv", "java.lang.System"}  # `import static` of it, or of System.*


def extract(parsed: Parsed) -> Facts:
    facts = Facts()
    bare_getenv = False
    for _, found in parsed.matches("imports"):
        name, stmt = found["name"][0], found["stmt"][0]
        if name.type in ("scoped_identifier", "identifier"):
            facts.imports.append((Parsed.text(name), Parsed.line(stmt), ""))
            _bind(facts, name, stmt)
            bare_getenv |= Parsed.text(name) in _STATIC_GETENV and any(child.type == "static" for child in stmt.children)
    # `Map<String, String> env = System.getenv();` keeps the whole environment in a name, looked up later.
    kept = {Parsed.text(found["alias"][0]) for _, found in parsed.matches("env_aliases") if _whole_environment(found)}
    reads = [found for _, found in parsed.matches("env") if _reads_environment(found, kept)]
    # Object-less calls are in every file; only one that imports getenv statically has them read the environment.
    if bare_getenv:
        reads += [found for _, found in parsed.matches("bare_calls") if Parsed.text(found["method"][0]) == "getenv"]
    constants = string_constants(parsed, "constants", ("string_literal",)) if reads else {}
    for found in reads:
        facts.add_env_read(found["read"][0], found["key"][0], ("string_literal",), constants)
    if parsed.mentions((b"getenv",)):
        _whole_reads(parsed, facts, kept)
    facts.defs = definitions_of(parsed)
    for _, found in parsed.matches("bases"):
        base = found["base"][0]
        if base.type == "generic_type":
            base = base.named_children[0]
        written = Parsed.text(base)
        if written not in ("Object", "java.lang.Object"):
            facts.bases.append((enclosing_name(found["owner"][0], _NAMED_TYPES), written, Parsed.line(base)))
    # What the language gives every type, after the bases it names: an enum's, and Object's.
    for _, found in parsed.matches("types"):
        name = found["type"][0].child_by_field_name("name")
        if name is not None:
            implicit = "java.lang.Enum" if found["type"][0].type == "enum_declaration" else "java.lang.Object"
            facts.bases.append((enclosing_name(name, _NAMED_TYPES), implicit, Parsed.line(name)))
    return facts


# The members no type can write otherwise: Object's final methods, and an enum's generated and final ones.
# (`toString`, `equals`... may be overridden: a memory of one is of the override, counted only where written.)
_OBJECT_FINAL = frozenset({"getClass", "notify", "notifyAll", "wait"})
_IMPLICIT = {
    "java.lang.Object": _OBJECT_FINAL,
    "java.lang.Enum": _OBJECT_FINAL | {"values", "valueOf", "name", "ordinal", "compareTo", "getDeclaringClass", "describeConstable"},
}


def external_members(module: str, name: str) -> frozenset[str] | None:
    """The members Java gives every type (Object's final methods) and every enum (`values()`, `valueOf`...)."""
    return _IMPLICIT.get(name) if not module else None


def _bind(facts: Facts, name: Node, stmt: Node) -> None:
    """`import a.b.C;` binds C to the class a.b.C; `import a.b.*;` binds every class of package a.b."""
    if any(child.type == "static" for child in stmt.children):
        return
    written = Parsed.text(name)
    if any(child.type == "asterisk" for child in stmt.children):
        facts.bound.append(("*", written, "*", Parsed.line(stmt)))
    else:
        simple = written.rpartition(".")[2]
        facts.bound.append((simple, written, simple, Parsed.line(stmt)))


def module_files(module: str, path: str, repo: object, roots: tuple[str, ...]) -> tuple[str, ...]:
    """The source of class `a.b.C`: a file `.../a/b/C.java`, wherever the source root is."""
    return class_files(module, repo, ".java")


def package_files(path: str, repo: object) -> tuple[str, ...]:
    """The other `.java` files of the directory: the package, whose classes need no import."""
    return directory_files(path, repo, ".java")


def class_files(module: str, repo: object, extension: str) -> tuple[str, ...]:
    """The files `.../a/b/C` + extension of class `a.b.C` (a JVM language's layout), below any source root."""
    suffix = module.replace(".", "/") + extension
    listed = getattr(repo, "paths")(named=[suffix.rpartition("/")[2]])
    return tuple(p for p in listed if p == suffix or p.endswith("/" + suffix))


def directory_files(path: str, repo: object, extension: str) -> tuple[str, ...]:
    """The other files of `path`'s directory with that extension: a JVM package, laid out as one directory."""
    directory = path.rpartition("/")[0]
    listed = getattr(repo, "paths")(scope=directory or None)
    return tuple(p for p in listed if p != path and p.endswith(extension) and p.rpartition("/")[0] == directory)


def _whole_reads(parsed: Parsed, facts: Facts, kept: set[str]) -> None:
    """`System.getenv()` handed on, iterated or copied (not looked up by key, not kept in a name), and
    a name it is kept in used other than by a lookup: either may read any key."""
    uses = [found["read"][0] for _, found in parsed.matches("whole_env") if _whole_environment(found)]
    uses += parsed.spellings(kept, frozenset({"identifier"})) if kept else []
    for use in uses:
        parent = use.parent
        if parent is None or parent.type == "variable_declarator":
            continue  # `Map env = System.getenv()`, followed through `env`
        if parent.type == "method_invocation" and parent.child_by_field_name("object") == use:
            name = parent.child_by_field_name("name")
            if name is not None and Parsed.text(name) in _MAP_LOOKUPS | _COUNTS:
                continue
        facts.add_env_whole(use)


def _whole_environment(found: dict[str, list[Node]]) -> bool:
    """`System.getenv()`: the call without a key, which returns the whole environment."""
    return Parsed.text(found["object"][0]) in _SYSTEM and Parsed.text(found["method"][0]) == "getenv" and not found["all"][0].named_children


def _reads_environment(found: dict[str, list[Node]], kept: set[str]) -> bool:
    """`System.getenv("K")`, or a lookup in the whole environment: `System.getenv().get("K")`, or
    `env.get("K")` on a name it was kept in."""
    if "lookup" in found:
        return _whole_environment(found) and Parsed.text(found["lookup"][0]) in _MAP_LOOKUPS
    method = Parsed.text(found["method"][0])
    if Parsed.text(found["object"][0]) in kept:
        return method in _MAP_LOOKUPS
    return Parsed.text(found["object"][0]) in _SYSTEM and method == "getenv"


# Types with their methods, constructors, enum constants and fields (`Type.member`), nested types (`Outer.Inner`).
# A record's components (`record Point(int x, int... rest)`) are fields too, written before its body.
_MEMBERS = Definitions(
    defines=dict.fromkeys(
        ("method_declaration", "constructor_declaration", "enum_constant", "variable_declarator", "formal_parameter", "annotation_type_element_declaration"),
        Define(),
    ),
    transparent=frozenset({"field_declaration", "constant_declaration", "enum_body_declarations", "spread_parameter"}),
)
_TYPES = ("class_declaration", "interface_declaration", "enum_declaration", "annotation_type_declaration")
_NAMED_TYPES = frozenset({*_TYPES, "record_declaration"})
_DEFINITIONS = Definitions(
    defines={
        **dict.fromkeys(_TYPES, Define(members=_MEMBERS, nests=True)),
        "record_declaration": Define(members=_MEMBERS, nests=True, body=("parameters", "body")),
    }
)


def import_segments(module: str) -> tuple[str, ...]:
    return tuple(module.split("."))


def definitions_of(parsed: Parsed) -> list[tuple[str, int]]:
    """Classes, interfaces, records and their members by the walk alone (`Language.definitions`): all of
    the facts' `defs`, which the bases and imports after it leave alone."""
    return definitions(parsed.root, _DEFINITIONS)


LANGUAGE = Language(
    name="java",
    extensions=(".java",),
    grammar="java",
    queries=QUERIES,
    extract=extract,
    import_segments=import_segments,
    env_markers=(b"getenv",),
    module_files=module_files,
    package_files=package_files,
    external_members=external_members,
    definitions=definitions_of,
)


@hookimpl
def register_languages(register):  # noqa: ANN001, ANN201 - hook signature
    register(LANGUAGE)
