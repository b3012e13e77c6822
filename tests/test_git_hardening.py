"""A hostile checkout: nothing its git configuration, attributes or hooks name may run, and no value
from it may become a git option.

Each vector is armed with a script that leaves a marker file when it runs.
A control step runs plain git the way a user would and sees the markers
appear, so a test cannot pass because a vector was never armed; then every
anchorcheck command runs on the same checkout and no marker may appear.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from anchorcheck import Memory, Verdict, Verifier
from anchorcheck.repo import gitcmd
from anchorcheck.cli import main
from anchorcheck.repo.checkout import Repository
from tests.conftest import git, init_repo, needs_git, write_tree

pytestmark = needs_git

APP = "".join(f"line {n}\n" for n in range(1, 30))
HOOKS = (
    "post-index-change", "pre-commit", "post-commit", "post-checkout", "reference-transaction",
    "pre-auto-gc", "post-rewrite", "fsmonitor-watchman", "pre-push", "post-merge",
)


def _marker_script(bin_dir: Path, marks: Path, name: str, passthrough: bool = False) -> Path:
    """A script that records it ran; filters pass their input through so that git works as usual."""
    script = bin_dir / name
    body = f'#!/bin/sh\ntouch "{marks / name}"\n' + ("cat\n" if passthrough else "")
    script.write_text(body)
    script.chmod(0o755)
    return script


@pytest.fixture
def hostile(tmp_path: Path) -> tuple[Path, Path]:
    """A committed checkout with a lock, a rename since, and every execution vector armed; (root, marks)."""
    root, marks, bin_dir = tmp_path / "repo", tmp_path / "marks", tmp_path / "bin"
    for d in (root, marks, bin_dir):
        d.mkdir()
    init_repo(write_tree(root, {"src/app.py": APP, "CLAUDE.md": "- app `span:src/app.py#L3-L5` `file:src/app.py`\n"}))
    assert main(["lock", "--root", str(root)]) == 0
    write_tree(root, {"CLAUDE.md": "- app `span:src/app.py#L3-L5` `file:src/main.py`\n"})
    git(root, "mv", "src/app.py", "src/main.py")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "rename")
    # every attribute names the armed drivers; the config arms them and more
    (root / ".gitattributes").write_text("* filter=evil diff=evil\n")
    included = root / ".git" / "shared.config"  # included from inside the git directory: read, but disarmed
    included.write_text(f'[diff "evil"]\n\ttextconv = {_marker_script(bin_dir, marks, "textconv", passthrough=True)}\n')
    config = {
        "core.fsmonitor": str(_marker_script(bin_dir, marks, "fsmonitor")),
        "core.pager": str(_marker_script(bin_dir, marks, "pager")),
        "core.sshCommand": str(_marker_script(bin_dir, marks, "ssh")),
        "filter.evil.clean": str(_marker_script(bin_dir, marks, "clean", passthrough=True)),
        "filter.evil.smudge": str(_marker_script(bin_dir, marks, "smudge", passthrough=True)),
        "diff.external": str(_marker_script(bin_dir, marks, "external-diff")),
        "include.path": "shared.config",
    }
    for key, value in config.items():
        git(root, "config", key, value)
    for hook in HOOKS:
        _marker_script(root / ".git" / "hooks", marks, hook)
    _touch_tracked(root)
    return root, marks


def _touch_tracked(root: Path) -> None:
    """Move every tracked file's mtime, so git must hash its content (through any clean filter) to compare."""
    for path in (root / "src" / "main.py", root / "CLAUDE.md"):
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))


def _run_every_command(root: Path) -> None:
    r = str(root)
    (root / "notes.memories.toml").write_text(
        'version = 1\n\n[[memory]]\nid = "past"\ntext = "t"\nanchors = ["file:src/app.py"]\nas_of = "HEAD~1"\n'
    )
    assert main(["check", "--root", r, "--no-cache", str(root / "CLAUDE.md"), str(root / "notes.memories.toml")]) in (0, 1)
    assert main(["anchor", "--root", r, "--no-cache", "file:src/main.py", "import:os"]) in (0, 1)
    assert main(["lock", "--root", r]) == 0
    assert main(["relocate", "--root", r]) == 0
    # relocate followed the rename into CLAUDE.md and the lock: the span is written as src/main.py now
    assert main(["rebank", "--root", r, "span:src/main.py#L3-L5"]) in (0, 1)
    assert main(["bank", "--root", r, "src/main.py:1-2"]) == 0


def test_no_program_from_the_repository_runs(hostile, capsys) -> None:
    root, marks = hostile
    _run_every_command(root)
    capsys.readouterr()
    assert sorted(p.name for p in marks.iterdir()) == []
    # the control: the same checkout, used with plain git, runs them
    subprocess.run(["git", "status"], cwd=root, capture_output=True, check=False)
    subprocess.run(["git", "diff", "HEAD~1"], cwd=root, capture_output=True, check=False, env={**os.environ, "PAGER": ""})
    subprocess.run(["git", "log", "-p", "-1"], cwd=root, capture_output=True, check=False, env={**os.environ, "PAGER": ""})
    subprocess.run(["git", "checkout", "HEAD", "--", "src/main.py"], cwd=root, capture_output=True, check=False)
    armed = {p.name for p in marks.iterdir()}
    expected = {"fsmonitor", "clean", "smudge", "textconv", "post-index-change", "post-checkout", "external-diff"}
    assert expected <= armed, armed


def test_a_span_is_followed_across_a_rename_without_running_a_driver(hostile) -> None:
    root, marks = hostile
    code = main(["check", "--root", str(root), "--no-cache", "--format", "json", str(root / "CLAUDE.md")])
    assert code == 0
    assert not list(marks.iterdir())


def test_git_variables_of_the_caller_are_not_passed_on(hostile, monkeypatch, tmp_path) -> None:
    root, marks = hostile
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    git(elsewhere, "init", "-q", "-b", "main")
    monkeypatch.setenv("GIT_DIR", str(elsewhere / ".git"))  # would make git read another repository
    monkeypatch.setenv("GIT_WORK_TREE", str(elsewhere))
    monkeypatch.setenv("GIT_INDEX_FILE", str(tmp_path / "no-index"))
    monkeypatch.setenv("GIT_EXTERNAL_DIFF", str(_marker_script(tmp_path / "bin", marks, "env-external-diff")))
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "core.fsmonitor")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", str(_marker_script(tmp_path / "bin", marks, "env-fsmonitor")))
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", f"'core.pager'='{_marker_script(tmp_path / 'bin', marks, 'env-pager')}'")
    monkeypatch.setenv("GIT_TRACE", str(tmp_path / "trace"))
    _run_every_command(root)
    assert not list(marks.iterdir())
    assert not (tmp_path / "trace").exists()
    repo = Repository(root)
    assert "src/main.py" in repo.staged_blob_ids and repo.identity.startswith("git:")  # this checkout, not GIT_DIR's


def test_a_lazy_fetch_of_a_partial_clone_cannot_start_ssh(tmp_path, capsys) -> None:
    """A partial clone fetches a missing object from its promisor remote; anchorcheck allows no transport."""
    root, marks, bin_dir = tmp_path / "repo", tmp_path / "marks", tmp_path / "bin"
    for d in (root, marks, bin_dir):
        d.mkdir()
    init_repo(write_tree(root, {"a.py": "a\n"}))
    write_tree(root, {"a.py": "b\n"})
    git(root, "commit", "-q", "-am", "two")
    old_blob = git(root, "rev-parse", "HEAD~1:a.py")
    obj = root / ".git" / "objects" / old_blob[:2] / old_blob[2:]
    obj.chmod(0o644)
    obj.unlink()  # the object is "missing", as in a partial clone
    git(root, "config", "remote.origin.url", "ssh://example.invalid/repo.git")
    git(root, "config", "remote.origin.promisor", "true")
    git(root, "config", "core.repositoryformatversion", "1")
    git(root, "config", "extensions.partialClone", "origin")
    git(root, "config", "core.sshCommand", str(_marker_script(bin_dir, marks, "ssh")))
    (root / "m.memories.toml").write_text(
        'version = 1\n\n[[memory]]\nid = "p"\ntext = "t"\nanchors = ["import:os"]\nas_of = "HEAD~1"\n'
    )
    assert main(["check", "--root", str(root), "--no-cache", str(root / "m.memories.toml")]) == 0
    assert "could not be read" in capsys.readouterr().out  # the missing blob: INCONCLUSIVE, not fetched
    assert not list(marks.iterdir())
    subprocess.run(["git", "cat-file", "blob", old_blob], cwd=root, capture_output=True, check=False)
    assert (marks / "ssh").exists()  # the control: plain git does try to fetch it


@pytest.mark.parametrize("head", ["--output={victim}", "-o{victim}", "--output={victim} HEAD"])
def test_a_lock_head_is_never_a_git_option(tmp_path, head, capsys) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    victim = tmp_path / "victim"
    init_repo(write_tree(root, {"src/app.py": APP, "CLAUDE.md": "- app `span:src/app.py#L3-L5`\n"}))
    assert main(["lock", "--root", str(root)]) == 0
    lock = root / "anchorcheck.lock"
    text = lock.read_text()
    banked = next(line for line in text.splitlines() if line.startswith("head = "))
    lock.write_text(text.replace(banked, f'head = "{head.format(victim=victim)}"'))
    git(root, "mv", "src/app.py", "src/main.py")  # the cited file is gone: the rename is looked up
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "rename")
    capsys.readouterr()
    code = main(["check", "--root", str(root), "--no-cache", str(root / "CLAUDE.md")])
    out = capsys.readouterr().out
    assert not victim.exists()
    assert code == 0 and "INCONCLUSIVE" in out and "'head' must be a commit id" in out


@pytest.mark.parametrize("as_of", ["--output={victim}", "-o{victim}", "HEAD\n--output={victim}", "HEAD\x00x"])
def test_an_as_of_revision_is_never_a_git_option(tmp_path, as_of) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    victim = tmp_path / "victim"
    init_repo(write_tree(root, {"a.py": "import os\n"}))
    report = Verifier(root).verify(Memory(text="t", anchors=["file:a.py"], metadata={"as_of": as_of.format(victim=victim)}))
    assert report.verdict == Verdict.INCONCLUSIVE and "as_of" in report.reason
    assert not victim.exists()


def test_a_git_file_naming_another_repository_is_not_followed(tmp_path, capsys) -> None:
    marks, bin_dir = tmp_path / "marks", tmp_path / "bin"
    marks.mkdir()
    bin_dir.mkdir()
    other = tmp_path / "other"
    other.mkdir()
    init_repo(write_tree(other, {"secret.py": "import redis\n"}))
    git(other, "config", "core.fsmonitor", str(_marker_script(bin_dir, marks, "fsmonitor")))
    root = tmp_path / "unpacked"
    write_tree(root, {"a.py": "import os\n", "CLAUDE.md": "- `file:a.py`\n"})
    (root / ".git").write_text(f"gitdir: {other / '.git'}\n")
    assert Repository(root).in_git is False
    assert Repository(root).files() == ["CLAUDE.md", "a.py"]  # walked, not the other repository's index
    capsys.readouterr()
    assert main(["check", "--root", str(root), str(root / "CLAUDE.md")]) == 2
    err = capsys.readouterr().err
    assert "is not a worktree or submodule of this checkout" in err and len(err.strip().splitlines()) == 1
    assert not list(marks.iterdir())


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
@pytest.mark.parametrize("fifo", [".git/info/exclude", ".git/config", ".git"])
def test_a_fifo_where_git_reads_its_own_files_does_not_block(tmp_path, fifo) -> None:
    root = init_repo(write_tree(tmp_path / "repo", {"a.py": "import os\n", "CLAUDE.md": "- `import:os`\n"}))
    target = root / fifo
    (shutil.rmtree if target.is_dir() else os.unlink)(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(target)
    done = subprocess.run(
        [sys.executable, "-m", "anchorcheck", "anchor", "--root", str(root), "import:os"],
        capture_output=True, text=True, timeout=40, check=False,
    )
    assert done.returncode == 2 and "anchorcheck does not run git on this checkout" in done.stderr, done.stderr
    assert Repository(root).files() == ["CLAUDE.md", "a.py"]


def _git_waits_forever(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A checkout whose untracked files git's listing would wait on forever (a FIFO `.gitignore`), and its view."""
    root = init_repo(write_tree(tmp_path / "repo", {"a.py": "x\n"}))
    os.mkfifo(root / ".gitignore")
    view = Repository(root)._view()
    assert view is not None
    return root, view


def _no_git_left(root: Path) -> bool:
    return subprocess.run(["pgrep", "-f", f"-C {root}"], capture_output=True, text=True, check=False).stdout.strip() == ""


@pytest.mark.skipif(not hasattr(os, "mkfifo") or shutil.which("pgrep") is None, reason="needs FIFOs and pgrep")
def test_a_git_run_past_its_timeout_is_killed_and_reaped(tmp_path) -> None:
    root, view = _git_waits_forever(tmp_path)
    with pytest.raises(gitcmd.GitStopped):
        gitcmd.run(root, [("rev-parse", "--is-inside-work-tree"), ("ls-files", "-o", "--exclude-standard", "-z")], view=view, timeout=1)
    assert _no_git_left(root)


@pytest.mark.skipif(not hasattr(os, "mkfifo") or shutil.which("pgrep") is None, reason="needs FIFOs and pgrep")
def test_a_streamed_git_run_past_its_time_is_killed_and_reaped(tmp_path) -> None:
    root, view = _git_waits_forever(tmp_path)
    with gitcmd.Stream(root, ("ls-files", "-o", "--exclude-standard", "-z"), view=view, seconds=1) as stream:
        assert "".join(stream) == ""
    assert stream.cut and not stream.failed
    assert _no_git_left(root)


def test_worktrees_and_submodules_are_still_followed(tmp_path) -> None:
    main_repo = tmp_path / "main"
    main_repo.mkdir()
    init_repo(write_tree(main_repo, {"a.py": "import os\n"}))
    git(main_repo, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "side")
    worktree = Repository(tmp_path / "wt")
    assert worktree.in_git and worktree.head == Repository(main_repo).head
    sub_src = tmp_path / "subsrc"
    sub_src.mkdir()
    init_repo(write_tree(sub_src, {"s.py": "x = 1\n"}))
    git(main_repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub_src), "sub")
    submodule = Repository(main_repo / "sub")
    assert submodule.in_git and submodule.files() == ["s.py"]


@pytest.mark.skipif(shutil.which("pgrep") is None, reason="needs pgrep to look for a git left behind")
def test_a_fifo_gitignore_does_not_block_and_leaves_no_git_behind(tmp_path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    init_repo(write_tree(root, {"a.py": "import os\n", "sub/b.py": "import sys\n", "CLAUDE.md": "- `import:os`\n"}))
    os.mkfifo(root / "sub" / ".gitignore")
    done = subprocess.run(
        [sys.executable, "-m", "anchorcheck", "check", "--root", str(root), "--no-cache", str(root / "CLAUDE.md")],
        capture_output=True, text=True, timeout=40, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "1 verified" in done.stdout
    left = subprocess.run(["pgrep", "-f", f"-C {root}"], capture_output=True, text=True, check=False).stdout
    assert left.strip() == ""

