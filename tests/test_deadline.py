"""A deadline bounds the whole call, tree-sitter's work included: a crafted file whose parse or
queries take minutes leaves its anchors INCONCLUSIVE at the deadline, and the next call works."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from tests._hostile_support import LOOPING_TSX
from tests._source_support import verifier, write
from tests.conftest import init_repo, needs_git

from anchorcheck import Verdict, Verifier

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


def _large_tree(root, files: int = 5_000):
    """A committed tree of `files` small Python files: listing it (git, a language per path, the
    snapshot a resident Verifier keeps) takes well over the deadline below."""
    for d in range(files // 100):
        folder = root / f"pkg{d}"
        folder.mkdir(parents=True)
        for f in range(100):
            (folder / f"m{f}.py").write_text(f"import os\nX = os.environ.get('K{d}_{f}')\n")
    return init_repo(root)


@needs_git
@pytest.mark.parametrize("resident", [True, False])
def test_deadline_bounds_listing_a_large_tree_on_a_warm_cache(tmp_path, resident):
    root, cache = _large_tree(tmp_path / "repo"), tmp_path / "cache"
    options = {"cache_dir": cache, "resident": resident}
    assert Verifier(root, options=options).check("import:absentmod").verdict is Verdict.REFUTED  # the disk cache is warm
    v = Verifier(root, options=options)
    start = time.monotonic()
    result = v.check("import:absentmod", deadline=0.02)
    assert time.monotonic() - start < 0.02 + SLACK
    assert result.verdict is Verdict.INCONCLUSIVE and result.state == "budget"  # while listing it, or right after
    assert v.check("import:absentmod").verdict is Verdict.REFUTED  # the next call goes on where that one stopped


@needs_git
def test_a_process_that_returns_at_the_deadline_while_git_lists_exits_cleanly(tmp_path):
    """The listing goes on in a thread past the deadline; a process that exits then stops that git
    run without a word (its exit handler and the thread both read the pipe: no traceback)."""
    root = _large_tree(tmp_path / "repo")
    script = f"from anchorcheck import Verifier\nprint(Verifier({str(root)!r}).check('import:absentmod', deadline=0.001).verdict.value)\n"
    for _ in range(5):  # the two readers race: one run in a few showed it
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
        assert (done.returncode, done.stdout.strip(), done.stderr) == (0, "INCONCLUSIVE", "")
