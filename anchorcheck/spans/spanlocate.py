"""Finding a banked span in the current lines of a file: the exact window, then relocation.

Pure functions over lists of byte lines (`citation.split_lines`), so the
rules can be tested and property-tested without a repository:

1. The recorded window holds the same bytes: fresh.
2. Otherwise every line-aligned occurrence of the same bytes is a candidate.
   A candidate is accepted when the banked context (up to five lines each
   side, compared exactly) surrounds it; a context shorter than five lines
   means the span sat at the start or end of the file, and then the
   candidate must sit there too. So an identical twin block elsewhere never
   vouches for an edited original.
3. A span that was unique in its file when banked (`copies == 1`) and has
   exactly one occurrence now relocates even when its context was edited.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from anchorcheck.model.citation import Citation, sha256_of
from anchorcheck.spans.citation import CONTEXT_LINES, find_block

MAX_DIFF_LINES = 40
"""A stale result shows at most this many unified-diff lines."""
_MAX_DIFF_WIDTH = 200
_MAX_REGION_GROWTH = 50
_HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@$")


@dataclass(frozen=True)
class Found:
    """Where the span is now. `state` is `fresh`, `relocated` or `absent`.

    `start`/`end` are 1-based inclusive lines when found; `rule` says which
    rule accepted it (`window`, `context` or `unique`); `copies` counts the
    line-aligned occurrences of the banked bytes in the file now (not
    counted for a window hit), `matching` those that carry the banked context.
    """

    state: str
    start: int | None = None
    end: int | None = None
    rule: str = ""
    copies: int = 0
    matching: int = 0


def locate(citation: Citation, lines: Sequence[bytes], *, window: bool = True) -> Found:
    """Apply the window, context and uniqueness rules to one file's current lines.

    `window=False` skips the recorded-window shortcut: for another file that
    merely might hold the span, the same line numbers are no evidence.
    """
    n = citation.line_count
    s = citation.start_line - 1
    if window and s + n <= len(lines) and sha256_of(lines[s : s + n]) == citation.sha256:
        return Found("fresh", citation.start_line, citation.end_line, "window", copies=1)
    candidates = occurrences(citation, lines)
    if not candidates:
        return Found("absent")
    passing = [i for i in candidates if context_matches(citation, lines, i)]
    if passing:
        best = min(passing, key=lambda i: (abs(i - s), i))
        return Found("relocated", best + 1, best + n, "context", len(candidates), len(passing))
    if citation.copies == 1 and len(candidates) == 1:
        i = candidates[0]
        return Found("relocated", i + 1, i + n, "unique", 1, 0)
    return Found("absent", copies=len(candidates))


def occurrences(citation: Citation, lines: Sequence[bytes]) -> list[int]:
    """0-based starts of every line-aligned window holding exactly the banked bytes."""
    n = citation.line_count
    if n > len(lines):
        return []
    banked = citation.banked_bytes()
    starts = find_block(lines, banked) if banked is not None else range(len(lines) - n + 1)
    return [i for i in starts if sha256_of(lines[i : i + n]) == citation.sha256]


def context_matches(citation: Citation, lines: Sequence[bytes], i: int) -> bool:
    """Whether the banked context surrounds a candidate starting at 0-based line `i`."""
    before = _as_bytes(citation.context_before)
    after = _as_bytes(citation.context_after)
    if before is None or after is None:
        return False  # a record without context cannot use the context rule
    n = citation.line_count
    if i < len(before) or list(lines[i - len(before) : i]) != before:
        return False
    if len(before) < CONTEXT_LINES and i != len(before):
        return False  # banked at the start of the file: relocates only to the start
    end = i + n
    if list(lines[end : end + len(after)]) != after:
        return False
    return not (len(after) < CONTEXT_LINES and end + len(after) != len(lines))


def current_region(citation: Citation, lines: Sequence[bytes]) -> tuple[int, list[bytes]]:
    """What now stands where the span was: between its banked context when that is found once,
    else the recorded window. Returns the 1-based first line and the lines (for the diff)."""
    s, n = citation.start_line - 1, citation.line_count
    before = _as_bytes(citation.context_before) or []
    after = _as_bytes(citation.context_after) or []
    if before and after:
        starts = [i + len(before) for i in find_block(lines, before)]
        if len(starts) == 1:
            ends = [j for j in find_block(lines, after) if j >= starts[0]]
            if ends and ends[0] - starts[0] <= n + _MAX_REGION_GROWTH:
                return starts[0] + 1, list(lines[starts[0] : ends[0]])
    banked = _as_bytes(citation.lines)
    if banked is not None:
        aligned = _aligned(before, banked, after, lines, s)
        if aligned is not None:
            return aligned[0] + 1, list(lines[aligned[0] : aligned[1]])
    return citation.start_line, list(lines[s : s + n])


def _aligned(before: list[bytes], banked: list[bytes], after: list[bytes], lines: Sequence[bytes], s: int) -> tuple[int, int] | None:
    """Where the banked span now stands, found by aligning the banked context and lines with the
    file around the recorded place (difflib), when the context itself moved or changed: lines
    inserted just above the span must not push the real edit out of the diff. Each end of the span
    maps through the alignment (lines inserted at an end count as inside). None when nothing of
    the span or its context matches there."""
    lo = max(0, s - len(before) - _MAX_REGION_GROWTH)
    hi = min(len(lines), s + len(banked) + len(after) + _MAX_REGION_GROWTH)
    window = list(lines[lo:hi])
    first, last = len(before), len(before) + len(banked)  # the span's lines in `before + banked + after`
    matcher = difflib.SequenceMatcher(None, [*before, *banked, *after], window, autojunk=False)
    if not any(size for _, _, size in matcher.get_matching_blocks()):
        return None
    codes = matcher.get_opcodes()
    start = next(
        (j1 if tag == "insert" else j1 + min(first - i1, j2 - j1) for tag, i1, i2, j1, j2 in codes if i1 <= first < i2 or (tag == "insert" and i1 == first)),
        None,
    )
    if start is None:
        return None
    end = next(
        (j2 if tag == "insert" else j1 + min(last - i1, j2 - j1) for tag, i1, i2, j1, j2 in reversed(codes) if i1 < last <= i2 or (tag == "insert" and i1 == last)),
        start,
    )
    if end - start > len(banked) + _MAX_REGION_GROWTH:
        return None
    return lo + start, lo + max(start, end)


def unified_diff(
    banked: Sequence[bytes],
    current: Sequence[bytes],
    labels: tuple[str, str],
    first_lines: tuple[int, int] = (1, 1),
    *,
    limit: int = MAX_DIFF_LINES,
) -> str:
    """A capped unified diff of banked versus current lines, numbered as in the files
    (`first_lines` are the 1-based lines the two sides start at); line-ending changes stay visible."""
    raw = difflib.unified_diff(
        [_shown(line) for line in banked], [_shown(line) for line in current], *labels, lineterm=""
    )
    diff = [_renumber(line, first_lines) for line in raw]
    if len(diff) > limit:
        hidden = len(diff) - limit
        diff = [*diff[:limit], f"... {hidden} more diff line{'s' if hidden != 1 else ''}"]
    return "\n".join(diff)


def _renumber(line: str, first_lines: tuple[int, int]) -> str:
    match = _HUNK.match(line)
    if not match:
        return line
    old = int(match.group(1)) + first_lines[0] - 1
    new = int(match.group(3)) + first_lines[1] - 1
    return f"@@ -{old}{match.group(2) or ''} +{new}{match.group(4) or ''} @@"


def _shown(line: bytes) -> str:
    text = line.decode("utf-8", errors="replace")
    if text.endswith("\n"):
        text = text[:-1]
    else:
        text += " \\ (no newline at end of file)"
    if text.endswith("\r"):
        text = text[:-1] + "\\r"
    return text if len(text) <= _MAX_DIFF_WIDTH else text[: _MAX_DIFF_WIDTH - 3] + "..."


def _as_bytes(lines: tuple[str, ...] | None) -> list[bytes] | None:
    return None if lines is None else [line.encode("utf-8") for line in lines]

