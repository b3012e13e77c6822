"""C#: `using` directives (plain, `static`, `global`, aliased), `Environment.GetEnvironmentVariable("K")`
(`System.` or `global::System.` written out, or bare after `using static System.Environment`), and
classes, structs, interfaces, enums, records and delegates with their members.

Import names are dotted (`import:Microsoft.Extensions` matches `using Microsoft.Extensions.Logging;`);
members are `Type.member` (methods, constructors, properties, fields, events, enum members, a record's
positional parameters), nested types `Outer.Inner`; namespaces do not qualify names, as Java's packages
do not. `GetEnvironmentVariables()` and a configuration builder's `AddEnvironmentVariables()` (which
makes every variable a configuration key) may read any variable.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from anchorcheck import Language, hookimpl
from anchorcheck.plugin import Define, Definitions, Facts, Parsed, definitions, enclosing_name, string_constants

if TYPE_CHECKING:
    from tree_sitter import Node

QUERIES = {
    "env": """
        (invocation_expression function: (member_access_expression expression: (_) @object name: (identifier) @method)
            arguments: (argument_list) @arguments) @read
        (invocation_expression function: (identifier) @method arguments: (argument_list) @arguments) @read
    """,
    "constants": "(variable_declarator name: (identifier) @name . (_) @value)",
}
_ENVIRONMENT = {"Environment", "System.Environment", "global::System.Environment"}
_STATIC_ENVIRONMENT = {"System.Environment"}  # `using static` of it makes a bare `GetEnvironmentVariable` its
_READ = "GetEnvironmentVariable"
_WHOLE = {"GetEnvironmentVariables", "AddEnvironmentVariables"}
_ENV_MARKERS = (b"EnvironmentVariable",)
_TYPES = ("class_declaration", "struct_declaration", "interface_declaration", "enum_declaration")
_RECORDS = ("record_declaration", "record_struct_declaration")
_NAMED_TYPES = frozenset({*_TYPES, *_RECORDS})


def extract(parsed: Parsed) -> Facts:
    # `using`s and base lists are found by walking the namespaces and types that hold them, not by queries,
    # which walk every node of the file (a third of the extraction's time on agent-framework's .NET half).
    facts = Facts()
    bare_reads = False
    declarations = list(_declarations(parsed.root))
    for stmt in (node for node in declarations if node.type == "using_directive"):
        bare_reads |= _using(facts, stmt) in _STATIC_ENVIRONMENT
    if parsed.mentions(_ENV_MARKERS):
        _env_reads(parsed, facts, bare_reads)
    facts.defs = definitions_of(parsed)
    for node in (node for node in declarations if node.type in _NAMED_TYPES):
        owner = enclosing_name(node, _NAMED_TYPES)
        for base in (b for c in node.named_children if c.type == "base_list" for b in c.named_children):
            if base.type == "primary_constructor_base_type":  # `record B(int X) : A(X)`
                base = base.child_by_field_name("type") or base
            if base.type == "generic_name":
                base = base.named_children[0]
            if Parsed.text(base) not in ("object", "System.Object"):
                facts.bases.append((owner, Parsed.text(base), Parsed.line(base)))
        if node.type == "enum_declaration":  # what every enum has without writing it: `HasFlag`, `GetType`...
            facts.bases.append((owner, "System.Enum", Parsed.line(node)))
    return facts


def _declarations(root: Node) -> Iterator[Node]:
    """The file's `using`s and types in document order, in namespaces and nested types too (not local ones)."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        body = node.child_by_field_name("body") if node.type in _NAMED_TYPES or node.type == "namespace_declaration" else None
        children = body.named_children if body is not None else node.named_children if node == root else []
        stack.extend(reversed([c for c in children if c.type in _NAMED_TYPES or c.type in ("using_directive", "namespace_declaration")]))


def _using(facts: Facts, stmt: Node) -> str:
    """Record one `using`: the namespace or type it names (static or global alike); `using A.B;` binds every
    type of A.B, `using X = A.B.C;` binds X to A.B.C. Returns the name a `using static` brings in, else ""."""
    alias = stmt.child_by_field_name("name")
    target = next((c for c in reversed(stmt.named_children) if c != alias and c.type in ("identifier", "qualified_name", "generic_name", "alias_qualified_name")), None)
    if target is None:
        return ""
    written = "".join(Parsed.text(target).split()).removeprefix("global::")
    facts.imports.append((written, Parsed.line(stmt), ""))
    if any(not c.is_named and c.type == "static" for c in stmt.children):
        return written
    if alias is not None:
        facts.bound.append((Parsed.text(alias), written, written.rpartition(".")[2], Parsed.line(stmt)))
    else:
        facts.bound.append(("*", written, "*", Parsed.line(stmt)))
    return ""


def _env_reads(parsed: Parsed, facts: Facts, bare_reads: bool) -> None:
    """`Environment.GetEnvironmentVariable("K")` reads K (a bare call only under `using static System.Environment`);
    `GetEnvironmentVariables()` and `AddEnvironmentVariables()` may read any key."""
    constants = string_constants(parsed, "constants", ("string_literal",))
    for _, found in parsed.matches("env"):
        method, read = Parsed.text(found["method"][0]), found["read"][0]
        target = "".join(Parsed.text(found["object"][0]).split()) if "object" in found else None
        if method in _WHOLE and (target in _ENVIRONMENT or method.startswith("Add")):
            facts.add_env_whole(read)
            continue
        if method != _READ or not (target in _ENVIRONMENT if target is not None else bare_reads):
            continue
        arguments = [a.named_children[-1] for a in found["arguments"][0].named_children if a.type == "argument" and a.named_children]
        if arguments:
            facts.add_env_read(read, arguments[0], ("string_literal",), constants)


# Members of a type: methods, constructors, properties, fields and events (each declarator), enum members,
# a record's positional parameters (written before its body), nested delegates.
_MEMBERS = Definitions(
    defines={
        **dict.fromkeys(
            ("method_declaration", "constructor_declaration", "property_declaration", "event_declaration", "enum_member_declaration", "variable_declarator", "parameter"),
            Define(),
        ),
    },
    transparent=frozenset({"field_declaration", "event_field_declaration", "variable_declaration"}),
)


def _record_bodies(node: Node) -> list[Node]:
    """A record's positional parameters (`record Point(int X, int Y)`), then its body, if any."""
    return [c for c in node.named_children if c.type == "parameter_list" or c == node.child_by_field_name("body")]


_DEFINITIONS = Definitions(
    defines={
        **dict.fromkeys(_TYPES, Define(members=_MEMBERS, nests=True)),
        **dict.fromkeys(_RECORDS, Define(members=_MEMBERS, nests=True, body=_record_bodies)),
        "delegate_declaration": Define(),
    },
    transparent=frozenset({"namespace_declaration", "declaration_list"}),
)

# What C# gives every type and every enum, that no type can write otherwise.
_OBJECT = frozenset({"GetType", "MemberwiseClone", "ReferenceEquals"})
_IMPLICIT = {"System.Object": _OBJECT, "System.Enum": _OBJECT | {"HasFlag", "GetTypeCode", "CompareTo"}}


def external_members(module: str, name: str) -> frozenset[str] | None:
    """The members C# gives every type (`GetType`, `MemberwiseClone`) and every enum (`HasFlag`)."""
    return _IMPLICIT.get(name) if not module else None


def definitions_of(parsed: Parsed) -> list[tuple[str, int]]:
    """Types, delegates and their members by the walk alone: all of the facts' `defs` (`Language.definitions`)."""
    return definitions(parsed.root, _DEFINITIONS)


def import_segments(module: str) -> tuple[str, ...]:
    return tuple(module.split("."))


LANGUAGE = Language(
    name="csharp",
    extensions=(".cs",),
    grammar="csharp",
    queries=QUERIES,
    extract=extract,
    import_segments=import_segments,
    env_markers=_ENV_MARKERS,
    external_members=external_members,
    definitions=definitions_of,
)


@hookimpl
def register_languages(register):  # noqa: ANN001, ANN201 - hook signature
    register(LANGUAGE)
