"""What a search asks and what it found: the goal that says when a positive answer has enough
evidence, the result of a search, and a goal search's answer as a long-lived index keeps it."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Collection, Hashable, Iterable, Iterator
from typing import TYPE_CHECKING

from anchorcheck.evidence.listing import classify

if TYPE_CHECKING:
    from anchorcheck.evidence.facts import Facts
    from anchorcheck.evidence.listing import Listing
    from anchorcheck.evidence.walks import Walk
    from anchorcheck.model.registry import Language

LIKELY, LIKELY_TEST, LIKELY_ASIDE, UNLIKELY = 0, 1, 2, 3  # the order in which a goal's candidates are parsed
_ASIDE = frozenset({"example", "vendored"})  # evidence there counts, but core code's comes first


class _Count:
    """A count of a search's scope (`Search.searched`, `ruled_out`, `unsupported`) that follows the files
    that come or go since it was taken (`Search.follow`); `moved` picks which: source files (0) or others (1)."""

    def __init__(self, slot: str, moved: int) -> None:
        self.slot, self.moved = slot, moved

    def __get__(self, search: Search | None, owner: type) -> int:
        if search is None:
            return self  # type: ignore[return-value]
        return getattr(search, self.slot) + search._drift()[self.moved]  # type: ignore[no-any-return]

    def __set__(self, search: Search, value: int) -> None:
        setattr(search, self.slot, value - search._drift(False)[self.moved])


class Search:
    """What a prefiltered search of a scope found, and how much of the closed world it covered.

    The records of this module are plain classes, not dataclasses: nothing compares, copies or prints
    them, and generating a dataclass's methods at import costs a `check` process ~0.5 ms each."""

    __slots__ = ("hits", "_searched", "_ruled_out", "unreadable", "_unsupported", "unexamined", "found", "walk", "answer", "version", "_follows")

    searched = _Count("_searched", 0)  # source files in scope that a language plugin understands
    ruled_out = _Count("_ruled_out", 0)  # of those, how many the byte prefilter excluded unparsed
    unsupported = _Count("_unsupported", 1)  # files in scope that no language plugin parses

    def __init__(self, searched: int = 0, unsupported: int = 0) -> None:
        self.hits: list[tuple[str, Facts]] = []
        self._searched = searched
        self._ruled_out = 0
        self.unreadable: list[str] = []
        self._unsupported = unsupported
        self.unexamined = 0  # candidates left unparsed because a goal was met: the hits are not all of them
        self.found: list[str] = []  # the files the prefilter kept (parsed or not), in listing order
        self.walk: Walk | None = None  # a goal search's prefilter, not yet run to the end
        # The kept goal search this result is a patch of, and which patch: `SourceIndex.ranked` reads its
        # candidates in `cite` order from it instead of sorting them again.
        self.answer: Answer | None = None
        self.version = 0
        # The listing the counts follow, its sizes when they were counted, and what a read of them notes (`follow`).
        self._follows: tuple[Listing, int, int, Callable[[], None]] | None = None

    def follow(self, listing: Listing, noted: Callable[[], None]) -> None:
        """From now on the counts follow the files that come into or go from `listing`, each read calling
        `noted` (whoever reads a count depends on which files the scope holds). A long-lived index keeps
        this result across such a file only when the search rules it out by its bytes or no language parses
        it (else the memo drops it: `Searches.search`), so a new search would count it just so."""
        self._follows = (listing, len(listing.files), listing.others, noted)

    def _drift(self, noted: bool = True) -> tuple[int, int]:
        """Source files and other files come (or, negative, gone) since the counts were taken."""
        if self._follows is None:
            return 0, 0
        listing, files, others, note = self._follows
        if noted:
            note()
        return len(listing.files) - files, listing.others - others

    @property
    def complete(self) -> bool:
        return self.unexamined == 0

    @property
    def candidates(self) -> list[str]:
        """Every file the prefilter kept, in listing order: a goal search that stopped early scans the rest now."""
        if self.walk is not None:
            self.walk.finish()
        return self.found


class Goal:
    """When a positive answer has enough evidence: `files` files satisfy `satisfied`.

    `likely(language, data)` says which candidates to parse first: likely
    production code, then likely test code, then likely examples, docs and
    vendored code, then the rest, each group smallest first (the cheapest
    evidence first, in the order `cite` shows it). Once the likely production
    files are parsed, one satisfied file is enough: the others can only add to
    the count of places, never change a positive answer. With
    `likely_required`, only likely files can satisfy the goal at all (their
    bytes are necessary for it, as a variable's name is for reading it by
    name), and with none satisfied, the first other file that `settles`
    accepts decides the answer all the same (a computed key: absence can no
    longer be proven).
    """

    __slots__ = ("satisfied", "files", "likely", "likely_required", "settles", "label")

    def __init__(
        self,
        satisfied: Callable[[str, Facts], bool],
        files: int = 10,
        likely: Callable[[Language, bytes], bool] | None = None,
        likely_required: bool = False,
        settles: Callable[[str, Facts], bool] | None = None,
        label: Hashable | None = None,
    ) -> None:
        self.satisfied = satisfied
        self.files = files
        self.likely = likely
        self.likely_required = likely_required
        self.settles = settles
        # Names the goal (a kind and its subject, as `cite` is told: the same `satisfied`, `likely` and
        # `settles` wherever it is given), so the index keeps each file's `likely` answer until the file
        # changes, and the search's answer to patch at the next search (`Answer`); None: worked out
        # again at every search.
        self.label = label

    def done(self, met: int, rank: int, settled: bool = False) -> bool:
        """Whether the search may stop at a file of this rank (LIKELY, LIKELY_TEST, LIKELY_ASIDE,
        UNLIKELY), `met` files satisfying the goal and `settled` saying whether a parsed file was one
        `settles` accepts."""
        if met >= self.files:
            return True
        if rank == LIKELY or self.likely is None:
            return False
        return bool(met) or (rank == UNLIKELY and self.likely_required and settled)

    def settled_by(self, path: str, facts: Facts) -> bool:
        return self.settles is not None and self.settles(path, facts)


class Answer:
    """A goal search's result as a long-lived index keeps it, patched per changed file at the next
    search with the same needles, clauses and goal (`Goal.label`): the candidates (listing order),
    which of them have known facts and whether those satisfy or settle the goal, the unknown ones in
    the order they would be parsed, and the candidates in `cite` order. An edit marks the file
    `dirty` (`SourceIndex.forget`); the next search judges it alone and moves it in each of those,
    instead of going over every candidate again. Only answers without unreadable files are kept."""

    __slots__ = ("listing", "forced", "chosen", "candidates", "known", "met", "settled", "pending", "sizes", "order", "placed", "learned", "dirty", "version")

    def __init__(self, listing: Listing, forced: set[str], chosen: set[str], candidates: list[str]) -> None:
        self.listing = listing
        self.forced = forced  # the files the search's `inside` rule forces in, as they were
        self.chosen = chosen
        self.candidates = candidates  # in listing order
        self.known: dict[str, tuple[bool, bool]] = {}  # facts known: (satisfies, settles)
        self.met = 0  # of `known`, how many satisfy the goal
        self.settled = 0  # and how many settle it
        # The candidates with unknown facts, smallest first (then by path), as they are parsed (`likely_first`
        # ranks them as it goes); None until a search needed to parse one.
        self.pending: list[tuple[int, str]] | None = None
        self.sizes: dict[str, int] = {}  # of `pending`
        self.order: list[tuple[int, int, str]] | None = None  # the candidates as `cite` reads them (kind, size, path)
        self.placed: dict[str, tuple[int, int, str]] = {}  # each one's place in `order`
        self.learned = 0  # how far this looked into the index's log of files whose facts became known
        self.dirty: set[str] = set()  # changed since: judged again at the next search
        self.version = 0

    def count(self, path: str, facts: Facts, goal: Goal) -> None:
        """A candidate's facts are known: it counts towards the goal, and is no longer to parse."""
        satisfies, settles = goal.satisfied(path, facts), goal.settled_by(path, facts)
        self.known[path] = (satisfies, settles)
        self.met += satisfies
        self.settled += settles
        self._unpend(path)

    def drop(self, path: str) -> None:
        """A changed file: what this answer knew of it goes (whether it is a candidate: `choose`)."""
        if path in self.known:
            satisfies, settles = self.known.pop(path)
            self.met -= satisfies
            self.settled -= settles
        self._unpend(path)
        if path in self.placed:
            del self.order[bisect.bisect_left(self.order, self.placed.pop(path))]  # type: ignore[union-attr]

    def choose(self, changed: Iterable[str], chosen: Collection[str]) -> None:
        """Of these changed files, `chosen` are candidates now (their facts are counted from the index's
        log). `candidates` is replaced, never changed in place, and only when one came or went: a search's
        result holds it as its `found` uncopied (a list of every candidate, 16,000 on a big tree, was copied
        at each search after an edit and freed at the next)."""
        gone = [path for path in changed if path in self.chosen and path not in chosen]
        came = [path for path in chosen if path not in self.chosen]
        if not gone and not came:
            return
        self.chosen.difference_update(gone)
        self.chosen.update(came)
        candidates = list(self.candidates)
        for path in gone:
            del candidates[bisect.bisect_left(candidates, path)]
        for path in came:
            bisect.insort(candidates, path)
        self.candidates = candidates

    def pend(self, path: str, size: int) -> None:
        self.sizes[path] = size
        bisect.insort(self.pending, (size, path))  # type: ignore[arg-type]

    def _unpend(self, path: str) -> None:
        if path in self.sizes:
            del self.pending[bisect.bisect_left(self.pending, (self.sizes.pop(path), path))]  # type: ignore[index, arg-type]


def likely_first(pending: list[tuple[int, str]], likely: Callable[[str], bool] | None) -> Iterator[tuple[int, str]]:
    """Candidates (size, path, smallest first) by rank, judged lazily: once a goal is met, the rest
    are never even scanned. Size order makes cheap evidence come first, and a docs or vendored file
    comes last among the likely ones: a 1.4 MB generated search index parses for 0.4 s. Likely
    production code comes before likely tests, as `cite` shows them: what a search stops at is
    then what a positive answer cites. Reads a copy of `pending`: the caller parses as it goes."""
    tests, aside, later = [], [], []
    for _, path in list(pending):
        if likely is None or not likely(path):
            later.append(path)
            continue
        kind = classify(path)
        if kind in _ASIDE:
            aside.append(path)
        elif kind == "test":
            tests.append(path)
        else:
            yield LIKELY, path
    yield from ((LIKELY_TEST, path) for path in tests)
    yield from ((LIKELY_ASIDE, path) for path in aside)
    yield from ((UNLIKELY, path) for path in later)
