"""What git says of a checkout: whether it is one, its identity, the commit checked out, its origin,
its blob ids, and what it holds that is not on disk here (submodules, a sparse checkout).

Each answer is asked of git once and kept until the checkout is listed again
(`Repository.relist`); outside git every answer says so (no head, a path
identity, no blob ids). `GitState` is the part of `Repository` that does this.
"""

from __future__ import annotations

import os
from functools import cached_property

from anchorcheck.base.gitnames import is_object_id, strip_credentials
from anchorcheck.base.memo import Memo
from anchorcheck.repo import gitdir, gitview
from anchorcheck.repo.paths import UnsafePathError, check_relative

GITLINK_MODE = "160000"  # a submodule's commit, in git's index


class GitState:
    """The part of `Repository` that answers from git's index and HEAD."""

    _memo: Memo
    _root_str: str

    @cached_property
    def _gitlinks(self) -> frozenset[str]:
        """The submodules git's index holds (mode 160000): folders whose files are another repository's."""
        staged = self._index_listing[0] if self.in_git else None
        return frozenset(path for path, (mode, _) in (staged or {}).items() if mode == GITLINK_MODE)

    def not_checked_out(self, path: str) -> str | None:
        """Why what is at this path may be in the repository but not on disk here: it is (or lies in) a
        submodule that is not checked out (`git clone` without `--recurse-submodules` leaves an empty
        folder), or git tracks it (or files below it) and a sparse checkout left it out, git's index
        marking it skip-worktree (which `git diff-files` does not report as deleted). None otherwise."""
        if not self.in_git:
            return None
        parts = [p for p in path.split("/") if p and p != "."]
        rel = "/".join(parts)
        for depth in range(1, len(parts) + 1):
            link = "/".join(parts[:depth])
            if link in self._gitlinks:
                try:
                    if self.exists(f"{link}/.git"):
                        return None
                except UnsafePathError:
                    return None
                return "a submodule that is not checked out here" if link == rel else f"in the submodule {link}/, which is not checked out here"
        staged, modified = self._index_listing
        # A stat first (the scan below goes over the whole index), not noted as a probe: the callers that
        # answer from it looked at the path themselves.
        try:
            full = os.path.join(self._root_str, check_relative(rel)) if rel else ""
        except UnsafePathError:
            return None
        if full and os.path.lexists(full):
            return _broken_link(full)
        if not staged or not rel:
            return None
        below = rel + "/"
        skipped = self.skip_worktree
        if skipped is None:  # git did not say which: what git tracks and does not report deleted
            skipped = frozenset(p for p in staged if p not in modified)
        if rel in skipped or skipped and any(p.startswith(below) for p in skipped):
            return "tracked by git but not checked out here (a sparse checkout)"
        return None

    @property
    def in_git(self) -> bool:
        """Whether the root is inside a git work tree and git is installed."""
        self._memo.git_state()  # a `.git` that comes or goes lists the checkout again
        return self._in_git

    @cached_property
    def _in_git(self) -> bool:
        if not self._below_dotgit():
            return False
        return (self._git("rev-parse", "--is-inside-work-tree") or "").strip() == "true"

    @property
    def identity(self) -> str:
        """`git:<root commit>` (stable across clones and moves), else `path:<canonical root>`."""
        self._memo.git()
        return self._identity

    @cached_property
    def _identity(self) -> str:
        if self.in_git:
            roots = (self._git("rev-list", "--max-parents=0", operands=["HEAD"]) or "").split()
            if roots:
                return f"git:{sorted(roots)[0]}"
        return f"path:{self.root}"

    @property
    def shallow(self) -> bool:
        """Whether this is a shallow clone (`git clone --depth`): git takes its oldest commits for roots,
        so its `identity` is not the repository's."""
        self._memo.git()
        return self.in_git and (self._git("rev-parse", "--is-shallow-repository") or "").strip() == "true"

    @property
    def head(self) -> str | None:
        """The commit checked out (None outside git)."""
        self._memo.git()
        return self._head

    @cached_property
    def _head(self) -> str | None:
        if not self.in_git:
            return None
        out = (self._git("rev-parse", "--verify", "-q", operands=["HEAD"]) or "").strip()
        return out if is_object_id(out) else None

    @property
    def origin(self) -> str | None:
        """The origin remote URL with credentials stripped, when there is one."""
        self._memo.git()
        return self._origin

    @cached_property
    def _origin(self) -> str | None:
        if not self.in_git:
            return None
        found = self._located
        view = gitview.view_of(found) if isinstance(found, gitdir.GitDir) else None
        out = (view.settings.origin_url or "").strip() if view is not None else ""
        return strip_credentials(out) if out else None

    @cached_property
    def blob_ids(self) -> dict[str, str]:
        """Git blob ids of tracked files whose working copy matches the index: free content hashes."""
        staged = self.staged_blob_ids
        if not staged:
            return {}
        modified = self._index_listing[1]
        return {path: blob for path, blob in staged.items() if path not in modified}

    @cached_property
    def staged_blob_ids(self) -> dict[str, str]:
        """Git blob ids of every tracked file as staged, modified or not: together they name a tree state."""
        if not self.in_git:
            return {}
        return {path: blob for path, (_, blob) in (self._index_listing[0] or {}).items()}


def _broken_link(full: str) -> str | None:
    """Why a symbolic link the checkout holds reads as nothing, when it was written so that it never could: its target
    holds a control character (dyad's CLAUDE.md links to `AGENTS.md` and a newline). Not gone, so not stale. A link to
    a file that is missing now (`docs/link.md` → `index.md`, deleted) is judged as a missing path: None."""
    if not os.path.islink(full) or os.path.exists(full):
        return None
    try:
        target = os.readlink(full)
    except OSError:
        return None
    if not any(ord(c) < 32 for c in target):
        return None
    return f"a symbolic link to {target!r}, which no checkout can hold (a broken link: nothing can be read at this path)"
