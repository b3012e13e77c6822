"""Helpers for the source-evidence tests: write a small tree, check anchors against it."""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

import anchorcheck


def write(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(textwrap.dedent(content).lstrip("\n"), encoding="utf-8")
    return root


def git_init(root: Path) -> None:
    run = lambda *a: subprocess.run(["git", "-C", str(root), *a], check=True, capture_output=True)  # noqa: E731
    run("init", "-q")
    run("add", "-A")
    run("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "init")


def verifier(root: Path, cache_dir: Path | None = None) -> anchorcheck.Verifier:
    options = {"cache": cache_dir is not None, "cache_dir": cache_dir}
    return anchorcheck.Verifier(root, options=options)


def check(root: Path, anchor: str) -> anchorcheck.AnchorResult:
    return verifier(root).check(anchor)


def lines(result: anchorcheck.AnchorResult) -> list[tuple[str, int | None]]:
    return [(e.path, e.line) for e in result.evidence]
