"""Files a repository supplies are read only as regular files inside it, without blocking, up to a cap.

Every FIFO case runs the real CLI in a subprocess with a timeout: before the
fix a FIFO blocked `open()` forever, so these tests fail by timing out. The
others run the CLI in-process.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from anchorcheck.cli import main
from anchorcheck.repo.config import ConfigError, load_config
from anchorcheck.repo.safe_read import FileTooLargeError, NotRegularFileError, read_capped
from tests.conftest import write_tree

MEMORY = "- uses os `file:a.py`\n"
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")


def _cli(root: Path, *args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "anchorcheck", *args, "--root", str(root)],
        capture_output=True, text=True, timeout=timeout, check=False, cwd=root,
    )


def _run(root: Path, capsys: pytest.CaptureFixture[str], *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI in-process, from the root, as a CompletedProcess (for files that cannot block)."""
    capsys.readouterr()
    cwd = Path.cwd()
    os.chdir(root)
    try:
        code = main([*args, "--root", str(root)])
    finally:
        os.chdir(cwd)
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(args, code, out, err)


def _one_finding(done: subprocess.CompletedProcess[str], *expected: str) -> None:
    """A memory file that cannot be read is one INCONCLUSIVE finding of `check --fail-on inconclusive`,
    its reason on one line; the other files are still checked."""
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stdout + done.stderr
    [line] = [line for line in done.stdout.splitlines() if "the memory file could not be read" in line]
    for text in expected:
        assert text in line, line


def _one_line_error(done: subprocess.CompletedProcess[str], *expected: str) -> None:
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    for text in expected:
        assert text in lines[0], lines[0]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "repo", {"a.py": "import os\n", "CLAUDE.md": MEMORY})


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    return write_tree(
        tmp_path / "outside",
        {
            "config.toml": 'exclude = ["a.py"]\n',
            "pyproject.toml": '[tool.anchorcheck]\nexclude = ["a.py"]\n',
            "memory.md": "- secret `file:a.py`\n",
            "anchorcheck.lock": "version = 1\n",
        },
    )


@pytest.mark.parametrize(
    ("name", "target"),
    [(".anchorcheck.toml", "config.toml"), ("pyproject.toml", "pyproject.toml"), ("anchorcheck.lock", "anchorcheck.lock")],
)
def test_a_config_or_lock_symlinked_out_of_the_repository_is_refused(repo, outside, name, target, capsys) -> None:
    (repo / name).symlink_to(outside / target)
    _one_line_error(_run(repo, capsys, "check", "CLAUDE.md"), name, "resolves outside the repository")


def test_a_memory_file_symlinked_out_of_the_repository_is_refused(repo, outside, capsys) -> None:
    (repo / "AGENTS.md").symlink_to(outside / "memory.md")
    _one_finding(_run(repo, capsys, "check", "--fail-on", "inconclusive", "AGENTS.md"), "AGENTS.md", "resolves outside the repository")
    assert "secret" not in _run(repo, capsys, "check", "-v").stdout  # discovery never lists it either


def test_a_memory_file_named_outside_the_repository_is_still_read(repo, outside, capsys) -> None:
    done = _run(repo, capsys, "check", str(outside / "memory.md"))
    assert done.returncode == 0 and "1 verified" in done.stdout, done.stdout + done.stderr


def test_symlinks_that_stay_inside_the_repository_are_followed(repo, capsys) -> None:
    write_tree(repo, {"docs/real.md": MEMORY, "conf/anchorcheck.toml": "fail-on = 'inconclusive'\n"})
    (repo / "AGENTS.md").symlink_to(repo / "docs" / "real.md")
    (repo / ".anchorcheck.toml").symlink_to(repo / "conf" / "anchorcheck.toml")
    assert load_config(repo).fail_on == "inconclusive"
    done = _run(repo, capsys, "check", "AGENTS.md")
    assert done.returncode == 0 and "1 verified" in done.stdout, done.stderr


@needs_fifo
@pytest.mark.parametrize("name", ["pyproject.toml", ".anchorcheck.toml", "anchorcheck.lock"])
def test_a_fifo_named_like_a_config_or_lock_does_not_block(repo, name) -> None:
    os.mkfifo(repo / name)
    _one_line_error(_cli(repo, "check", "CLAUDE.md"), name, "not a regular file (a FIFO)")


@needs_fifo
def test_a_fifo_named_like_a_memory_file_does_not_block(repo) -> None:
    os.mkfifo(repo / "AGENTS.md")
    _one_finding(_cli(repo, "check", "--fail-on", "inconclusive", "AGENTS.md"), "AGENTS.md", "not a regular file (a FIFO)")
    done = _cli(repo, "check")  # discovered: a FIFO is no memory file
    assert done.returncode == 0 and "1 verified" in done.stdout, done.stderr


@needs_fifo
def test_a_fifo_gitignore_does_not_block_a_walk_without_git(repo) -> None:
    os.mkfifo(repo / ".gitignore")
    done = _cli(repo, "anchor", "import:os")
    assert done.returncode == 0 and "VERIFIED" in done.stdout, done.stderr


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_a_memory_file_that_is_dev_zero_is_not_read(repo, tmp_path, capsys) -> None:
    (tmp_path / "zero.md").symlink_to("/dev/zero")
    _one_finding(_run(repo, capsys, "check", "--fail-on", "inconclusive", str(tmp_path / "zero.md")), "zero.md", "not a regular file (a device)")
    (repo / "anchorcheck.lock").symlink_to("/dev/zero")
    _one_line_error(_run(repo, capsys, "check", "CLAUDE.md"), "anchorcheck.lock", "resolves outside the repository")


@pytest.mark.parametrize(("name", "size"), [("anchorcheck.lock", 17 * 2**20), ("pyproject.toml", 5 * 2**20)])
def test_a_config_or_lock_over_its_cap_is_not_read(repo, name, size, capsys) -> None:
    with open(repo / name, "wb") as handle:
        handle.truncate(size)  # sparse: no disk used, but a plain read would take it all into memory
    _one_line_error(_run(repo, capsys, "check", "CLAUDE.md"), name, "over the")


def test_config_errors_name_the_file(repo, outside) -> None:
    (repo / "pyproject.toml").symlink_to(outside / "pyproject.toml")
    with pytest.raises(ConfigError, match=r"^pyproject.toml: cannot read: resolves outside the repository"):
        load_config(repo)


@pytest.mark.skipif(not os.path.exists("/proc/self/maps"), reason="no /proc")
def test_a_file_longer_than_its_reported_size_stops_at_the_cap() -> None:
    """/proc files report size 0: the cap holds on the bytes read, not only on the size reported."""
    with pytest.raises(FileTooLargeError):
        read_capped("/proc/self/maps", 16)
    assert read_capped("/proc/self/maps", 0, amount=4)  # no cap: reads what is asked


def test_a_directory_is_reported_as_one(tmp_path) -> None:
    with pytest.raises(IsADirectoryError):
        read_capped(tmp_path, 10)
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "pipe")
        with pytest.raises(NotRegularFileError, match="a FIFO"):
            read_capped(tmp_path / "pipe", 10)



def test_a_file_longer_than_it_said_when_opened_is_read_to_its_end(tmp_path) -> None:
    """The read asks first for the size the file had when opened: bytes past it (a file that grew
    since, a /proc file that says 0) are read on in chunks to the end, and the limit still holds."""
    from anchorcheck.repo.safe_read import _read_fd

    payload = bytes(range(256)) * 1000  # 256 KB, said to be 10 bytes: several chunks past that
    (tmp_path / "grown").write_bytes(payload)
    for limit, expected in ((None, payload), (100_001, payload[:100_001]), (11, payload[:11]), (0, b"")):
        fd = os.open(tmp_path / "grown", os.O_RDONLY)
        try:
            assert _read_fd(fd, 10, limit) == expected
        finally:
            os.close(fd)
