"""Whether a path is there, asked safely: a path the Repository refuses (one that leaves the checkout) is not.

The readers of memory files ask this of every reading of every path they find; a refused path is an answer
(nothing of this repository is there), never an error.
"""

from __future__ import annotations

from anchorcheck.repo.checkout import Repository
from anchorcheck.repo.paths import UnsafePathError


def exists(repo: Repository, path: str | None) -> bool:
    """A file or folder inside the repository (a link to neither, a refused path or no path at all is not)."""
    if path is None:
        return False
    try:
        return repo.exists(path) and (repo.is_file(path) or repo.is_dir(path))
    except UnsafePathError:
        return False


def is_file(repo: Repository, path: str) -> bool:
    """A file inside the repository (a refused path is no file)."""
    try:
        return repo.is_file(path)
    except UnsafePathError:
        return False


def is_dir(repo: Repository, path: str) -> bool:
    """A folder inside the repository (a refused path is none)."""
    try:
        return repo.is_dir(path)
    except UnsafePathError:
        return False
