"""Gitignore-style patterns, compiled by pathspec only when a run has one: most runs never do.

pathspec costs more to import than a whole small `anchorcheck check` spends
checking, and a run sees a pattern only for an `in:` glob, an `exclude`
setting or a `.gitignore` it must read itself.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Iterable

TYPE_CHECKING = False  # not `typing`'s: importing it costs a replayed `check` 4-7 ms (anchorcheck.serve.replay)
if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec


def gitignore(lines: Iterable[str]) -> GitIgnoreSpec:
    """The compiled patterns (raises ValueError or re.error for one that does not compile)."""
    from pathspec import GitIgnoreSpec

    return GitIgnoreSpec.from_lines(list(lines))


def gitignore_file(lines: list[str]) -> GitIgnoreSpec:
    """A .gitignore's patterns as git reads them: a line pathspec cannot compile (`!`, `[z-a]`) is left
    out instead of discarding the file, since git takes those lines without complaint. Leaving one out
    can only make more files searched, which never turns an answer into a wrong REFUTED."""
    try:
        return gitignore(lines)
    except (ValueError, re.error):
        return gitignore([line for line in lines if _compiles(line)])


def _compiles(line: str) -> bool:
    try:
        gitignore([line])
    except (ValueError, re.error):
        return False
    return True


_BRACES = re.compile(r"\{([^{}]*,[^{}]*)\}")  # an innermost `{a,b}` group
MOST_EXPANSIONS = 64  # globs one pattern expands to at most; a pattern past it is kept as written


def expand_braces(pattern: str) -> list[str]:
    """The globs a pattern with `{a,b}` alternatives stands for (`**/*.{yml,yaml}`: `**/*.yml`, `**/*.yaml`), as the
    editors' rule files (Copilot's `applyTo`, Cursor's `globs`) read them and gitignore patterns cannot; nested groups
    too. The pattern itself when it holds none, or would expand to more than MOST_EXPANSIONS."""
    done, todo = [], [pattern]
    while todo:
        glob = todo.pop()
        match = _BRACES.search(glob)
        if match is None:
            done.append(glob)
        else:
            todo.extend(glob[: match.start()] + alternative + glob[match.end() :] for alternative in reversed(match.group(1).split(",")))
        if len(done) + len(todo) > MOST_EXPANSIONS:
            return [pattern]
    return list(dict.fromkeys(done))


def fnmatch_any(patterns: Iterable[str]) -> Callable[[str], bool]:
    """Whether a path matches any of the patterns, as `fnmatch.fnmatchcase` matches (`*` crosses `/`).

    A pattern without `*`, `?` or `[` matches only itself, so those are a set; the others are one
    regular expression. Matching each path against each pattern in turn compiled every pattern
    (35 for the memory formats' discovery globs, a third of a small check's regexes) and made a
    listing of N files cost 35 N calls.
    """
    exact, wild = set(), []
    for pattern in patterns:
        if set("*?[") & set(pattern):
            wild.append(fnmatch.translate(pattern))
        else:
            exact.add(pattern)
    if not wild:
        return exact.__contains__
    anywild = re.compile("|".join(wild)).match
    return lambda path: path in exact or anywild(path) is not None


def glob_regex(patterns: Iterable[str]) -> str:
    """One verbose regular expression (`(?x)`, a glob per line) matching exactly the paths `fnmatch_any` matches.

    For a tool that takes a regex where anchorcheck takes globs (pre-commit's `files:`): derived from the
    same globs, it cannot drift from what discovery looks for.
    """
    lines = "|\n".join(f"  {_translate(p)}" for p in sorted(set(patterns)))
    return f"(?x)^(\n{lines}\n)$\n"


def _translate(pattern: str) -> str:
    """One glob as fnmatch reads it (`*` crosses `/`, `?` is any character, `[...]` a set), escaped for `(?x)`."""
    out = []
    for token in re.split(r"(\*+|\?|\[!?\]?[^]]*\])", pattern):
        if token.startswith("*"):
            out.append(".*")
        elif token == "?":
            out.append(".")
        elif token.startswith("[") and len(token) > 2:
            inner = token[1:-1]
            out.append("[" + ("^" + inner[1:] if inner.startswith("!") else inner).replace("\\", "\\\\") + "]")
        else:
            out.append(re.escape(token))
    return "".join(out)


class Patterns:
    """A list of gitignore-style patterns, compiled on the first match; an empty list matches nothing."""

    def __init__(self, lines: Iterable[str] = ()) -> None:
        self.patterns = list(lines)
        self._spec: GitIgnoreSpec | None = None

    def match_file(self, path: str) -> bool:
        if not self.patterns:
            return False
        if self._spec is None:
            self._spec = gitignore(self.patterns)
        return bool(self._spec.match_file(path))


class Wildcard:
    """A glob matched against whole strings in time linear in pattern × text, never by a backtracking regex.

    `*` stays within a folder name, `**` crosses folders, `**/` stands for any folders (or none), `?` is one
    character; with `crosses=True` a `*` crosses `/` too (a task name, where `/` is no separator). A regex
    such as `a.*a.*…b` retries every split of the text: fifteen stars against forty characters took minutes,
    and both the pattern (a memory's command) and the text (a repository's names) are untrusted. Here each
    token moves the set of text positions reachable so far once across the text.
    """

    __slots__ = ("pattern", "_tokens", "_crosses")

    def __init__(self, pattern: str, crosses: bool = False) -> None:
        self.pattern, self._crosses = pattern, crosses
        self._tokens = [t for t in re.split(r"(\*\*/|\*\*|\*|\?)", pattern) if t]

    def fullmatch(self, text: str) -> bool:
        """Whether the whole of `text` matches the glob."""
        size = len(text)
        reach = [False] * (size + 1)
        reach[0] = True
        for token in self._tokens:
            ahead = [False] * (size + 1)
            if token in ("**", "*"):
                bound = token == "*" and not self._crosses
                active = False
                for i in range(size + 1):
                    if bound and i and text[i - 1] == "/":
                        active = False
                    active = active or reach[i]
                    ahead[i] = active
            elif token == "**/":
                seen = False
                for i in range(size + 1):
                    ahead[i] = reach[i] or (seen and text[i - 1] == "/")
                    seen = seen or reach[i]
            elif token == "?":
                for i in range(size):
                    ahead[i + 1] = reach[i] and (self._crosses or text[i] != "/")
            else:
                width = len(token)
                for i in range(size - width + 1):
                    if reach[i] and text.startswith(token, i):
                        ahead[i + width] = True
            reach = ahead
            if not any(reach):
                return False
        return reach[size]
