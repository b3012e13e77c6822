"""Syntax trees of file contents, each content parsed once per process while it is recent.

Fact extraction parses a file, and a plugin may want the same file's tree
again (setup.py is a Python source and a manifest; a noxfile, a workflow), so
every parse goes through `parse`: one tree per (grammar, content), kept in a
small least-recently-used store. A tree takes about 23 bytes of memory per byte
of source, so the store holds trees of at most `_HELD_BYTES` of source (about
25 MB of trees) and never one of a file bigger than a quarter of that; what
falls out is parsed again if it is asked for again. Keyed by the bytes
themselves (their hash is computed once per bytes object, and the tree holds
them anyway), so an edited file is never answered with its old tree.

Every parse is bounded: past `PARSE_BUDGET` seconds (or the caller's deadline,
a `time.monotonic()` value) tree-sitter is stopped through its progress
callback. Per process and free of I/O: worker processes parse with it too.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, Union

from anchorcheck.evidence import grammars
from anchorcheck.repo.context import BudgetExceeded

if TYPE_CHECKING:
    from tree_sitter import Language as TSLanguage
    from tree_sitter import Parser, Tree

Grammar = Union[str, Callable[[], "TSLanguage"]]  # a grammar of the pack by name, or a plugin's own loader

PARSE_BUDGET = 5.0  # seconds one file may parse: 2 MB of real code parses in 0.3 s, a looping grammar never ends
_READ_CHUNK = 1 << 16  # bytes handed to tree-sitter per read callback of a bounded parse
_HELD_BYTES = 1 << 20  # source bytes whose trees are kept


@lru_cache(maxsize=None)
def parser_for(grammar: str) -> Parser:
    """One parser per grammar per process: building a parser is not free."""
    return grammars.parser(grammar)


class _Held:
    """Trees by (grammar, content), the least recently used dropped first past `limit` source bytes.
    An entry of None is a content the grammar could not parse within the budget: not tried again."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.size = 0
        self.trees: OrderedDict[tuple[Grammar, bytes], Tree | None] = OrderedDict()

    def get(self, key: tuple[Grammar, bytes]) -> tuple[bool, Tree | None]:
        try:  # one lookup, then the move: another thread may drop the entry between two
            tree = self.trees[key]
            self.trees.move_to_end(key)
        except KeyError:
            return False, None
        return True, tree

    def put(self, key: tuple[Grammar, bytes], tree: Tree | None) -> None:
        if len(key[1]) * 4 > self.limit or key in self.trees:
            return
        self.trees[key] = tree
        self.size += len(key[1])
        while self.size > self.limit and self.trees:
            (_, dropped), _ = self.trees.popitem(last=False)
            self.size -= len(dropped)


_HELD = _Held(_HELD_BYTES)


def parse(grammar: Grammar, data: bytes, until: float | None = None) -> Tree | None:
    """The tree of `data` in `grammar` (a name in the pack, or a plugin's loader of its own); None when
    the grammar could not parse it within PARSE_BUDGET (a looping grammar: unparseable, not a hang).
    Past the caller's `until` it raises BudgetExceeded, and nothing about the content is kept.

    A tree with no syntax error holds the bytes (node text is a slice of them); one with errors
    reads its text through the parse's read callback, which is slower but right.
    """
    data = bytes(data)
    key = (grammar, data)
    known, tree = _HELD.get(key)
    if known:
        return tree
    tree = _parse(grammar, data, until)
    _HELD.put(key, tree)
    return tree


def _parse(grammar: Grammar, data: bytes, until: float | None) -> Tree | None:
    if isinstance(grammar, str):
        parser = parser_for(grammar)
    else:
        from tree_sitter import Parser

        parser = Parser(grammar())
    budget = time.monotonic() + PARSE_BUDGET
    try:
        tree = _bounded_parse(parser, data, budget if until is None else min(until, budget))
    except BudgetExceeded:
        if until is not None and time.monotonic() > until:
            raise  # the caller's deadline: nothing about this content is known
        return None  # the grammar itself loops (a 1 KB TSX input did)
    if not tree.root_node.has_error:
        # A tree parsed through a read callback fetches each node's text through it again (0.3 ms a
        # node on a 100 KB file: extraction took 4x the parse), and py-tree-sitter ignores the progress
        # callback when it is handed the bytes. Parsing the bytes with that tree as the old one reuses
        # every node (7% of the first parse's time) and keeps the bytes. A tree with errors may reuse
        # little, which would be a second unbounded parse: it keeps the callback.
        tree = parser.parse(data, old_tree=tree)
    return tree


def _bounded_parse(parser: Parser, data: bytes, until: float) -> Tree:
    """Parse through a read callback, which is what lets tree-sitter ask whether to go on."""
    if time.monotonic() > until:
        raise BudgetExceeded()
    try:
        return parser.parse(
            lambda at, _point: data[at : at + _READ_CHUNK],
            progress_callback=lambda _offset, _has_error: time.monotonic() > until,
        )
    except ValueError:  # "Parsing failed": the callback stopped it
        parser.reset()  # else the next parse would resume this one
        if time.monotonic() > until:
            raise BudgetExceeded() from None
        raise


def forget() -> None:
    """Drop every tree kept: a benchmark's cold run then starts with none, as a new process does."""
    global _HELD
    _HELD = _Held(_HELD_BYTES)
