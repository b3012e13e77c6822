"""What the source kinds (`import:`, `env:`) share: evidence lines and the closed-world sentence."""

from __future__ import annotations

import re

from anchorcheck.context import Context
from anchorcheck.index import Search, classify
from anchorcheck.model import Evidence

MAX_EVIDENCE = 10  # evidence items a result lists
# Files with evidence after which a positive search stops parsing: the text report shows three,
# and each further file is a parse that cannot change a positive answer.
ENOUGH_EVIDENCE = 3


def evidence(path: str, line: int, what: str, flag: str = "") -> Evidence:
    """One hit, classified as production, test, example or vendored code, with its import flag."""
    labels = [classify(path), *([flag] if flag else [])]
    return Evidence(path, line, f"{what} ({', '.join(labels)})")


def coverage(search: Search) -> str:
    """How much of the closed world was looked at: the sentence a REFUTED verdict rests on."""
    examined = search.searched - search.ruled_out - len(search.unreadable)
    return (
        f"searched {search.searched} source file(s): {examined} parsed (or known from the cache), "
        f"{search.ruled_out} ruled out unparsed by the byte prefilter"
    )


def scope_words(scope: str | None) -> str:
    return f" in {scope}" if scope else ""


def places(found: list[Evidence], total: int | None = None, complete: bool = True) -> str:
    """`at a.py:3 and 2 other place(s)`: the first hit and how many more (of `total`, when only some are kept).

    An incomplete search (it stopped once the evidence was enough) says "at least".
    """
    count = len(found) if total is None else total
    text = f"at {found[0].location()}"
    if count > 1:
        text += f" and {'at least ' if not complete else ''}{count - 1} other place(s)"
    return text


def nothing_to_search(context: Context, scope: str | None, usual: str) -> str:
    """Why no file was searched: an empty scope is a mistake in the anchor, worth saying so."""
    if scope is not None and not context.repo.files(scope):
        return f"no file of the repository matches the scope {scope!r}"
    return usual


_WORD_BYTE = re.compile(rb"\w")


def spells_word(data: bytes, word: bytes) -> bool:
    """Whether `word` occurs in `data` as a whole word (no word character on either side): how a
    read by name spells its key (`"PATH"`, `.PATH`, never PATH_INFO) and an import line its module."""
    at = data.find(word)
    while at != -1:
        if not (at and _WORD_BYTE.match(data, at - 1)) and not _WORD_BYTE.match(data, at + len(word)):
            return True
        at = data.find(word, at + 1)
    return False
