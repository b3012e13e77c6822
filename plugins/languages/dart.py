"""Dart (`.dart`): classes, mixins, extensions, extension types and enums with their members, top-level functions,
getters, setters, variables and type aliases; `package:` and `dart:` imports and exports; and environment reads:
`Platform.environment['K']` (`.containsKey('K')` too), and the compile-time declarations `String.fromEnvironment('K')`
(`bool.`, `int.`, `hasEnvironment`, `const` or `new` before them), which a build passes as `--dart-define`, so a name
read so is no stale `env:` claim.

Members are `Type.member`: methods, getters, setters, fields, named constructors (`A.named()` is `A.named`; the
unnamed one is the class itself) and enum values. An extension's members are the extension's (`StringX.isBlank`), as
Dart names them when called explicitly; `class A = B with M;` defines A. Operators (`operator ==`) are not named:
no prose names them. A relative import (`import 'src/x.dart'`) names a file, not a package, and
is not an import here. `Platform.environment` used any other way (kept, handed on, iterated) may read any key.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anchorcheck import Language, hookimpl
from anchorcheck.plugin import Facts, Parsed, string_value

if TYPE_CHECKING:
    from tree_sitter import Node

_TYPES = frozenset({"class_definition", "mixin_declaration", "extension_declaration", "enum_declaration", "extension_type_declaration"})
_BODIES = frozenset({"class_body", "extension_body", "enum_body"})
_NAMED = frozenset({"function_signature", "getter_signature", "setter_signature"})  # the name is the `name` field
_CONSTRUCTORS = frozenset({"constructor_signature", "factory_constructor_signature", "constant_constructor_signature",
                           "redirecting_factory_constructor_signature"})
_VARIABLES = frozenset({"static_final_declaration_list", "initialized_identifier_list"})
_DIRECTIVES = frozenset({"library_import", "library_export"})
_ENV_MARKERS = (b"environment", b"Environment")
_DECLARED = frozenset({"String", "bool", "int"})  # `String.fromEnvironment('K')`: a `--dart-define` of the build
_DECLARATIONS = frozenset({"fromEnvironment", "hasEnvironment"})


def extract(parsed: Parsed) -> Facts:
    facts = Facts(defs=definitions_of(parsed))
    for node in parsed.root.named_children:
        if node.type == "import_or_export":
            _import(node, facts)
    if parsed.mentions(_ENV_MARKERS):
        _env_reads(parsed.root, facts)
    return facts


def _import(node: Node, facts: Facts) -> None:
    """`import 'package:args/args.dart'` imports the package `args` (`args/args.dart`); `dart:io` the platform's."""
    for directive in (c for c in node.named_children if c.type in _DIRECTIVES):
        uri = _first(directive, "configurable_uri") or _first(_first(directive, "import_specification"), "configurable_uri")
        written = string_value(_first(_first(uri, "uri"), "string_literal") or uri) if uri is not None else None
        if written and written.startswith(("package:", "dart:")):
            facts.imports.append((written.removeprefix("package:").removesuffix(".dart"), Parsed.line(node), ""))


def _first(node: Node | None, kind: str) -> Node | None:
    return next((c for c in node.named_children if c.type == kind), None) if node is not None else None


def definitions_of(parsed: Parsed) -> list[tuple[str, int]]:
    """Types and their members as `Type.member`, top-level functions, getters, variables and type aliases, in
    document order."""
    found: list[tuple[str, int]] = []
    for node in parsed.root.named_children:
        if node.type in _TYPES:
            name = node.child_by_field_name("name") or _first(node, "identifier") or _first(_first(node, "mixin_application_class"), "identifier")
            if name is None:
                continue
            found.append((Parsed.text(name), Parsed.line(name)))
            body = node.child_by_field_name("body") or next((c for c in node.named_children if c.type in _BODIES), None)
            for member in body.named_children if body is not None else ():
                found.extend((f"{Parsed.text(name)}.{n}", line) for n, line in _declared(member))
        elif node.type == "type_alias":
            alias = _first(node, "type_identifier") or _first(node, "identifier")
            if alias is not None:
                found.append((Parsed.text(alias), Parsed.line(alias)))
        else:
            found.extend(_declared(node))
    return found


def _declared(node: Node) -> list[tuple[str, int]]:
    """The names one declaration defines: a function, getter or setter, a named constructor, each variable of a
    list, an enum value; a member is one of these wrapped (`method_signature`, `declaration`)."""
    if node.type in ("method_signature", "declaration"):
        return [d for child in node.named_children for d in _declared(child)]
    if node.type in _NAMED or node.type == "enum_constant":
        name = node.child_by_field_name("name")
        return [(Parsed.text(name), Parsed.line(name))] if name is not None else []
    if node.type in _CONSTRUCTORS:
        names = [c for c in node.named_children if c.type == "identifier"]
        return [(Parsed.text(names[1]), Parsed.line(names[1]))] if len(names) > 1 else []  # `A.named`; `A()` is A
    if node.type in _VARIABLES:
        named = (_first(v, "identifier") for v in node.named_children if v.type in ("static_final_declaration", "initialized_identifier"))
        return [(Parsed.text(n), Parsed.line(n)) for n in named if n is not None]
    return []


def _env_reads(root: Node, facts: Facts) -> None:
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        if node.type in ("const_object_expression", "new_expression"):  # `const String.fromEnvironment('K')`
            owner, name = _first(node, "type_identifier"), _first(node, "identifier")
            if owner is not None and name is not None and Parsed.text(owner) in _DECLARED and Parsed.text(name) in _DECLARATIONS:
                argument = _first(_first(node, "arguments"), "argument")
                _keyed(argument.named_children[0] if argument is not None and argument.named_children else None, node, facts)
            continue
        if node.type != "selector" or Parsed.text(node).lstrip(".") not in ("environment", *_DECLARATIONS):
            continue
        before, after = node.prev_named_sibling, node.next_named_sibling
        owner_text = Parsed.text(before).lstrip(".") if before is not None else ""
        if Parsed.text(node).lstrip(".") in _DECLARATIONS and owner_text in _DECLARED:
            _keyed(_argument(after), node, facts)
        elif Parsed.text(node) == ".environment" and owner_text == "Platform":
            _platform(after, node, facts)


def _platform(after: Node | None, node: Node, facts: Facts) -> None:
    """`Platform.environment['K']` or `.containsKey('K')` reads K; any other use may read every key."""
    index = _first(_first(after, "unconditional_assignable_selector"), "index_selector")
    if index is not None:
        _keyed(index.named_children[0] if index.named_children else None, node, facts)
    elif after is not None and Parsed.text(after) in (".containsKey", ".[]") and after.next_named_sibling is not None:
        _keyed(_argument(after.next_named_sibling), node, facts)
    else:
        facts.add_env_whole(node)


def _argument(selector: Node | None) -> Node | None:
    """The first positional argument of a call's `(…)` selector."""
    arguments = _first(_first(selector, "argument_part"), "arguments")
    argument = _first(arguments, "argument")
    return argument.named_children[0] if argument is not None and argument.named_children else None


def _keyed(key: Node | None, node: Node, facts: Facts) -> None:
    value = string_value(key) if key is not None and key.type == "string_literal" and "$" not in Parsed.text(key) else None
    if value:
        facts.env.append((value, Parsed.line(node)))
    else:
        facts.env_computed.append(Parsed.line(node))


def import_segments(module: str) -> tuple[str, ...]:
    """`args/command_runner` → ('args', 'command_runner'): a package, then its libraries' path."""
    return tuple(module.split("/"))


LANGUAGE = Language(
    "dart", (".dart",), "dart", {}, extract,
    import_segments=import_segments, env_markers=_ENV_MARKERS, definitions=definitions_of,
)


@hookimpl
def register_languages(register):  # noqa: ANN001, ANN201 - hook signature
    register(LANGUAGE)
