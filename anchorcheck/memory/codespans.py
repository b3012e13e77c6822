"""The inline code spans of one line of Markdown, as CommonMark reads them, in linear time.

A run of backticks opens a span that the next run of the same length closes;
a run that nothing closes is literal text. A backtracking regex
(`` (`+)(.+?)\\1 ``) retries every longer closer from every opener: a line of
400 runs of growing length (`` a``a```a... ``) took minutes. Here each run
finds its closer through a per-length list of run positions.
"""

from __future__ import annotations

import bisect
import re
from typing import NamedTuple

_BACKTICKS = re.compile(r"`+")


class CodeSpan(NamedTuple):
    """One span, read like a match of `` (`+)(.+?)\1 ``: group 1 the opening backticks, group 2 the content."""

    text: str
    bounds: tuple[tuple[int, int], tuple[int, int], tuple[int, int]]  # whole span, backticks, content

    def start(self, group: int = 0) -> int:
        return self.bounds[group][0]

    def end(self, group: int = 0) -> int:
        return self.bounds[group][1]

    def group(self, group: int = 0) -> str:
        return self.text[self.start(group) : self.end(group)]


def code_spans(line: str) -> list[CodeSpan]:
    """The code spans of one line, in order."""
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(line)]
    by_length: dict[int, list[int]] = {}
    for index, (start, end) in enumerate(runs):
        by_length.setdefault(end - start, []).append(index)
    spans, index = [], 0
    while index < len(runs):
        start, end = runs[index]
        same = by_length[end - start]
        at = bisect.bisect_right(same, index)
        if at == len(same):
            index += 1  # never closed: literal backticks
            continue
        closer = runs[same[at]]
        spans.append(CodeSpan(line, ((start, closer[1]), (start, end), (end, closer[0]))))
        index = same[at] + 1
    return spans
