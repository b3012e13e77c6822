"""Writing files back without ever leaving a half-written one.

The new content goes to a temporary file in the same directory, is flushed
to disk, and replaces the original with one rename; the original's
permission bits are kept, and a new file gets the ones the umask allows, as
any editor would create it. A crash leaves either the old file or the new
one; a kill (SIGKILL, a power cut) can leave the temporary file behind, so
each write first removes the temporaries of its target whose writer is no
longer running. A temporary is named `.NAME.anchorcheck-PID-RANDOM.tmp` for that (RANDOM: 12 hex
digits), and nothing else is ever removed: a committed `.AGENTS.md.notes.tmp` is somebody's file.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

_MARK = "anchorcheck"
_OURS = re.compile(rf"\.(?P<name>.+)\.{_MARK}-(?P<pid>[0-9]{{1,10}})-[0-9a-f]{{12}}\.tmp", re.DOTALL)
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)


def write_atomic(path: str | os.PathLike[str], data: str | bytes, encoding: str = "utf-8") -> None:
    target = Path(path)
    payload = data.encode(encoding) if isinstance(data, str) else data
    try:
        mode: int | None = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
    remove_stale_temporaries(target)
    fd, tmp = _create_temporary(target)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _create_temporary(target: Path) -> tuple[int, str]:
    """A new file beside the target, created 0o666 so that the umask decides its mode."""
    while True:
        tmp = os.path.join(target.parent, f".{target.name}.{_MARK}-{os.getpid()}-{os.urandom(6).hex()}.tmp")  # what secrets.token_hex does, without importing random, hmac and base64
        try:
            return os.open(tmp, _CREATE, 0o666), tmp
        except FileExistsError:
            continue


def remove_stale_temporaries(target: Path) -> None:
    """Delete the temporaries a killed write of `target` left behind: files named as `_create_temporary`
    names them, whose writer (the PID in the name) no longer runs. One whose writer still runs is
    another write in progress; a name of any other shape is not ours to remove."""
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return
    for entry in entries:
        ours = _OURS.fullmatch(entry.name)
        if ours is None or ours.group("name") != target.name or _running(int(ours.group("pid"))):
            continue
        try:
            if entry.is_file(follow_symlinks=False):
                os.unlink(entry.path)
        except OSError:
            continue


def _running(pid: int) -> bool:
    if pid == os.getpid() or os.name == "nt":  # on Windows os.kill would end the process, not ask about it
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True  # another user's process (or a number we cannot ask about): leave its file alone
    return True
