"""Where a rule file applies: the globs of its front matter (`applyTo`, `globs:`, `paths:`) against this checkout.

A Copilot or Cursor rule for `src/legacy/**` says nothing about a repository without such files; its folders are
where its paths are read first; and a folder its globs start with that history shows deleted makes the rule stale
with it (its paths are then read, so history can say where they went).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from anchorcheck.base.globs import gitignore
from anchorcheck.evidence.history import History
from anchorcheck.memory.probes import exists, is_dir
from anchorcheck.repo.checkout import Repository


def applies(globs: Sequence[str], repo: Repository) -> bool:
    """Whether an `applyTo` (gitignore-style globs, as lenient as Copilot's: `*.py` at any depth) matches a
    listed file: instructions for files this repository does not have say nothing about it. A glob that
    does not compile matches nothing, as it would for Copilot."""
    try:
        spec = gitignore(globs)
    except (ValueError, re.error):
        return False
    return any(spec.match_file(path) for path in repo.paths())


def scope_folders(globs: Sequence[str], repo: Repository) -> tuple[str, ...]:
    """The folders an `applyTo` names, most specific first: the literal folders each glob starts with
    (`web/src/**/*.tsx`: web/src, then web), those that exist here."""
    found: list[str] = []
    for glob in globs:
        literal = _folder_parts(glob)
        for end in range(len(literal), 0, -1):
            folder = "/".join(literal[:end])
            if folder not in found and is_dir(repo, folder):
                found.append(folder)
    return tuple(found)


def gone_scopes(globs: Sequence[str], repo: Repository, history: History | None) -> tuple[str, ...]:
    """The folders globs that match nothing here start with (`src/legacy/**`: src/legacy) that history shows were here
    and went: the file's instructions were about this repository, and went stale with them (its paths are read, so
    history can say where they went). Empty when none was (a template's `**/*.java`, another project's `app/`)."""
    if history is None:
        return ()
    found: list[str] = []
    for glob in globs:
        folder = "/".join(_folder_parts(glob))
        if folder and folder not in found and not exists(repo, folder) and (fate := history.fate(folder)) is not None and fate.existed:
            found.append(folder)
    return tuple(found)


def missing_glob_folder(glob: str, repo: Repository) -> str:
    """The path a glob names before its first wildcard (`legacy/` of `legacy/**/*.py`; the glob itself when it
    holds none) when nothing is there now; "" when something is, or the glob starts with a wildcard (`**/*.java`)."""
    parts = glob.strip().removeprefix("./").split("/")
    literal = _until_wild(parts)
    if len(literal) == len(parts) and not glob.endswith("/"):
        path = "/".join(literal)
    else:
        literal = literal if len(literal) < len(parts) else literal[:-1]
        path = "/".join(literal) + "/" if literal else ""
    return "" if not path or exists(repo, path.rstrip("/")) else path


def _folder_parts(glob: str) -> list[str]:
    """The literal folders a glob starts with (`web/src/**/*.tsx`: web, src; `docs/`: docs)."""
    parts = glob.strip("/").split("/")
    return _until_wild(parts if glob.endswith("/") else parts[:-1])


def _until_wild(parts: list[str]) -> list[str]:
    """The leading segments of a glob that hold no wildcard."""
    literal = []
    for part in parts:
        if set("*?[{") & set(part) or part in ("", ".", ".."):
            break
        literal.append(part)
    return literal
