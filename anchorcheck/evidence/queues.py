"""Folders a workflow consumes: where files are made, then deleted by the batch, over and over.

News-fragment folders are the common case (towncrier's `changelog/`, scriv's `changelog.d/`, changesets'
`.changeset/`): each change adds a small file, and each release deletes all of them at once while compiling
the changelog. A skill that shows `changelog/3519.added.md` as the file to write names a path that existed
and is gone, yet was never a lasting claim: its absence is one phase of the workflow, as a file deleted more
than once is (`Fate.recurring`). History tells such a folder without knowing the tool: many commits each
deleted several of its files, and it holds few now compared with all it lost. A folder reorganised once or
twice (`docs/`) is not one, and neither is a file moved or deleted alone: those stay stale.
"""

from __future__ import annotations

import posixpath

from anchorcheck.repo.checkout import Repository
from anchorcheck.repo.context import Context

MAX_COMMITS = 500  # deleting commits read, newest first
MIN_BATCHES = 3  # commits that each deleted at least two of the folder's own files
MIN_TURNOVER = 4  # files it lost for each file it holds now


def consumed(context: Context, path: str) -> int | None:
    """How many batch deletions emptied the folder holding `path`, when that folder is consumed so (see the
    module), else None. Asked once per folder and run; a git answer read from HEAD's history alone."""
    folder = posixpath.dirname(path.rstrip("/"))
    if not folder:
        return None
    return context.memo(("anchorcheck.queue", folder), lambda: _consumed(context.repo, folder))


def _consumed(repo: Repository, folder: str) -> int | None:
    with repo.keyed_by_head():
        out = repo.git("log", "-z", "--diff-filter=D", "--name-only", "--no-renames", "--relative", "--format=%x01", f"-n{MAX_COMMITS}",
                       operands=["HEAD"], paths=[f":(literal){folder}/"])
    if not out:
        return None
    batches = lost = 0
    for commit in out.split("\x01")[1:]:
        own = [name for name in commit.strip("\n\x00").split("\x00") if posixpath.dirname(name) == folder]
        lost += len(own)
        batches += len(own) >= 2
    held = sum(1 for p in repo.paths(folder) if posixpath.dirname(p) == folder)
    return batches if batches >= MIN_BATCHES and lost >= MIN_TURNOVER * max(held, 1) else None
