"""Shared fixtures: real directories and real git repositories in temp dirs."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import settings

# CI gates every landing, so the suite draws the same examples every run: a failure found there reproduces
# anywhere. `HYPOTHESIS_PROFILE=explore` draws fresh examples (and benchmarks/hostile.py runs the big campaigns).
settings.register_profile("ci", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

REPO_ROOT = Path(__file__).resolve().parents[1]
GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git is not installed")


@pytest.fixture(autouse=True)
def _private_source_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests never touch the user's cache directory: the source cache lives in a temp dir."""
    monkeypatch.setenv("ANCHORCHECK_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "anchorcheck-cache"))


def shared_corpus(name: str) -> Path | None:
    """../shared/corpora/NAME beside the checkout (CI lays shared/ there; a worktree sits one level deeper)."""
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "shared" / "corpora" / name
        if candidate.is_dir():
            return candidate
    return None


def git(cwd: Path, *args: str) -> str:
    """Run git in a test repository with a fixed identity, so commits are reproducible."""
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="Test",
        GIT_AUTHOR_EMAIL="test@example.com",
        GIT_COMMITTER_NAME="Test",
        GIT_COMMITTER_EMAIL="test@example.com",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_SYSTEM=os.devnull,
    )
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        # Bytes exactly as given: span tests depend on CRLF and missing final newlines surviving.
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return root


def init_repo(root: Path, message: str = "initial") -> Path:
    """Make `root` a git repository whose one commit holds everything in it."""
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return root


@pytest.fixture
def make_tree(tmp_path: Path) -> Callable[[dict[str, str | bytes]], Path]:
    """A plain directory (no git) holding the given files."""

    def make(files: dict[str, str | bytes]) -> Path:
        root = tmp_path / "tree"
        root.mkdir(exist_ok=True)
        return write_tree(root, files)

    return make


@pytest.fixture
def make_repo(tmp_path: Path) -> Callable[..., Path]:
    """A real git repository holding the given files in one commit."""

    def make(files: dict[str, str | bytes], name: str = "repo") -> Path:
        return init_repo(write_tree(tmp_path / name, files))

    return make
