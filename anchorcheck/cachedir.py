"""Where anchorcheck keeps what it stores between runs (the facts cache, replayed reports)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

CACHE_ENV = "ANCHORCHECK_CACHE_DIR"


def default_cache_dir(root: Path) -> Path:
    """ANCHORCHECK_CACHE_DIR, else the user's cache directory, else `<root>/.anchorcheck/`."""
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return Path(explicit)
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA")
    elif sys.platform == "darwin":
        base = str(Path.home() / "Library" / "Caches")
    else:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    if base:
        candidate = Path(base) / "anchorcheck"
        try:
            candidate.mkdir(parents=True, exist_ok=True)
            if os.access(candidate, os.W_OK):
                return candidate
        except OSError:
            pass
    return root / ".anchorcheck"
