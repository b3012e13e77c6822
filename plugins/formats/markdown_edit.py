"""Writing anchors back into Markdown memory files, every other byte kept.

Two edits, both on the code spans the reader takes as anchors (never in
fenced code, comments or frontmatter):

- rename: an anchor written as `old` is rewritten as `new` in place (what
  `relocate` does to a moved span, `rebank` to a fired trigger);
- insert: new anchors go in as inline code at the end of the memory's own
  bullet or paragraph (before its nested bullets), never inside a sentence
  or between two sentences of a paragraph, where they read as noise in the
  prose (what `suggest --write` does).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from anchorcheck.plugin import Line, span_anchors
from anchorcheck_plugins.formats.markdown import memory_blocks

_NESTED_BULLET = re.compile(r"[ \t]+(?:[-*+]|\d+[.)])[ \t]")


def rename_markdown(path: str, text: str, renames: Mapping[str, str]) -> tuple[str, list[tuple[int, str]]]:
    """Rewrite every anchor code span whose text is a key of `renames`; (line, old anchor) of each."""
    lines = text.splitlines(keepends=True)
    changed = []
    for block in memory_blocks(text):
        for number, _, spans in block:
            edits = [(offset, content) for content, offset in span_anchors(spans) if content in renames]
            if not edits:
                continue
            new = lines[number - 1]
            for offset, content in reversed(edits):
                new = new[:offset] + renames[content] + new[offset + len(content) :]
            lines[number - 1] = new
            changed.extend((number, content) for _, content in edits)
    return "".join(lines), changed


def insert_markdown(path: str, text: str, additions: Mapping[str, Sequence[tuple[str, str | None]]]) -> str:
    """Add anchors to the memories named by id (`PATH:LINE`, as the reader names them)."""
    lines = text.splitlines(keepends=True)
    points: dict[int, list[str]] = {}
    for block in memory_blocks(text):
        for anchor, _ in additions.get(f"{path}:{block[0].number}", ()):
            points.setdefault(_own_last_line(block), []).append(anchor)
    for number, anchors in points.items():
        line = lines[number - 1]
        column = len(line.rstrip())
        lines[number - 1] = line[:column] + "".join(f" `{a}`" for a in anchors) + line[column:]
    return "".join(lines)


def _own_last_line(block: Sequence[Line]) -> int:
    """The last line of a memory's own text: the block up to its first nested bullet."""
    last = block[0].number
    for line in block[1:]:
        if _NESTED_BULLET.match(line.text):
            break
        last = line.number
    return last
