"""Where anchorcheck keeps what it stores between runs (the facts cache, replayed reports, servers' sockets)."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not `typing`'s: a check answered by a server imports this and little else
if TYPE_CHECKING:
    from pathlib import Path

CACHE_ENV = "ANCHORCHECK_CACHE_DIR"


def default_cache_dir(root: Path) -> Path:
    """ANCHORCHECK_CACHE_DIR, else the user's cache directory, else `<root>/.anchorcheck/`."""
    from pathlib import Path

    return Path(cache_folder(os.fspath(root)))


def cache_folder(root: str) -> str:
    """`default_cache_dir` in `os.path` terms (no pathlib to import, `anchorcheck.serve.checkclient`)."""
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return explicit
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA")
    elif sys.platform == "darwin":
        base = os.path.join(os.path.expanduser("~"), "Library", "Caches")
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if base:
        candidate = os.path.join(base, "anchorcheck")
        try:
            os.makedirs(candidate, exist_ok=True)
            if os.access(candidate, os.W_OK):
                return candidate
        except OSError:
            pass
    return os.path.join(root, ".anchorcheck")
