"""A deadline bounds the whole call, tree-sitter's work included: a crafted file whose parse or
queries take minutes leaves its anchors INCONCLUSIVE at the deadline, and the next call works."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from tests._hostile_support import LOOPING_TSX
from tests._source_support import verifier, write

from anchorcheck import Verdict

SLACK = 3.0  # seconds past the deadline a call may take on a loaded CI machine (unbounded: minutes)

# A file whose parse never ends by itself (tree-sitter-typescript loops on it): only the deadline, or
# the per-file parse budget well after it, stops the work.
CRAFTED = {
    "tsx": ("app.tsx", LOOPING_TSX, "import:os"),
}


@pytest.mark.parametrize("language", sorted(CRAFTED))
def test_deadline_bounds_a_crafted_file(tmp_path, language):
    name, data, anchor = CRAFTED[language]
    write(tmp_path, {name: data, "ok.py": "import os\n"})
    v = verifier(tmp_path)
    start = time.monotonic()
    result = v.check(anchor, deadline=1.0)
    assert time.monotonic() - start < 1.0 + SLACK
    assert result.verdict is Verdict.INCONCLUSIVE and result.state == "budget"
    assert "budget exceeded" in result.reason
    # Nothing half-done was remembered, and the Verifier still answers what it can.
    assert v.check("import:os in:ok.py", deadline=5).verdict is Verdict.VERIFIED
    again = v.check(anchor, deadline=0.5)
    assert again.verdict is Verdict.INCONCLUSIVE and again.state == "budget"


def test_cli_deadline_bounds_the_process(tmp_path):
    name, data, anchor = CRAFTED["tsx"]
    write(tmp_path, {name: data})
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "anchorcheck", "anchor", "--root", str(tmp_path), "--no-cache", "--deadline", "1", anchor],
        capture_output=True, text=True, timeout=60,
    )
    assert time.monotonic() - start < 1.0 + SLACK + 2  # + interpreter start-up
    assert done.returncode == 0 and "budget exceeded" in done.stdout
