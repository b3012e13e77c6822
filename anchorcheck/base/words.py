"""Counts in sentences a person reads: "1 anchor", "3 anchors", never "3 anchor(s)"."""

from __future__ import annotations


def plural(count: int, noun: str, many: str | None = None) -> str:
    """`count` and the noun in the number it takes (`many` for an irregular plural: memory → memories)."""
    return f"{count} {noun if count == 1 else many or noun + 's'}"
