"""Implicit references on real instruction files: every read is a real path, command or package, judged right.

Each corpus of ../shared/corpora/instructions/ is laid out as its repository
(tests/_instructions_support.py) and checked with the real CLI; what is read
and the verdicts must be exactly the hand-reviewed rows of
tests/data/implicit_corpus.tsv: a new read or a changed verdict is a failure
until a person has judged it.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from anchorcheck.cli import main
from tests._instructions_support import CORPUS_NAMES, INSTRUCTIONS, build_tree, expected_rows, implicit_rows

pytestmark = pytest.mark.skipif(INSTRUCTIONS is None, reason="shared/corpora/instructions is not beside the checkout")


@pytest.mark.parametrize("name", CORPUS_NAMES)
def test_reads_and_verdicts_match_the_reviewed_rows(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert INSTRUCTIONS is not None
    root = build_tree(INSTRUCTIONS / name, tmp_path / name)
    monkeypatch.chdir(root)
    out = io.StringIO()
    with redirect_stdout(out):
        main(["check", "--format", "json", "-v"])
    got = implicit_rows(json.loads(out.getvalue()))
    want = expected_rows()[name]
    assert sorted(set(got) - set(want)) == [], "read, but not reviewed (or a changed verdict)"
    assert sorted(set(want) - set(got)) == [], "reviewed, but no longer read"
    assert len(got) == len(want)
