"""Repository access for every plugin: safe paths, file listing, identity and revision.

Plugins never open paths themselves: they go through `Repository`, so a
citation that names `../../etc/passwd` or a symlink out of the checkout is
refused in one place. Git is used through read-only plumbing when it is
installed and the root is inside a work tree; everything works without it.

`Repository` is one object made of four parts, each in its own module and
each reaching the others' state through `self`: `Paths` (confinement and
reads, `paths`), `Listing` (the files of the checkout, `listing`), `GitRunner`
(every git command and the listing's prefetch, `gitrunner`) and `GitState`
(identity, HEAD, origin, blob ids, `gitstate`). Their state is made here, and
`relist` and `forget` reset it across all of them.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from anchorcheck.base.globs import Patterns
from anchorcheck.base.memo import Memo
from anchorcheck.repo.gitrunner import GitRunner
from anchorcheck.repo.gitstate import GitState
from anchorcheck.repo.listing import Listing
from anchorcheck.repo.paths import Paths
from anchorcheck.repo.safe_read import NOFOLLOW

DEFAULT_SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        "node_modules",
        "vendor",
        "dist",
        "build",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".anchorcheck",
    }
)
DEFAULT_MAX_FILE_SIZE = 2 * 1024 * 1024


class Repository(Paths, Listing, GitRunner, GitState):
    """One checkout, seen read-only."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        skip_dirs: Iterable[str] = DEFAULT_SKIP_DIRS,
        exclude: Iterable[str] = (),
        max_file_size: int = DEFAULT_MAX_FILE_SIZE,
    ) -> None:
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise NotADirectoryError(f"{root}: not a directory")
        self.skip_dirs = frozenset(skip_dirs)
        self.exclude = Patterns(exclude)
        self.max_file_size = max_file_size
        self._text: dict[str, bool] = {}
        self._vetted: set[str] = set()
        self._ignores = {}  # the ignore files' compiled patterns, by the status they had (`Paths.ignored_because`)
        self._accepting: dict[tuple[str | None, frozenset[str] | None], Callable[[str], bool]] = {}  # `Listing._accepts`
        # Vetted files edited since (`forget`): their folders stand as vetted (a folder that changes
        # lists the checkout again), the last component may have become a link: read without following one.
        self._edited: set[str] = set()
        # Listed files known to be regular files, not symlinks, as listed (git vouched for them, or the
        # listing's own lstat said so): a snapshot need not look at them again to find the links.
        self.plain: set[str] = set()
        self._root_str = str(self.root)
        self._prefetch: threading.Thread | None = None
        self._prefetched: dict[tuple[str, ...], str | None] = {}
        self._arrived = threading.Condition()  # told as each output of the prefetch comes in
        self._raw: dict[tuple[str, ...], str | None] = {}  # git's outputs of the listing commands, as the listing used them
        self._git_stopped = False
        self._memo = Memo()  # what records the reads of the computation running now (see `observe`)
        # Called between slices of a long pass over the listing: a Context makes it check its deadline.
        self.pace: Callable[[], None] = _unpaced
        # Told of directories (and of the files the index holds) before the listing looks into them: git's
        # index is read first, then what git says of the files; a walk hands each directory before scanning
        # it. A snapshot watches or signs them there, so no change after the listing began goes unseen.
        self.before_looking: Callable[[Iterable[str], Iterable[str]], None] | None = None
        self.listed_at: int | None = None  # time.time_ns() when the listing began (None: not listed yet)

    def observe(self, memo: Memo) -> None:
        """Note every path read, resolved or judged, and every listing and git command, in `memo`: what
        lets a long-lived Verifier keep what an edit did not touch (`anchorcheck.base.memo`)."""
        self._memo = memo

    def relist(self) -> None:
        """Forget the listing and git's word on the checkout (files were added or removed, git's index
        or HEAD moved, a `.git` came or went): the next look lists it again. What was read of each file is kept."""
        self.join_prefetch()
        self.relocate()
        for name in ("_all_files", "_by_name", "_index_listing", "_gitlinks", "blob_ids", "staged_blob_ids", "_in_git", "_head", "_identity", "skip_worktree"):
            self.__dict__.pop(name, None)
        self.listed_at = None
        self._raw.clear()
        self._vetted.clear()
        self._edited.clear()
        self.plain.clear()

    def __getstate__(self) -> dict[str, object]:
        """A thread cannot be pickled: a copy takes the prefetch's results, or lists again. Nor does a
        copy record into this one's memo, keep its caller's deadline or tell its snapshot's watches (they
        hold closures, as do its listing tests)."""
        self.join_prefetch()
        return {**self.__dict__, "_memo": Memo(), "pace": _unpaced, "before_looking": None, "_arrived": None, "_accepting": {}}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self._arrived = threading.Condition()

    def forget(self, paths: Iterable[str]) -> None:
        """Files whose bytes may have changed since git listed them: git's index no longer vouches for
        them (no blob id, not trusted as regular files), and their type and location are judged anew.
        What a long-lived Verifier calls instead of listing the whole checkout again."""
        changed = set(paths)
        if "_index_listing" in vars(self):
            self._index_listing[1].update(changed)
        if "blob_ids" in vars(self):
            for path in changed:
                self.blob_ids.pop(path, None)
        if NOFOLLOW:
            self._edited |= changed & self._vetted
        self._vetted.difference_update(changed)
        self.plain.difference_update(changed)
        for path in changed:
            self._text.pop(path, None)
            self._ignores.pop(path, None)  # an edit its status does not show (same size, same clock tick)


def _unpaced() -> None:
    """No deadline: a pass over the listing goes on to its end."""
