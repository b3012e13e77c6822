"""Whether a checkout changed since a Verifier last looked: what keeps a long-lived Verifier true.

A snapshot holds the stat signature of every listed file and directory (and of
the directories no listed file lives in, where one could be created) and of
git's own state files (the index, HEAD and the ref it names, `info/exclude`);
a written `.gitignore` redoes the listing too. Comparing it with
the disk costs one stat per entry and reads nothing: a file whose signature is
unchanged is taken to hold the same bytes, as git takes it. A changed directory
means files were added, removed or renamed there, and a changed git state means
the index or HEAD moved: the listing is redone. A file written in the same
clock tick as the snapshot could change again unseen ("racy", as git calls it):
its content hash is kept and compared instead. No TTL, nothing assumed.

On Linux the snapshot watches every listed directory and git's directory with
inotify instead: the kernel queues an event with each write, rename or
deletion as it happens, so "nothing changed" is one non-blocking read of that
queue. The signatures are then not taken at all (only the listed files that
may be symlinks are looked at, to know what a write through a link changes):
should the queue overflow, every file counts as changed. A file created,
deleted or renamed in a watched directory is named as such (`Changes.came`):
the listing takes it in by itself (`Snapshot.patch`) instead of being redone,
unless a directory, git's state or an ignore file changed. Where inotify is not
available or out of watches, the stat pass runs at every look, and only then
are racy files hashed.

Watches and signatures go on before the listing looks: git's state before git
runs, the directories of the files git's index names (and those files'
signatures) before git says which of them were modified and which files are
untracked, each directory of a walk before it is scanned (`Repository.before_looking`).
A change made while the checkout was being listed is then queued, or differs
from its signature. What no watch covered then (a directory only untracked
files live in, or all of it when the listing was taken earlier) is judged by
its timestamps: changed within the racy window of the listing's start, it
counts as changed at the first look.
"""

from __future__ import annotations

import errno
import os
import stat
import struct
import sys
import time
import weakref
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from anchorcheck.repo.paths import directories_of

if TYPE_CHECKING:
    from anchorcheck.repo.checkout import Repository

Signature = tuple[int, int, int, int] | None  # mtime_ns, ctime_ns, size, inode; None when absent
_RACY_NS = 2_000_000_000  # timestamps this close to the snapshot may hide a later write (2 s: FAT's granularity)


def signature(path: str) -> Signature:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino


class Changes:
    """What changed: files whose bytes may differ, paths that may have come or gone (files created,
    deleted or renamed in a watched folder: the listing can take them in one by one), and whether the
    listing itself must be redone. A plain class, not a dataclass: nothing compares or copies it, and a
    dataclass's generated methods cost every check ~0.5 ms at import."""

    __slots__ = ("modified", "came", "relist")

    def __init__(self, modified: set[str] | None = None, relist: bool = False) -> None:
        self.modified = set() if modified is None else modified
        self.came: set[str] = set()
        self.relist = relist

    def __bool__(self) -> bool:
        return self.relist or bool(self.modified) or bool(self.came)


class Lookout:
    """The watches (or, without inotify, the signatures) a snapshot puts on before the listing looks:
    hooked into the checkout as `before_looking`, so that whatever the listing saw, a later change
    is queued or differs from its signature."""

    def __init__(self, repo: Repository) -> None:
        self.started = time.time_ns()
        self.root = str(repo.root)
        self.git_files = _git_state_files(repo.root)
        self.events = _Inotify.watching([*sorted({os.path.dirname(f) for f in self.git_files}), ""], self.root)
        self.files: dict[str, Signature] = {}
        self.directories: dict[str, Signature] = {}
        self.git = {} if self.events is not None else {path: signature(path) for path in self.git_files}
        self.lost = False  # out of watches midway: what was watched has no signature, judge it all by time
        self.look([""], ())
        repo.before_looking = self.look

    def look(self, directories: Iterable[str], files: Iterable[str]) -> None:
        """Watch these directories (repo-relative), or sign them and these files where there are no events."""
        if self.events is not None:
            if self.events.add(directories):
                return
            self.events = None
            self.lost = True
        if not self.lost:
            self.directories.update((d, signature(os.path.join(self.root, d) if d else self.root)) for d in directories)
            self.files.update((f, signature(os.path.join(self.root, f))) for f in files)


class Snapshot:
    """A repository's listed files and their directories, watched for changes (see the module's docstring)."""

    def __init__(self, repo: Repository, lookout: Lookout | None = None) -> None:
        """`lookout`: the one put on before the repository was listed (`Verifier` starts one early where
        the listing is fetched in the background); else one goes on now, before the listing is taken."""
        lookout = lookout if lookout is not None else Lookout(repo)
        self.root = str(repo.root)
        try:
            listed = repo.paths()
        finally:
            repo.before_looking = None
        since = repo.listed_at if repo.listed_at is not None else lookout.started
        watched_all = since >= lookout.started and not lookout.lost  # else the listing began before the lookout
        self.listed = set(listed)  # patched as files come and go (`patch`)
        directories = directories_of(listed)
        directories |= repo.unlisted_directories(directories)  # empty ones too: a file may be created there
        self.directories = frozenset(directories)
        self._events = lookout.events
        self.links: dict[str, set[str]] = {}  # a listed symlink -> the repo-relative links and file it goes through
        # The signatures the stat pass compares with: none while events say what changed.
        self.files: dict[str, Signature] = {}
        self._directories: dict[str, Signature] = {}
        self.git: dict[str, Signature] = {}
        self.racy: dict[str, str | None] = {}
        # What may have changed while the listing was taken, unwatched: reported by the first `changes()`.
        self._pending = Changes()
        if self._events is not None:
            late = sorted(directories - self._events.watched if watched_all else directories)
            plain = repo.plain
            for path in listed:
                if path not in plain:
                    self._sign(path)
            # A link's file may live where no listed file does (a skipped directory): its writes are events too.
            if self._events.add(late) and self._events.add({hop.rpartition("/")[0] for hops in self.links.values() for hop in hops}):
                self._pending.relist = any(_recent(signature(self._full(d)), since) for d in late)
                if not watched_all:
                    self._pending.relist |= any(_recent(signature(path), since) for path in lookout.git_files)
                    written = {path for path in repo.blob_ids if path in self.listed and _recent(signature(self._full(path)), since)}
                    self._pending.modified = self._unlike_git(repo, {path: _digest(self._full(path)) for path in written})
                return
            self._events = None  # out of watches: the stat pass, everything judged by time
            watched_all = False
        signed = lookout.files if watched_all else {}
        for path in listed:
            sig = self._sign(path) if path not in signed or path not in repo.plain else None  # _sign notes links
            self.files[path] = signed[path] if path in signed else sig
        known = lookout.directories if watched_all else {}
        self._directories = {d: known[d] if d in known else signature(self._full(d)) for d in directories}
        self.git = lookout.git if watched_all else {path: signature(path) for path in lookout.git_files}
        late = [self._directories[d] for d in directories if d not in known] + ([] if watched_all else list(self.git.values()))
        self._pending.relist = any(_recent(sig, since) for sig in late)
        # A file written in the clock tick of this snapshot could change unseen; one git vouches for is
        # compared with git's blob now, should it have changed since git looked.
        self.racy = {path: _digest(self._full(path)) for path, sig in self.files.items() if _recent(sig, since)}
        self._pending.modified = self._unlike_git(repo, self.racy)

    @staticmethod
    def _unlike_git(repo: Repository, digests: dict[str, str | None]) -> set[str]:
        """Of files written close to the listing, those whose bytes now are not the blob git vouched for."""
        vouched = repo.blob_ids
        return {path for path, blob in digests.items() if path in vouched and blob != vouched[path]}

    def _full(self, path: str) -> str:
        return os.path.join(self.root, path) if path else self.root

    def _sign(self, path: str) -> Signature:
        """A listed file's signature (of what a symlink names: what a read gets), noting symlinks: an
        event names the file written, and a write through a link changes the link's bytes too."""
        full = self._full(path)
        try:
            info = os.lstat(full)
            if stat.S_ISLNK(info.st_mode):
                info = os.stat(full)
                self.links[path] = self._hops(full)
        except OSError:
            return None
        return info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino

    def _hops(self, full: str) -> set[str]:
        """The repo-relative links a symlink goes through and the file it ends at: a write to any of
        them (a link in the chain replaced by a file) changes what a read of the symlink gets."""
        hops = [os.path.realpath(full)]
        for _ in range(40):  # the kernel's own limit on links followed
            try:
                full = os.path.normpath(os.path.join(os.path.dirname(full), os.readlink(full)))
            except OSError:
                break
            hops.append(full)
        below = self.root + os.sep
        return {hop[len(below) :].replace(os.sep, "/") for hop in hops if hop.startswith(below)}

    def covers(self, path: str) -> bool:
        """Whether a change at this repo-relative path would be seen: a listed file or directory, or a
        path that does not exist below a watched directory (creating it changes that directory)."""
        path = "" if path == "." else path
        if path in self.listed or path in self.directories:
            return True
        if os.path.lexists(self._full(path)):
            return False  # there, but no listing holds it (ignored, or below a skipped directory)
        while "/" in path:
            path = path.rsplit("/", 1)[0]
            if path in self.directories:
                return True
            if os.path.lexists(self._full(path)):
                return False
        return True  # the root is watched

    def uncovered(self, paths: set[str]) -> set[str]:
        """Those of `paths` a change of which would not be seen: set differences first, since a
        search's answer read every candidate (thousands of listed paths) and most are listed."""
        return {path for path in paths - self.listed - self.directories if not self.covers(path)}

    def changes(self) -> Changes:
        """What differs on disk now; empty when nothing does. Files seen modified are taken in (the
        snapshot stays valid); after a change that needs a new listing, take a new snapshot."""
        found, self._pending = self._pending, Changes()
        if self._events is not None:
            happened = self._events.happened()
            if happened is None:  # the queue overflowed: no signature to compare with, so everything
                return Changes(set(self.listed), relist=True)
            written, came, relist = happened
            found.relist |= relist
            found.came |= came
            touched = written | {link for link, hops in self.links.items() if not hops.isdisjoint(written)}
            swapped = touched & self.directories  # a directory replaced or renamed: each file listed below it
            if swapped:
                touched |= {path for path in self.listed if any(path.startswith(f"{d}/") for d in swapped)}
            found.modified |= touched & self.listed
            # A file an event names was written in place (one deleted or renamed is in `came`: its entry
            # event is in the same read); a link to it, or a file below a folder replaced, may be gone.
            found.relist |= _ignores(touched) or any(signature(self._full(path)) is None for path in found.modified - found.came - written)
            return found
        if any(signature(path) != sig for path, sig in self.git.items()) or any(
            signature(self._full(d)) != sig for d, sig in self._directories.items()
        ):
            found.relist = True
        recent = time.time_ns() - _RACY_NS
        for path, sig in list(self.files.items()):
            now = signature(self._full(path))
            if now != sig:
                found.modified.add(path)
                found.relist |= now is None
            elif path not in self.racy or _digest(self._full(path)) == self.racy[path]:
                continue
            found.modified.add(path)
            self.files[path] = now  # taken in: the next call compares with what is there now
            self.racy.pop(path, None)
            if now is not None and now[0] >= recent:
                self.racy[path] = _digest(self._full(path))
        found.relist |= _ignores(found.modified)
        return found

    def keep(self, changes: Changes) -> None:
        """Report these changes again at the next `changes()`: the caller could not take them in yet."""
        self._pending.modified |= changes.modified
        self._pending.came |= changes.came
        self._pending.relist |= changes.relist

    def patch(self, added: set[str], removed: set[str]) -> bool:
        """Files the listing took in one by one (`Listing.patch`): listed, or no longer. Only where events
        say what changes (the stat pass compares each folder's signature, which these changed) and each
        added file is a regular one in a watched folder; False where a new snapshot must be taken."""
        if self._events is None or any(path.rpartition("/")[0] not in self._events.watched for path in added):
            return False
        self.listed |= added
        self.listed -= removed
        for path in removed:
            self.links.pop(path, None)
        return True

    def changed_since(self, old: Snapshot) -> set[str]:
        """The files of both snapshots that changed between `old`'s last look and this one's watch:
        `old`'s events until now (its watches are still on), or the signatures compared."""
        if old._events is not None:
            return old.changes().modified & self.listed
        return {path for path, sig in old.files.items() if path in self.listed and signature(self._full(path)) != sig}


class _Inotify:
    """Linux's inotify through libc: which paths under the watched directories were written, and
    whether any was created, removed or renamed (then the listing must be redone)."""

    _WRITES = 0x2 | 0x4 | 0x8  # modify, attrib, close-write
    _ENTRIES = 0x40 | 0x80 | 0x100 | 0x200  # moved from/to, create, delete: an entry of the folder came or went
    _SELF = 0x400 | 0x800  # delete-self, move-self: the folder itself went
    _MOVES = _ENTRIES | _SELF
    _OVERFLOW, _IGNORED, _ISDIR = 0x4000, 0x8000, 0x40000000

    def __init__(self, fd: int, root: str, libc: object, errno_now: Callable[[], int]) -> None:
        self.fd = fd
        self.root = root
        self.directories: dict[int, str] = {}  # watch descriptor -> directory (repo-relative, or absolute outside)
        self.watched: set[str] = set()
        self._libc = libc
        self._errno = errno_now
        import fcntl  # Linux's, as inotify is
        import termios

        self._ioctl, self._fionread = fcntl.ioctl, termios.FIONREAD
        self._waiting = bytearray(4)  # how many bytes of events are queued (FIONREAD)
        self._closer = weakref.finalize(self, os.close, fd)

    @classmethod
    def watching(cls, directories: list[str], root: str) -> _Inotify | None:
        """The events of these directories (repo-relative, or absolute for git's); None where inotify
        is missing or out of watches: then every `changes()` stats every entry instead."""
        if not sys.platform.startswith("linux"):
            return None
        try:
            import ctypes  # only where there is inotify to ask for

            libc = ctypes.CDLL(None, use_errno=True)
            fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        except (OSError, AttributeError):
            return None
        if fd < 0:
            return None
        events = cls(fd, root, libc, ctypes.get_errno)
        return events if events.add(directories) else None

    def add(self, directories: Iterable[str]) -> bool:
        """Watch these directories too (those not watched yet); False, and closed, when out of watches."""
        # Thousands per listing, ahead of git's look at the files: the loop is kept lean.
        add_watch, fd, mask, watched = self._libc.inotify_add_watch, self.fd, self._WRITES | self._MOVES, self.watched  # type: ignore[attr-defined]
        below, root = os.path.join(self.root, ""), os.fsencode(self.root)
        for directory in directories:
            if directory in watched:
                continue
            full = os.fsencode(directory if os.path.isabs(directory) else below + directory) if directory else root
            wd = add_watch(fd, full, mask)
            if wd < 0 and self._errno() in (errno.ENOENT, errno.ENOTDIR):
                continue  # gone (a tracked directory deleted): its parent's events say when it comes back
            if wd < 0:
                self._closer()
                return False
            self.directories[wd] = directory
            watched.add(directory)
        return True

    def happened(self) -> tuple[set[str], set[str], bool] | None:
        """The repo-relative paths written since the last call, those of them that came or went (a file
        created, deleted or renamed), and whether the listing must be redone (git's state moved, a
        folder came, went or was renamed); None when the queue overflowed or cannot be read (then stat
        everything)."""
        touched: set[str] = set()
        came: set[str] = set()
        relist = False
        try:
            # What is queued now, in one read: every write that ended before this call is there (the kernel
            # queues an event as the write returns); one that comes while this reads is seen by the next
            # call. Asked first, not read until an empty queue raises: an exception costs a syscall's time.
            self._ioctl(self.fd, self._fionread, self._waiting)
            waiting = int.from_bytes(self._waiting, sys.byteorder)
            chunk = os.read(self.fd, waiting) if waiting else b""
        except BlockingIOError:
            chunk = b""
        except OSError:
            return None
        at = 0
        while at + 16 <= len(chunk):
            wd, mask, _cookie, size = struct.unpack_from("iIII", chunk, at)
            name = chunk[at + 16 : at + 16 + size].rstrip(b"\0").decode("utf-8", "surrogateescape")
            at += 16 + size
            if mask & self._OVERFLOW:
                return None
            directory = self.directories.get(wd)
            outside = directory is None or os.path.isabs(directory)
            if outside or mask & (self._SELF | self._IGNORED) or (mask & self._ENTRIES and (mask & self._ISDIR or not name)):
                relist = True  # git's state moved, or a folder came, went or was renamed
            if name and not outside:
                # Written, or replaced under the same name (an atomic save renames a new file over it,
                # a checkout deletes and writes it): listed again as before, its bytes are new all the same.
                path = f"{directory}/{name}" if directory else name
                touched.add(path)
                if mask & self._ENTRIES:
                    came.add(path)
        return touched, came, relist


def _ignores(paths: Iterable[str]) -> bool:
    """Whether one of these is a `.gitignore`: written, it says which files exist for the listing."""
    return any(path == ".gitignore" or path.endswith("/.gitignore") for path in paths)


def _recent(sig: Signature, since: int) -> bool:
    """Modified or changed so close to `since` (or after) that a write then may not be told apart."""
    return sig is not None and max(sig[0], sig[1]) >= since - _RACY_NS


def _digest(path: str) -> str | None:
    """The file's git blob id (what git's index names a tracked file's bytes by); None when unreadable."""
    from anchorcheck.evidence.cache import git_blob_id  # only the stat pass hashes, and only files written lately

    try:
        with open(path, "rb") as handle:
            return git_blob_id(handle.read())
    except OSError:
        return None


def _git_state_files(root: Path) -> list[str]:
    """git's index, HEAD, the ref HEAD names (loose and packed) and `info/exclude`, found without running git."""
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
        files.append(common / "info" / "exclude")  # ignores files as a .gitignore does
        return [str(f) for f in files]
    return []
