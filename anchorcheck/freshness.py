"""Whether a checkout changed since a Verifier last looked: what keeps a long-lived Verifier true.

A snapshot holds the stat signature of every listed file and directory and of
git's own state files (the index, HEAD and the ref it names). Comparing it with
the disk costs one stat per entry and reads nothing: a file whose signature is
unchanged is taken to hold the same bytes, as git takes it. A changed directory
means files were added, removed or renamed there, and a changed git state means
the index or HEAD moved: the listing is redone. A file written in the same
clock tick as the snapshot could change again unseen ("racy", as git calls it):
its content hash is kept and compared instead. No TTL, nothing assumed.
"""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from anchorcheck.repo import Repository

Signature = tuple[int, int, int, int] | None  # mtime_ns, ctime_ns, size, inode; None when absent
_RACY_NS = 2_000_000_000  # timestamps this close to the snapshot may hide a later write (2 s: FAT's granularity)


def signature(path: str) -> Signature:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino


@dataclass
class Changes:
    """What changed: files whose bytes may differ, and whether the listing itself must be redone."""

    modified: set[str] = field(default_factory=set)
    relist: bool = False

    def __bool__(self) -> bool:
        return self.relist or bool(self.modified)


class Snapshot:
    """The stat signatures of a repository's listed files, their directories and git's state files."""

    def __init__(self, repo: Repository) -> None:
        started = time.time_ns()
        self.root = str(repo.root)
        self.files = {path: signature(os.path.join(self.root, path)) for path in repo.paths()}
        directories = {""} | {path.rsplit("/", 1)[0] for path in self.files if "/" in path}
        directories |= {parent for d in list(directories) for parent in _parents(d)}
        self.directories = {d: signature(os.path.join(self.root, d) if d else self.root) for d in directories}
        self.git = {path: signature(path) for path in _git_state_files(repo.root)}
        self.racy = {
            path: _digest(os.path.join(self.root, path))
            for path, sig in self.files.items()
            if sig is not None and sig[0] >= started - _RACY_NS
        }

    def changes(self) -> Changes:
        """What differs on disk now; empty when nothing does."""
        found = Changes()
        if any(signature(path) != sig for path, sig in self.git.items()) or any(
            signature(os.path.join(self.root, d) if d else self.root) != sig for d, sig in self.directories.items()
        ):
            found.relist = True
        for path, sig in self.files.items():
            now = signature(os.path.join(self.root, path))
            if now != sig:
                found.modified.add(path)
                found.relist |= now is None
            elif path in self.racy and _digest(os.path.join(self.root, path)) != self.racy[path]:
                found.modified.add(path)
        return found


def _parents(directory: str) -> list[str]:
    parts = directory.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts))]


def _digest(path: str) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return hashlib.sha1(handle.read()).digest()  # noqa: S324 - change detection, not security
    except OSError:
        return None


def _git_state_files(root: Path) -> list[str]:
    """git's index, HEAD and the ref HEAD names (loose and packed), found without running git."""
    for directory in (root, *root.parents):
        dotgit = directory / ".git"
        if dotgit.is_dir():
            gitdir = dotgit
        elif dotgit.is_file():
            text = dotgit.read_text(encoding="utf-8", errors="replace").strip()
            gitdir = (directory / text.removeprefix("gitdir:").strip()) if text.startswith("gitdir:") else None
        else:
            continue
        if gitdir is None:
            return []
        files = [gitdir / "index", gitdir / "HEAD"]
        try:
            head = (gitdir / "HEAD").read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            head = ""
        common = gitdir
        commondir = gitdir / "commondir"
        if commondir.is_file():  # a linked worktree: refs live in the main repository's git directory
            common = gitdir / commondir.read_text(encoding="utf-8", errors="replace").strip()
        if head.startswith("ref:"):
            files.append(common / head.removeprefix("ref:").strip())
        files.append(common / "packed-refs")
        return [str(f) for f in files]
    return []
