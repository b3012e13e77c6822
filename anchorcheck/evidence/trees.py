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

A caller may name the content (a file's path): the last content parsed under a
name is remembered while its tree is kept, and the next content under that name
is parsed incrementally from it, tree-sitter reusing every node outside the
bytes that differ. A long-lived Verifier then pays for an edit of a 10 KB file
what the edited lines cost (0.12 ms instead of 1.4 ms) rather than the whole
file. The edit handed to tree-sitter is worked out from the two contents
themselves, whatever the name named; a tree with a syntax error is parsed again
from nothing (error recovery may differ from an old tree's), so every tree is
the one a parse from nothing gives.

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
_BLOCK = 4096  # bytes compared at a time when looking for where an edit starts


@lru_cache(maxsize=None)
def parser_for(grammar: str) -> Parser:
    """One parser per grammar per process: building a parser is not free."""
    return grammars.parser(grammar)


class _Held:
    """Trees by (grammar, content), the least recently used dropped first past `limit` source bytes.
    An entry of None is a content the grammar could not parse within the budget: not tried again.
    `named`: the content last parsed under a name, while its tree is kept (`previous`)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.size = 0
        self.trees: OrderedDict[tuple[Grammar, bytes], Tree | None] = OrderedDict()
        self.named: dict[tuple[Grammar, str], bytes] = {}
        self.names: dict[tuple[Grammar, bytes], str] = {}  # the other way: dropped with the tree

    def get(self, key: tuple[Grammar, bytes]) -> tuple[bool, Tree | None]:
        try:  # one lookup, then the move: another thread may drop the entry between two
            tree = self.trees[key]
            self.trees.move_to_end(key)
        except KeyError:
            return False, None
        return True, tree

    def put(self, key: tuple[Grammar, bytes], tree: Tree | None, name: str | None = None) -> None:
        if len(key[1]) * 4 > self.limit or key in self.trees:
            return
        self.trees[key] = tree
        self.size += len(key[1])
        if name is not None and tree is not None:
            self.named[key[0], name] = key[1]
            self.names[key] = name
        while self.size > self.limit and self.trees:
            dropped, _ = self.trees.popitem(last=False)
            self.size -= len(dropped[1])
            gone = self.names.pop(dropped, None)
            if gone is not None and self.named.get((dropped[0], gone)) is dropped[1]:
                del self.named[dropped[0], gone]

    def previous(self, grammar: Grammar, name: str) -> tuple[bytes, Tree] | None:
        """The content last parsed under `name` and its tree, while it is kept."""
        data = self.named.get((grammar, name))
        tree = self.trees.get((grammar, data)) if data is not None else None
        return (data, tree) if data is not None and tree is not None else None


_HELD = _Held(_HELD_BYTES)


def parse(grammar: Grammar, data: bytes, until: float | None = None, name: str | None = None) -> Tree | None:
    """The tree of `data` in `grammar` (a name in the pack, or a plugin's loader of its own); None when
    the grammar could not parse it within PARSE_BUDGET (a looping grammar: unparseable, not a hang).
    Past the caller's `until` it raises BudgetExceeded, and nothing about the content is kept.
    `name` (a file's path): parsed from the content last parsed under it, where its tree is kept.

    A tree with no syntax error holds the bytes (node text is a slice of them); one with errors
    reads its text through the parse's read callback, which is slower but right.
    """
    data = bytes(data)
    key = (grammar, data)
    held = _HELD
    known, tree = held.get(key)
    if known:
        return tree
    previous = held.previous(grammar, name) if name is not None else None
    if previous is None:
        tree = _parse(grammar, data, until)
    else:  # (a content the grammar loops on from its old tree is not given the budget twice)
        tree = _parse(grammar, data, until, old=_edited(*previous, data))
        if tree is not None and tree.root_node.has_error:
            # tree-sitter recovers from a syntax error differently when it starts from an old tree (random
            # edits found it in JavaScript, TypeScript and Python): only a clean tree is taken from one.
            tree = _parse(grammar, data, until)
    held.put(key, tree, name)
    return tree


def _edited(old: bytes, tree: Tree, new: bytes) -> Tree:
    """A copy of `old`'s tree told where `new` differs from it: one edit, from the first byte that
    differs to the last, which tree-sitter re-parses while it reuses the nodes around it."""
    start = _common_prefix(old, new)
    end = _common_suffix(old, new, min(len(old), len(new)) - start)
    old_end, new_end = len(old) - end, len(new) - end
    edited = tree.copy()
    edited.edit(
        start_byte=start,
        old_end_byte=old_end,
        new_end_byte=new_end,
        start_point=_point(old, start),
        old_end_point=_point(old, old_end),
        new_end_point=_point(new, new_end),
    )
    return edited


def _common_prefix(first: bytes, second: bytes) -> int:
    """How many leading bytes the two share: whole blocks compared first (each a memcmp), then the
    block that differs halved down, so a 1 MB file costs a few hundred comparisons, not a million."""
    at, limit = 0, min(len(first), len(second))
    while at < limit and first[at : at + _BLOCK] == second[at : at + _BLOCK]:
        at += _BLOCK
    at, high = min(at, limit), min(at + _BLOCK, limit)
    while at < high:  # the first difference is at `high` or before
        middle = (at + high + 1) // 2
        if first[at:middle] == second[at:middle]:
            at = middle
        else:
            high = middle - 1
    return at


def _common_suffix(first: bytes, second: bytes, limit: int) -> int:
    """How many trailing bytes the two share, at most `limit` (what the common prefix left)."""
    one, two = len(first), len(second)
    at = 0
    while at < limit and first[max(one - at - _BLOCK, one - limit) : one - at] == second[max(two - at - _BLOCK, two - limit) : two - at]:
        at += _BLOCK
    at, high = min(at, limit), min(at + _BLOCK, limit)
    while at < high:  # as `_common_prefix`, from the end
        middle = (at + high + 1) // 2
        if first[one - middle : one - at] == second[two - middle : two - at]:
            at = middle
        else:
            high = middle - 1
    return at


def _point(data: bytes, at: int) -> tuple[int, int]:
    """tree-sitter's point of a byte offset: (row, column in bytes)."""
    return data.count(b"\n", 0, at), at - data.rfind(b"\n", 0, at) - 1


def _parse(grammar: Grammar, data: bytes, until: float | None, old: Tree | None = None) -> Tree | None:
    if isinstance(grammar, str):
        parser = parser_for(grammar)
    else:
        from tree_sitter import Parser

        parser = Parser(grammar())
    budget = time.monotonic() + PARSE_BUDGET
    bound = budget if until is None else min(until, budget)
    try:
        tree = _bounded_parse(parser, data, bound) if old is None else _bounded_parse(parser, data, bound, old)
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


def _bounded_parse(parser: Parser, data: bytes, until: float, old: Tree | None = None) -> Tree:
    """Parse through a read callback, which is what lets tree-sitter ask whether to go on."""
    if time.monotonic() > until:
        raise BudgetExceeded()
    try:
        return parser.parse(
            lambda at, _point: data[at : at + _READ_CHUNK],
            **({} if old is None else {"old_tree": old}),  # (None is refused)
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
