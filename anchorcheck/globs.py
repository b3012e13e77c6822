"""Gitignore-style patterns, compiled by pathspec only when a run has one: most runs never do.

pathspec costs more to import than a whole small `anchorcheck check` spends
checking, and a run sees a pattern only for an `in:` glob, an `exclude`
setting or a `.gitignore` it must read itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec


def gitignore(lines: Iterable[str]) -> GitIgnoreSpec:
    """The compiled patterns (raises ValueError or re.error for one that does not compile)."""
    from pathspec import GitIgnoreSpec

    return GitIgnoreSpec.from_lines(list(lines))


class Patterns:
    """A list of gitignore-style patterns, compiled on the first match; an empty list matches nothing."""

    def __init__(self, lines: Iterable[str] = ()) -> None:
        self.patterns = list(lines)
        self._spec: GitIgnoreSpec | None = None

    def match_file(self, path: str) -> bool:
        if not self.patterns:
            return False
        if self._spec is None:
            self._spec = gitignore(self.patterns)
        return bool(self._spec.match_file(path))
