"""Nothing stored outside the checkout is trusted unless it is this user's own (issue 25, items 3 and 4).

The repros of the campaign: a committed `.anchorcheck` link (or links inside it) with the user cache
folder unusable wrote a database and replay entries outside the checkout; a replay entry another user
replaced was printed, and the check exited 0 on a REFUTED memory.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests._hostile_support import run_cli
from tests.conftest import init_repo, needs_git, write_tree

pytestmark = needs_git

FILES = {
    "AGENTS.md": "- The app reads `src/app.py` and has no `!file:src/app.py`.\n",  # refuted without asking history: replayable
    "src/app.py": "x = 1\n",
}
NOBODY = 65534


def _checkout(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "repo", FILES)


@pytest.fixture
def no_user_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user cache folder unusable (XDG_CACHE_HOME=/proc/x), the temporary folder the test's: its
    private `anchorcheck-<uid>` is where the cache falls back to."""
    monkeypatch.delenv("ANCHORCHECK_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", "/proc/x")
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setenv("TMPDIR", str(temporary))
    return temporary / f"anchorcheck-{os.getuid()}"


def _twice(root: Path) -> None:
    """A check that stores its report, then one that may replay it: both find the missing file."""
    for _ in range(2):
        done = run_cli(root, "check")
        done.assert_clean()
        assert done.returncode == 1 and "!file:src/app.py" in done.stdout


def test_a_committed_anchorcheck_link_gets_nothing_when_the_user_cache_is_unusable(tmp_path: Path, no_user_cache: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = _checkout(tmp_path)
    (root / ".anchorcheck").symlink_to(outside)
    init_repo(root)
    _twice(root)
    assert list(outside.iterdir()) == []
    assert (no_user_cache / "facts-v2.sqlite").is_file() and (no_user_cache / "replay").is_dir()
    assert no_user_cache.stat().st_mode & 0o777 == 0o700


def test_committed_links_inside_anchorcheck_lead_nowhere(tmp_path: Path, no_user_cache: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    root = _checkout(tmp_path)
    (root / ".anchorcheck").mkdir()
    (root / ".anchorcheck" / "replay").symlink_to(outside)
    (root / ".anchorcheck" / "facts-v2.sqlite").symlink_to(victim)
    init_repo(root)
    _twice(root)
    assert list(outside.iterdir()) == [] and victim.read_text() == "precious\n"


def test_no_link_is_followed_in_the_cache_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache, outside, victim = tmp_path / "cache", tmp_path / "outside", tmp_path / "victim.txt"
    cache.mkdir(mode=0o700)
    outside.mkdir()
    victim.write_text("precious\n")
    (cache / "facts-v2.sqlite").symlink_to(victim)
    (cache / "replay").symlink_to(outside)
    monkeypatch.setenv("ANCHORCHECK_CACHE_DIR", str(cache))
    root = init_repo(_checkout(tmp_path))
    done = run_cli(root, "check")
    assert done.returncode == 1 and "!file:src/app.py" in done.stdout
    assert f"anchorcheck: warning: {cache / 'facts-v2.sqlite'} is a symbolic link: not used" in done.stderr.splitlines()
    assert f"anchorcheck: warning: {cache / 'replay'} is a symbolic link: not used" in done.stderr.splitlines()
    _twice(root)
    assert list(outside.iterdir()) == [] and victim.read_text() == "precious\n"


@pytest.mark.parametrize("how", ["mode 0777", "another owner"])
def test_a_cache_folder_others_can_change_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    cache = tmp_path / "shared"
    cache.mkdir()
    if how == "mode 0777":
        cache.chmod(0o777)
        why = "may be written by other users (mode 0777)"
    else:
        os.chown(cache, NOBODY, NOBODY)
        why = f"is owned by another user (uid {NOBODY})"
    monkeypatch.setenv("ANCHORCHECK_CACHE_DIR", str(cache))
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    root = init_repo(_checkout(tmp_path))
    done = run_cli(root, "check")
    done.assert_clean()
    assert done.returncode == 1
    assert done.stderr.splitlines() == [f"anchorcheck: warning: {cache} {why}: not used"]
    assert list(cache.iterdir()) == []
    assert (tmp_path / f"anchorcheck-{os.getuid()}" / "facts-v2.sqlite").is_file()  # the private fallback


def test_a_fallback_folder_someone_else_made_first_is_not_used(tmp_path: Path, no_user_cache: Path) -> None:
    no_user_cache.mkdir(mode=0o755)
    os.chown(no_user_cache, NOBODY, NOBODY)
    root = init_repo(_checkout(tmp_path))
    done = run_cli(root, "check")
    assert done.returncode == 1 and "!file:src/app.py" in done.stdout
    assert done.stderr.splitlines() == [f"anchorcheck: warning: {no_user_cache} is owned by another user (uid {NOBODY}): not used"]
    assert list(no_user_cache.iterdir()) == []


def test_a_replay_entry_another_user_replaced_is_not_printed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("ANCHORCHECK_CACHE_DIR", str(cache))
    root = init_repo(_checkout(tmp_path))
    assert run_cli(root, "check").returncode == 1
    (entry,) = (cache / "replay").iterdir()
    forged = json.loads(entry.read_text())
    forged["out"], forged["exit"] = [["out", "All good.\n"]], 0
    entry.write_text(json.dumps(forged))
    assert run_cli(root, "check").stdout == "All good.\n"  # the entry is the one read back: the forgery takes
    os.chown(entry, NOBODY, NOBODY)
    done = run_cli(root, "check")
    assert done.returncode == 1 and "All good." not in done.stdout and "!file:src/app.py" in done.stdout
    assert f"anchorcheck: warning: {entry} is owned by another user (uid {NOBODY}): not used" in done.stderr.splitlines()
