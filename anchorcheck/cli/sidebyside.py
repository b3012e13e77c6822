"""Two versions of a span in two columns, so a person sees what they are asked to accept.

`anchorcheck rebank` prints the lines as banked and the lines where their
content is now, each numbered as in its file, the lines that differ marked
with `|` between the columns (as `diff --side-by-side` does), before it will
store a new fingerprint.
"""

from __future__ import annotations

from itertools import zip_longest

from anchorcheck.model.citation import Citation

_GUTTER = 3  # " | " between the columns
_NUMBER = 6  # a line number and a space


def side_by_side(banked: Citation, current: Citation, width: int) -> list[str]:
    """The rows: a header naming both places, then one row per line pair (`|` where they differ)."""
    column = max(20, (width - 4 - _GUTTER) // 2)
    text = column - _NUMBER
    left = _numbered(banked, text)
    right = _numbered(current, text)
    rows = [f"{_cell('banked: ' + _place(banked), column)}   {_place(current, 'now: ')}"]
    for old, new in zip_longest(left, right, fillvalue=("", "", None)):
        mark = " " if old[2] == new[2] else "|"
        rows.append(f"{_cell(old[0] + old[1], column)} {mark} {new[0]}{new[1]}".rstrip())
    return rows


def _place(citation: Citation, prefix: str = "") -> str:
    lines = f"L{citation.start_line}" if citation.start_line == citation.end_line else f"L{citation.start_line}-L{citation.end_line}"
    return f"{prefix}{citation.path}#{lines}"


def _numbered(citation: Citation, text: int) -> list[tuple[str, str, str | None]]:
    """Each line as (its number, its text cut to the column with a CR or a missing final newline made
    visible, the line itself)."""
    out = []
    for number, line in enumerate(citation.lines or (), start=citation.start_line):
        shown = line[:-1] if line.endswith("\n") else line + " \\ no newline"
        shown = shown[:-1] + "\\r" if shown.endswith("\r") else shown
        shown = shown.expandtabs(4)
        out.append((f"{number:>{_NUMBER - 1}} ", shown if len(shown) <= text else shown[: text - 1] + "…", line))
    return out


def _cell(value: str, column: int) -> str:
    return value[:column].ljust(column)
