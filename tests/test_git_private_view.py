"""Git sees only what anchorcheck vetted: another repository's files, variables and symbols never
answer a memory, and no file outside the checkout is read through the repository's git configuration.

Each attack plants a secret in a second repository (`other`) and asks about it
with `as_of = "HEAD"` (answered from git's objects, not the work tree): a
leak would show as VERIFIED. Reads of outside files are proved with FIFOs:
git would block on one forever, so a run that ends at once never opened it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from anchorcheck import Memory, Verdict, Verifier
from anchorcheck.repo import gitcmd
from anchorcheck.repo.gitconfig import parse_settings
from anchorcheck.repo.gitdir import GitDir, locate
from anchorcheck.repo.checkout import Repository
from tests.conftest import git, init_repo, needs_git, write_tree

pytestmark = needs_git

SECRETS = ["file:secret.env", "env:OTHER_SECRET_TOKEN", "sym:other.py::f"]
NEEDS_FIFO = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")


@pytest.fixture
def other(tmp_path: Path) -> Path:
    """A repository holding what must never leak: a file, a variable it defines, a function."""
    return init_repo(write_tree(tmp_path / "other", {"secret.env": "OTHER_SECRET_TOKEN=1\n", "other.py": "def f():\n    pass\n"}))


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    return init_repo(write_tree(tmp_path / "victim", {"a.py": "import os\n", "CLAUDE.md": "- `import:os`\n"}))


def _as_of_head(root: Path) -> list[Verdict]:
    verifier = Verifier(root, options={"cache": False})
    return [verifier.verify(Memory(text="t", anchors=[anchor], metadata={"as_of": "HEAD"})).verdict for anchor in SECRETS]


def _cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "anchorcheck", *args, "--root", str(root)],
        capture_output=True, text=True, timeout=60, check=False,
    )


def _refused(root: Path, *words: str) -> None:
    """Neither the library nor the CLI answers from the other repository; the CLI says why in one line."""
    assert Verdict.VERIFIED not in _as_of_head(root)
    assert Repository(root).in_git is False
    done = _cli(root, "anchor", "file:a.py")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert all(word in done.stderr for word in words), done.stderr


def test_control_the_secrets_are_found_in_their_own_repository(other) -> None:
    assert _as_of_head(other) == [Verdict.VERIFIED] * 3


def test_a_commondir_naming_another_repository_is_refused(victim, other) -> None:
    (victim / ".git" / "commondir").write_text(f"{other / '.git'}\n")
    _refused(victim, "commondir", "another repository")


def test_a_git_file_naming_a_folder_that_names_it_back_and_points_at_another_repository(tmp_path, other) -> None:
    root = write_tree(tmp_path / "unpacked", {"a.py": "import os\n"})
    lure = tmp_path / "lure"
    lure.mkdir()
    (lure / "gitdir").write_text(f"{root / '.git'}\n")  # names the checkout back, as a worktree's does
    (lure / "commondir").write_text(f"{other / '.git'}\n")
    (lure / "HEAD").write_text("ref: refs/heads/main\n")
    (root / ".git").write_text(f"gitdir: {lure}\n")
    _refused(root, "commondir")


def test_a_git_file_folder_linking_another_repositorys_objects_is_refused(tmp_path, other) -> None:
    root = write_tree(tmp_path / "unpacked", {"a.py": "import os\n"})
    lure = tmp_path / "lure"
    lure.mkdir()
    (lure / "gitdir").write_text(f"{root / '.git'}\n")
    (lure / "HEAD").write_text(git(other, "rev-parse", "HEAD") + "\n")
    os.symlink(other / ".git" / "objects", lure / "objects")
    os.symlink(other / ".git" / "refs", lure / "refs")
    (root / ".git").write_text(f"gitdir: {lure}\n")
    _refused(root, "leads outside")


def test_borrowed_objects_and_a_packed_ref_to_them_are_refused(victim, other) -> None:
    info = victim / ".git" / "objects" / "info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "alternates").write_text(f"{other / '.git' / 'objects'}\n")
    other_head = git(other, "rev-parse", "HEAD")
    with open(victim / ".git" / "packed-refs", "a") as refs:
        refs.write(f"{other_head} refs/heads/stolen\n")
    (victim / ".git" / "HEAD").write_text("ref: refs/heads/stolen\n")
    _refused(victim, "alternates", "another repository's objects")


def test_a_configuration_linked_outside_is_refused(victim, tmp_path) -> None:
    outside = tmp_path / "outside.config"
    outside.write_text((victim / ".git" / "config").read_text())
    (victim / ".git" / "config").unlink()
    os.symlink(outside, victim / ".git" / "config")
    _refused(victim, "leads outside")


@NEEDS_FIFO
@pytest.mark.parametrize(
    "include",
    [
        "[include]\n\tpath = {fifo}\n",  # a plain include of a file outside
        "\ufeff[include]\n\tpath = {fifo}\n",  # a byte-order mark first: git skips it, a naive reader does not
        "[include]\n\tpath = %(prefix)/{fifo}\n",  # git interpolates its install prefix
        '[includeIf "gitdir:/"]\n\tpath = {fifo}\n',
        "[include]\n\tpath = inside.fifo\n",  # a FIFO inside the git directory
    ],
)
def test_nothing_the_repository_configuration_includes_is_ever_read(victim, tmp_path, include) -> None:
    """Git would block forever on any of these FIFOs; anchorcheck answers at once, from this checkout."""
    head = git(victim, "rev-parse", "HEAD")  # asked before: plain git would now block on the FIFO
    fifo = tmp_path / "outside.fifo"
    os.mkfifo(fifo)
    os.mkfifo(victim / ".git" / "inside.fifo")
    config = victim / ".git" / "config"
    config.write_text(include.format(fifo=str(fifo).lstrip("/") if "%(prefix)" in include else fifo) + config.read_text())
    done = _cli(victim, "check", str(victim / "CLAUDE.md"))
    assert done.returncode == 0 and "1 verified" in done.stdout, done.stdout + done.stderr
    assert Repository(victim).in_git and Repository(victim).head == head


def test_git_reads_no_configuration_file_of_the_repository(victim, tmp_path) -> None:
    """The invariant itself: every file git takes configuration from is outside the checkout and its git directory."""
    git(victim, "config", "include.path", str(tmp_path / "extra.config"))
    (tmp_path / "extra.config").write_text("[user]\n\tname = leaked\n")
    repo = Repository(victim)
    view = repo._view()
    assert view is not None
    out = gitcmd.run(victim, [("config", "--list", "--show-origin", "-z")], view=view)[0]
    origins = {entry.split("\n")[0] for entry in (out or "").split("\0")[::2] if entry.startswith("file:")}
    assert origins and not any(str(victim) in origin or "extra.config" in origin for origin in origins), origins
    assert "leaked" not in (out or "")


def test_the_values_git_needs_are_still_passed(victim) -> None:
    git(victim, "config", "core.autocrlf", "input")
    git(victim, "config", "remote.origin.url", "https://user:token@example.com/o/r.git")
    repo = Repository(victim)
    assert repo.git("config", "--get", operands=["core.autocrlf"]) == "input\n"
    assert repo.origin == "https://example.com/o/r.git"


def test_a_linked_worktree_uses_its_own_head_and_index(tmp_path) -> None:
    main_repo = init_repo(write_tree(tmp_path / "main", {"a.py": "import os\n"}))
    git(main_repo, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "side")
    write_tree(tmp_path / "wt", {"b.py": "import sys\n"})
    git(tmp_path / "wt", "add", "b.py")
    git(tmp_path / "wt", "commit", "-q", "-m", "side")
    found = locate(tmp_path / "wt")
    assert isinstance(found, GitDir) and found.common == (main_repo / ".git").resolve()
    worktree, main_checkout = Repository(tmp_path / "wt"), Repository(main_repo)
    assert worktree.head == git(tmp_path / "wt", "rev-parse", "HEAD") != main_checkout.head
    assert "b.py" in worktree.staged_blob_ids and "b.py" not in main_checkout.staged_blob_ids


def test_head_moves_are_seen_by_a_long_lived_repository(victim) -> None:
    repo = Repository(victim)
    first = repo.git("rev-parse", operands=["HEAD"])
    write_tree(victim, {"b.py": "x = 1\n"})
    git(victim, "add", "b.py")
    git(victim, "commit", "-q", "-m", "two")
    assert repo.git("rev-parse", operands=["HEAD"]) != first


def test_the_configuration_reader_follows_no_include() -> None:
    settings = parse_settings('\ufeff[core]\n\tautocrlf = "true" ; comment\n[include]\n\tpath = /etc/x\n[remote "origin"]\n\turl = u\\\n2\n')
    assert settings.passed_to_git() == {("core", "autocrlf"): "true"}
    assert settings.origin_url == "u2"
