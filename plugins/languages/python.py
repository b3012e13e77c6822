"""Python: imports (absolute, relative, importlib), environment reads and definitions.

Queries find the candidate nodes; the small walk below decides what they
mean (is this import under `if TYPE_CHECKING`, is this call `os.getenv` or an
alias of it). Relative imports are kept with their dots and resolved against
the importing file's package when an anchor is checked.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from typing import TYPE_CHECKING

from anchorcheck import Language, hookimpl
from anchorcheck_plugins.languages import python_members
from anchorcheck.plugin import (
    OPTIONAL_IMPORT,
    TYPE_CHECKING_ONLY,
    Define,
    Definitions,
    Facts,
    Parsed,
    definitions,
    single_bindings,
    string_value,
)

if TYPE_CHECKING:
    from tree_sitter import Node

QUERIES = {
    "imports": """
        (import_statement name: (dotted_name) @module)
        (import_statement name: (aliased_import name: (dotted_name) @module))
        (import_from_statement module_name: (_) @from) @stmt
        (future_import_statement) @future
    """,
    "dynamic_imports": "(call function: (_) @fn arguments: (argument_list . (_) @arg)) @call",
    "env": """
        (subscript value: (_) @object subscript: (_) @key) @read
        (call function: (_) @fn arguments: (argument_list . (_) @key)) @read
        (comparison_operator (_) @key ["in" "not in"] (_) @object) @read
    """,
    "env_aliases": "(assignment left: (identifier) @alias right: (_) @object)",
    **python_members.QUERIES,
}

_IMPORT_FUNCTIONS = {"importlib.import_module", "import_module", "__import__"}
_DYNAMIC_MARKERS = (b"import_module", b"__import__")
_IMPORT_STATEMENTS = frozenset({"import_statement", "import_from_statement", "future_import_statement"})
_CALLS = frozenset({"call"})
_READS = frozenset({"subscript", "call", "comparison_operator"})  # what the env query's reads are
_ASSIGNMENTS = frozenset({"assignment"})
LANGUAGE_ENV_MARKERS = (b"environ", b"getenv")
_SETTINGS_BASES = frozenset({"BaseSettings"})
_SETTINGS_MODULES = frozenset({"environ", "environs", "decouple"})  # django-environ, environs, python-decouple
_SETTINGS_MARKERS = (b"BaseSettings", b"environ", b"decouple")
_GUARD_ERRORS = ("ImportError", "ModuleNotFoundError")


def extract(parsed: Parsed) -> Facts:
    facts = Facts()
    aliases = _ImportAliases()
    found = parsed.captures_around("imports", (b"import",), _IMPORT_STATEMENTS)
    for node in found.get("module", []):
        _add_import(facts, node, Parsed.text(node))
        aliases.note_import(node)
        _bind_module(facts, node)
    for node in found.get("future", []):  # `from __future__ import annotations` imports __future__ too
        _add_import(facts, node, "__future__")
    for node in found.get("stmt", []):
        _from_import(facts, node)
        aliases.note_from(node)
    # A query that matches every call runs only around the places that name an import function.
    for call in parsed.captures_around("dynamic_imports", _DYNAMIC_MARKERS, _CALLS).get("call", []):
        function = call.child_by_field_name("function")
        args = call.child_by_field_name("arguments")
        if function is None or args is None or Parsed.text(function) not in _IMPORT_FUNCTIONS:
            continue
        first = args.named_children[0] if args.named_children else None
        value = string_value(first) if first is not None and first.type == "string" else None
        if value:
            _add_import(facts, call, value)
    if parsed.mentions(LANGUAGE_ENV_MARKERS):
        _env_reads(parsed, facts, aliases)
    facts.defs = definitions_of(parsed)
    python_members.class_facts(parsed, facts, _DEFINITIONS.transparent)
    if parsed.mentions(_SETTINGS_MARKERS):
        # pydantic-settings reads a variable for each field, named after it as the class is configured
        # (a prefix, aliases, any case): the file spells none of them, so any key may be one. The
        # configuration libraries read them through calls no read here names (`env.db()` is
        # DATABASE_URL, `config("K")`, `env.str("K")`): importing one opens the world too.
        settings = {line for _, base, line in facts.bases if base.rsplit(".", 1)[-1] in _SETTINGS_BASES}
        settings |= {line for module, line, _ in facts.imports if module.split(".")[0] in _SETTINGS_MODULES}
        facts.env_whole = sorted({*facts.env_whole, *settings})
    return facts


def definitions_of(parsed: Parsed) -> list[tuple[str, int]]:
    """The file's classes, functions and assignments by the walk alone, the first of its facts' `defs`
    (`Language.definitions`); `python_members` adds attributes and run-time members after them."""
    return definitions(parsed.root, _DEFINITIONS)


def _add_import(facts: Facts, node: Node, module: str) -> None:
    facts.imports.append((module, Parsed.line(node), _import_flag(node)))


def _from_import(facts: Facts, stmt: Node) -> None:
    source = stmt.child_by_field_name("module_name")
    if source is None:
        return
    base = Parsed.text(source).replace(" ", "")
    flag = _import_flag(stmt)
    facts.imports.append((base, Parsed.line(stmt), flag))
    prefix = base if base.endswith(".") else base + "."
    module_level = _at_module_level(stmt)
    if module_level and any(child.type == "wildcard_import" for child in stmt.children):
        facts.bound.append(("*", base, "*", Parsed.line(stmt)))
    # `from pkg import sub` may import the submodule pkg.sub; `from . import x` usually does.
    for name in stmt.children_by_field_name("name"):
        aliased = name.type == "aliased_import"
        target = name.child_by_field_name("name") if aliased else name
        if target is None:
            continue
        module, line = prefix + Parsed.text(target), Parsed.line(name)
        facts.imports.append((module, line, flag))
        if module_level:
            local = name.child_by_field_name("alias") if aliased else target
            if local is not None:
                facts.bound.append((Parsed.text(local), base, Parsed.text(target), line))


def _bind_module(facts: Facts, module: Node) -> None:
    """`import a.b` binds a (the package), `import a.b as c` binds c (the module a.b), at module level."""
    parent = module.parent
    if parent is None or not _at_module_level(parent):
        return
    name = Parsed.text(module)
    alias = parent.child_by_field_name("alias") if parent.type == "aliased_import" else None
    if alias is not None:
        facts.bound.append((Parsed.text(alias), name, "", Parsed.line(module)))
    else:
        top = name.split(".")[0]
        facts.bound.append((top, top, "", Parsed.line(module)))


def _at_module_level(node: Node) -> bool:
    """Whether a statement binds a module attribute: not inside a function or class body."""
    parent = node.parent
    while parent is not None:
        if parent.type in ("function_definition", "class_definition"):
            return False
        parent = parent.parent
    return True


def _import_flag(node: Node) -> str:
    """TYPE_CHECKING-only beats optional; an import in the `else:` of `if TYPE_CHECKING` runs."""
    flag = ""
    child, parent = node, node.parent
    while parent is not None:
        if parent.type == "if_statement" and child == _type_checking_branch(parent):
            return TYPE_CHECKING_ONLY
        if parent.type == "try_statement" and any(
            c.type == "except_clause" and any(e in Parsed.text(c).split(":", 1)[0] for e in _GUARD_ERRORS)
            for c in parent.children
        ):
            flag = OPTIONAL_IMPORT
        child, parent = parent, parent.parent
    return flag


def _type_checking_branch(statement: Node) -> Node | None:
    """The branch of an `if` that only a type checker takes: the body of `if TYPE_CHECKING:`,
    the `else:` of `if not TYPE_CHECKING:`. A condition that also holds at run time
    (`TYPE_CHECKING or ...`) has none."""
    condition = statement.child_by_field_name("condition")
    negated = condition is not None and condition.type == "not_operator"
    if negated:
        condition = condition.child_by_field_name("argument")  # type: ignore[union-attr]
    if condition is None or Parsed.text(condition).rpartition(".")[2] != "TYPE_CHECKING":
        return None
    if not negated:
        return statement.child_by_field_name("consequence")
    alternatives = statement.children_by_field_name("alternative")
    return alternatives[0] if len(alternatives) == 1 and alternatives[0].type == "else_clause" else None


class _ImportAliases:
    """Which local names mean `os.environ` and `os.getenv` in this file (`from os import environ as e`)."""

    def __init__(self) -> None:
        self.environ = {"os.environ", "environ", "os.environb"}
        self.getenv = {"os.getenv", "getenv", "os.environ.get", "environ.get", "os.getenvb"}
        # Whether a bare `environ` may be the environment: imported by that name (`from os import environ`,
        # or from a module that passes it on), all of os imported (`from os import *`), or bound to it
        # (`environ = os.environ`). Elsewhere it is a local name, usually a WSGI `environ`: the request.
        self.bare_environ = False

    def note_import(self, module: Node) -> None:
        parent = module.parent
        if Parsed.text(module) == "os" and parent is not None and parent.type == "aliased_import":
            alias = parent.child_by_field_name("alias")
            if alias is not None:
                name = Parsed.text(alias)
                self.environ.add(f"{name}.environ")
                self.getenv.update({f"{name}.getenv", f"{name}.environ.get"})

    def note_from(self, stmt: Node) -> None:
        source = stmt.child_by_field_name("module_name")
        if source is None:
            return
        names = stmt.children_by_field_name("name")
        self.bare_environ |= any(Parsed.text(name) == "environ" for name in names)  # from any module: it may pass os's on
        if Parsed.text(source) != "os":
            return
        self.bare_environ |= any(child.type == "wildcard_import" for child in stmt.children)
        for name in names:
            if name.type != "aliased_import":
                continue
            original, alias = name.child_by_field_name("name"), name.child_by_field_name("alias")
            if original is None or alias is None:
                continue
            local = Parsed.text(alias)
            if Parsed.text(original) == "environ":
                self.environ.add(local)
                self.getenv.add(f"{local}.get")
            elif Parsed.text(original) == "getenv":
                self.getenv.add(local)

    def note_assignments(self, parsed: Parsed) -> None:
        """`env = os.environ` keeps the environment in a local name, read like it afterwards
        (`env["K"]`, `env.get("K")`): by name for the whole file, as import aliases are."""
        for _, found in parsed.matches_around("env_aliases", (b"environ",), _ASSIGNMENTS):
            alias, obj = found["alias"][0], found["object"][0]
            if Parsed.text(obj) in self.whole_names():
                self.environ.add(Parsed.text(alias))
                self.bare_environ |= Parsed.text(alias) == "environ"

    def whole_names(self) -> set[str]:
        """The spellings of the environment object itself. A bare `environ` is os's only after
        `from os import environ`: elsewhere it is usually a WSGI `environ`, the request."""
        return {name for name in self.environ if name != "environ" or self.bare_environ}

    def markers(self) -> tuple[bytes, ...]:
        """Bytes every environment read of this file holds: the usual names, and local aliases
        (`from os import environ as e` reads `e["K"]`, which names neither)."""
        names = [name.encode() for name in self.environ | self.getenv]
        local = {name.split(b".")[0] for name in names if not any(marker in name for marker in LANGUAGE_ENV_MARKERS)}
        return LANGUAGE_ENV_MARKERS + tuple(sorted(local))

    def reads_with_key(self, read: Node, found: dict[str, Node]) -> bool:
        """Whether this lookup reads the environment: by a name `whole_names` holds (a bare `environ` only
        where it may be os's), or through `getenv`."""
        environ = self.whole_names()
        if read.type == "call":
            function = found.get("fn")
            if function is None:
                return False
            text = Parsed.text(function)
            owner, _, method = text.rpartition(".")
            if text in self.getenv and (owner != "environ" or self.bare_environ):
                return True
            return owner in environ and method in {"get", "setdefault", "pop"}
        obj = found.get("object")
        return obj is not None and Parsed.text(obj) in environ


def _string_constants(parsed: Parsed) -> dict[str, str]:
    """Module-level names bound exactly once to a plain string literal: `ENV_KEY = "REDIS_URL"`."""
    pairs = []
    for statement in parsed.root.named_children:
        nodes = statement.named_children if statement.type == "expression_statement" else [statement]
        for node in nodes:
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if node.type != "assignment" or left is None or left.type != "identifier":
                continue
            pairs.append((Parsed.text(left), string_value(right) if right is not None and right.type == "string" else None))
    return single_bindings(pairs)


def _env_reads(parsed: Parsed, facts: Facts, aliases: _ImportAliases) -> None:
    constants = _string_constants(parsed)
    aliases.note_assignments(parsed)
    for _, found in parsed.matches_around("env", aliases.markers(), _READS):
        nodes = {name: items[0] for name, items in found.items() if items}
        read, key = nodes.get("read"), nodes.get("key")
        if read is None or key is None or not aliases.reads_with_key(read, nodes) or _written(read):
            continue
        facts.add_env_read(read, _keyword_key(key), ("string",), constants)
    for use in parsed.spellings(aliases.whole_names(), _NAME_EXPRESSIONS):
        if _hands_on(use):
            facts.add_env_whole(use)


_NAME_EXPRESSIONS = frozenset({"identifier", "attribute"})
# Methods of os.environ that read or write one key (read by the env query), or only write.
_KEYED_METHODS = frozenset({"get", "setdefault", "pop", "update", "clear", "__getitem__", "__setitem__", "__delitem__", "__contains__"})
_WRITERS = ("patch.dict",)  # `mock.patch.dict(os.environ, {...})` sets keys for a test
_BINDINGS = frozenset({"dotted_name", "aliased_import", "parameters", "default_parameter", "typed_parameter",
                       "typed_default_parameter", "global_statement", "nonlocal_statement", "delete_statement"})


def _written(read: Node) -> bool:
    """`os.environ["K"] = v` and `del os.environ["K"]` write the key: neither reads it."""
    parent = read.parent
    if read.type != "subscript" or parent is None:
        return False
    if parent.type in ("pattern_list", "expression_list") and parent.parent is not None and parent.parent.type != "delete_statement":
        read, parent = parent, parent.parent  # `a[k], b = ...`
    if parent.type == "assignment":
        return parent.child_by_field_name("left") == read
    return parent.type == "delete_statement" or (parent.type == "expression_list" and parent.parent is not None and parent.parent.type == "delete_statement")


def _hands_on(use: Node) -> bool:
    """Whether a use of the environment object may read any key: copied (`dict(os.environ)`,
    `os.environ.copy()`), iterated, spread (`{**os.environ}`), kept in an attribute or handed to a
    call (`subprocess.run(cmd, env=os.environ)`: the callee reads what it likes). A lookup by key,
    a write, an import and `e = os.environ` (followed as an alias) are not."""
    parent = use.parent
    if parent is None or parent.type in _BINDINGS:
        return False
    kind, first = parent.type, parent.named_children[0] == use
    if kind == "subscript":
        return not first
    if kind == "attribute":  # `os.environ.copy()` hands it on; `os.environ.get(k)` is a lookup; `x.environ` is not it
        member = parent.child_by_field_name("attribute")
        return first and (member is None or Parsed.text(member) not in _KEYED_METHODS)
    if kind == "keyword_argument":
        return not first  # `env=os.environ` hands it on; `environ=...` names a parameter
    if kind == "comparison_operator":
        return not any(Parsed.text(child) in ("in", "not in") for child in parent.children)
    if kind == "assignment":
        left = parent.child_by_field_name("left")
        return left != use and (left is None or left.type != "identifier")
    call = parent.parent if kind == "argument_list" else None
    function = call.child_by_field_name("function") if call is not None else None
    return not (function is not None and Parsed.text(function).endswith(_WRITERS))


def _keyword_key(first: Node) -> Node:
    """The key of `os.getenv(key="K")`, wherever the keyword stands among the arguments: the first
    argument is a keyword one only when all are, and `getenv`, `environ.get`, `setdefault` and
    `pop` all call their key `key`. Without one, the first argument stands (a computed key)."""
    if first.type != "keyword_argument" or first.parent is None:
        return first
    for argument in first.parent.named_children:
        name = argument.child_by_field_name("name")
        value = argument.child_by_field_name("value")
        if argument.type == "keyword_argument" and name is not None and value is not None and Parsed.text(name) == "key":
            return value
    return first


def _alias_name(node: Node) -> list[Node]:
    """`type Alias[T] = ...` (3.12) defines Alias: the identifier inside its left-hand type."""
    left = node.child_by_field_name("left")
    found = left.named_children[0] if left is not None and left.named_children else None
    if found is not None and found.type == "generic_type":  # `Alias[T]`
        found = found.named_children[0] if found.named_children else None
    return [found] if found is not None and found.type == "identifier" else []


def _assigned_names(node: Node) -> Iterator[Node]:
    """The names an assignment binds: `a = 1`, `a, b = t`, and each target of `a = b = 1`."""
    left = node.child_by_field_name("left")
    while node is not None and left is not None:
        yield from [left] if left.type == "identifier" else [n for n in left.named_children if n.type == "identifier"]
        right = node.child_by_field_name("right")
        node = right if right is not None and right.type == "assignment" else None
        left = node.child_by_field_name("left") if node is not None else None


# Module-level and class-level names: classes, functions, methods, assignments (annotated or not).
_DEFINITIONS = Definitions(
    defines={
        "class_definition": Define(nests=True),
        "function_definition": Define(),
        "assignment": Define(name=_assigned_names, at_name=True),
        "type_alias_statement": Define(name=_alias_name),
    },
    transparent=frozenset(
        {
            *("if_statement", "else_clause", "elif_clause", "try_statement", "except_clause", "finally_clause"),
            *("with_statement", "match_statement", "case_clause", "block", "expression_statement"),
        }
    ),
    wrappers={"decorated_definition": "definition"},
)


def import_segments(module: str) -> tuple[str, ...]:
    return tuple(module.split("."))


def resolve_import(module: str, path: str, repo: object) -> str | None:
    """`..x` written in `pkg/sub/a.py` is `pkg.x`; None when it climbs above the top-level package
    (`..x` in `pkg/a.py`), where Python raises ImportError."""
    level = len(module) - len(module.lstrip("."))
    if level == 0:
        return module
    package = module_name(path, repo).split(".")[:-1] if not path.endswith("/__init__.py") else module_name(path, repo).split(".")
    if level > len(package):
        return None
    base = package[: len(package) - (level - 1)]
    rest = module[level:]
    return ".".join([*base, rest] if rest else base) or None


SOURCE_ROOTS = ("src", "lib", "python")


def module_name(path: str, repo: object) -> str:
    """The dotted module a file is: the enclosing `__init__.py` packages, or the path below a source root."""
    parts = path[: -len(".py")].split("/") if path.endswith(".py") else path.split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    listed = _package_inits(repo)
    directories = path.split("/")[:-1]
    start = len(directories)
    while start > 0 and "/".join([*directories[:start], "__init__.py"]) in listed:
        start -= 1
    if start == len(directories):  # no __init__.py to go by: a namespace package or a script
        start = 1 if directories and directories[0] in SOURCE_ROOTS else 0
    return ".".join(parts[start:])


_PACKAGE_INITS: weakref.WeakKeyDictionary[object, frozenset[str]] = weakref.WeakKeyDictionary()


def _package_inits(repo: object) -> frozenset[str]:
    """The checkout's `__init__.py` files as a set, once per Repository: a stat per probe is too slow."""
    listed = _PACKAGE_INITS.get(repo)
    if listed is None:
        # Listed paths, not `files`: a package is a package whatever its `__init__.py` holds, and
        # judging each one's content (a read per file) is what made this slow.
        paths = getattr(repo, "paths", None)
        listed = frozenset(paths(named=["__init__.py"])) if callable(paths) else frozenset()
        _PACKAGE_INITS[repo] = listed
    return listed


def module_files(module: str, path: str, repo: object, roots: tuple[str, ...]) -> tuple[str, ...]:
    """The files a module written in `path` is (a named function: languages go to worker processes)."""
    return python_members.module_files(module, path, repo, roots, module_name)


LANGUAGE = Language(
    name="python",
    extensions=(".py", ".pyi"),
    grammar="python",
    queries=QUERIES,
    extract=extract,
    import_segments=import_segments,
    resolve_import=resolve_import,
    env_markers=tuple(dict.fromkeys(LANGUAGE_ENV_MARKERS + _SETTINGS_MARKERS)),
    source_roots=SOURCE_ROOTS,
    module_files=module_files,
    module_prefix="py",
    external_members=python_members.external_members,
    definitions=definitions_of,
)


@hookimpl
def register_languages(register):  # noqa: ANN001, ANN201 - hook signature
    register(LANGUAGE)
