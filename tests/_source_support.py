"""Helpers for the source-evidence tests: write a small tree, check anchors against it."""

from __future__ import annotations

import textwrap
from pathlib import Path

import anchorcheck
from tests.conftest import write_tree


def write(root: Path, files: dict[str, str | bytes]) -> Path:
    """Like `write_tree`, with text dedented so fixtures can be indented in the test."""
    return write_tree(root, {k: v if isinstance(v, bytes) else textwrap.dedent(v).lstrip("\n") for k, v in files.items()})


def verifier(root: Path, cache_dir: Path | None = None) -> anchorcheck.Verifier:
    """A Verifier with the on-disk cache off, or in `cache_dir`."""
    return anchorcheck.Verifier(root, options={"cache": cache_dir is not None, "cache_dir": cache_dir})


def check(root: Path, anchor: str) -> anchorcheck.AnchorResult:
    return verifier(root).check(anchor)


def lines(result: anchorcheck.AnchorResult) -> list[tuple[str, int | None]]:
    return [(e.path, e.line) for e in result.evidence]
