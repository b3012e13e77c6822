"""What the source kinds (`import:`, `env:`) share: evidence lines and the closed-world sentence."""

from __future__ import annotations

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


def only_in(paths: list[str]) -> str | None:
    """"test", "example", "vendored" (or several, "test or example") when no path is production code:
    the present trap, a claim about the product that only tests or examples bear out. None otherwise."""
    kinds = list(dict.fromkeys(sorted((classify(path) for path in paths), key=_ORDER.index)))
    return None if not kinds or "production" in kinds else " or ".join(kinds)


_ORDER = ("production", "test", "example", "vendored")


def mark_only_in(result_reason: str, details: dict[str, object], paths: list[str]) -> str:
    """Say in the reason and `details["only_in"]` that the evidence is only test, example or vendored code."""
    where = only_in(paths)
    if where is None:
        return result_reason
    details["only_in"] = where
    return f"{result_reason}; only in {where} code"


def production(path: str) -> bool:
    """Whether a file is production code: what a positive search must find before it may stop early,
    so that "only in test code" is said only after every production candidate was examined."""
    return classify(path) == "production"


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
