"""Where anchorcheck keeps what it stores between runs (the facts cache, replayed reports, servers' sockets),
and which of what it finds there it trusts.

What is stored outside the checkout changes what a later run prints (a replayed report is printed as it
was stored), so only a folder or file that is this user's own is used: owned by this user, not a link,
and no other user may write it (a server's folder: not even enter it). One that is not is left alone,
with one warning naming it. The cache never falls back into the checkout (whose committed links would
lead writes anywhere): where the user's cache folder cannot be used, a private folder of the system's
temporary folder is, and where that one is not ours either, nothing is cached.
"""

from __future__ import annotations

import os
import stat
import sys

TYPE_CHECKING = False  # not `typing`'s: a check answered by a server imports this and little else
if TYPE_CHECKING:
    from pathlib import Path

CACHE_ENV = "ANCHORCHECK_CACHE_DIR"
_OTHERS_WRITE = 0o022  # group or others may write: they could replace what is in it
_OTHERS_ANY = 0o077  # group or others may enter: a server's socket folder must allow neither
_warned: set[str] = set()


def default_cache_dir() -> Path | None:
    """`cache_folder` as a Path."""
    from pathlib import Path

    folder = cache_folder()
    return None if folder is None else Path(folder)


def cache_folder() -> str | None:
    """ANCHORCHECK_CACHE_DIR, else the user's cache folder, else a private folder of the temporary folder:
    the first that exists or can be made and is this user's own (`distrust`); None when none is."""
    for candidate in (_named_folder(), _private_temporary()):
        if candidate is not None and usable_folder(candidate, make=True):
            return candidate
    return None


def _named_folder() -> str | None:
    """The folder the environment names: ANCHORCHECK_CACHE_DIR, else `anchorcheck` in the platform's user cache."""
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return explicit
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA")
    elif sys.platform == "darwin":
        base = os.path.join(os.path.expanduser("~"), "Library", "Caches")
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "anchorcheck") if base else None


def temporary_base() -> str:
    """The system's temporary folder, found as `tempfile` does without importing it where there is a /tmp:
    `tempfile` imports `shutil` (and bz2 and lzma) into every `check`'s start-up. What is made in it is
    made private (0700) and checked before use by the caller."""
    base = next((os.environ[name] for name in ("TMPDIR", "TEMP", "TMP") if os.environ.get(name)), None)
    if base is not None:
        return base
    if os.name != "posix":
        import tempfile  # noqa: PLC0415 - only where there is no /tmp

        return tempfile.gettempdir()
    return "/tmp"  # noqa: S108 - callers make their folders private and check them


def _private_temporary() -> str | None:
    """`anchorcheck-<uid>` in the system's temporary folder: one name per user, so runs share it, made 0700;
    one someone else made first fails `distrust` and is not used."""
    owner = os.getuid() if hasattr(os, "getuid") else os.getpid()
    return os.path.join(temporary_base(), f"anchorcheck-{owner}")


def usable_folder(path: str, *, make: bool = False, private: bool = False) -> bool:
    """Whether `path` is a folder anchorcheck may keep things in (made 0700 first with `make`); when it is
    there and not, one warning says why (`warn`)."""
    if make:
        try:
            os.makedirs(path, mode=0o700, exist_ok=True)
        except OSError:
            return False  # cannot be made (a read-only or bogus place): nothing there to warn about
    try:
        info = os.lstat(path)
    except OSError:
        return False
    why = distrust(info, folder=True, private=private)
    if why is not None:
        warn(path, why)
    return why is None


def usable_file(path: str) -> bool:
    """Whether `path` is absent, or a regular file anchorcheck may read and replace (one warning when not)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    why = distrust(info)
    if why is not None:
        warn(path, why)
    return why is None


def distrust(info: os.stat_result, *, folder: bool = False, private: bool = False) -> str | None:
    """Why what `info` (an lstat) describes is not this user's own to use; None when it is."""
    if stat.S_ISLNK(info.st_mode):
        return "is a symbolic link"
    if folder != stat.S_ISDIR(info.st_mode) or not (folder or stat.S_ISREG(info.st_mode)):
        return "is not a folder" if folder else "is not a regular file"
    if not hasattr(os, "getuid"):
        return None  # no Unix owners and modes to look at (Windows)
    if info.st_uid != os.getuid():
        return f"is owned by another user (uid {info.st_uid})"
    if info.st_mode & (_OTHERS_ANY if private else _OTHERS_WRITE):
        return f"may be {'entered' if private else 'written'} by other users (mode {stat.S_IMODE(info.st_mode):04o})"
    return None


def warn(path: str, why: str) -> None:
    """One line on stderr, once per process for each place: what is not used, and why."""
    if path in _warned:
        return
    _warned.add(path)
    print(f"anchorcheck: warning: {path} {why}: not used", file=sys.stderr)
