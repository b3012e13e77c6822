"""What a language plugin extracts from one parsed file: imports, environment reads, definitions.

Facts depend on the file's bytes only (never on its path), so they can be
cached by content and shared between checkouts; anything that needs the path
(resolving a relative import) happens when an anchor is checked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tree_sitter import Node, Query, QueryCursor

# Import flags: how certain it is that the import runs.
TYPE_CHECKING_ONLY = "type-checking"
OPTIONAL = "optional"  # inside try/except ImportError (or a similar guard)


@dataclass
class Facts:
    """The source evidence of one file. Lines are 1-based.

    `imports`: (module as written, line, flag) — relative Python imports keep
    their leading dots. `env`: (key, line). `env_computed`: lines that read
    the environment with a key computed at run time. `defs`: (qualified name,
    line). `error`: the first line tree-sitter could not parse, if any.
    """

    imports: list[tuple[str, int, str]] = field(default_factory=list)
    env: list[tuple[str, int]] = field(default_factory=list)
    env_computed: list[int] = field(default_factory=list)
    defs: list[tuple[str, int]] = field(default_factory=list)
    error: int | None = None

    def add_env_read(
        self, read: Node, key: Node, literal_types: tuple[str, ...], constants: Mapping[str, str] | None = None
    ) -> None:
        """Record a read of the environment: by name when the key is a plain literal (or a name
        bound once to one in the same file, `KEY = "X"; os.getenv(KEY)`), else as computed."""
        value = string_value(key) if key.type in literal_types else None
        if value is None and constants and key.type == "identifier":
            value = constants.get(Parsed.text(key))
        if value:
            self.env.append((value, read.start_point[0] + 1))
        else:
            self.env_computed.append(read.start_point[0] + 1)

    def to_dict(self) -> dict[str, Any]:
        return {
            "imports": [list(i) for i in self.imports],
            "env": [list(e) for e in self.env],
            "env_computed": list(self.env_computed),
            "defs": [list(d) for d in self.defs],
            "error": self.error,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Facts:
        return cls(
            imports=[(str(m), int(n), str(f)) for m, n, f in data["imports"]],
            env=[(str(k), int(n)) for k, n in data["env"]],
            env_computed=[int(n) for n in data["env_computed"]],
            defs=[(str(q), int(n)) for q, n in data["defs"]],
            error=None if data["error"] is None else int(data["error"]),
        )


class Parsed:
    """A parsed file as an `extract` function sees it: the tree, the bytes and the language's queries."""

    def __init__(self, root: Node, source: bytes, queries: Callable[[str], Query]) -> None:
        self.root = root
        self.source = source
        self._queries = queries

    def captures(self, query: str, node: Node | None = None) -> dict[str, list[Node]]:
        return QueryCursor(self._queries(query)).captures(node or self.root)

    def matches(self, query: str, node: Node | None = None) -> list[tuple[int, dict[str, list[Node]]]]:
        return QueryCursor(self._queries(query)).matches(node or self.root)

    @staticmethod
    def text(node: Node) -> str:
        return (node.text or b"").decode("utf-8", errors="replace")

    @staticmethod
    def line(node: Node) -> int:
        return node.start_point[0] + 1


def string_value(node: Node) -> str | None:
    """The value of a string literal node without interpolation, else None (a computed value)."""
    text = Parsed.text(node)
    kinds = {c.type for c in node.named_children}
    if kinds & {"interpolation", "template_substitution", "escape_sequence"}:
        return None
    for prefix in ("r", "b", "u", "R", "B", "U"):
        if text.startswith(prefix) and len(text) > 1 and text[1] in "\"'":
            text = text[1:]
    for quote in ('"""', "'''", '"', "'", "`"):
        if len(text) >= 2 * len(quote) and text.startswith(quote) and text.endswith(quote):
            return text[len(quote) : -len(quote)]
    return None


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
