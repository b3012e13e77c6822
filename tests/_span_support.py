"""Helpers for the span and citation tests: real files and real git repositories in tmp dirs.

They are thin names over the shared helpers in conftest, so every test runs git the same way.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import git as run_git
from tests.conftest import init_repo, write_tree


def write_file(root: Path, rel: str, data: str | bytes) -> Path:
    write_tree(root, {rel: data})
    return root / rel


def make_git_repo(root: Path, files: dict[str, str]) -> Path:
    """A committed repository at `root` holding `files`."""
    root.mkdir(parents=True, exist_ok=True)
    return init_repo(write_tree(root, files), "init")


def commit_all(root: Path, message: str = "change") -> str:
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", message)
    return run_git(root, "rev-parse", "HEAD")
