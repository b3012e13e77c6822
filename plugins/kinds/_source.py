"""What the source kinds (`import:`, `env:`) share: evidence lines and the closed-world sentence."""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable, Iterator

from anchorcheck.plugin import Context, Facts, Search, SourceIndex, classify, Evidence, Language, UnsafePathError

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


def cite(
    context: Context,
    search: Search,
    likely: Callable[[Language, bytes], bool] | None,
    satisfied: Callable[[str, Facts], bool],
    required: bool = False,
    files: int = ENOUGH_EVIDENCE,
    label: Hashable | None = None,
) -> tuple[list[tuple[str, Facts]], bool]:
    """The files a positive answer cites, the same whatever the cache holds and whichever command
    asks: the first `files` candidates, smallest first (then by path), that satisfy and look
    `likely` by their bytes (or, when no likely one satisfies and likeliness is not `required`, the
    first that satisfy at all), production and test code first; examples and vendored code only
    when those have none, as the search itself ranks them.

    A search stops at the first files that answer, and which those are depends on which facts a
    cache already holds; citing is a function of the tree alone. Returns the cited files and whether
    every candidate was looked at (else there may be more places than cited). With a `label` that
    names what `likely` judges (the module, the key), each file's judgement is remembered until
    the file changes, so a recall after an edit judges only the edited file again.
    """
    ranked = SourceIndex.of(context).ranked(search)  # read lazily: a search that stopped early scans no further
    aside: list[str] = []  # examples and vendored code: looked at only when production code and tests do not answer

    def first() -> Iterator[str]:
        for path in ranked:
            if classify(path) in ("example", "vendored"):
                aside.extend([path, *ranked])
                return
            yield path

    complete = True  # every candidate of the groups so far was looked at
    for at, group in enumerate((first(), aside)):
        # Likely files first, in order; unlikely ones are parsed only when no likely one answers.
        unlikely: list[str] = []
        chosen = _satisfying(context, _looking(context, group, likely, unlikely, label), satisfied, files)
        # Read after the group: it was read whole unless `files` answered, and then this is not asked.
        later = at == 0 and bool(aside)  # examples and vendored code, not looked at if this group answers
        if chosen:
            return _in_order(chosen), len(chosen) < files and complete and not unlikely and not later
        if unlikely and not required:
            fallback = _satisfying(context, iter(unlikely), satisfied, files)
            if fallback:
                return _in_order(fallback), len(fallback) < files and complete and not later
        complete = complete and (not unlikely or not required)
    return [], complete


def settling(
    context: Context,
    search: Search,
    likely: Callable[[Language, bytes], bool],
    settles: Callable[[str, Facts], bool],
    label: Hashable | None = None,
) -> list[tuple[str, Facts]]:
    """The candidates that settle a search no file satisfied (absence unprovable: a computed key),
    as a new search meets them: every `likely` candidate (all are parsed when none satisfies), and the
    unlikely ones smallest first (then by path) up to the first that settles. The search itself stops
    at the first settling file whose facts it holds, and which it holds depends on the cache and the
    searches before (a long-lived Verifier's); like `cite`, this is a function of the tree alone."""
    index = SourceIndex.of(context)
    unlikely: list[str] = []
    likely_ones = list(_looking(context, search.candidates, likely, unlikely, label))
    unlikely.sort(key=lambda path: (index.size(path), path))
    found = _satisfying(context, iter(likely_ones), settles, len(likely_ones))
    return _in_order(found + _satisfying(context, iter(unlikely), settles, 1))


def _looking(
    context: Context, paths: Iterable[str], likely: Callable[[Language, bytes], bool] | None, unlikely: list[str], label: Hashable | None
) -> Iterator[str]:
    """The paths whose bytes look `likely`, lazily, in order; the others are put in `unlikely`."""
    index = SourceIndex.of(context)
    for path in paths:
        context.check_deadline()
        language = index.language(path)
        try:
            if likely is None or language is None or _likely(index, label, likely, language, path):
                yield path
            else:
                unlikely.append(path)
        except (OSError, UnsafePathError):
            continue  # unreadable: the search reports it


def _satisfying(context: Context, paths: Iterator[str], satisfied: Callable[[str, Facts], bool], files: int) -> list[tuple[str, Facts]]:
    """The first `files` of these paths (parsed as they come) whose facts satisfy."""
    index = SourceIndex.of(context)
    found: list[tuple[str, Facts]] = []
    for path in paths:
        context.check_deadline()
        try:
            facts = index.facts(path)
        except (OSError, UnsafePathError):
            continue  # unreadable: the search reports it
        if facts is not None and satisfied(path, facts):
            found.append((path, facts))
            if len(found) >= files:
                break
    return found


def _in_order(cited: list[tuple[str, Facts]]) -> list[tuple[str, Facts]]:
    """Cited files as a person reads a list: production code first, then by path."""
    return sorted(cited, key=lambda hit: (_ORDER.index(classify(hit[0])), hit[0]))


def _likely(index: SourceIndex, label: Hashable | None, likely: Callable[[Language, bytes], bool], language: Language, path: str) -> bool:
    if label is None:
        return likely(language, index.read(path))
    return index.judged((label, language.name), path, lambda data: likely(language, data))


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
