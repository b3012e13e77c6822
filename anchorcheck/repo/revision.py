"""A read-only view of the repository at a past git revision.

Historical memories (`as_of = "v2.0"`: "we used Redis until v2") are checked
against the tree of that revision, not the work tree. Plugins read only
through `Repository`, so swapping in `RevisionRepository` makes every kind
work unchanged: paths resolve in the revision's tree (`git ls-tree`), bytes
come from the object store (`git cat-file`), and nothing is checked out or
written.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from anchorcheck.base.gitnames import is_object_id
from anchorcheck.repo.checkout import Repository
from anchorcheck.repo.paths import UnsafePathError, check_relative
from anchorcheck.repo.safe_read import FileTooLargeError

_SYMLINK_MODE = "120000"
_MAX_SYMLINK_HOPS = 40
_MAX_REVISION = 256


class RevisionError(ValueError):
    """The revision cannot be read: not a git checkout, or no such commit."""


@dataclass(frozen=True)
class _Entry:
    mode: str
    kind: str  # "blob", "tree" or "commit" (a submodule)
    oid: str
    size: int | None


class RevisionRepository(Repository):
    """The tree of commit `revision` of `base`'s repository, seen through the Repository interface.

    Listing applies the base's skip_dirs, exclude patterns and size cap, but
    not .gitignore: a committed tree holds only what was tracked.
    """

    def __init__(self, base: Repository, revision: str, blobs: dict[str, bytes] | None = None) -> None:
        super().__init__(base.root, skip_dirs=base.skip_dirs, max_file_size=base.max_file_size)
        self.exclude = base.exclude
        if not base.in_git:
            raise RevisionError(f"{base.root}: not a git checkout, so revision {revision!r} cannot be read")
        if not isinstance(revision, str) or not revision.isprintable() or not 0 < len(revision) <= _MAX_REVISION:
            raise RevisionError(f"revision {revision!r:.80} is not a revision name (printable, 1 to {_MAX_REVISION} characters)")
        commit = (self.git("rev-parse", "--verify", "-q", operands=[f"{revision}^{{commit}}"]) or "").strip()
        if not is_object_id(commit):
            raise RevisionError(f"revision {revision!r} is not a commit of this repository")
        self.revision = revision
        self.commit = commit
        self._blobs: dict[str, bytes] = {} if blobs is None else blobs  # by object id: views of other revisions may share it

    # -- the tree ------------------------------------------------------------

    @cached_property
    def _tree(self) -> dict[str, _Entry]:
        out = self.git("ls-tree", "-r", "-t", "-l", "-z", "--full-tree", operands=[self.commit]) or ""
        tree: dict[str, _Entry] = {}
        for record in out.split("\0"):
            if not record:
                continue
            meta, _, path = record.partition("\t")
            fields = meta.split()
            if len(fields) != 4:
                continue
            mode, kind, oid, size = fields
            # "-" for a tree; "BAD" for a blob missing from a partial clone (never fetched: no transport)
            tree[path] = _Entry(mode, kind, oid, int(size) if size.isdigit() else None)
        return tree

    def _lookup(self, path: str) -> tuple[str, _Entry | None]:
        """The entry a repo-relative path names, following symlinks that stay inside the tree."""
        rel = check_relative(path)
        for _ in range(_MAX_SYMLINK_HOPS):
            if rel == ".":
                return rel, _Entry("040000", "tree", self.commit, None)
            entry = self._tree.get(rel)
            if entry is None or entry.mode != _SYMLINK_MODE:
                return rel, entry
            target = self._blob(entry.oid).decode("utf-8", errors="surrogateescape")
            joined = posixpath.normpath(posixpath.join(posixpath.dirname(rel), target))
            if target.startswith("/") or joined == ".." or joined.startswith("../"):
                raise UnsafePathError(path, "resolves outside the repository (symlink)")
            rel = joined
        raise UnsafePathError(path, "cannot resolve (symlink loop?)")

    def _blob(self, oid: str) -> bytes:
        cached = self._blobs.get(oid)
        if cached is None:
            out = self.git("cat-file", operands=["blob", oid]) if is_object_id(oid) else None
            if out is None:
                raise OSError(f"git cannot read object {oid}")
            cached = out.encode("utf-8", errors="surrogateescape")
            self._blobs[oid] = cached
        return cached

    # -- the Repository interface --------------------------------------------

    def resolve(self, path: str) -> Path:
        """Where the path would be in a checkout of the revision (it need not exist on disk)."""
        rel, _ = self._lookup(path)
        return self.root if rel == "." else self.root / rel

    def exists(self, path: str) -> bool:
        return self._lookup(path)[1] is not None

    def is_file(self, path: str) -> bool:
        entry = self._lookup(path)[1]
        return entry is not None and entry.kind == "blob"

    def not_checked_out(self, path: str) -> str | None:
        """The revision's tree holds every file it tracks (the work tree's index and sparse checkout do not
        bear on it); only what lies in a submodule, a commit of another repository, is not in it."""
        parts = [p for p in path.split("/") if p]
        for depth in range(1, len(parts)):
            link = "/".join(parts[:depth])
            entry = self._tree.get(link)
            if entry is not None and entry.kind == "commit":
                return f"in the submodule {link}/, whose files are another repository's"
        return None

    def is_dir(self, path: str) -> bool:
        entry = self._lookup(path)[1]
        return entry is not None and entry.kind == "tree"

    def read_bytes(self, path: str, limit: int | None = None) -> bytes:
        """The file's bytes at the revision; FileNotFoundError when the tree has no such file."""
        rel, entry = self._lookup(path)
        if entry is None or entry.kind != "blob":
            raise FileNotFoundError(f"{rel}: not a file at revision {self.revision}")
        cap = self.max_file_size if limit is None else limit
        if cap and entry.size is not None and entry.size > cap:
            raise FileTooLargeError(rel, entry.size, cap)
        return self._blob(entry.oid)

    def _peek(self, path: str) -> bytes:
        return self.read_bytes(path)

    @cached_property
    def _all_files(self) -> list[str]:
        keep = []
        for rel, entry in self._tree.items():
            if entry.kind != "blob" or entry.mode == _SYMLINK_MODE:
                continue
            if any(part in self.skip_dirs for part in rel.split("/")[:-1]):
                continue
            if self.exclude.match_file(rel) or (entry.size or 0) > self.max_file_size:
                continue
            keep.append(rel)
        return sorted(keep)

    @cached_property
    def head(self) -> str | None:
        return self.commit

    @cached_property
    def blob_ids(self) -> dict[str, str]:
        """Every file's blob id: at a revision, the tree is the content."""
        return {rel: e.oid for rel, e in self._tree.items() if e.kind == "blob" and e.mode != _SYMLINK_MODE}

    @property
    def staged_blob_ids(self) -> dict[str, str]:  # type: ignore[override]
        return self.blob_ids
