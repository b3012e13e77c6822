"""Go: import paths, `os.Getenv`/`os.LookupEnv` (`os` renamed or dot-imported too, or an environment
value's `Getenv`), viper's `BindEnv`/`AutomaticEnv`, and funcs, types, methods (`Type.Method`,
interface methods too), consts, vars."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from anchorcheck import Language, hookimpl
from anchorcheck.plugin import Define, Definitions, Facts, Parsed, definitions, string_constants, string_value

if TYPE_CHECKING:
    from tree_sitter import Node

QUERIES = {
    "imports": "(import_spec name: (_)? @name path: (_) @path)",
    "env": """
        (call_expression
            function: (selector_expression operand: (_) @package field: (field_identifier) @function)
            arguments: (argument_list . (_) @key)) @read
    """,
    # Matches every plain call (a third more work on a call-heavy file), so it runs only under `import . "os"`.
    "embedded": """
        (type_spec name: (type_identifier) @owner
            type: [(struct_type (field_declaration_list (field_declaration) @field)) (interface_type (type_elem) @field)])
    """,
    "dot_env": "(call_expression function: (identifier) @function arguments: (argument_list . (_) @key)) @read",
    "whole_env": "(call_expression function: (selector_expression operand: (identifier) @package field: (field_identifier) @function)) @read",
    "constants": "(const_spec name: (identifier) @name . value: (expression_list . (_) @value .)) @spec",
}
_ENV_FUNCTIONS = {"Getenv", "LookupEnv"}
# viper: `BindEnv(key, "ENV", ...)` reads the names given, `BindEnv(key)` one made from the key and a
# prefix; `AutomaticEnv()` a variable for every key asked for.
_BINDERS = {"BindEnv"}
_AUTOMATIC = {"AutomaticEnv"}
_WHOLE = {("os", "Environ"), ("syscall", "Environ")}  # the whole environment, as a list
_STRINGS = ("interpreted_string_literal", "raw_string_literal")


def extract(parsed: Parsed) -> Facts:
    facts = Facts()
    # The names the os package goes by in this file: `os`, and those of `import o "os"`. A dot
    # import (`import . "os"`) is named `.`, the package of a call with no package (`Getenv("K")`).
    os_names = {"os"}
    for _, found in parsed.matches("imports"):
        node = found["path"][0]
        value = string_value(node)
        if value:
            facts.imports.append((value, Parsed.line(node), ""))
            local = Parsed.text(found["name"][0]) if "name" in found else _package_name(value)
            if local not in (".", "_"):  # the name the package goes by here, for `sym:` to follow `base.Base`
                facts.bound.append((local, value, "", Parsed.line(node)))
        if value == "os" and "name" in found:
            os_names.add(Parsed.text(found["name"][0]))
    constants = string_constants(parsed, "constants", _STRINGS) if parsed.mentions((b"const",)) else {}
    for query in ("env", "dot_env") if "." in os_names else ("env",):
        for _, found in parsed.matches(query):
            # `Getenv` of any value, not only os's: an environment kept in a value (bubbletea's
            # `uv.Environ`, a test's fake) is read by the same name, `env.Getenv("TERM")`.
            package = Parsed.text(found["package"][0]) if "package" in found else "."
            function, read, key = Parsed.text(found["function"][0]), found["read"][0], found["key"][0]
            if function in _ENV_FUNCTIONS and (package != "." or "." in os_names):
                facts.add_env_read(read, key, _STRINGS, constants)
            elif function in _BINDERS and package != ".":
                _bound_names(read, facts, constants)
    if parsed.mentions((b"Environ", b"AutomaticEnv")):
        for _, found in parsed.matches("whole_env"):
            package, function = Parsed.text(found["package"][0]), Parsed.text(found["function"][0])
            if (("os" if package in os_names else package), function) in _WHOLE or function in _AUTOMATIC:
                facts.add_env_whole(found["read"][0])
    facts.defs = definitions_of(parsed)
    _embedded_types(parsed, facts)
    return facts


_MAJOR = re.compile(r"v[0-9]+")


def _package_name(path: str) -> str:
    """The name an imported package usually goes by: its last segment, before a major version
    (`.../cobra/v2`: cobra; `gopkg.in/yaml.v3`: yaml). A package named otherwise is not followed."""
    segments = path.split("/")
    last = segments[-2] if len(segments) > 1 and _MAJOR.fullmatch(segments[-1]) else segments[-1]
    return re.sub(r"\.v[0-9]+$", "", last)


def module_files(module: str, path: str, repo: object, roots: tuple[str, ...]) -> tuple[str, ...]:
    """The `.go` files (tests aside) of an import path inside a module of the repository: the go.mod
    whose `module` path it starts with, longest first, then the directory below it."""
    paths = getattr(repo, "paths")
    read = getattr(repo, "read_bytes")
    best: tuple[str, str] | None = None
    for manifest in paths(named=["go.mod"]):
        try:
            declared = _MODULE.search(read(manifest))
        except OSError:
            continue
        name = declared.group(1).decode("utf-8", "replace") if declared else ""
        if name and (module == name or module.startswith(f"{name}/")) and (best is None or len(name) > len(best[0])):
            best = (name, manifest.rpartition("/")[0])
    if best is None:
        return ()
    directory = "/".join(p for p in (best[1], module[len(best[0]) + 1 :]) if p)
    listed = paths(scope=directory or None)
    return tuple(p for p in listed if p.rpartition("/")[0] == directory and p.endswith(".go") and not p.endswith("_test.go"))


_MODULE = re.compile(rb"^[ \t]*module[ \t]+\"?([^\s\"]+)", re.MULTILINE)


def _bound_names(call: Node, facts: Facts, constants: dict[str, str]) -> None:
    """viper's `BindEnv("db.url", "DB_URL")` reads DB_URL; `BindEnv("port")` a name made from the key."""
    arguments = call.child_by_field_name("arguments")
    names = [a for a in arguments.named_children if a.type != "comment"][1:] if arguments is not None else []
    if not names:
        facts.env_computed.append(Parsed.line(call))
    for name in names:
        facts.add_env_read(call, name, _STRINGS, constants)


def _receiver_type(method: Node) -> str | None:
    """`func (t *T) M()` and `func (t T[K]) M()` are both methods of T."""
    receiver = method.child_by_field_name("receiver")
    stack = [receiver] if receiver is not None else []
    while stack:
        node = stack.pop(0)
        if node.type == "type_identifier":
            return Parsed.text(node)
        stack.extend(node.named_children)
    return None


def _embedded(field: Node) -> list[Node]:
    """An embedded field (`Base`, `*pkg.Other`, `gen[T]`) is named by its type: the name the field goes by."""
    if field.child_by_field_name("name") is not None:
        return []
    node = field.child_by_field_name("type") if field.type == "field_declaration" else (field.named_children or [None])[0]
    while node is not None and node.type in ("pointer_type", "generic_type", "qualified_type"):
        node = node.child_by_field_name("name") if node.type == "qualified_type" else node.child_by_field_name("type") or (node.named_children or [None])[-1]
    return [node] if node is not None and node.type == "type_identifier" else []


def _embedded_types(parsed: Parsed, facts: Facts) -> None:
    """A struct or interface that embeds a type has that type's fields and methods too (promoted):
    it is a base for `sym:` to follow (`Base` in this package, `pkg.Other` from another one)."""
    for _, found in parsed.matches("embedded"):
        owner, field = Parsed.text(found["owner"][0]), found["field"][0]
        for name in _embedded(field):
            written = name.parent if name.parent is not None and name.parent.type == "qualified_type" else name
            facts.bases.append((owner, Parsed.text(written), Parsed.line(field)))


def package_files(path: str, repo: object) -> tuple[str, ...]:
    """The other `.go` files of the directory: one package, whose top-level names every file sees."""
    directory = path.rpartition("/")[0]
    listed = getattr(repo, "paths")(scope=directory or None)
    return tuple(p for p in listed if p != path and p.endswith(".go") and p.rpartition("/")[0] == directory)


# Top-level funcs, methods (`Type.Method`), types, consts and vars, each at the line of its name.
# A type's members are found in the type it names: an interface's methods are `Interface.Method`,
# a struct's fields `Struct.Field` (an embedded field by its type's name).
def _field_names(field: Node) -> list[Node]:
    return field.children_by_field_name("name") or _embedded(field)


_MEMBERS = Definitions(
    defines={
        "method_elem": Define(at_name=True),
        "field_declaration": Define(name=_field_names, at_name=True),
        "type_elem": Define(name=_embedded, at_name=True),
    },
    transparent=frozenset({"field_declaration_list"}),
)
_DEFINITIONS = Definitions(
    defines={
        "function_declaration": Define(at_name=True),
        "method_declaration": Define(at_name=True, owner=_receiver_type),
        **dict.fromkeys(("type_spec", "type_alias"), Define(at_name=True, members=_MEMBERS, body=("type",))),
        **dict.fromkeys(("const_spec", "var_spec"), Define(at_name=True)),
    },
    transparent=frozenset({"type_declaration", "const_declaration", "var_declaration", "var_spec_list"}),
)


# The methods of the standard library's types that structs and interfaces embed most (Go 1's compatibility
# promise keeps them): a member a struct embedding `context.Context` or `sync.Mutex` does not define is not
# one of these, so its absence is not in doubt. Other packages' types stay unfollowed (a doubt).
_LOCK = frozenset({"Lock", "Unlock", "TryLock"})
_STANDARD = {
    ("", "error"): frozenset({"Error"}),
    ("context", "Context"): frozenset({"Deadline", "Done", "Err", "Value"}),
    ("sync", "Mutex"): _LOCK,
    ("sync", "RWMutex"): _LOCK | {"RLock", "RUnlock", "TryRLock", "RLocker"},
    ("sync", "WaitGroup"): frozenset({"Add", "Done", "Wait", "Go"}),
}


def external_members(module: str, name: str) -> frozenset[str] | None:
    """The methods of a standard library type a struct or interface embeds (`context.Context`, `sync.Mutex`,
    the builtin `error`); None for any other."""
    return _STANDARD.get((module, name))


def import_segments(module: str) -> tuple[str, ...]:
    return tuple(module.split("/"))


def definitions_of(parsed: Parsed) -> list[tuple[str, int]]:
    """Types, functions and methods (under their receiver's type) by the walk alone: all of the
    facts' `defs` (`Language.definitions`), which the embedded types after it (bases) leave alone."""
    return definitions(parsed.root, _DEFINITIONS)


LANGUAGE = Language(
    name="go",
    extensions=(".go",),
    grammar="go",
    queries=QUERIES,
    extract=extract,
    import_segments=import_segments,
    env_markers=(b"Getenv", b"LookupEnv", b"Environ", b"BindEnv", b"AutomaticEnv"),
    package_files=package_files,
    module_files=module_files,
    definitions=definitions_of,
    external_members=external_members,
)


@hookimpl
def register_languages(register):  # noqa: ANN001, ANN201 - hook signature
    register(LANGUAGE)
