"""Helpers for the `cmd:` tests: check command lines against a tree, and find the real instruction corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anchorcheck import AnchorResult, Verdict, Verifier
from tests._pkg_support import MANIFESTS


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


# the instruction corpus sits beside the manifest corpus in shared/corpora/
INSTRUCTIONS = MANIFESTS.parent / "instructions" if MANIFESTS is not None else None
needs_instructions = pytest.mark.skipif(
    INSTRUCTIONS is None or not INSTRUCTIONS.is_dir(), reason="shared/corpora/instructions is not beside the checkout"
)
