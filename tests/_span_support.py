"""Helpers for the span and citation tests: real files and real git repositories in tmp dirs."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

_GIT_ENV = {
    "GIT_AUTHOR_NAME": "test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def run_git(root: Path, *args: str) -> str:
    env = dict(os.environ, **_GIT_ENV, HOME=str(root))
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, env=env, check=True)
    return done.stdout.strip()


def write_file(root: Path, rel: str, data: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def make_git_repo(root: Path, files: dict[str, str]) -> Path:
    """A committed repository at `root` holding `files`."""
    root.mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        write_file(root, rel, text)
    run_git(root, "init", "-q", "-b", "main")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "init")
    return root


def commit_all(root: Path, message: str = "change") -> str:
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", message)
    return run_git(root, "rev-parse", "HEAD")
