"""A `cd` into a folder written from outside the repository: where the commands after it run.

`cd ~/projects/dragonfly/tools/local/monitoring`, `cd /home/u/src/app/web`,
`cd $HOME/src/app/web`, `cd "$REPO_ROOT"/web`, `cd $(git rev-parse
--show-toplevel)/web`, and the same inside `ssh HOST 'cd … && CMD'` (a remote
shell starts in the user's home): the folder is written from where the
checkout happens to be, which the text does not say. Its trailing parts say
where in the repository it is, when one of them is a folder here
(`tools/local/monitoring`): `folder_tails` gives them, longest first, for the
checker to pick the longest that is here. When none is, where the commands run
is unknown: they are still read, but nothing may be REFUTED for being run in
the wrong folder (`anchorcheck.verify.unheld.unknown_folder`). Only git's own
`--show-toplevel` is known to be the root: after it, the rest is the folder.
"""

from __future__ import annotations

import posixpath
import re

from anchorcheck.base.lazyregex import later

__all__ = ["entered_outside", "folder_tails", "is_outside"]

TOPLEVEL = "$(git rev-parse --show-toplevel)"
MAX_TAILS = 32  # trailing parts a folder may be: deeper than any checkout's folders, and a crafted `cd` of 20,000 parts
# would otherwise make 20,000 tails of up to 20,000 parts each, asked of the tree for every command after it
# `cd FOLDER`, alone or followed by `&&` or `;` and the rest of the line: FOLDER quoted in part or whole, or git's
# root, or one word.
_CD = later(r"\s*cd\s+((?:\"[^\"]*\"|'[^']*'|\$\(git rev-parse --show-toplevel\)|[^\s;&|()'\"])+)\s*(?:$|(?:&&|;)\s*)")
# `ssh [OPTIONS] HOST 'cd …'` (or double quotes): the remote command, whole on the line.
_SSH = later(r"\s*ssh\s+(?:[^'\"\s]+\s+)+?(['\"])(cd\s(?:(?!\1).)*)\1\s*$")


def is_outside(folder: str) -> bool:
    """Whether a folder is written from outside the repository (home, an absolute path, a variable)."""
    return folder.startswith(("/", "~", "$"))


def entered_outside(command: str) -> tuple[str, int, int] | None:
    """(the folder, where the rest of the line starts and ends) for `cd FOLDER[ && REST]` whose folder is written from
    outside the repository, and for `ssh HOST 'cd FOLDER && REST'` whatever the folder (the remote home's); None for
    any other line. The rest is empty for a `cd` alone (its block's later lines run there)."""
    remote = _SSH.match(command)
    if remote is not None:
        inner = _CD.match(command, remote.start(2))
        if inner is None:
            return None
        folder = _unquoted(inner.group(1))
        return (folder if is_outside(folder) else f"~/{folder}"), inner.end(), remote.end(2)
    found = _CD.match(command)
    if found is None or not is_outside(_unquoted(found.group(1))):
        return None
    return _unquoted(found.group(1)), found.end(), len(command)


def folder_tails(folder: str) -> list[str]:
    """The repo-relative folders an outside folder may be, longest first: its trailing parts (`tools/local/monitoring`,
    `local/monitoring`, `monitoring` of `~/projects/dragonfly/tools/local/monitoring`), never its first part (`~`,
    `/`, a variable), at most `MAX_TAILS` parts; after git's `--show-toplevel`, the rest alone (`.` for the root itself)."""
    if folder.startswith(TOPLEVEL):
        rest = posixpath.normpath(folder[len(TOPLEVEL) :].strip("/") or ".")
        return [] if rest.startswith("..") else [rest]
    parts = [p for p in folder.split("/")[1:] if p not in ("", ".")]
    unknown = [i for i, p in enumerate(parts) if re.search(r"[$`*?\[{<>]", p)]  # `~/src/$APP/web`: only `web` is written
    parts = (parts[unknown[-1] + 1 :] if unknown else parts)[-MAX_TAILS:]
    return [] if ".." in parts else ["/".join(parts[i:]) for i in range(len(parts))]


def _unquoted(word: str) -> str:
    """A shell word with its quotes taken off (`"$REPO_ROOT"/web` is `$REPO_ROOT/web`)."""
    return re.sub(r"\"([^\"]*)\"|'([^']*)'", lambda m: m.group(1) if m.group(1) is not None else m.group(2), word).rstrip("/") or "/"
