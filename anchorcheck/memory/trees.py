"""Directory trees drawn in a code block (`tree` output: `├──`, `└──`, `│`), read as the paths they draw.

    packages/devtools/
    ├── src/
    │   └── index.ts           # DevTools server
    └── client/

draws `packages/devtools/src/`, `packages/devtools/src/index.ts` and
`packages/devtools/client/`: each entry is its parents' path joined with its
name, under the root written at the margin above it (none when that is `.`). A `# comment` after a name is dropped. Depth is the column of
an entry's connector, as `tree` and people draw it (4 columns a level, 2 or 3
accepted): the connector columns seen so far, in order, are the levels.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from anchorcheck.base.lazyregex import later

# A connector: `├── `, `└── ` (also with one dash or ASCII `|-- `, `` `-- ``), after the guides of the levels above.
_ENTRY = later(r"^([ \t│|]*)(?:[├└][─-]{1,3}|[|`+]--)[ \t]*([^ \t#][^ \t]*)")
_ROOT = later(r"^(?!\.\.\.|…)([^ \t│├└#|`+][^ \t]*)[ \t]*(?:#.*)?$")  # at the margin; `...` is an elision
_MOST_LEVELS = 64


class TreeEntry(NamedTuple):
    """One entry of a drawn tree: the 1-based line, the 0-based column of its name, the name as written, its path,
    and the comment written after it."""

    line: int
    column: int
    written: str
    path: str
    comment: str = ""


def is_tree(lines: Sequence[str]) -> bool:
    """Whether a code block's lines draw a directory tree (two connectors at least)."""
    return sum(1 for line in lines if _ENTRY.match(line)) >= 2


def tree_entries(lines: Sequence[str], first_line: int) -> list[TreeEntry]:
    """The paths a tree block draws; `first_line` is the 1-based number of `lines[0]`. Lines that are no entry
    (a blank, a `...`) are skipped, and a second root line starts a second tree."""
    found: list[TreeEntry] = []
    root = ""
    levels: list[int] = []  # connector columns, one per level
    names: list[str] = []  # the entry names of the open levels
    for offset, line in enumerate(lines):
        entry = _ENTRY.match(line)
        if entry is None:
            head = _ROOT.match(line)
            if head is not None:
                written = head.group(1)
                root = "" if written in (".", "./") else written.rstrip("/") + "/"
                levels, names = [], []
            continue
        column = len(entry.group(1))
        while levels and levels[-1] > column:
            levels.pop()
        if not levels or levels[-1] < column:
            if len(levels) >= _MOST_LEVELS:
                continue
            levels.append(column)
        depth = len(levels) - 1
        names[depth:] = [entry.group(2)]
        parents = "".join(n.rstrip("/") + "/" for n in names[:-1])
        comment = line[entry.end(2) :].strip().lstrip("#").strip()
        found.append(TreeEntry(first_line + offset, entry.start(2), entry.group(2), root + parents + names[-1], comment))
    return found
