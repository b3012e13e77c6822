"""Writing anchors back into Markdown memory files, every other byte kept.

Two edits, both on the code spans the reader takes as anchors (never in
fenced code, comments or frontmatter):

- rename: an anchor written as `old` is rewritten as `new` in place (what
  `relocate` does to a moved span, `rebank` to a fired trigger);
- insert: new anchors go in as inline code right after the sentence they
  were read from (after the anchors already written there), or at the end
  of the memory when nothing places them (what `suggest --write` does).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from anchorcheck.plugin import Line, looks_like_anchor, span_anchors
from anchorcheck_plugins.formats.markdown import memory_blocks

_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")
_BLANKS = re.compile(r"[ \t]*")


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
    points: dict[tuple[int, int], list[str]] = {}
    for block in memory_blocks(text):
        for anchor, mention in additions.get(f"{path}:{block[0].number}", ()):
            points.setdefault(_insertion_point(block, mention), []).append(anchor)
    for (number, column), anchors in sorted(points.items(), reverse=True):
        line = lines[number - 1]
        lines[number - 1] = line[:column] + "".join(f" `{a}`" for a in anchors) + line[column:]
    return "".join(lines)


def _insertion_point(block: Sequence[Line], mention: str | None) -> tuple[int, int]:
    """(line, column) after the sentence holding `mention` and the anchors that follow it."""
    first, start = 0, 0
    if mention:
        for index, line in enumerate(block):
            at = line.text.find(mention)
            if at >= 0:
                first, start = index, at + len(mention)
                break
    for index in range(first, len(block)):
        line = block[index]
        end = _sentence_end(line, start if index == first else 0)
        if end is not None:
            return line.number, _after_anchors(line, end)
    return block[-1].number, len(block[-1].text.rstrip())


def _sentence_end(line: Line, start: int) -> int | None:
    inside = [(m.start(), m.end()) for m in line.spans]
    for match in _SENTENCE_END.finditer(line.text, start):
        if not any(a <= match.start() < b for a, b in inside):
            return match.end()
    return None


def _after_anchors(line: Line, column: int) -> int:
    """Past the anchor code spans already written after this point (new ones go after them)."""
    while True:
        gap = _BLANKS.match(line.text, column)
        spans = [m for m in line.spans if gap is not None and m.start() == gap.end()]
        if not spans or not looks_like_anchor(spans[0].group(2).strip()):
            return column
        column = spans[0].end()
