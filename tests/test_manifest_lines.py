"""The line a manifest declaration is cited at (`LineFinder.key`): found by trying each occurrence of the
name with two patterns compiled once, it must be the line one pattern compiled per name finds."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from anchorcheck_plugins.ecosystems.parsing import LineFinder
from tests._pkg_support import MANIFESTS, needs_corpus

_DOTTED = r"""(?:[ \t]*\.[ \t]*["']?[A-Za-z0-9_-]+["']?)*"""


def _by_one_pattern(text: str, name: str, start: int) -> int | None:
    found = re.compile(r"""^[ \t]*["']?""" + re.escape(name) + r"""["']?""" + _DOTTED + r"""[ \t]*[=:]""", re.MULTILINE).search(text, start)
    return LineFinder(text).line(found.start()) if found else None


_LINE = st.lists(st.sampled_from([" ", "\t", '"', "'", "a", "b", "a.b", ".", "=", ":", "-", "x", "\n", "[dependencies]"]), max_size=12).map("".join)


@given(st.lists(_LINE, max_size=8).map("\n".join), st.sampled_from(["a", "b", "a.b", "x-y", "'a", "ab"]), st.integers(0, 30))
def test_a_key_is_found_on_the_line_one_pattern_finds(text: str, name: str, start: int) -> None:
    assert LineFinder(text).key(name, after=start) == _by_one_pattern(text, name, start)


@needs_corpus
def test_every_key_of_the_corpus_manifests_is_found_on_the_same_line() -> None:
    assert MANIFESTS is not None
    checked = 0
    for path in [*MANIFESTS.rglob("Cargo.toml"), *MANIFESTS.rglob("pyproject.toml"), *MANIFESTS.rglob("package.json")]:
        text = path.read_text(errors="replace")
        finder = LineFinder(text)
        for name in set(re.findall(r"""^[ \t]*["']?([@A-Za-z0-9_./-]+)""", text, re.MULTILINE)):
            assert finder.key(name) == _by_one_pattern(text, name, 0), (path, name)
            checked += 1
    assert checked > 200
