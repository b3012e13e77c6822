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

_BACKTICKS = re.compile(r"`+")


def code_spans(line: str) -> list[tuple[int, int, int, int]]:
    """Each span as (start, end, content start, content end): offsets of the backticks and of what they enclose."""
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
        closer = same[at]
        spans.append((start, runs[closer][1], end, runs[closer][0]))
        index = closer + 1
    return spans
