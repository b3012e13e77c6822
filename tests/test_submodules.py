"""Paths inside a git submodule: a clone made without `--recurse-submodules` has an empty folder there.

What is in a submodule that is not checked out cannot be looked at: its files are neither there nor
missing (INCONCLUSIVE, saying so), for `file:` anchors and paths read from prose alike. Once it is
checked out, its files answer as any other, and a stored report made before does not stand.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from anchorcheck import Verdict, Verifier
from tests.conftest import git, init_repo, needs_git, write_tree

pytestmark = needs_git


def _with_submodule(tmp_path: Path) -> Path:
    library = init_repo(write_tree(tmp_path / "library", {"README.md": "# lib\n", "src/core.py": "X = 1\n"}))
    root = init_repo(write_tree(tmp_path / "app", {"CLAUDE.md": "- The library's notes: `third/lib/README.md`.\n"}))
    git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library), "third/lib")
    git(root, "commit", "-qm", "library")
    git(root, "submodule", "deinit", "-q", "-f", "third/lib")  # as a clone without --recurse-submodules has it
    assert os.listdir(root / "third" / "lib") == []
    return root


def _check(root: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "anchorcheck", "check", "--format", "json"], cwd=root, capture_output=True, text=True, timeout=120,
        env={**os.environ, "ANCHORCHECK_CACHE_DIR": str(root.parent / "cache")},
    )
    [result] = json.loads(done.stdout)["results"]
    return result


def test_what_a_submodule_not_checked_out_holds_is_not_known(tmp_path: Path) -> None:
    root = _with_submodule(tmp_path)
    verifier = Verifier(root)
    for path in ("third/lib/README.md", "third/lib/src/core.py", "third/lib/nothere.md"):
        result = verifier.check(f"file:{path}")
        assert result.verdict is Verdict.INCONCLUSIVE, (path, result.reason)
        assert result.reason == f"{path} is in the submodule third/lib/, which is not checked out here"
    assert verifier.check("file:third/lib").verdict is Verdict.VERIFIED  # the folder is there
    assert verifier.check("file:third/nothere.md").verdict is Verdict.REFUTED  # beside it: this repository's own


def test_prose_naming_a_file_of_a_submodule_waits_for_it_to_be_checked_out(tmp_path: Path) -> None:
    root = _with_submodule(tmp_path)
    before = _check(root)
    assert (before["verdict"], before["reason"]) == ("INCONCLUSIVE", "third/lib/README.md is in the submodule third/lib/, which is not checked out here")
    git(root, "-c", "protocol.file.allow=always", "submodule", "update", "-q", "--init")
    after = _check(root)  # the stored report of the first check names what it looked at: it does not stand now
    assert (after["verdict"], after["reason"]) == ("VERIFIED", "third/lib/README.md exists")
    assert Verifier(root).check("file:third/lib/nothere.md").verdict is Verdict.REFUTED  # checked out: its absence is known
