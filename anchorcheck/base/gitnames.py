"""Git's names as plain strings: object ids and remote URLs, checked and cleaned without running git.

A stored citation carries both (the HEAD it was banked at, the remote it came
from) and is read before any repository is opened, so these know nothing of one.
"""

from __future__ import annotations

from anchorcheck.base.lazyregex import later

_OBJECT_ID = later(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")  # SHA-1 or SHA-256
_ABBREVIATED = later(r"[0-9a-fA-F]{4,64}")


def is_object_id(value: object, *, abbreviated: bool = False) -> bool:
    """Whether `value` is a full git object id (40 or 64 lowercase hex digits), or with `abbreviated`
    a prefix of one (4 or more hex digits, as some tools store a HEAD): safe on a git command line."""
    if not isinstance(value, str):
        return False
    return (_ABBREVIATED if abbreviated else _OBJECT_ID).fullmatch(value) is not None


def strip_credentials(url: str) -> str:
    """Remove credentials from a remote URL so it can be stored and printed.

    Over http(s) any user part is a credential (tokens travel as user names);
    elsewhere (ssh://git@host) the user name is kept and only a password goes.
    """
    from urllib.parse import urlsplit, urlunsplit  # a remote's URL is rarely asked for: spare every run the import

    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if not (parts.scheme and parts.netloc and "@" in parts.netloc):
        return url
    userinfo, host = parts.netloc.rsplit("@", 1)
    if parts.scheme not in ("http", "https"):
        user = userinfo.split(":", 1)[0]
        host = f"{user}@{host}" if user else host
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


def renames(name_status: str | None) -> list[tuple[str, str, str]]:
    """(status letter `R` or `C`, old path, new path) of each rename or copy in git's `--name-status -z`
    output (`diff-index`, `diff-tree`); other rows are skipped. None (git did not run) is no rows."""
    fields = (name_status or "").split("\0")
    found, i = [], 0
    while i < len(fields) - 1:
        status = fields[i][:1]
        if status in ("R", "C") and i + 2 < len(fields):
            found.append((status, fields[i + 1], fields[i + 2]))
            i += 3
        else:
            i += 2
    return found
