"""The name of a checkout's tree state: every listed path with its content id, from git's listing.

Two things are stored per tree state and must agree on what one is: the
verdicts of `anchorcheck.results` and the whole reports `anchorcheck.replay`
prints again. Both name it here, from the same three git listing commands
(`Repository.paths` and `Repository.blob_ids`): git's blob id for a file git
vouches for, the same hash of the bytes for any other (modified, untracked).
A result may also depend on paths that do not exist (a file looked for, not
found): those are kept beside it and checked again when it is read back.

This module imports only the checkout's own reader, so that a `check` that
replays its last report pays for no more than the listing.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable

from anchorcheck.repo import FileTooLargeError, Repository, UnsafePathError

MAX_UNCLEAN = 2000  # files git does not vouch for (modified, untracked) that naming a tree state may read


def git_blob_id(data: bytes) -> str:
    """The id git gives these bytes as a blob, so untracked files share the key space of tracked ones."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()  # noqa: S324 - a content id, not security


class TreeState:
    """One named tree state: its digest and the paths listed in it."""

    def __init__(self, digest: str, listed: set[str], root: str) -> None:
        self.digest = digest
        self.listed = listed
        self.root = root
        self._directories: set[str] | None = None

    def directories(self) -> set[str]:
        """Every directory holding a listed file, and their parents ('.' for the root)."""
        if self._directories is None:
            self._directories = {"."} | {path.rsplit("/", 1)[0] for path in self.listed if "/" in path}
            self._directories |= {parent for d in list(self._directories) for parent in _parents(d)}
        return self._directories

    def absent(self, paths: Iterable[str]) -> list[str] | None:
        """Of paths something read, those no listing holds, all of which must not exist: what the state
        must say besides its listing to name what was read. None when one of them exists (an ignored
        file): its content is in no key."""
        directories = self.directories()
        absent = []
        for path in paths:
            if path not in self.listed and path not in directories:
                if os.path.lexists(os.path.join(self.root, path)):
                    return None
                absent.append(path)
        return sorted(absent)

    def still_absent(self, absent: Iterable[str]) -> bool:
        """Whether every path found absent is still absent (one created since, even an ignored one, is not)."""
        return not any(os.path.lexists(os.path.join(self.root, path)) for path in absent)


def name_tree(repo: Repository) -> TreeState | None:
    """The checkout's tree state as it is now; None outside git, or where naming it would read more than
    `MAX_UNCLEAN` files git does not vouch for."""
    if not repo.in_git:
        return None
    listed = repo.paths()
    clean = repo.blob_ids
    if sum(1 for path in listed if path not in clean) > MAX_UNCLEAN:
        return None  # naming the state would read more than most checks do
    digest = hashlib.sha1()  # noqa: S324 - a content id, not security
    for path in listed:
        digest.update(f"{path}\0{clean.get(path) or _content_id(repo, path)}\0".encode("utf-8", "surrogateescape"))
    return TreeState(digest.hexdigest(), set(listed), str(repo.root))


def _parents(directory: str) -> list[str]:
    parts = directory.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts))]


def _content_id(repo: Repository, path: str) -> str:
    """A file git does not vouch for: the hash of its bytes; past the size cap or unreadable, its stat
    signature (never read whole, and any change to it is still another key)."""
    try:
        return git_blob_id(repo.read_bytes(path))
    except (FileTooLargeError, OSError, UnsafePathError):
        try:
            info = os.stat(repo.root / path)
        except OSError:
            return "unreadable"
        return f"stat:{info.st_size}:{info.st_mtime_ns}:{info.st_ino}"
