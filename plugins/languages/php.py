"""PHP: `use` imports (plain, aliased, `use function`/`use const`, grouped `use A\\{B, C}`), environment
reads (`getenv('K')`, `$_ENV['K']`, `$_SERVER['K']`, Laravel's `env('K')`), and classes, interfaces,
traits, enums and functions with their members.

Import names keep PHP's backslashes (`import:Illuminate\\Support` matches `use Illuminate\\Support\\Str;`).
`require`/`include` load a file of the project by path, as Ruby's `require_relative` does: not an import.
Members are `Type.member` without the `$` of a property (`Store.name` for `public $name`), promoted
constructor parameters included; functions are named without their namespace, as Java's classes are
without their package, including the helpers a file defines inside `if (!function_exists(...))`.

`env('K')` is the helper a Laravel application (and its packages) reads every variable through, with
the key written as in `getenv`: a read of K, as Go's plugin reads viper's `BindEnv("k", "K")`. A method
`$x->env('K')` is another object's.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from anchorcheck import Language, hookimpl
from anchorcheck.plugin import Define, Definitions, Facts, Parsed, definitions, string_constants

if TYPE_CHECKING:
    from tree_sitter import Node

QUERIES = {
    "env": """
        (function_call_expression function: [(name) (qualified_name)] @function arguments: (arguments) @arguments) @read
        (subscript_expression . (variable_name) @object . (_) @key) @read
    """,
    "constants": "(const_element (name) @name . (_) @value)",
}
_STRINGS = ("string", "encapsed_string")
_READERS = {"getenv", "env"}  # functions that read the variable their first argument names
_SUPERGLOBALS = {"$_ENV", "$_SERVER"}  # arrays of the environment (the server's holds it in CLI and FPM alike)
_ENV_MARKERS = (b"getenv", b"$_ENV", b"$_SERVER", b"env(")
_TYPES = frozenset({"class_declaration", "interface_declaration", "trait_declaration", "enum_declaration"})


def extract(parsed: Parsed) -> Facts:
    # `use` statements and what a type gets from elsewhere are found by walking the statements and types that
    # hold them, not by queries, which walk every node of the file (a third of the extraction's time on livewire).
    facts = Facts()
    declarations = list(_declarations(parsed.root))
    for stmt in (node for node in declarations if node.type == "namespace_use_declaration"):
        _imports(facts, stmt)
    if parsed.mentions(_ENV_MARKERS):
        _env_reads(parsed, facts)
    facts.defs = definitions_of(parsed)
    for node in (node for node in declarations if node.type in _TYPES):
        _type_facts(facts, node)
    return facts


_HOLDERS = frozenset({"program", "namespace_definition", "compound_statement", "if_statement", "else_clause", "else_if_clause"})


def _declarations(root: Node) -> Iterator[Node]:
    """The file's `use` statements and types in document order, in namespace blocks and guards too."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        if node.type in _HOLDERS:
            stack.extend(reversed(node.named_children))


def _type_facts(facts: Facts, node: Node) -> None:
    """A type's bases (`extends`, `implements`, the traits it uses) and the properties its constructor promotes
    (`__construct(private string $name)` declares `name`)."""
    owner = Parsed.text(node.child_by_field_name("name") or node)
    body = node.child_by_field_name("body")
    members = body.named_children if body is not None else []
    bases = [b for c in node.named_children if c.type in ("base_clause", "class_interface_clause") for b in c.named_children]
    bases += [b for c in members if c.type == "use_declaration" for b in c.named_children if b.type in ("name", "qualified_name")]
    facts.bases += [(owner, Parsed.text(base).lstrip("\\"), Parsed.line(base)) for base in bases]
    for method in (c for c in members if c.type == "method_declaration"):
        name, parameters = method.child_by_field_name("name"), method.child_by_field_name("parameters")
        if name is None or parameters is None or Parsed.text(name) != "__construct":
            continue
        for parameter in (p for p in parameters.named_children if p.type == "property_promotion_parameter"):
            promoted = _property_name(parameter)
            facts.defs += [(f"{owner}.{Parsed.text(n)}", Parsed.line(n)) for n in promoted]


def _imports(facts: Facts, stmt: Node) -> None:
    """Each clause of a `use` statement, under its group's prefix; a class (not `use function`, `use const`)
    is bound to its alias or last name, for `sym:` to follow a base class to its file."""
    declared = _kind(stmt)
    prefix = next((Parsed.text(c) + "\\" for c in stmt.named_children if c.type == "namespace_name"), "")
    group = stmt.child_by_field_name("body")
    clauses = [c for c in stmt.named_children if c.type == "namespace_use_clause"]
    clauses += [c for c in group.named_children if c.type == "namespace_use_clause"] if group is not None else []
    for clause in clauses:
        written = next((c for c in clause.named_children if c.type in ("qualified_name", "name")), None)
        if written is None:
            continue
        module = (prefix + Parsed.text(written)).lstrip("\\")
        facts.imports.append((module, Parsed.line(clause), ""))
        if (_kind(clause) or declared) in ("function", "const"):
            continue
        alias = clause.child_by_field_name("alias")
        simple = module.rpartition("\\")[2]
        facts.bound.append((Parsed.text(alias) if alias is not None else simple, module, simple, Parsed.line(clause)))


def _kind(node: Node) -> str:
    """`function` or `const` for `use function a\\b;` / `use const A\\B;` (or a clause of a group so marked)."""
    return next((c.type for c in node.children if not c.is_named and c.type in ("function", "const")), "")


def _env_reads(parsed: Parsed, facts: Facts) -> None:
    """`getenv('K')` / `env('K')` and `$_ENV['K']` / `$_SERVER['K']` read K; `getenv()` without a key, and
    the arrays iterated or handed on, may read any key."""
    constants = string_constants(parsed, "constants", _STRINGS, _template)
    for _, found in parsed.matches("env"):
        read = found["read"][0]
        if "function" in found:
            if Parsed.text(found["function"][0]).lstrip("\\") not in _READERS:
                continue
            arguments = [a.named_children[0] for a in found["arguments"][0].named_children if a.type == "argument" and a.named_children]
            if arguments:
                facts.add_env_read(read, _template(arguments[0]), _STRINGS, constants)
            elif Parsed.text(found["function"][0]).lstrip("\\") == "getenv":
                facts.add_env_whole(read)
        elif Parsed.text(found["object"][0]) in _SUPERGLOBALS and not _written(read):
            facts.add_env_read(read, _template(found["key"][0]), _STRINGS, constants)
    for use in parsed.spellings(_SUPERGLOBALS, frozenset({"variable_name", "argument"})):  # an argument of only it, too
        parent = use.parent
        if parent is None or (parent.type == "subscript_expression" and parent.named_children[0] == use):
            continue  # a read or write of one key
        facts.add_env_whole(use)


def _template(node: Node) -> Node:
    """A double-quoted string with `$name` or `{$x}` in it is computed: its first such part stands for it."""
    if node.type != "encapsed_string":
        return node
    return next((c for c in node.named_children if c.type != "string_content"), node)


def _written(read: Node) -> bool:
    """`$_ENV['K'] = v` and `unset($_ENV['K'])` write the key."""
    parent = read.parent
    if parent is not None and parent.type == "assignment_expression":
        return parent.child_by_field_name("left") == read
    return parent is not None and parent.type == "unset_statement"


def _property_name(node: Node) -> list[Node]:
    """`public $name = 1` defines `name`: the property's variable without its `$`."""
    variable = node.child_by_field_name("name")
    return [c for c in variable.named_children if c.type == "name"] if variable is not None else []


def _first_name(node: Node) -> list[Node]:
    """A constant's name: `const LIMIT = 1` (no field holds it)."""
    return next(([c] for c in node.named_children if c.type == "name"), [])


# Members of classes, interfaces, traits and enums: methods, properties, constants, enum cases.
_MEMBERS = Definitions(
    defines={
        "method_declaration": Define(),
        "property_element": Define(name=_property_name, at_name=True),
        "const_element": Define(name=_first_name, at_name=True),
        "enum_case": Define(at_name=True),
    },
    transparent=frozenset({"property_declaration", "const_declaration"}),
)
# Top-level types and functions, in a namespace block or a guard (`if (!function_exists('x')) { function x() }`).
_DEFINITIONS = Definitions(
    defines={
        **dict.fromkeys(_TYPES, Define(members=_MEMBERS)),
        "function_definition": Define(),
        "const_element": Define(name=_first_name, at_name=True),
    },
    transparent=frozenset({"namespace_definition", "compound_statement", "if_statement", "else_clause", "else_if_clause", "const_declaration"}),
)


def definitions_of(parsed: Parsed) -> list[tuple[str, int]]:
    """Types, functions, constants and members by the walk alone: the first of the facts' `defs`
    (`Language.definitions`); promoted constructor properties follow them."""
    return definitions(parsed.root, _DEFINITIONS)


def import_segments(module: str) -> tuple[str, ...]:
    return tuple(module.lstrip("\\").split("\\"))


def module_files(module: str, path: str, repo: object, roots: tuple[str, ...]) -> tuple[str, ...]:
    """The file of class `A\\B\\C` under PSR-4 autoloading: `C.php`, in a folder path that ends with as
    much of the namespace as the mapped prefix leaves (`src/B/C.php` for the prefix `A\\`), longest first."""
    segments = import_segments(module)
    listed = getattr(repo, "paths")(named=[f"{segments[-1]}.php"])
    ranked: dict[int, list[str]] = {}
    for candidate in listed:
        folders = candidate.split("/")[:-1]
        matched = 0
        while matched < min(len(folders), len(segments) - 1) and folders[-1 - matched] == segments[-2 - matched]:
            matched += 1
        ranked.setdefault(matched, []).append(candidate)
    return tuple(ranked[max(ranked)]) if ranked else ()


LANGUAGE = Language(
    name="php",
    extensions=(".php",),
    grammar="php",
    queries=QUERIES,
    extract=extract,
    import_segments=import_segments,
    env_markers=_ENV_MARKERS,
    module_files=module_files,
    definitions=definitions_of,
)


@hookimpl
def register_languages(register):  # noqa: ANN001, ANN201 - hook signature
    register(LANGUAGE)
