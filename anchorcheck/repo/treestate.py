"""The name of a checkout's tree state: every listed path with its content id, from git's listing.

Two things are stored per tree state and must agree on what one is: the
verdicts of `anchorcheck.evidence.stored` and the whole reports `anchorcheck.serve.replay`
prints again. Both name it here, from the same three git listing commands
(`Repository.paths` and `Repository.blob_ids`): git's blob id for a file git
vouches for, the same hash of the bytes for any other (modified, untracked).
A result may also depend on paths that do not exist (a file looked for, not
found): those are kept beside it and checked again when it is read back.
Paths git does not vouch for and the listing does not keep, that stand as a
link or a folder (a tracked link to a folder, a submodule that is not checked
out, an untracked link) are named by what stands there (`_standing`: a link's
text, or a folder), so a result that looked at one, as the listing itself does
when it vets each link, is still named by the state: what no memory names does
not block a replay. What a read through a link reaches is noted as a path of
its own (`Repository.resolve`) and judged on its own: a folder holding tracked
files the listing skips (a link to a fixture's `node_modules/`) is named by
those files, whose blob ids the digest holds.

A replay names the same state a cheaper way (`listing_key`): git's raw
outputs of those three commands, plus, for each path git does not vouch
for, whether the listing keeps it and what it holds. Equal raw outputs and
equal such paths make an equal listing with equal content ids, so an equal
key is an equal tree state; the converse need not hold (the same files
listed in another order of git's, another stat in the index), and then a
replay is only missed. It spares parsing the index's listing of every file.

This module imports only the checkout's own reader, so that a `check` that
replays its last report pays for no more than the listing.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from anchorcheck.base import digests
from anchorcheck.repo.checkout import Repository

from anchorcheck.repo.listing import REGULAR_MODES, index_entries

from anchorcheck.repo.paths import UnsafePathError

from anchorcheck.repo.safe_read import FileTooLargeError

MAX_UNCLEAN = 2000  # files git does not vouch for (modified, untracked) that naming a tree state may read


def git_blob_id(data: bytes) -> str:
    """The id git gives these bytes as a blob, so untracked files share the key space of tracked ones."""
    return digests.sha1(b"blob %d\0" % len(data) + data).hexdigest()  # a content id, not security


class TreeState:
    """One named tree state: its digest and the paths listed in it."""

    def __init__(
        self, digest: str, listed: set[str], root: str, unclean: dict[str, str], held: dict[str, str] | None = None, unkept: frozenset[str] = frozenset()
    ) -> None:
        self.digest = digest
        self.listed = listed
        self.root = root
        self.unclean = unclean  # listed paths git does not vouch for -> the content id named for each
        self.held = held or {}  # unlisted paths git does not vouch for that stand as a link or folder -> `_standing`
        self.unkept = unkept  # files git vouches for that the listing does not keep (under node_modules/, say)
        self._directories: set[str] | None = None
        self._unkept_directories: set[str] | None = None

    def directories(self) -> set[str]:
        """Every directory holding a listed file or a held path, and their parents ('.' for the root)."""
        if self._directories is None:
            self._directories = {"."} | {path.rsplit("/", 1)[0] for path in [*self.listed, *self.held] if "/" in path}
            self._directories |= {parent for d in list(self._directories) for parent in _parents(d)}
        return self._directories

    def names(self, path: str) -> bool:
        """Whether the state names what stands at this path: listed, a directory of the listing, held, or
        below a held link (what the read through it reached is a path noted and judged on its own)."""
        if path in self.listed or path in self.directories() or path in self.held or path in self._folders_of_unkept():
            return True
        if not self.held:
            return False
        return any(self.held.get(above, "").startswith(_LINK) for above in _parents(path))

    def _folders_of_unkept(self) -> set[str]:
        """The folders holding a file git vouches for that the listing does not keep: such a folder stands as
        one while the state holds (the files' blob ids are in its digest), as the target of a tracked link
        to `node_modules/` a listing vets does."""
        if self._unkept_directories is None:
            self._unkept_directories = {path.rsplit("/", 1)[0] for path in self.unkept if "/" in path}
            self._unkept_directories |= {parent for d in list(self._unkept_directories) for parent in _parents(d)}
        return self._unkept_directories

    def absent(self, paths: Iterable[str]) -> list[str] | None:
        """Of paths something read, those no listing holds, all of which must not exist: what the state
        must say besides its listing to name what was read. None when one of them exists (an ignored
        file): its content is in no key."""
        absent, present = self.unlisted(paths)
        return None if present else absent

    def unlisted(self, paths: Iterable[str]) -> tuple[list[str], list[str]]:
        """Of paths something read, those no listing holds: the ones that do not exist, and the ones that
        do (an ignored file), each sorted. A key that names the latter by their bytes may keep the result."""
        absent, present = [], []
        for path in paths:
            if not self.names(path):
                (present if os.path.lexists(os.path.join(self.root, path)) else absent).append(path)
        return sorted(absent), sorted(present)

    def still_absent(self, absent: Iterable[str]) -> bool:
        """Whether every path found absent is still absent (one created since, even an ignored one, is not)."""
        return still_absent(self.root, absent)


def still_absent(root: str, absent: Iterable[str]) -> bool:
    """Whether none of these repo-relative paths exists under `root` (as anything, even a dangling link)."""
    return not any(os.path.lexists(os.path.join(root, path)) for path in absent)


def name_tree(repo: Repository) -> TreeState | None:
    """The checkout's tree state as it is now; None outside git, or where naming it would read more than
    `MAX_UNCLEAN` files git does not vouch for."""
    if not repo.in_git:
        return None
    listed = repo.paths()
    clean = repo.blob_ids
    if sum(1 for path in listed if path not in clean) > MAX_UNCLEAN:
        return None  # naming the state would read more than most checks do
    digest = digests.sha1()  # a content id, not security
    unclean: dict[str, str] = {}
    for path in listed:
        content = clean.get(path)
        if content is None:
            content = unclean[path] = _content_id(repo, path)
        digest.update(f"{path}\0{content}\0".encode("utf-8", "surrogateescape"))
    kept = set(listed)
    held = _held(repo, kept)
    for path, standing in sorted(held.items()):
        digest.update(f"{path}\0-{standing}\0".encode("utf-8", "surrogateescape"))
    unkept = frozenset(clean.keys() - kept)  # tracked files under a skipped folder: named, so their folders are
    for path in sorted(unkept):
        digest.update(f"{path}\0={clean[path]}\0".encode("utf-8", "surrogateescape"))
    return TreeState(digest.hexdigest(), kept, str(repo.root), unclean, held, unkept)


_LINK = "link:"


def _standing(root: str, path: str) -> str:
    """What stands at a path the listing does not keep, as far as a state names it: a link's text or a
    folder; "" for anything else (absent, a file, unreadable), which a state does not hold."""
    full = os.path.join(root, path)
    try:
        if os.path.islink(full):
            return _LINK + os.readlink(full)
        return "folder" if os.path.isdir(full) else ""
    except (OSError, ValueError):
        return ""


def _held(repo: Repository, listed: set[str]) -> dict[str, str]:
    """The paths git does not vouch for that the listing does not keep and that stand as a link or a
    folder, with their `_standing`; {} where a listing command failed."""
    outputs = repo.listing_outputs()
    staged, modified, untracked = outputs
    if staged is None or modified is None or untracked is None:
        return {}
    root = str(repo.root)
    others = _split(untracked) | (repo.skip_worktree or set())
    found = {path: _standing(root, path) for path in _unvouched(staged, modified, others) if path not in listed}
    return {path: held for path, held in found.items() if held}


def listing_key(repo: Repository, tree: TreeState | None = None) -> list[str] | None:
    """The tree state named from git's raw listing (see the module's docstring), what a replayed report is
    keyed by: the id of each listing command's output (`output_id`) and of the paths git does not vouch
    for (`unvouched_id`). `tree` is the state named from this same listing (a full run storing its
    report). None where a listing command failed (outside a work tree, no git) or more than
    `MAX_UNCLEAN` files git does not vouch for are kept."""
    outputs = repo.listing_outputs()
    unvouched = unvouched_id(repo, outputs, tree)
    return None if unvouched is None else [*(output_id(out) for out in outputs if out is not None), unvouched]


def output_id(output: str) -> str:
    """The id of one listing command's raw output."""
    return digests.sha1(output.encode("utf-8", "surrogateescape")).hexdigest()  # a content id


def unvouched_id(repo: Repository, outputs: list[str | None], tree: TreeState | None = None) -> str | None:
    """The id of the paths of this listing that git does not vouch for (modified, untracked, marked
    skip-worktree — a sparse checkout's, which git never compares with the disk —, or no regular file in
    the index, such as a link, whose blob is not the bytes read through it): for each, whether
    the listing keeps it and the content id of its bytes, or, for one it does not keep, its `_standing`.
    With `tree` (named from this same listing) what it kept, the content ids and the standings it named
    are taken, not judged again. None where a listing command failed (or git could not say which entries
    are skip-worktree) or more than `MAX_UNCLEAN` such files are kept."""
    staged, modified, untracked = outputs
    skipped = repo.skip_worktree
    if staged is None or modified is None or untracked is None or skipped is None:
        return None
    digest = digests.sha1()  # a content id, not security
    kept = 0
    for path in sorted(_unvouched(staged, modified, _split(untracked) | skipped)):
        if tree is not None:  # ("+": a path whose blob id the state used, which this side never names: a miss)
            state = "-" + tree.held.get(path, "") if path not in tree.listed else tree.unclean.get(path, "+")
        elif not repo.keeps(path):
            state = "-" + _standing(str(repo.root), path)
        else:
            kept += 1
            if kept > MAX_UNCLEAN:
                return None
            state = _content_id(repo, path)
        digest.update(f"{path}\0{state}\0".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


_REGULAR = tuple(f"{mode} " for mode in sorted(REGULAR_MODES))  # how a regular file's index entry begins
_IRREGULAR = ("\x00120000 ", "\x00160000 ")  # how a link's and a submodule's entry begin, after the one before
# The path of a stage-0 index entry that is no regular file (a link, a submodule), in `git ls-files -s -z`.


def _unvouched(staged: str, modified: str, others: set[str]) -> set[str]:
    """The paths of the listing git does not vouch for as regular files with the index's content: the
    untracked ones, and the index's stage-0 entries that differ from it or are no regular file (a link,
    a submodule). Found in the index's raw listing by patterns; parsed (as the listing parses it) only
    while a merge leaves entries at other stages (parsing rolldown's 14,000 entries cost every replay
    10 ms)."""
    if not any(f" {stage}\t" in staged for stage in "123"):  # every entry at stage 0
        entries = staged.count("\0")
        regular = sum(staged.count("\0" + mode) for mode in _REGULAR) + staged.startswith(_REGULAR)
        return _split(modified) | others | (_irregular(staged) if regular != entries else set())
    index, changed = index_entries(staged, modified)
    listed = index or {}  # an unmerged path has no stage-0 entry: the listing does not hold it
    return {path for path in changed if path in listed} | others


def _irregular(staged: str) -> set[str]:
    """The paths of the index's entries that are links or submodules, found by their modes' text (no
    other mode is in an index: `_unvouched` counts the regular ones)."""
    found = set()
    for mode in _IRREGULAR:
        at = 0 if staged.startswith(mode[1:]) else staged.find(mode)
        while at >= 0:
            tab = staged.find("\t", at)
            end = staged.find("\0", tab)
            found.add(staged[tab + 1 : end])
            at = staged.find(mode, end)
    return found


def _split(out: str) -> set[str]:
    return set(out.split("\0")) - {""}


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
