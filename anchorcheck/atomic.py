"""Writing files back without ever leaving a half-written one.

The new content goes to a temporary file in the same directory, is flushed
to disk, and replaces the original with one rename; the original's
permission bits are kept. A crash leaves either the old file or the new one.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


def write_atomic(path: str | os.PathLike[str], data: str | bytes, encoding: str = "utf-8") -> None:
    target = Path(path)
    payload = data.encode(encoding) if isinstance(data, str) else data
    try:
        mode: int | None = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
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
