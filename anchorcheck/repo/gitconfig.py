"""The few values of a repository's git configuration that anchorcheck hands to git itself.

Git never reads a checkout's own configuration files (`anchorcheck.repo.gitview`):
it reads a private one that anchorcheck writes. What that private file needs
from the repository's (how line endings are converted, the object format, the
origin's URL for a citation's identity) is read here, as data: no `include`
or `includeIf` is followed, nothing is interpolated, and each value is kept
only when it is one of the few that setting can take. A reader of git's
configuration language that lags git can then only miss a harmless value
(an `autocrlf` set in an included file is not seen), never make git read a
file.
"""

from __future__ import annotations

import os
import re

from anchorcheck.repo.safe_read import CONFIG_CAP, read_capped

_SECTION = re.compile(r'\s*\[\s*([A-Za-z0-9.-]+)\s*(?:"((?:[^"\\\n]|\\.)*)"\s*)?\](.*)')
_ENTRY = re.compile(r"\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?$")
_BOOLEANS = {"true": "true", "yes": "true", "on": "true", "1": "true", "false": "false", "no": "false", "off": "false", "0": "false", "": "false"}
# (section, key) -> the values git may be given, normalised; only these are copied into git's private configuration.
_PASSED = {
    ("core", "autocrlf"): {**_BOOLEANS, "input": "input"},
    ("core", "eol"): {"lf": "lf", "crlf": "crlf", "native": "native"},
    ("core", "filemode"): _BOOLEANS,
    ("core", "symlinks"): _BOOLEANS,
    ("core", "ignorecase"): _BOOLEANS,
    ("core", "precomposeunicode"): _BOOLEANS,
    ("core", "repositoryformatversion"): {"0": "0", "1": "1"},
    ("extensions", "objectformat"): {"sha1": "sha1", "sha256": "sha256"},
    ("extensions", "refstorage"): {"files": "files", "reftable": "reftable"},
}


class Settings(dict[tuple[str, str, str], str]):
    """(section, subsection, key) -> the last value set, section and key lowercased as git compares them."""

    def passed_to_git(self) -> dict[tuple[str, str], str]:
        """The values git's private configuration carries: known settings with values git accepts."""
        out = {}
        for (section, subsection, key), value in self.items():
            allowed = _PASSED.get((section, key)) if not subsection else None
            if allowed is not None and value.strip().lower() in allowed:
                out[(section, key)] = allowed[value.strip().lower()]
        return out

    @property
    def origin_url(self) -> str | None:
        """`remote.origin.url`, as written."""
        return self.get(("remote", "origin", "url")) or None


def read_settings(path: str | os.PathLike[str]) -> Settings:
    """The settings of one configuration file, its includes not followed; OSError when it cannot be read
    (missing, a symlink, no regular file, over the cap)."""
    text = read_capped(path, CONFIG_CAP, follow=False).decode("utf-8", errors="replace")
    return parse_settings(text)


def parse_settings(text: str) -> Settings:
    """Git's configuration syntax, enough for plain `key = value` lines: a byte-order mark, comments,
    quoted values and escapes, `[section "sub"]` and `[section.sub]` headers, continued lines."""
    settings = Settings()
    section, subsection = "", ""
    for line in _logical_lines(text.removeprefix("\ufeff")):
        header = _SECTION.match(line)
        if header:
            name, quoted, line = header.group(1), header.group(2), header.group(3)
            section, _, dotted = name.partition(".")
            section = section.lower()
            subsection = quoted if quoted is not None else dotted.lower()
        entry = _ENTRY.match(line)
        if entry and section:
            key = entry.group(1).lower()
            settings[(section, subsection, key)] = "true" if entry.group(2) is None else _value(entry.group(2))
    return settings


def _logical_lines(text: str) -> list[str]:
    """Physical lines joined where one ends in an unescaped backslash (git's continuation)."""
    lines: list[str] = []
    pending = ""
    for line in text.splitlines():
        stripped = line.rstrip("\r")
        trailing = len(stripped) - len(stripped.rstrip("\\"))
        if trailing % 2:
            pending += stripped[:-1]
            continue
        lines.append(pending + stripped)
        pending = ""
    if pending:
        lines.append(pending)
    return lines


def _value(raw: str) -> str:
    """A value: quotes removed, `\\n` `\\t` `\\b` `\\"` `\\\\` unescaped, an unquoted `#` or `;` starts a comment."""
    out: list[str] = []
    quoted = escaped = False
    for char in raw.strip():
        if escaped:
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(char, char))
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == '"':
            quoted = not quoted
        elif char in "#;" and not quoted:
            break
        else:
            out.append(char)
    return "".join(out).strip()
