"""What a language plugin extracts from one parsed file: imports, environment reads, definitions.

Facts depend on the file's bytes only (never on its path), so they can be
cached by content and shared between checkouts; anything that needs the path
(resolving a relative import) happens when an anchor is checked.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from anchorcheck.base.lazyregex import later

if TYPE_CHECKING:
    from tree_sitter import Node, Query, QueryCursor

# Import flags: how certain it is that the import runs.
TYPE_CHECKING_ONLY = "type-checking"
OPTIONAL = "optional"  # inside try/except ImportError (or a similar guard)
# The node types of a plain name, as each grammar spells one: a key held in a constant is one of them.
_NAMES = frozenset({"identifier", "constant", "simple_identifier", "name"})


class Facts:
    """The source evidence of one file. Lines are 1-based.

    `imports`: (module as written, line, flag) — relative Python imports keep
    their leading dots. `env`: (key, line). `env_computed`: lines that read
    the environment with a key computed at run time. `env_whole`: lines that
    read or hand on the whole environment (`dict(os.environ)`, `{...process.env}`,
    `os.Environ()`), which may read any key. `defs`: (qualified name,
    line). `bound`: (local name, module as written, name in it, line) for each
    module-level import binding — `from m import n as local` is (local, m, n),
    `import m as local` is (local, m, ""), a star import is ("*", m, "*"), and
    a name that stands for another of the same file (`module.exports = Foo`,
    the default export) has module "" — so `sym:` can follow re-exports and
    base classes to the file that defines them. `bases`: (class, base as
    written, line), the classes, traits and mixins whose members a class
    inherits. `open`: (owner, line, why) where members are added that no
    definition lists — a loop, a computed key, an embedded type — so that
    absence of `owner.x` (of any name when the owner is "") proves nothing.
    `error`: the first line tree-sitter could not parse, if any.

    A plain class with the constructor, equality and repr a dataclass would generate: generating
    them costs every process ~1 ms at import, and this module is imported by every check.
    """

    __slots__ = ("imports", "env", "env_computed", "env_whole", "defs", "bound", "bases", "open", "error")
    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value

    def __init__(
        self,
        imports: list[tuple[str, int, str]] | None = None,
        env: list[tuple[str, int]] | None = None,
        env_computed: list[int] | None = None,
        env_whole: list[int] | None = None,
        defs: list[tuple[str, int]] | None = None,
        bound: list[tuple[str, str, str, int]] | None = None,
        bases: list[tuple[str, str, int]] | None = None,
        open: list[tuple[str, int, str]] | None = None,  # noqa: A002 - the field's name
        error: int | None = None,
    ) -> None:
        self.imports = [] if imports is None else imports
        self.env = [] if env is None else env
        self.env_computed = [] if env_computed is None else env_computed
        self.env_whole = [] if env_whole is None else env_whole
        self.defs = [] if defs is None else defs
        self.bound = [] if bound is None else bound
        self.bases = [] if bases is None else bases
        self.open = [] if open is None else open
        self.error = error

    def _fields(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return self._fields() == other._fields() if type(other) is Facts else NotImplemented

    def __repr__(self) -> str:
        return f"Facts({', '.join(f'{name}={getattr(self, name)!r}' for name in self.__slots__)})"

    def add_env_read(
        self, read: Node, key: Node, literal_types: tuple[str, ...], constants: Mapping[str, str] | None = None
    ) -> None:
        """Record a read of the environment: by name when the key is a plain literal (or a name
        bound once to one in the same file, `KEY = "X"; os.getenv(KEY)`), else as computed."""
        value = string_value(key) if key.type in literal_types else None
        if value is None and constants and key.type in _NAMES:
            value = constants.get(Parsed.text(key))
        if value:
            self.env.append((value, read.start_point[0] + 1))
        else:
            self.env_computed.append(read.start_point[0] + 1)

    def add_env_whole(self, use: Node) -> None:
        """Record a use of the whole environment (copied, iterated, handed to a call): any key may be read there."""
        line = use.start_point[0] + 1
        if line not in self.env_whole:
            self.env_whole = sorted([*self.env_whole, line])

    def to_dict(self) -> dict[str, Any]:
        return {
            "imports": [list(i) for i in self.imports],
            "env": [list(e) for e in self.env],
            "env_computed": list(self.env_computed),
            "env_whole": list(self.env_whole),
            "defs": [list(d) for d in self.defs],
            "bound": [list(b) for b in self.bound],
            "bases": [list(b) for b in self.bases],
            "open": [list(o) for o in self.open],
            "error": self.error,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Facts:
        return cls(
            imports=[(str(m), int(n), str(f)) for m, n, f in data["imports"]],
            env=[(str(k), int(n)) for k, n in data["env"]],
            env_computed=[int(n) for n in data["env_computed"]],
            env_whole=[int(n) for n in data.get("env_whole", [])],
            defs=[(str(q), int(n)) for q, n in data["defs"]],
            bound=[(str(local), str(module), str(name), int(n)) for local, module, name, n in data.get("bound", [])],
            bases=[(str(owner), str(base), int(n)) for owner, base, n in data.get("bases", [])],
            open=[(str(owner), int(n), str(why)) for owner, n, why in data.get("open", [])],
            error=None if data["error"] is None else int(data["error"]),
        )


def single_bindings(pairs: Iterable[tuple[str, str | None]]) -> dict[str, str]:
    """The names bound exactly once, each to a plain string: the constants a key may be held in.

    `pairs` are (name, string value or None for anything else) for every binding
    of the file; a name bound twice, or once to something else, is left out, so
    a key followed through a constant is always the one the code reads.
    """
    seen: dict[str, str | None] = {}
    for name, value in pairs:
        seen[name] = value if name not in seen else None
    return {name: value for name, value in seen.items() if value}


def string_constants(
    parsed: Parsed, query: str, literal_types: tuple[str, ...], unwrap: Callable[[Node], Node] | None = None
) -> dict[str, str]:
    """`single_bindings` over a query's matches: `@name` bound to `@value` (no `@value`: to something
    else, such as a parameter that shadows it). `unwrap` looks through `&` and the like."""
    pairs = []
    for _, found in parsed.matches(query):
        value = found["value"][0] if "value" in found else None
        if value is not None and unwrap is not None:
            value = unwrap(value)
        pairs.append((Parsed.text(found["name"][0]), string_value(value) if value is not None and value.type in literal_types else None))
    return single_bindings(pairs)


def _cursor(query: Query) -> QueryCursor:
    """A cursor over a query's matches: tree_sitter is imported by the first query run, so a check
    whose files are all known from the cache never imports it."""
    from tree_sitter import QueryCursor

    return QueryCursor(query)


class Parsed:
    """A parsed file as an `extract` function sees it: the tree, the bytes and the language's queries."""

    def __init__(self, root: Node, source: bytes, queries: Callable[[str], Query]) -> None:
        self.root = root
        self.source = source
        self._queries = queries

    def captures(self, query: str, node: Node | None = None) -> dict[str, list[Node]]:
        """Each capture's nodes in document order: py-tree-sitter collects them in a set, whose order
        changes from one process to the next, and facts must not depend on the process."""
        found = _cursor(self._queries(query)).captures(node or self.root)
        return {name: sorted(nodes, key=_document_order) for name, nodes in found.items()}

    def captures_around(self, query: str, markers: tuple[bytes, ...], kinds: frozenset[str]) -> dict[str, list[Node]]:
        """`captures` of a query each of whose matches lies in a node of one of `kinds` that holds one
        of the marker bytes (an import statement its keyword), querying only those nodes: a query
        walks every node it is given, and most of a file is neither."""
        found: dict[str, dict[Node, None]] = {}
        cursor = _cursor(self._queries(query))
        for node in self._regions(markers, kinds):
            for name, nodes in cursor.captures(node).items():
                found.setdefault(name, {}).update(dict.fromkeys(nodes))
        return {name: sorted(nodes, key=_document_order) for name, nodes in found.items()}

    def matches_around(
        self, query: str, markers: tuple[bytes, ...], kinds: frozenset[str]
    ) -> list[tuple[int, dict[str, list[Node]]]]:
        """`matches` narrowed as `captures_around` narrows captures, each match once (regions may
        nest), in document order of its first node."""
        found: dict[tuple[int, tuple[tuple[str, int, int], ...]], tuple[int, dict[str, list[Node]]]] = {}
        cursor = _cursor(self._queries(query))
        for node in self._regions(markers, kinds):
            for pattern, captures in cursor.matches(node):
                spans = tuple(sorted((name, n.start_byte, n.end_byte) for name, nodes in captures.items() for n in nodes))
                found.setdefault((pattern, spans), (pattern, captures))
        return sorted(found.values(), key=lambda match: min(_document_order(n) for nodes in match[1].values() for n in nodes))

    def _regions(self, markers: tuple[bytes, ...], kinds: frozenset[str]) -> Iterable[Node]:
        """The nodes a narrowed query runs on. A tree with a syntax error may hold a statement whose
        keyword is MISSING, so it is queried whole."""
        if not self.mentions(markers):
            return ()
        if self.root.has_error:
            return (self.root,)
        return self._enclosing(markers, kinds)

    def _enclosing(self, markers: tuple[bytes, ...], kinds: frozenset[str]) -> dict[Node, None]:
        """The nearest node of one of `kinds` around each occurrence of the markers, once each."""
        enclosing: dict[Node, None] = {}
        for marker in markers:
            at = self.source.find(marker)
            while at != -1:
                node = self.root.descendant_for_byte_range(at, at + len(marker))
                while node is not None and node.type not in kinds:
                    node = node.parent
                if node is not None:
                    enclosing[node] = None
                at = self.source.find(marker, at + len(marker))
        return enclosing

    def spellings(self, names: Iterable[str], kinds: frozenset[str], separator: str = ".") -> list[Node]:
        """Each outermost node of one of `kinds` that spells one of `names` (`os.environ`, `process.env`,
        a local alias), found from the bytes of each name's last part: where a language then decides
        whether the use reads one key, writes, or hands on the whole object."""
        wanted = set(names)
        found: dict[Node, None] = {}
        for last in sorted({name.rsplit(separator, 1)[-1] for name in wanted}):
            marker = last.encode()
            at = self.source.find(marker)
            while at != -1:
                node = self.root.descendant_for_byte_range(at, at + len(marker))
                at = self.source.find(marker, at + len(marker))
                if node is None or self.text(node) != last:
                    continue
                while node.parent is not None and self.text(node.parent).replace(" ", "") in wanted:
                    node = node.parent
                if node.type in kinds and self.text(node).replace(" ", "") in wanted:
                    found[node] = None
        return sorted(found, key=_document_order)

    def mentions(self, markers: tuple[bytes, ...]) -> bool:
        """Whether the source holds any marker: a query that can only match around one need not run."""
        return any(marker in self.source for marker in markers)

    def matches(self, query: str, node: Node | None = None) -> list[tuple[int, dict[str, list[Node]]]]:
        return _cursor(self._queries(query)).matches(node or self.root)

    @staticmethod
    def text(node: Node) -> str:
        return (node.text or b"").decode("utf-8", errors="replace")

    @staticmethod
    def line(node: Node) -> int:
        return node.start_point[0] + 1


def _document_order(node: Node) -> tuple[int, int]:
    return node.start_byte, -node.end_byte


_RAW_HASHED = later(r'r(#+)"(.*)"\1\Z', re.DOTALL)  # Rust's r#"..."#: hashes let the text hold quotes


def string_value(node: Node) -> str | None:
    """The value of a string literal node without interpolation, else None (a computed value)."""
    text = Parsed.text(node)
    kinds = {c.type for c in node.named_children}
    if kinds & {"interpolation", "template_substitution", "escape_sequence"}:
        return None
    hashed = _RAW_HASHED.match(text)
    if hashed is not None:
        return hashed.group(2)
    for prefix in ("r", "b", "u", "R", "B", "U"):
        if text.startswith(prefix) and len(text) > 1 and text[1] in "\"'":
            text = text[1:]
    for quote in ('"""', "'''", '"', "'", "`"):
        if len(text) >= 2 * len(quote) and text.startswith(quote) and text.endswith(quote):
            return text[len(quote) : -len(quote)]
    return None


ERROR_WIDTH_BUDGET = 5000 * 5000  # sum of squared ERROR-node widths past which a query would run for seconds


def too_broken_to_query(root: Node) -> bool:
    """Whether tree-sitter's error recovery left ERROR nodes so wide that a query over them takes time
    quadratic in their width (a Go file of 150,000 `[` is one ERROR node of 150,000 children: 56 s of
    queries, which no callback can stop). Widths are squared and summed, so several wide nodes count
    together; clean parses and ordinary syntax errors are far below the budget."""
    if not root.has_error:
        return False
    cost = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error:
            cost += node.child_count * node.child_count
            if cost > ERROR_WIDTH_BUDGET:
                return True
        if node.has_error:
            stack.extend(node.children)
    return False


def first_error_line(root: Node) -> int | None:
    """The line of the first ERROR or MISSING node, or None for a clean parse."""
    if not root.has_error:
        return None
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            return node.start_point[0] + 1
        if node.has_error:
            stack.extend(reversed(node.children))
    return root.start_point[0] + 1


class Define(NamedTuple):
    """How one node type defines a name, and what its body holds under that name.

    `name` is the field holding the name (every node in it, for declarations
    such as Go's `const A, B = 1, 2`), or a function that finds the name nodes
    where no field holds them. `name_types` keeps only names of those node
    types (`const x = 1` defines x, `const {a} = o` is left out). The line is
    the definition's, or its wrapper's (a decorator or `export` belongs to
    what it wraps), unless `at_name`; `spelling` turns a name node into the
    name (a Ruby symbol `:name` is `name`). `members` are the body's own children
    (class members), recorded before anything nested; `nests` walks the body
    by the same rules as this definition (nested classes, modules). The body is
    each node in the `body` fields, in order: members may be written outside
    the braces (a Java record's components) or under another field (the
    interface a Go `type` names); a grammar without such fields (Kotlin's) gives a
    function that finds the body nodes instead, as `name` may. `owner` is
    the type a definition belongs to where that is written outside it (a Go
    method's receiver); a definition that is not `recorded` only qualifies
    the names in its body (a Rust `impl` block). Named tuples, as `Definitions`: frozen and compared
    by value as a frozen dataclass is, at a quarter of its cost to define at import.
    """

    name: str | Callable[[Node], Iterable[Node]] = "name"
    name_types: frozenset[str] | None = None
    at_name: bool = False
    spelling: Callable[[Node], str] = Parsed.text
    members: Definitions | None = None
    nests: bool = False
    body: tuple[str, ...] | Callable[[Node], Iterable[Node]] = ("body",)
    owner: Callable[[Node], str | None] | None = None
    recorded: bool = True


class Definitions(NamedTuple):
    """A language's definition rules: the data that `definitions` walks a tree by.

    `transparent` nodes (blocks, declaration lists) hold definitions at their
    parent's level; `wrappers` map a node type to the field of the definition
    it wraps, and a wrapper without one is looked at as itself. `scope` is how
    a language writes a name with its scope in it (Ruby `Outer::Inner`), folded
    to the dots of a qualified name.
    """

    defines: Mapping[str, Define]
    transparent: frozenset[str] = frozenset()
    wrappers: Mapping[str, str] = MappingProxyType({})
    scope: str | None = None


def definitions(root: Node, rules: Definitions) -> list[tuple[str, int]]:
    """Qualified names (`Class.method`) and lines of what a file defines, by one language's rules.

    One walker serves every language, so how names qualify and nest is the
    same everywhere and a new language is a table, not another recursion.
    """
    found: list[tuple[str, int]] = []
    _walk(root, rules, "", found)
    return found


def _walk(node: Node, rules: Definitions, prefix: str, found: list[tuple[str, int]]) -> None:
    for child in node.named_children:
        target = child
        wrapped = rules.wrappers.get(child.type)
        if wrapped is not None:
            target = child.child_by_field_name(wrapped) or child
        if target.type in rules.transparent:
            _walk(target, rules, prefix, found)
            continue
        define = rules.defines.get(target.type)
        if define is None:
            continue
        names = target.children_by_field_name(define.name) if isinstance(define.name, str) else define.name(target)
        owner = define.owner(target) if define.owner is not None else None
        scope = prefix + (f"{owner}." if owner else "")
        for name in names:
            if define.name_types is not None and name.type not in define.name_types:
                continue
            text = define.spelling(name) if rules.scope is None else define.spelling(name).replace(rules.scope, ".")
            if define.recorded:
                found.append((scope + text, Parsed.line(name if define.at_name else child)))
            if define.members is None and not define.nests:
                continue
            bodies = define.body(target) if callable(define.body) else (target.child_by_field_name(part) for part in define.body)
            for body in bodies:
                if body is None:
                    continue
                if define.members is not None:
                    _walk(body, define.members, f"{scope}{text}.", found)
                if define.nests:
                    _walk(body, rules, f"{scope}{text}.", found)


def nested(root: Node, types: Collection[str], through: Collection[str]) -> Iterator[Node]:
    """The nodes of `types` in a tree, in document order, nested ones included when they sit in a node of `types` or
    of `through` (a class body), not those inside anything else (a function's local classes): the type declarations
    of a file, for languages whose members the generic `definitions` walk does not attribute (Kotlin, Swift)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in types:
            yield node
        stack.extend(reversed([c for c in node.named_children if c.type in types or c.type in through]))


def enclosing_name(node: Node, types: frozenset[str], scope: str | None = None) -> str:
    """`Outer.Inner`: the names of the definitions of `types` around a node, itself included, outermost
    first, as `definitions` qualifies them (`scope`, such as Ruby's `::`, folded to dots)."""
    names = []
    current: Node | None = node
    while current is not None:
        name = current.child_by_field_name("name") if current.type in types else None
        if name is not None:
            text = Parsed.text(name)
            names.append(text.replace(scope, ".") if scope else text)
        current = current.parent
    return ".".join(reversed(names))
