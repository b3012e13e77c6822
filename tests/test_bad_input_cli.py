"""Bad input through the real CLI: a clear one-line error and exit code 2, never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git, init_repo, needs_git, write_tree


def _run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "anchorcheck", *args], cwd=root, capture_output=True, text=True, timeout=60
    )


def test_span_end_line_past_the_limit_is_not_called_reversed(tmp_path: Path) -> None:
    result = _run(tmp_path, "anchor", "span:a.py#L1-L99999999999999999999999")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "stop at" in result.stderr
    assert "before start line" not in result.stderr


def test_span_reversed_range_still_named(tmp_path: Path) -> None:
    result = _run(tmp_path, "anchor", "span:a.py#L9-L3")
    assert result.returncode == 2
    assert "end line 3 is before start line 9" in result.stderr


def test_root_that_is_a_file_is_a_usage_error(tmp_path: Path) -> None:
    target = tmp_path / "plain.txt"
    target.write_text("x\n")
    result = _run(tmp_path, "check", "--root", str(target), "a.memories.toml")
    assert result.returncode == 2
    assert "not a directory" in result.stderr
    assert "Traceback" not in result.stderr


def test_huge_memory_file_is_refused_quickly(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "huge.md").write_text("note `file:a.py`\n" * 1_100_000)
    result = _run(tmp_path, "check", "--fail-on", "inconclusive", "huge.md")
    assert result.returncode == 1  # one finding: the file could not be read
    assert "huge.md:1:1: INCONCLUSIVE huge.md — " in result.stdout and "file larger than 16 MiB" in result.stdout
    assert "Traceback" not in result.stderr


_BAD_LOCKS = [
    ("version = 1\n\n[[citation]]\npath = 'a.py'\nstart_line = 1\nend_line = 1\n", "anchorcheck.lock:3: each [[citation]] needs an 'anchor' string"),
    ("version = 1\n[[citation]]\nanchor = 'span:a.py#L1'\n[[citation]]\nanchor = 'span:a.py#L1'\n", "anchorcheck.lock:4: duplicate entry for 'span:a.py#L1'"),
    ("version = 7\n", "anchorcheck.lock:1: 'version' must be 1, got 7"),
]


@pytest.mark.parametrize(("text", "message"), _BAD_LOCKS)
@pytest.mark.parametrize("command", [["relocate"], ["rebank", "span:a.py#L1"], ["check", "CLAUDE.md"]])
def test_malformed_lock_entries_are_refused_by_every_command(tmp_path: Path, command: list[str], text: str, message: str) -> None:
    (tmp_path / "a.py").write_text("x\n")
    (tmp_path / "CLAUDE.md").write_text("- `span:a.py#L1`\n")
    (tmp_path / "anchorcheck.lock").write_text(text)
    result = _run(tmp_path, *command, "--root", str(tmp_path))
    assert result.returncode == 2
    assert result.stderr.startswith(f"anchorcheck: error: {message}")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert (tmp_path / "anchorcheck.lock").read_text() == text


_NATIVE_CITATION = "version = 1\n\n[[memory]]\nid = 'm'\ntext = 't'\nanchors = ['span:a.py#L1']\n\n[[memory.citation]]\n"


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ("anchor = 'span:a.py#L1'\npath = 'a.py'\nstart_line = 'one'\nend_line = 1\n", "'start_line' has the wrong type (str)"),
        ("path = 'a.py'\nstart_line = 1\nend_line = true\n", "'end_line' has the wrong type (bool)"),
        ("path = 'a.py'\nstart_line = 1\nend_line = 1\nlines = [1]\n", "'lines' must be a list of strings"),
        ("path = 'a.py'\nstart_line = 1\n", "needs 'end_line'"),
        ("path = 'a.py'\nstart_line = 1\nend_line = 1\nsha = 'x'\n", "unknown key 'sha'"),
    ],
)
@pytest.mark.parametrize("command", ["check", "relocate"])
def test_native_citation_with_wrong_types_is_a_parse_error(tmp_path: Path, command: str, fields: str, message: str) -> None:
    (tmp_path / "a.py").write_text("x\n")
    text = _NATIVE_CITATION + fields
    (tmp_path / "team.memories.toml").write_text(text)
    if command == "check":  # one finding at its line; a writer refuses the file before writing
        result = _run(tmp_path, command, "--fail-on", "inconclusive", "--root", str(tmp_path), "team.memories.toml")
        assert result.returncode == 1 and "Traceback" not in result.stderr
        assert "team.memories.toml:8:1: INCONCLUSIVE team.memories.toml — " in result.stdout and message in result.stdout
        return
    result = _run(tmp_path, command, "--root", str(tmp_path), "team.memories.toml")
    assert result.returncode == 2
    assert result.stderr.startswith("anchorcheck: error: team.memories.toml:8: memory 'm': [[memory.citation]] ")
    assert message in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert (tmp_path / "team.memories.toml").read_text() == text


@pytest.mark.parametrize("command", ["check", "lock"])
@pytest.mark.parametrize("directory", ["empty", "docs", "ignored"])
def test_a_named_directory_without_memory_files_is_an_error(tmp_path: Path, command: str, directory: str) -> None:
    (tmp_path / "CLAUDE.md").write_text("- `file:CLAUDE.md`\n")
    (tmp_path / "empty").mkdir()
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "notes.txt").write_text("not a memory file\n")
    (tmp_path / "ignored").mkdir()
    (tmp_path / "ignored" / "CLAUDE.md").write_text("- `file:CLAUDE.md`\n")
    (tmp_path / ".gitignore").write_text("ignored/\n")
    result = _run(tmp_path, command, directory)
    assert result.returncode == 2
    assert result.stderr.startswith(f"anchorcheck: error: {directory}: no memory files in this directory")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert not (tmp_path / "anchorcheck.lock").exists()
    assert _run(tmp_path, command, ".", directory).returncode == 2  # one name matching nothing is enough
    assert _run(tmp_path, command).returncode == 0  # no names: discovery, unchanged


@needs_git
@pytest.mark.parametrize("gitdir", ["/nonexistent/anchorcheck-test/worktrees/gone", "../moved/.git/worktrees/sub"])
@pytest.mark.parametrize("command", [["check"], ["lock"], ["bank", "a.py:1"], ["anchor", "file:a.py"]])
def test_a_git_file_pointing_nowhere_is_reported_not_taken_for_a_plain_directory(
    tmp_path: Path, command: list[str], gitdir: str
) -> None:
    outer = init_repo(write_tree(tmp_path / "outer", {"a.py": "x\n"}))
    sub = write_tree(outer / "sub", {"a.py": "x\n", "CLAUDE.md": "- `span:a.py#L1`\n"})
    (sub / ".git").write_text(f"gitdir: {gitdir}\n")  # a worktree or submodule whose git directory moved
    for cwd in (sub, sub / "deeper"):
        cwd.mkdir(exist_ok=True)
        result = _run(cwd, *command)
        assert result.returncode == 2
        assert result.stderr == f"anchorcheck: error: {sub / '.git'}: gitdir {gitdir} does not exist (a moved or removed worktree or submodule?)\n"
        assert not (sub / "anchorcheck.lock").exists()


@needs_git
def test_a_working_git_file_still_reads_as_git(tmp_path: Path) -> None:
    main_repo = init_repo(write_tree(tmp_path / "main", {"a.py": "x\n", "CLAUDE.md": "- `span:a.py#L1`\n"}))
    git(main_repo, "worktree", "add", "-q", str(tmp_path / "wt"))
    assert (tmp_path / "wt" / ".git").is_file()
    result = _run(tmp_path / "wt", "lock")
    assert result.returncode == 0, result.stderr
    root_commit = git(main_repo, "rev-list", "--max-parents=0", "HEAD")
    assert f'identity = "git:{root_commit}"' in (tmp_path / "wt" / "anchorcheck.lock").read_text()



def test_a_git_file_that_is_not_a_gitdir_line_is_reported(tmp_path: Path) -> None:
    (tmp_path / ".git").write_text("garbage\n")
    result = _run(tmp_path, "anchor", "file:a.py")
    assert result.returncode == 2
    assert result.stderr == f"anchorcheck: error: {tmp_path / '.git'}: not a 'gitdir: PATH' file, so git cannot read this checkout\n"
