"""Atomic writes: a kill leaves a temporary that the next write removes; a new file follows the umask."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from anchorcheck.repo.atomic import write_atomic
from anchorcheck.cli import main
from tests.conftest import write_tree

posix_only = pytest.mark.skipif(os.name != "posix", reason="signals and umask are POSIX")

KILLED_WRITE = """
import os, signal, sys
from anchorcheck.repo import atomic
os.fsync = lambda fd: os.kill(os.getpid(), signal.SIGKILL)  # killed with the temporary written, before the rename
atomic.write_atomic(sys.argv[1], "new content\\n")
"""


def _temporaries(directory: Path, name: str) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.startswith(f".{name}.") and p.name.endswith(".tmp"))


@posix_only
def test_a_write_killed_before_its_rename_is_cleaned_up_by_the_next_lock(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "repo", {"a.py": "x = 1\n", "CLAUDE.md": "- `span:a.py#L1`\n"})
    lock = root / "anchorcheck.lock"
    killed = subprocess.run([sys.executable, "-c", KILLED_WRITE, str(lock)], capture_output=True, check=False)
    assert killed.returncode == -signal.SIGKILL
    assert len(_temporaries(root, "anchorcheck.lock")) == 1 and not lock.exists()  # the old (no) file is intact
    assert main(["lock", "--root", str(root)]) == 0
    assert _temporaries(root, "anchorcheck.lock") == []
    assert "span:a.py#L1" in lock.read_text()


@posix_only
def test_a_temporary_of_a_write_still_running_is_kept(tmp_path: Path) -> None:
    writer = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        live = tmp_path / f".notes.toml.anchorcheck-{writer.pid}-0123456789ab.tmp"
        live.write_text("being written")
        write_atomic(tmp_path / "notes.toml", "x = 1\n")
        assert live.exists() and (tmp_path / "notes.toml").read_text() == "x = 1\n"
    finally:
        writer.kill()
        writer.wait()
    write_atomic(tmp_path / "notes.toml", "x = 2\n")
    assert not live.exists()


@posix_only
@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_a_new_lock_follows_the_umask(tmp_path: Path, umask: int, mode: int) -> None:
    root = write_tree(tmp_path / "repo", {"a.py": "x = 1\n", "CLAUDE.md": "- `span:a.py#L1`\n"})
    old = os.umask(umask)
    try:
        assert main(["lock", "--root", str(root)]) == 0
    finally:
        os.umask(old)
    assert (root / "anchorcheck.lock").stat().st_mode & 0o777 == mode


@posix_only
def test_an_existing_file_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "anchorcheck.lock"
    target.write_text("old\n")
    target.chmod(0o640)
    write_atomic(target, "new\n")
    assert target.read_text() == "new\n" and target.stat().st_mode & 0o777 == 0o640


@posix_only
def test_only_our_own_temporaries_of_dead_writers_are_removed(tmp_path: Path) -> None:
    """A committed `.AGENTS.md.notes.tmp` was deleted by `suggest --write` (issue 25, item 8)."""
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True).stdout.strip()
    kept = [
        ".AGENTS.md.notes.tmp",  # somebody's file
        f".AGENTS.md.{dead}-0123456789ab.tmp",  # no marker
        f".AGENTS.md.anchorcheck-{dead}-0123.tmp",  # the marker, but not our random part
        f".AGENTS.md.anchorcheck-{dead}-0123456789ab.tmp.bak",
        f".CLAUDE.md.anchorcheck-{dead}-0123456789ab.tmp",  # another target's
    ]
    stale = f".AGENTS.md.anchorcheck-{dead}-0123456789ab.tmp"
    write_tree(tmp_path, {name: "kept\n" for name in [*kept, stale]})
    write_atomic(tmp_path / "AGENTS.md", "- notes\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*kept, "AGENTS.md"])


@posix_only
def test_suggest_write_keeps_a_committed_notes_tmp(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "repo", {"src/app.py": "import os\nX = os.environ['APP_MODE']\n", "AGENTS.md": "- The mode comes from APP_MODE in src/app.py.\n", ".AGENTS.md.notes.tmp": "mine\n"})
    main(["suggest", "--write", "--root", str(root)])
    assert (root / ".AGENTS.md.notes.tmp").read_text() == "mine\n"
