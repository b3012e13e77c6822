"""Reading files a repository supplies: regular files only, never blocking, never unbounded, never outside.

A checkout nobody vetted may hold a FIFO named `pyproject.toml` (a plain
`open()` waits for a writer forever), a symlink to `/dev/zero` named like a
lock (a plain `read()` never ends), or a symlink from `AGENTS.md` to a file
outside the repository. Every file anchorcheck reads is opened here:
without blocking, checked to be a regular file on the open descriptor (no
race between a check and the open), read up to a cap that a growing file
cannot pass either, and, when a root is given, only when it resolves inside
that root.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

TYPE_CHECKING = False  # not `typing`'s: importing it costs a replayed `check` 4-7 ms (anchorcheck.serve.replay)
if TYPE_CHECKING:
    from typing import BinaryIO

# The caps, per kind of file: far above any real one, far below what would stall a check.
CONFIG_CAP = 4 * 1024 * 1024  # pyproject.toml, .anchorcheck.toml
LOCK_CAP = 16 * 1024 * 1024  # anchorcheck.lock
MEMORY_CAP = 16 * 1024 * 1024  # memory files: notes, not data
IGNORE_CAP = 4 * 1024 * 1024  # a .gitignore read without git

_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
NOFOLLOW: int = getattr(os, "O_NOFOLLOW", 0)  # 0 where an open cannot refuse a link (Windows)


class NotRegularFileError(OSError):
    """A FIFO, device, socket or directory where a file was expected: never read."""

    def __init__(self, path: str | os.PathLike[str], what: str) -> None:
        super().__init__(f"{os.fspath(path)}: not a regular file ({what})")
        self.strerror = f"not a regular file ({what})"


class FileTooLargeError(OSError):
    """A file over the size cap: not read, so a huge file never stalls a check."""

    def __init__(self, path: str, size: int, cap: int) -> None:
        self.path, self.size, self.cap = path, size, cap
        super().__init__(f"{path}: {size} bytes is over the {cap}-byte cap")
        self.strerror = f"{size} bytes is over the {cap}-byte cap"


class OutsideRootError(OSError):
    """A path that resolves outside the repository (through a symlink): refused like an anchor's path."""

    def __init__(self, path: str | os.PathLike[str], root: Path) -> None:
        super().__init__(f"{os.fspath(path)}: resolves outside the repository {root} (symlink)")
        self.strerror = f"resolves outside the repository {root} (symlink)"


def open_regular(path: str | os.PathLike[str], *, follow: bool = True) -> BinaryIO:
    """Open a regular file for reading without ever blocking; NotRegularFileError for anything else.
    Without `follow`, a symlink as the last component is refused (OSError ELOOP) where the platform
    can say so (`NOFOLLOW`)."""
    fd, _ = _open_regular_fd(path, follow)
    try:
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _open_regular_fd(path: str | os.PathLike[str], follow: bool) -> tuple[int, int]:
    """`open_regular`'s descriptor, and the file's size when opened."""
    fd = os.open(path, _FLAGS if follow else _FLAGS | NOFOLLOW)
    try:
        status = os.fstat(fd)
        if stat.S_ISDIR(status.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
        if not stat.S_ISREG(status.st_mode):
            raise NotRegularFileError(path, _kind(status.st_mode))
        return fd, status.st_size
    except BaseException:
        os.close(fd)
        raise


def read_capped(path: str | os.PathLike[str], cap: int, *, amount: int = -1, shown: str | None = None, follow: bool = True) -> bytes:
    """Up to `amount` bytes (all by default) of a regular file; FileTooLargeError past `cap` (0: no cap).

    The size is checked before reading and the read itself stops one byte
    past the cap, so a file that grows meanwhile (or a /proc file that
    reports size 0) cannot make it unbounded.
    """
    name = shown if shown is not None else os.fspath(path)
    fd, size = _open_regular_fd(path, follow)
    try:
        if cap and size > cap:
            raise FileTooLargeError(name, size, cap)
        limit = (cap + 1 if amount < 0 else min(amount, cap + 1)) if cap else (None if amount < 0 else amount)
        data = _read_fd(fd, size, limit)
    finally:
        os.close(fd)
    if cap and len(data) > cap:
        raise FileTooLargeError(name, len(data), cap)
    return data


def _read_fd(fd: int, size: int, limit: int | None) -> bytes:
    """Up to `limit` bytes (None: all) from a descriptor, until the end of the file. The first read asks
    for the size the file had when opened and one byte more, so a file that did not change is read in one
    call: the bytes it said it holds, and no more to be had, are its end (a read one call later could
    only see a write that came after this one). One that grew or lied about its size (a /proc file says
    0, a sysfs one 4096) is read on in chunks until a read comes back empty. Straight `os.read` calls: a
    buffered reader asked for `limit` bytes sets that many aside first (2 MB per file for the index's
    cap), which made reading a tree twice as slow."""
    chunks: list[bytes] = []
    total = 0
    want = size + 1
    while limit is None or total < limit:
        chunk = os.read(fd, want if limit is None else min(want, limit - total))
        if not chunk:
            break
        if not chunks and size and len(chunk) == size:
            return chunk
        chunks.append(chunk)
        total += len(chunk)
        want = _READ_CHUNK
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


_READ_CHUNK = 1 << 16  # bytes per read past the size a file had when opened


def confine(root: str | os.PathLike[str], path: str | os.PathLike[str]) -> Path:
    """Where `path` really is; OutsideRootError when it sits in the repository but a symlink takes it out.

    A file named outside the repository (a memory file kept elsewhere and
    given on the command line) is the caller's choice and is not refused;
    what lies in the checkout is held to the same confinement as an anchor.
    """
    real_root = Path(root).resolve()
    real = _resolve(path)
    if real == real_root or real_root in real.parents:
        return real
    if any(_resolve(above) == real_root for above in Path(os.path.abspath(path)).parents):
        raise OutsideRootError(path, real_root)
    return real


def read_in_root(root: str | os.PathLike[str], path: str | os.PathLike[str], cap: int, *, shown: str | None = None) -> bytes:
    """A file of the repository at `root` (its config, its lock, a memory file), confined and capped."""
    return read_capped(confine(root, path), cap, shown=shown)


def _resolve(path: str | os.PathLike[str]) -> Path:
    try:
        return Path(path).resolve()
    except (OSError, RuntimeError) as exc:
        raise OSError(f"{os.fspath(path)}: cannot resolve ({exc.__class__.__name__}: symlink loop?)") from None


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a file"
