"""Helpers for the `cmd:` tests: check command lines against a tree, and find the real instruction corpus."""

from __future__ import annotations

import gzip
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from anchorcheck import AnchorResult, Verdict, Verifier
from tests.conftest import shared_corpus


def check(root: Path, *commands: str) -> list[AnchorResult]:
    """One result per command line, each checked as `cmd:LINE` with a fresh Verifier on `root`."""
    verifier = Verifier(root)
    return [verifier.check(c if c.lstrip("!").startswith("cmd:") else f"cmd:{c}") for c in commands]


def verdicts(root: Path, *commands: str) -> dict[str, Verdict]:
    return {c: r.verdict for c, r in zip(commands, check(root, *commands))}


def package(name: str | None = None, scripts: dict[str, str] | None = None, **fields: object) -> str:
    """A package.json text."""
    data: dict[str, object] = {} if name is None else {"name": name}
    if scripts is not None:
        data["scripts"] = scripts
    data.update(fields)
    return json.dumps(data, indent=2) + "\n"


INSTRUCTIONS = shared_corpus("instructions")
needs_instructions = pytest.mark.skipif(INSTRUCTIONS is None, reason="shared/corpora/instructions is not beside the checkout")


def materialize(name: str, into: Path, keep: Callable[[str], bool] = lambda path: True) -> Path:
    """A checkout of corpus repository `name` in `into`: its configuration files as stored, and the
    other tracked paths of FILES.txt (or FILES.txt.gz) that `keep` accepts as empty files, so folders
    and modules exist."""
    assert INSTRUCTIONS is not None
    source = INSTRUCTIONS / name
    root = into / name
    shutil.copytree(source, root, symlinks=True)
    listing = source / "FILES.txt"
    text = listing.read_text() if listing.exists() else gzip.decompress((source / "FILES.txt.gz").read_bytes()).decode()
    for line in text.splitlines():
        path = root / line
        if not line or os.path.lexists(path) or not keep(line):
            continue
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch()
        except (FileExistsError, NotADirectoryError):
            continue  # under a symbolic link or a file of the same name
    tox = root / "tox.ini.gz"
    if tox.exists():
        (root / "tox.ini").write_bytes(gzip.decompress(tox.read_bytes()))
    return root
