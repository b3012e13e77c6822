"""The source index: lazy per-file facts behind a byte prefilter and a content-keyed cache.

An anchor asks for the files of a scope that could hold its evidence; a file
whose bytes lack every needle cannot, so it is ruled out without parsing.
Only the files that pass are parsed (once per content, thanks to the cache),
which is what keeps a closed-world search cheap enough for every recall.
"""

from __future__ import annotations

import bisect
import hashlib
import os
import time
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from anchorcheck.evidence import grammars
from anchorcheck.evidence.parsepool import BoundedPool
from anchorcheck.evidence.cache import FactsCache, git_blob_id, open_cache
from anchorcheck.repo.context import BudgetExceeded
from anchorcheck.base.entrypoints import installed
from anchorcheck.evidence.facts import Facts, Parsed, first_error_line, too_broken_to_query
from anchorcheck.repo.checkout import FileTooLargeError, UnsafePathError, looks_binary
from anchorcheck.evidence.scanarena import ScanArena

if TYPE_CHECKING:
    from tree_sitter import Query

    from anchorcheck.repo.context import Context
    from anchorcheck.model.registry import Language

FACTS_VERSION = "1"
_T = TypeVar("_T")
_VENDORED = frozenset({"vendor", "vendored", "third_party", "third-party", "_vendor", "node_modules", "external"})
_TESTS = frozenset({"test", "tests", "testing", "__tests__", "spec", "specs", "testdata", "fixtures"})
_TEST_AFFIXES = ("test_", "tests_", "test-", "tests-", "_test", "_tests", "-test", "-tests")  # tests_integ/, e2e-tests/
_EXAMPLES = frozenset({"example", "examples", "sample", "samples", "demo", "demos", "docs", "doc"})


@lru_cache(maxsize=1 << 16)
def classify(path: str) -> str:
    """Which kind of code a file is — production, test, example or vendored — judged by its path."""
    parts = path.lower().split("/")
    dirs, name = parts[:-1], parts[-1]
    if _VENDORED & set(dirs):
        return "vendored"
    if _TESTS & set(dirs) or any(d.startswith(_TEST_AFFIXES) or d.endswith(_TEST_AFFIXES) for d in dirs) or name.startswith("test_") or ".test." in name or ".spec." in name or name.endswith(("_test.go", "_test.py", "_spec.rb")) or name == "conftest.py":
        return "test"
    if _EXAMPLES & set(dirs):
        return "example"
    return "production"


class Search:
    """What a prefiltered search of a scope found, and how much of the closed world it covered.

    The records of this module are plain classes, not dataclasses: nothing compares, copies or prints
    them, and generating a dataclass's methods at import costs a `check` process ~0.5 ms each."""

    __slots__ = ("hits", "searched", "ruled_out", "unreadable", "unsupported", "unexamined", "found", "walk", "answer", "version")

    def __init__(self, searched: int = 0, unsupported: int = 0) -> None:
        self.hits: list[tuple[str, Facts]] = []
        self.searched = searched  # source files in scope that a language plugin understands
        self.ruled_out = 0  # of those, how many the byte prefilter excluded unparsed
        self.unreadable: list[str] = []
        self.unsupported = unsupported  # files in scope that no language plugin parses
        self.unexamined = 0  # candidates left unparsed because a goal was met: the hits are not all of them
        self.found: list[str] = []  # the files the prefilter kept (parsed or not), in listing order
        self.walk: _Walk | None = None  # a goal search's prefilter, not yet run to the end
        # The kept goal search this result is a patch of, and which patch: `SourceIndex.ranked` reads its
        # candidates in `cite` order from it instead of sorting them again.
        self.answer: _Answer | None = None
        self.version = 0

    @property
    def complete(self) -> bool:
        return self.unexamined == 0

    @property
    def candidates(self) -> list[str]:
        """Every file the prefilter kept, in listing order: a goal search that stopped early scans the rest now."""
        if self.walk is not None:
            self.walk.finish()
        return self.found


Clause = tuple[Sequence[bytes], str | None]  # needles a file spells one of, or a directory it lies below


_HIT, _MISS, _SKIPPED, _UNREADABLE = "hit", "miss", "skipped", "unreadable"


class _Prefilter:
    """What one search's prefilter found in the files git vouches for, to be remembered under `key`.

    Only clean files (working copy = staged blob) are recorded; the others
    are listed as uncovered, so a later search judges them from their bytes.
    """

    __slots__ = ("key", "clean", "hits", "skipped", "uncovered")

    def __init__(self, key: str | None, clean: Mapping[str, str]) -> None:
        self.key = key
        self.clean = clean
        self.hits: list[str] = []
        self.skipped: list[str] = []
        self.uncovered: list[str] = []

    def note(self, verdicts: Mapping[str, str]) -> None:
        if self.key is None:
            return
        for path, verdict in verdicts.items():
            if path not in self.clean or verdict == _UNREADABLE:
                self.uncovered.append(path)
            elif verdict == _HIT:
                self.hits.append(path)
            elif verdict == _SKIPPED:
                self.skipped.append(path)

    def to_dict(self) -> dict[str, list[str]]:
        return {"hits": self.hits, "skipped": self.skipped, "uncovered": self.uncovered}


class _Listing:
    """The source files of one scope, with what every search of it needs worked out once."""

    def __init__(self, files: list[tuple[str, Language]], others: int, staged: Mapping[str, str], clean: Mapping[str, str]) -> None:
        self.files = files
        self.others = others
        self.clean = clean
        tracked = [f"{path}\0{staged[path]}" for path, _ in files if path in staged]
        # Names the tree state of the scope's tracked files (as staged); None outside git.
        self.staged = hashlib.sha1("\0".join(tracked).encode("utf-8", "surrogateescape")).hexdigest() if staged else None  # noqa: S324
        self.unclean = [(path, language) for path, language in files if path not in clean]
        self.language = dict(files)
        self.languages = {language.name: language for _, language in files}
        self._under: dict[str, set[str]] | None = None
        self._positions: dict[str, int] | None = None
        # What a lazy prefilter walks (`SourceIndex._walk_order`), worked out on first use; dropped
        # when a file changes, and worked out anew while a file is unreadable.
        self.walk_order: list[_Block] | None = None
        self.walk_skipped: list[str] = []
        self.walk_unreadable: list[str] = []
        self.walk_whole = False  # its bytes do not fit in memory: searches judge every file at one read
        self.read = False  # a search judged every file (and kept their bytes, as far as they fit)

    def position(self, path: str) -> int:
        """Where a file of this listing stands in it."""
        if self._positions is None:
            self._positions = {path: at for at, (path, _) in enumerate(self.files)}
        return self._positions[path]

    def forget(self, paths: Iterable[str]) -> None:
        """Files edited since git listed them: git no longer vouches for them (`Repository.forget`)."""
        paths = {path for path in paths if path in self.language}
        if paths:
            self.walk_order = None  # sizes and readability may have changed
        known = {path for path, _ in self.unclean}
        edited = {path for path in paths if path not in self.clean and path not in known}
        if edited:
            self.unclean = [(path, language) for path, language in self.files if path in known or path in edited]

    def matters(self, path: str, wanted: Mapping[str, Sequence[bytes]], data: Callable[[str], bytes | None]) -> bool:
        """Whether a changed file could change a search of this listing that ruled it out by its
        bytes: it is in scope and its new bytes (`data`, None when unreadable) hold one of its
        language's needles."""
        language = self.language.get(path)
        if language is None:
            return False
        content = data(path)
        return content is None or any(needle in content for needle in wanted.get(language.name, ()))

    def under(self, directory: str) -> set[str]:
        """The paths with a directory of this name among their parents (an index built on first use)."""
        if self._under is None:
            self._under = {}
            for path, _ in self.files:
                for part in path.split("/")[:-1]:
                    self._under.setdefault(part, set()).add(path)
        return self._under.get(directory, set())

    def forced(self, inside: Callable[[Language], str | None] | None) -> set[str]:
        """The files a search's `inside` rule forces in: those of each language under the directory it names."""
        found: set[str] = set()
        for language in self.languages.values():
            directory = inside(language) if inside is not None else None
            if directory:
                found |= {path for path in self.under(directory) if self.language[path] is language}
        return found

    def still_clean(self, paths: Iterable[str]) -> set[str]:
        """Those of `paths` in this listing whose working copy git still vouches for."""
        return {path for path in paths if path in self.clean and path in self.language}

    def undecided(self, known: _Recorded | None) -> list[tuple[str, Language]]:
        """The files a remembered prefilter does not speak for (all of them without one), in listing order."""
        if known is None:
            return self.files
        stale = [(path, self.language[path]) for path in self.still_clean(known.uncovered)]
        return sorted([*self.unclean, *stale]) if stale else self.unclean


class _Verdicts:
    """The prefilter's verdicts of a search: hits, and the files that are neither hit nor miss."""

    __slots__ = ("hits", "skipped", "unreadable")

    def __init__(self, hits: set[str] | None = None, skipped: set[str] | None = None, unreadable: set[str] | None = None) -> None:
        self.hits = set() if hits is None else hits
        self.skipped = set() if skipped is None else skipped
        self.unreadable = set() if unreadable is None else unreadable

    @classmethod
    def recalled(cls, known: _Recorded, listing: _Listing) -> _Verdicts:
        """A remembered prefilter's verdicts of the files it still speaks for (clean, covered)."""
        return cls(listing.still_clean(known.hits), listing.still_clean(known.skipped))

    def note(self, verdicts: Mapping[str, str]) -> None:
        for path, verdict in verdicts.items():
            if verdict == _HIT:
                self.hits.add(path)
            elif verdict == _SKIPPED:
                self.skipped.add(path)
            elif verdict == _UNREADABLE:
                self.unreadable.add(path)


class _Kept:
    """A search's prefilter verdicts as a long-lived index keeps them: per file, a function of its
    bytes and the needles alone, so after an edit only the changed files are judged again
    (`SourceIndex.forget` takes them out). Unreadable files are never kept: judged at every search."""

    __slots__ = ("listing", "verdicts", "hits", "skipped", "unjudged")

    def __init__(
        self, listing: _Listing, verdicts: dict[str, str] | None = None, hits: set[str] | None = None, skipped: set[str] | None = None, unjudged: set[str] | None = None
    ) -> None:
        self.listing = listing  # the listing judged last: while it stands, only `unjudged` paths can lack a verdict
        self.verdicts = {} if verdicts is None else verdicts  # path -> hit, miss or skipped
        self.hits = set() if hits is None else hits
        self.skipped = set() if skipped is None else skipped
        self.unjudged = set() if unjudged is None else unjudged  # changed since, or unreadable

    @classmethod
    def of(cls, listing: _Listing, found: _Verdicts) -> _Kept:
        verdicts = {path: _MISS for path in listing.language if path not in found.unreadable}
        verdicts.update(dict.fromkeys(found.hits, _HIT))
        verdicts.update(dict.fromkeys(found.skipped, _SKIPPED))
        return cls(listing, verdicts, set(found.hits), set(found.skipped), set(found.unreadable))

    def undecided(self, listing: _Listing) -> list[tuple[str, Language]]:
        """The files of `listing` without a verdict, in listing order."""
        if listing is not self.listing:  # listed again: files may have come
            self.listing = listing
            return [(path, language) for path, language in listing.files if path not in self.verdicts]
        todo = [path for path in self.unjudged if path in listing.language]
        return [(path, listing.language[path]) for path in sorted(todo, key=listing.position)]

    def note(self, verdicts: Mapping[str, str]) -> None:
        # In comprehensions: a lazy search notes every file of the tree, a block at a time.
        unreadable = {path for path, verdict in verdicts.items() if verdict == _UNREADABLE}
        judged = {path: verdict for path, verdict in verdicts.items() if verdict != _UNREADABLE} if unreadable else verdicts
        self.unjudged.difference_update(judged)
        self.unjudged |= unreadable
        self.verdicts.update(judged)
        self.hits.update([path for path, verdict in judged.items() if verdict == _HIT])
        self.skipped.update([path for path, verdict in judged.items() if verdict == _SKIPPED])

    def found(self, listing: _Listing, judged: Mapping[str, str]) -> _Verdicts:
        """The verdicts of this listing's files (`judged`: those just judged, unreadable ones among them)."""
        return _Verdicts(
            self.hits & listing.language.keys(),
            self.skipped & listing.language.keys(),
            {path for path, verdict in judged.items() if verdict == _UNREADABLE},
        )

    def forget(self, stale: set[str]) -> None:
        for path in stale & self.verdicts.keys():
            del self.verdicts[path]
        self.hits -= stale
        self.skipped -= stale
        self.unjudged |= stale


class _Answer:
    """A goal search's result as a long-lived index keeps it, patched per changed file at the next
    search with the same needles, clauses and goal (`Goal.label`): the candidates (listing order),
    which of them have known facts and whether those satisfy or settle the goal, the unknown ones in
    the order they would be parsed, and the candidates in `cite` order. An edit marks the file
    `dirty` (`SourceIndex.forget`); the next search judges it alone and moves it in each of those,
    instead of going over every candidate again. Only answers without unreadable files are kept."""

    __slots__ = ("listing", "forced", "chosen", "candidates", "known", "met", "settled", "pending", "sizes", "order", "placed", "learned", "dirty", "version")

    def __init__(self, listing: _Listing, forced: set[str], chosen: set[str], candidates: list[str]) -> None:
        self.listing = listing
        self.forced = forced  # the files the search's `inside` rule forces in, as they were
        self.chosen = chosen
        self.candidates = candidates  # in listing order
        self.known: dict[str, tuple[bool, bool]] = {}  # facts known: (satisfies, settles)
        self.met = 0  # of `known`, how many satisfy the goal
        self.settled = 0  # and how many settle it
        # The candidates with unknown facts, smallest first (then by path), as they are parsed (`_likely_first`
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
        """A changed file: what this answer knew of it goes (it may no longer be a candidate)."""
        if path in self.known:
            satisfies, settles = self.known.pop(path)
            self.met -= satisfies
            self.settled -= settles
        self._unpend(path)
        if path in self.placed:
            del self.order[bisect.bisect_left(self.order, self.placed.pop(path))]  # type: ignore[union-attr]
        if path in self.chosen:
            self.chosen.remove(path)
            del self.candidates[bisect.bisect_left(self.candidates, path)]

    def add(self, path: str) -> None:
        """A changed file that is a candidate (its facts are counted from the index's log)."""
        self.chosen.add(path)
        bisect.insort(self.candidates, path)

    def pend(self, path: str, size: int) -> None:
        self.sizes[path] = size
        bisect.insort(self.pending, (size, path))  # type: ignore[arg-type]

    def _unpend(self, path: str) -> None:
        if path in self.sizes:
            del self.pending[bisect.bisect_left(self.pending, (self.sizes.pop(path), path))]  # type: ignore[index, arg-type]


_KIND = {"production": 0, "test": 1}  # the order a lazy prefilter walks a scope in
_CITED = ("production", "test", "example", "vendored")  # the order `cite` reads candidates in
_ASIDE_KIND = 2  # examples and vendored code, together
_BLOCK = 64  # files a lazy prefilter judges at first in one step (doubling each step): a few past where a search stops
# One step of a lazy prefilter: its files in walk order (kind, path, language), and in listing order.
_Block = tuple[list[tuple[int, str, "Language"]], list[tuple[str, "Language"]]]


class _Walk:
    """A goal search's prefilter, run lazily in the order the search parses and `cite` reads its
    candidates: production code, then tests, then examples and vendored code, each smallest first
    (then by path). Every file is read once when the walk starts (its size orders it; binary,
    oversized and unreadable files are told apart then), but its needles are looked for only when
    the walk reaches it, a block at a time, by `SourceIndex._judge` as every search judges files."""

    def __init__(
        self,
        index: SourceIndex,
        listing: _Listing,
        order: list[_Block],
        wanted: Mapping[str, Sequence[bytes]],
        forced: set[str],
        clauses: Mapping[str, Sequence[Clause]] | None,
        met: dict[str, bool] | None,
        kept: _Kept,
        result: Search,
    ) -> None:
        self.index, self.listing, self.wanted, self.forced, self.result = index, listing, wanted, forced, result
        self.clauses, self.met, self.kept_verdicts = clauses, met, kept
        self.verdicts: dict[str, str] = {}  # of every file judged (or skipped, or unreadable)
        self.chosen: set[str] = set()  # the candidates among them
        self.kept: list[tuple[int, str, Language]] = []  # candidates in walk order
        self.blocks = order
        # Binary and oversized files, as every search judges them (an oversized one holding a needle is unreadable).
        self.verdicts.update(index._judge([(path, listing.language[path]) for path in listing.walk_skipped], wanted, result))
        self.verdicts.update(dict.fromkeys(result.unreadable, _UNREADABLE))
        kept.note(self.verdicts)
        self.at = 0
        self.step = 0
        self.early: set[str] = set()  # files judged out of turn (`judge`): not judged again when reached

    def candidates(self) -> Iterator[tuple[int, str, Language]]:
        """The candidates in walk order (kind, path, language), judging files only as far as this is read."""
        seen = 0
        while True:
            while seen < len(self.kept):
                yield self.kept[seen]
                seen += 1
            if not self._step():
                return

    def finish(self) -> None:
        while self._step():
            pass

    def judge(self, paths: list[str]) -> list[str]:
        """Judge these files now, out of turn (those whose facts are known count first): the candidates among them."""
        fresh = [(path, self.listing.language[path]) for path in paths if path not in self.verdicts]
        self.early.update(path for path, _ in fresh)
        self.kept_verdicts.note(self._judge_all(fresh))
        self.result.found = self._found()
        return [path for path in paths if path in self.chosen]

    def _found(self) -> list[str]:
        """The candidates so far: those the walk reached, and those judged out of turn. A goal the
        latter meet ends the walk before it reaches their block (uv's `import:fs_err` after
        `import:junction` was REFUTED: the importers parsed before were left out of the hits)."""
        return sorted({*(path for _, path, _ in self.kept), *(self.early & self.chosen)})

    def _step(self) -> bool:
        """Judge the next block of files; False when every file was judged."""
        if self.step >= len(self.blocks):
            self.result.walk = None
            return False
        block, by_place = self.blocks[self.step]
        self.step += 1
        self.at += len(block)
        index = self.index
        index.context.check_deadline()
        fresh = [(path, language) for path, language in by_place if path not in self.early] if self.early else by_place
        with index.context.shared.unrecorded():  # what a step adds is declared below
            self.kept_verdicts.note(self._judge_all(fresh))
        added = [(kind, path, language) for kind, path, language in block if path in self.chosen]
        self.kept.extend(added)
        index.context.shared.read_all([path for _, path, _ in added])
        self.result.found = self._found()
        self.result.ruled_out = self.at - len(self.kept)
        return True

    def _judge_all(self, files: list[tuple[str, Language]]) -> dict[str, str]:
        """The prefilter's verdicts of these files, as every search judges them (`SourceIndex._judge`),
        noting the candidates among them: the hits and the readable files forced in, meeting every
        clause. Returns their verdicts."""
        index = self.index
        verdicts = index._judge(files, self.wanted, self.result)
        chosen = {path for path, verdict in verdicts.items() if verdict == _HIT}
        if self.forced:
            chosen |= {path for path, verdict in verdicts.items() if verdict == _MISS and path in self.forced}
        if self.clauses is not None and self.met is not None:
            clauses, met, language = self.clauses, self.met, self.listing.language
            chosen = {path for path in chosen if index._meets(path, clauses[language[path].name], met)}
        self.chosen.update(chosen)
        self.verdicts.update(verdicts)
        return verdicts


class _Recorded:
    """A remembered prefilter: the verdict of every clean file it covered."""

    __slots__ = ("hits", "skipped", "uncovered")

    def __init__(self, hits: frozenset[str], skipped: frozenset[str], uncovered: frozenset[str]) -> None:
        self.hits, self.skipped, self.uncovered = hits, skipped, uncovered

    @classmethod
    def from_dict(cls, data: dict[str, list[str]]) -> _Recorded:
        parts = [data["hits"], data["skipped"], data["uncovered"]]
        if not all(isinstance(part, list) and all(isinstance(p, str) for p in part) for part in parts):
            raise TypeError("a prefilter record holds lists of paths")
        return cls(*(frozenset(part) for part in parts))


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
        # changes, and the search's answer to patch at the next search (`_Answer`); None: worked out
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


@lru_cache(maxsize=None)
def parser_for(grammar: str):  # noqa: ANN201 - tree_sitter.Parser
    """One parser per grammar per process: building a parser is not free."""
    return grammars.parser(grammar)


_FINGERPRINTS: dict[tuple[str, str], str] = {}


def _fingerprint(language: Language) -> str:
    """Changes when the language's queries or extract code change, so stale facts are never reused."""
    known = (language.name, getattr(language.extract, "__module__", ""))
    if known not in _FINGERPRINTS:
        _FINGERPRINTS[known] = _compute_fingerprint(language)
    return _FINGERPRINTS[known]


def _grammar_versions() -> str:
    """The installed tree-sitter distributions, listed once per process (kept beside the fingerprints
    they feed, and forgotten with them): sys.path is listed once, not once per language. The binding
    and grammars a process parses with are those it loaded, so an upgrade installed while it runs is
    named by the next process, which lists them again."""
    key = ("", "tree_sitter")
    if key not in _FINGERPRINTS:
        _FINGERPRINTS[key] = "\0".join(installed("tree_sitter"))
    return _FINGERPRINTS[key]


def _compute_fingerprint(language: Language) -> str:
    import inspect  # 20 ms of start-up, for one lookup per language

    digest = hashlib.sha1(f"{FACTS_VERSION}\0{language.name}\0{language.grammar}".encode())  # noqa: S324
    # The parser and grammars that made the tree: an upgraded grammar may name nodes differently.
    digest.update(_grammar_versions().encode())
    for name in sorted(language.queries):
        digest.update(f"\0{name}\0{language.queries[name]}".encode())
    # The extract code and what it leans on: its package's modules (TypeScript reuses the
    # JavaScript walk) and the facts helpers. Any change there re-extracts, never a stale fact.
    try:
        home = Path(inspect.getsourcefile(language.extract) or "") if language.extract else None
    except TypeError:
        home = None
    sources = sorted(home.parent.glob("*.py")) if home is not None and home.is_file() else []
    for source in [*sources, Path(__file__).with_name("facts.py")]:
        try:
            digest.update(source.read_bytes())
        except OSError:
            digest.update(source.name.encode())
    if not sources:
        digest.update(getattr(language.extract, "__qualname__", "").encode())
    return digest.hexdigest()[:16]


class _Queries:
    """Compiled queries of one language, compiled on first use."""

    def __init__(self, language: Language) -> None:
        self.language = language
        self._ts_language = None
        self._compiled: dict[str, Query] = {}

    def __call__(self, name: str) -> Query:
        query = self._compiled.get(name)
        if query is None:
            if self._ts_language is None:
                grammar = self.language.grammar
                self._ts_language = grammars.language(grammar) if isinstance(grammar, str) else grammar()
            from tree_sitter import Query  # with the first query run: a check that parses nothing never imports it

            query = Query(self._ts_language, self.language.queries[name])
            self._compiled[name] = query
        return query


class SourceIndex:
    """Per-file facts of one checkout, computed lazily and shared by all source anchors of a Verifier."""

    def __init__(self, context: Context, predecessor: SourceIndex | None = None) -> None:
        self.context = context
        self.repo = context.repo
        self.registry = context.registry
        self.cache: FactsCache | None = None
        if predecessor is not None:
            self.cache = predecessor.cache  # one connection per Verifier, not one per look at the tree
        else:
            self.cache = open_cache(context.options, self.repo.root, context.time_left)
        self._facts: dict[str, Facts] = {}
        self._skipped: set[str] = set()  # binary or over the size cap: not source, whatever the name says
        self._oversized: set[str] = set()  # of those, the ones over the cap: streamed for needles, never parsed
        self._contains: dict[bytes, dict[str, bool]] = {}  # needle -> path -> whether its bytes hold it
        self._judged: dict[Hashable, dict[str, bool]] = {}  # label -> path -> a kind's judgement of its bytes
        self._sizes: dict[str, int] = {}
        # Paths already looked up in the disk cache and missed: a later search need not ask again
        # (a miss only turns into facts through _store, which fills _facts itself).
        self._preloaded: set[str] = set()
        # Bytes of the files read, so the next anchor's prefilter scans memory instead of the disk, and a
        # copy of them laid end to end, so that one pass answers a needle for all of them (`ScanArena`).
        self._bytes: dict[str, bytes] = {}
        self._arena = ScanArena(_walk_key)
        self._bytes_left = int(context.options.get("prefilter_memory", PREFILTER_MEMORY))
        self._sources: dict[str | None, _Listing] = {}
        # Per search (scope, needles): the prefilter's verdicts, and per `requires` clauses whether each
        # file meets them; both per file, so an edit costs a judgement of the edited file only.
        self._kept: dict[Hashable, _Kept] = {}
        self._met: dict[Hashable, dict[str, bool]] = {}
        # Per goal search (needles, clauses, goal): its answer, patched per changed file (`_Answer`).
        self._answers: dict[Hashable, _Answer] = {}
        self._learned: list[str] = []  # the files whose facts became known, in turn: what an answer counts next
        # Per label, per file: a value worked out from its facts and the listing (`derived`).
        self._derived: dict[Hashable, dict[str, object]] = {}
        self._workers = int(context.options.get("workers") or os.cpu_count() or 1)
        self._bounded = BoundedPool(self._workers)  # parses under a deadline; no process until one is needed
        self.parsed = 0  # files parsed by this index (cache misses): for benchmarks and tests

    @classmethod
    def of(cls, context: Context) -> SourceIndex:
        return context.memo("anchorcheck.evidence.index", lambda: cls(context))

    @classmethod
    def succeeding(cls, old: SourceIndex, context: Context, stale: Iterable[str], relisted: bool = True) -> SourceIndex:
        """The index of `context` (a Verifier's next look at the checkout), knowing what `old` knew of
        every file but the `stale` ones (changed, added or removed): only those are read and parsed again.
        Unless the checkout was `relisted`, its scopes' listings are kept (with git's new word on
        which files are clean), sparing a language lookup per file."""
        stale = set(stale)
        index = cls(context, old)
        if not relisted:
            repo = context.repo
            index._sources = {
                scope: _Listing(listing.files, listing.others, repo.staged_blob_ids, repo.blob_ids)
                for scope, listing in old._sources.items()
            }
        index._facts = {path: facts for path, facts in old._facts.items() if path not in stale}
        index._skipped = old._skipped - stale
        index._contains = {needle: {p: v for p, v in seen.items() if p not in stale} for needle, seen in old._contains.items()}
        index._bytes = {path: data for path, data in old._bytes.items() if path not in stale}
        index._arena, old._arena = old._arena, ScanArena(_walk_key)  # the old index answers from its own bytes, file by file
        index._arena.drop(stale)
        index._bytes_left -= sum(len(data) for data in index._bytes.values()) + index._arena.size
        index._bounded, index.parsed = old._bounded, old.parsed
        return context.memo("anchorcheck.evidence.index", lambda: index)

    def forget(self, stale: Iterable[str], relisted: bool) -> None:
        """Files changed, added or removed since this index looked (a long-lived Verifier's refresh):
        what it knew of them goes, they are read and parsed again when asked for. Unless the checkout
        was `relisted`, its scopes' listings are kept, with git no longer vouching for the changed files."""
        stale = set(stale)
        for path in stale & self._bytes.keys():
            self._bytes_left += len(self._bytes.pop(path))
        held = self._arena.size
        self._arena.drop(stale)
        self._bytes_left += held - self._arena.size
        for known in (self._facts, self._sizes, *self._contains.values(), *self._judged.values(), *self._met.values(), *self._derived.values()):
            for path in stale:
                known.pop(path, None)
        for kept in self._kept.values():
            kept.forget(stale)
        for answer in self._answers.values():
            answer.dirty |= stale
        self._skipped -= stale
        self._oversized -= stale
        self._preloaded -= stale
        if relisted:
            self._sources = {}
            self._answers = {}  # worked out again over the new listing
            self._derived = {}
        else:
            for listing in self._sources.values():
                listing.forget(stale)

    def language(self, path: str) -> Language | None:
        language = self.registry.language_for(path)
        return language if language is not None and language.extract is not None else None

    def sources(self, scope: str | None) -> tuple[list[tuple[str, Language]], int]:
        """The files of a scope that some language plugin parses, and how many others there were."""
        listing = self._listing(scope)
        return listing.files, listing.others

    def _listing(self, scope: str | None) -> _Listing:
        if scope not in self._sources:
            # Listed paths, not `files`: the search reads each candidate anyway and tells binary
            # and oversized files from those bytes, instead of opening every file twice.
            supported, others = [], 0
            for at, path in enumerate(self.repo.paths(scope)):
                if not at % 4096:
                    self.context.check_deadline()  # a language lookup per path: 50,000 of them take a while
                language = self.language(path)
                if language is None:
                    others += 1
                else:
                    supported.append((path, language))
            self._sources[scope] = _Listing(supported, others, self.repo.staged_blob_ids, self.repo.blob_ids)
        return self._sources[scope]

    def search(
        self,
        scope: str | None,
        needles: Callable[[Language], Sequence[bytes]],
        inside: Callable[[Language], str | None] | None = None,
        goal: Goal | None = None,
        *,
        parse_all: bool = False,
        requires: Callable[[Language], Sequence[Clause]] | None = None,
    ) -> Search:
        """Facts of the files in scope whose bytes contain one of their language's needles.

        `inside(language)` names a directory whose files of that language are
        candidates whatever their bytes (a relative import names no package);
        `parse_all` makes every file one. `requires(language)` are further
        clauses a candidate must meet, each by spelling one of its needles or
        lying below a directory of its name (an import of `a.b.c` spells, or
        takes from its path, every segment): checked on the few files the
        first needles kept, from the bytes already read. Which
        tracked files hold a needle is remembered on disk per tree state, so a
        later process re-reads only the files git says changed; cached facts
        are used without reading the file. With a `goal`, parsing stops once
        enough files satisfy it (likely files first), and the result says it is
        incomplete: a positive answer needs a few hits, only absence needs them
        all. The context's deadline is checked between files.
        """
        with self.context.shared.unrecorded():  # what the result depends on is declared below
            listing = self._listing(scope)
            wanted = {name: needles(language) for name, language in listing.languages.items()}
            result = self._search(scope, listing, wanted, inside, goal, parse_all, requires)
        kept = self._kept.get(_needles_key(scope, wanted))
        self._depend(listing, result, wanted, kept.skipped if kept is not None else set())
        return result

    def _depend(self, listing: _Listing, result: Search, wanted: Mapping[str, Sequence[bytes]], skipped: set[str]) -> None:
        """What a search's result depends on, for the memo of whoever asked: the listing; the files it
        did not rule out (candidates, binary, oversized, unreadable), whatever their change; and every
        other file of the scope only if its new bytes hold a needle (a file that `requires` would rule
        out all the same is searched again too: rarely, and never wrongly)."""
        memo = self.context.shared
        memo.listed()
        memo.read_all(result.found)  # a lazy search declares what it scans later as it scans it
        memo.read_all(result.unreadable)
        # Skipped (binary, oversized) as read now, or as the prefilter recorded on disk for the same bytes.
        memo.read_all([path for path in self._skipped | skipped if path in listing.language])
        memo.watch(lambda path: listing.matters(path, wanted, self._current_bytes))

    def _current_bytes(self, path: str) -> bytes | None:
        """A changed file's bytes as they are now, kept for the next search's prefilter; None when unreadable."""
        data = self._bytes.get(path)  # every search's watch asks: read once
        return data if data is not None else self._candidate_bytes(path, Search())

    def _search(
        self,
        scope: str | None,
        listing: _Listing,
        wanted: dict[str, Sequence[bytes]],
        inside: Callable[[Language], str | None] | None,
        goal: Goal | None,
        parse_all: bool,
        requires: Callable[[Language], Sequence[Clause]] | None,
    ) -> Search:
        files = listing.files
        result = Search(searched=len(files), unsupported=listing.others)
        key = _needles_key(scope, wanted)
        # The first search of a listing reads every file: it judges each as it reads it, as cheap as
        # ordering them (a walk made it 10% slower on Django); the searches after it walk.
        lazy = listing.read and not listing.walk_whole and key not in self._kept
        if lazy and goal is not None and goal.likely is not None and not parse_all:
            record = _Prefilter(self._prefilter_key(listing, wanted), listing.clean)
            order = self._walk_order(listing, result) if self._recorded(record.key) is None else None
            if order is not None:
                return self._search_lazily(key, listing, wanted, inside, goal, requires, record, result, order)
        found = self._prefilter(scope, listing, wanted, result)
        listing.read = True
        forced = set(listing.language) if parse_all else listing.forced(inside)
        clauses: dict[str, tuple[tuple[tuple[bytes, ...], str | None], ...]] = {}
        met: dict[str, bool] = {}
        if requires is not None:
            clauses = {name: _frozen(requires(language)) for name, language in listing.languages.items()}
            met = self._met.setdefault(tuple(sorted(clauses.items())), {})
        skipped = len(found.skipped)
        result.searched -= skipped
        result.unsupported += skipped
        if goal is not None:
            signature = (key, goal.label, goal.files, goal.likely_required, tuple(sorted(clauses.items())) if requires is not None else None)
            answer = self._answers.pop(signature, None) if goal.label is not None else None
            try:
                if answer is None or answer.listing is not listing or answer.forced != forced or result.unreadable:
                    answer = self._answer(listing, found, forced, clauses if requires is not None else None, met, goal, result)
                else:
                    self._patch(answer, found, clauses if requires is not None else None, met, goal, result)
            finally:
                self.flush()
            if goal.label is not None and not result.unreadable:
                self._answers[signature] = answer
            result.ruled_out = len(files) - skipped - len(found.unreadable) - len(answer.candidates)
            result.found = list(answer.candidates)
            result.hits = [(path, self._facts[path]) for path in answer.candidates if path in answer.known]
            answer.version += 1
            result.answer, result.version = answer, answer.version
            return result
        chosen = self._chosen(listing, found, forced, clauses if requires is not None else None, met, found.hits | forced)
        candidates = [(path, listing.language[path]) for path in sorted(chosen)]  # in listing order
        result.ruled_out = len(files) - skipped - len(found.unreadable) - len(candidates)
        unknown = self._unknown(candidates)
        try:
            self._parse(self._pending(unknown, result), parallel=len(unknown) >= PARALLEL_PARSE)
        finally:
            self.flush()
        result.hits = [(path, self._facts[path]) for path, _ in candidates if path in self._facts]
        result.found = [path for path, _ in candidates]
        return result

    def _chosen(
        self,
        listing: _Listing,
        found: _Verdicts,
        forced: set[str],
        clauses: Mapping[str, Sequence[Clause]] | None,
        met: dict[str, bool],
        paths: Iterable[str],
    ) -> set[str]:
        """Which of `paths` are candidates: a prefilter hit, or forced in and readable source, meeting every clause."""
        chosen = {path for path in paths if path in found.hits or (path in forced and path not in found.skipped and path not in found.unreadable)}
        if clauses is not None:
            chosen = {path for path in chosen if self._meets(path, clauses[listing.language[path].name], met)}
        return chosen

    def _answer(
        self,
        listing: _Listing,
        found: _Verdicts,
        forced: set[str],
        clauses: Mapping[str, Sequence[Clause]] | None,
        met: dict[str, bool],
        goal: Goal,
        result: Search,
    ) -> _Answer:
        """A goal search worked out over every candidate: the answer a later search patches."""
        chosen = self._chosen(listing, found, forced, clauses, met, found.hits | forced)
        answer = _Answer(listing, forced, chosen, sorted(chosen))
        self._preload([(path, listing.language[path]) for path in answer.candidates])
        for path in answer.candidates:
            if path in self._facts:
                answer.count(path, self._facts[path], goal)
        self._parse_until(goal, answer, result)
        answer.learned = len(self._learned)  # what it parsed is counted
        return answer

    def _patch(
        self,
        answer: _Answer,
        found: _Verdicts,
        clauses: Mapping[str, Sequence[Clause]] | None,
        met: dict[str, bool],
        goal: Goal,
        result: Search,
    ) -> None:
        """A kept goal search brought up to date: the files changed since are judged again and moved
        in it, the facts learned since are counted, and parsing goes on where the goal now needs it."""
        listing = answer.listing
        dirty = sorted(path for path in answer.dirty if path in listing.language)
        answer.dirty = set()
        for path in dirty:
            answer.drop(path)
        for path in self._chosen(listing, found, answer.forced, clauses, met, dirty):
            answer.add(path)
            if answer.order is not None:
                answer.placed[path] = place = (_CITED.index(classify(path)), self.size(path), path)
                bisect.insort(answer.order, place)
            self._preload([(path, listing.language[path])])
            if answer.pending is not None and path not in self._facts:
                self._pend(answer, path, goal, result)
        for path in self._learned[answer.learned :]:
            if path in answer.chosen and path not in answer.known and path in self._facts:
                answer.count(path, self._facts[path], goal)
        self._parse_until(goal, answer, result)
        answer.learned = len(self._learned)  # what it parsed is counted

    def _pend(self, answer: _Answer, path: str, goal: Goal, result: Search) -> None:
        """An unknown candidate joins the files to parse (unless it cannot be read, or the disk cache
        knows its content by hash, when it counts at once)."""
        data = self._candidate_bytes(path, result)
        if data is None:
            return
        if self._cached_untracked(path, answer.listing.language[path], data):
            answer.count(path, self._facts[path], goal)
        else:
            answer.pend(path, len(data))

    def _walk_order(self, listing: _Listing, result: Search) -> list[_Block] | None:
        """The readable files of a listing in the order a lazy prefilter walks them, read once per
        listing (binary and oversized ones in `listing.walk_skipped`, unreadable ones added to `result`).
        None when their bytes do not fit in the memory kept: a walk would read them twice, so such a
        tree is judged whole at one read per search (the file that told is kept past the limit, once)."""
        if listing.walk_order is None or listing.walk_unreadable:
            sized, skipped, unreadable = [], [], []
            scratch = Search()  # unreadable files are reported to `result` below, at every search
            for path, _ in listing.files:
                self.context.check_deadline()  # between files: the first search reads the whole tree
                data = self._candidate_bytes(path, scratch)
                if data is not None and path not in self._bytes:
                    self._bytes[path] = data
                    listing.walk_whole = True
                    return None
                if data is None:
                    (skipped if path in self._skipped else unreadable).append(path)
                else:
                    sized.append((_KIND.get(classify(path), _ASIDE_KIND), len(data), path, len(sized)))
            sized.sort()  # paths are unique: the place in the listing is never compared
            languages = listing.language
            listing.walk_order = []
            start, size = 0, _BLOCK
            while start < len(sized):
                block = sized[start : start + size]
                # Each block also in listing order, the order the bytes were read and lie in memory:
                # scanning them in size order ran 20-30% slower per byte.
                by_place = [(path, languages[path]) for _, path in sorted([(at, path) for _, _, path, at in block])]
                listing.walk_order.append(([(kind, path, languages[path]) for kind, _, path, _ in block], by_place))
                start, size = start + size, size * 2  # a search that goes on is likely to go to the end
            listing.walk_skipped, listing.walk_unreadable = skipped, unreadable
        result.unreadable.extend(listing.walk_unreadable)
        return listing.walk_order

    def _search_lazily(
        self,
        key: Hashable,
        listing: _Listing,
        wanted: dict[str, Sequence[bytes]],
        inside: Callable[[Language], str | None] | None,
        goal: Goal,
        requires: Callable[[Language], Sequence[Clause]] | None,
        record: _Prefilter,
        result: Search,
        order: list[_Block],
    ) -> Search:
        """A goal search without a remembered prefilter: every candidate is read once (its size
        orders the search), but its needles are looked for only when the search reaches it, so a
        positive answer stops scanning where it stops parsing. What is left is scanned when someone
        asks for every candidate (`Search.candidates`, `ranked`), or when the goal is never met: only
        absence needs the whole scope. The prefilter remembered on disk says which files it covered.
        """
        clauses, met = None, None
        if requires is not None:
            clauses = {name: _frozen(requires(language)) for name, language in listing.languages.items()}
            met = self._met.setdefault(tuple(sorted(clauses.items())), {})
        # Kept for a later search with these needles as far as the walk goes: the rest is unjudged.
        kept = self._kept[key] = _Kept(listing, unjudged=set(listing.language))
        walk = _Walk(self, listing, order, wanted, listing.forced(inside), clauses, met, kept, result)
        result.walk = walk
        try:
            self._parse_walking(goal, walk, result)
        finally:
            self.flush()
        skipped = sum(1 for verdict in walk.verdicts.values() if verdict == _SKIPPED)
        result.searched -= skipped
        result.unsupported += skipped
        if record.key is not None:
            record.note(walk.verdicts)
            record.uncovered.extend(path for path, _ in listing.files if path not in walk.verdicts and path in listing.clean)
            self._remember(record)
            self.flush()
        result.hits = [(path, self._facts[path]) for path in result.found if path in self._facts]
        return result

    def _parse_walking(self, goal: Goal, walk: _Walk, result: Search) -> None:
        """`_parse_until` on a lazy prefilter: the same files parsed in the same order (likely production
        code, likely tests, likely examples and vendored code, each smallest first, then the unlikely
        ones smallest first), judged as they are reached."""
        self._preload(walk.listing.files)
        known = [(path, self._facts[path]) for path in walk.judge([path for path, _ in walk.listing.files if path in self._facts])]
        met = sum(1 for path, facts in known if goal.satisfied(path, facts))
        settled = any(goal.settled_by(path, facts) for path, facts in known)
        later: list[tuple[str, Language, bytes]] = []
        likely_file = self._likely(goal)
        for kind, path, language in walk.candidates():
            if path in self._facts:
                continue  # counted above
            if met >= goal.files:
                result.unexamined = 1  # at least this one
                return
            data = self._candidate_bytes(path, result)
            if data is None or self._cached_untracked(path, language, data):
                if path in self._facts:
                    met += goal.satisfied(path, self._facts[path])
                    settled = settled or goal.settled_by(path, self._facts[path])
                continue
            rank = (LIKELY, LIKELY_TEST, LIKELY_ASIDE)[kind]
            # Past production code, a goal done at this rank is done at every later one: an unlikely
            # candidate here would be parsed later still, so it stops the search as a likely one does.
            likely = likely_file is None or likely_file(path, language, lambda: data)
            if (likely or rank != LIKELY) and goal.done(met, rank, settled):
                result.unexamined = 1 + len(later)  # at least
                return
            if not likely:
                later.append((path, language, data))
                continue
            met, settled = self._parse_one(goal, path, language, data, met, settled)
        later.sort(key=lambda item: (len(item[2]), item[0]))
        for done, (path, language, data) in enumerate(later):
            if goal.done(met, UNLIKELY, settled):
                result.unexamined = len(later) - done
                return
            met, settled = self._parse_one(goal, path, language, data, met, settled)

    def _parse_one(self, goal: Goal, path: str, language: Language, data: bytes, met: int, settled: bool) -> tuple[int, bool]:
        """Parse one candidate of a goal search: how many files satisfy the goal now, and whether one settles it."""
        self.context.check_deadline()
        facts = self._extract(path, language, data)
        self._store(path, language, data, facts)
        return met + goal.satisfied(path, facts), settled or goal.settled_by(path, facts)

    def ranked(self, search: Search) -> Iterator[str]:
        """A search's candidates as `cite` reads them: production code, tests, examples, vendored code,
        each smallest first, then by path. A goal search that stopped early scans the files it had not
        reached only as far as this is read (examples and vendored code, last, are scanned whole)."""
        def key(path: str) -> tuple[int, int, str]:
            return (_CITED.index(classify(path)), self.size(path), path)

        answer = search.answer
        if search.walk is None and answer is not None and answer.version == search.version:
            # A kept goal search: its order is patched per changed file, not sorted again per recall.
            if answer.order is None:
                answer.order = sorted(map(key, search.found))
                answer.placed = {place[2]: place for place in answer.order}
            yield from [path for _, _, path in answer.order]
            return
        if search.walk is None:
            yield from sorted(search.found, key=key)
            return
        for kind, path, _ in search.walk.candidates():
            if kind == _ASIDE_KIND:
                break
            self.context.shared.read(path)
            yield path
        yield from sorted((path for path in search.candidates if _KIND.get(classify(path), _ASIDE_KIND) == _ASIDE_KIND), key=key)

    def _prefilter(self, scope: str | None, listing: _Listing, wanted: dict[str, Sequence[bytes]], result: Search) -> _Verdicts:
        """The prefilter's verdicts on the files of a listing. The first search with these needles
        judges the files no record on disk speaks for; a later one only the files changed since."""
        key = _needles_key(scope, wanted)
        kept = self._kept.get(key)
        if kept is not None:
            judged = self._judge(kept.undecided(listing), wanted, result)
            kept.note(judged)
            return kept.found(listing, judged)
        record = _Prefilter(self._prefilter_key(listing, wanted), listing.clean)
        known = self._recorded(record.key)
        found = _Verdicts.recalled(known, listing) if known is not None else _Verdicts()
        judged = self._judge(listing.undecided(known), wanted, result)
        found.note(judged)
        if known is None:
            record.note(judged)
            self._remember(record)
        self._kept[key] = _Kept.of(listing, found)
        return found

    def _judge(self, files: list[tuple[str, Language]], wanted: Mapping[str, Sequence[bytes]], result: Search) -> dict[str, str]:
        """The prefilter's verdict on each file: hit, miss, skipped (binary, oversized) or unreadable.

        Needle by needle over all files, so the per-file work stays in
        comprehensions; a file's bytes are read once and kept, and each
        needle's answer per file is remembered, since anchors of one kind
        share needles (every `env:` anchor looks for the environment readers).
        """
        verdicts: dict[str, str] = {}
        by_language: dict[str, list[str]] = {}
        names = {language.name for _, language in files}
        if len(names) == 1:  # a block of a walk is mostly of one language: no loop per file to group it
            by_language[names.pop()] = [path for path, _ in files]
        else:
            for path, language in files:
                by_language.setdefault(language.name, []).append(path)
        for name, paths in by_language.items():
            needles = wanted[name]
            for at, needle in enumerate(needles):
                seen = self._contains.setdefault(needle, {})
                unseen = [p for p in paths if p not in seen]
                if self._scan_kept(needle, unseen, seen):
                    paths = [p for p in paths if not seen[p]] if self._hits_among(paths, seen, verdicts) else paths
                    continue
                for path in [p for p in unseen if p not in seen]:
                    self.context.check_deadline()  # between files: the first search reads the whole tree
                    data = self._candidate_bytes(path, result)
                    if data is None:
                        verdicts[path] = _SKIPPED if path in self._skipped else _UNREADABLE
                        if path in self._oversized and _holds_any(self.repo.resolve(path), needles):
                            verdicts[path] = _UNREADABLE  # a candidate too large to parse: absence is unproven
                            result.unreadable.append(path)
                        continue
                    seen[path] = needle in data
                    if path not in self._bytes:  # past the memory kept: answer every needle now, not read again
                        for later in needles[at + 1 :]:
                            self._contains.setdefault(later, {})[path] = later in data
                paths = [p for p in paths if p in seen]  # drops the files just found skipped or unreadable
                if self._hits_among(paths, seen, verdicts):
                    paths = [p for p in paths if not seen[p]]
            verdicts.update(dict.fromkeys(paths, _MISS))
        return verdicts

    def _scan_kept(self, needle: bytes, paths: list[str], seen: dict[str, bool]) -> bool:
        """Whether the kept bytes of these files hold the needle, into `seen`: the arena's scan for the files
        it holds, a comprehension for those kept past it. True when every file was kept (all answered)."""
        arena, kept = self._arena, self._bytes
        held = arena.held(paths)
        if held:
            hits = arena.holding(needle, held)
            seen.update({p: p in hits for p in held})
            if len(held) == len(paths):
                return True
            paths = [p for p in paths if p not in arena]
        answered = [p for p in paths if p in kept]
        seen.update({p: needle in kept[p] for p in answered})
        return len(answered) == len(paths)

    @staticmethod
    def _hits_among(paths: list[str], seen: Mapping[str, bool], verdicts: dict[str, str]) -> bool:
        """Note the files that hold the needle as hits; whether there were any."""
        hits = [p for p in paths if seen[p]]
        verdicts.update(dict.fromkeys(hits, _HIT))
        return bool(hits)

    def _meets(self, path: str, clauses: Sequence[Clause], met: dict[str, bool]) -> bool:
        """Whether a file meets every clause (one it cannot be read to judge may), kept in `met` until
        the file changes when its bytes answered every needle asked."""
        if path in met:
            return met[path]
        directories = path.split("/")[:-1]
        answered = True
        for needles, directory in clauses:
            if directory is not None and directory in directories:
                continue
            held = [self.contains(path, needle) for needle in needles]
            answered = answered and None not in held
            if all(spelled is False for spelled in held):
                met[path] = False
                return False
        if answered:
            met[path] = True
        return True

    def _unknown(self, candidates: list[tuple[str, Language]]) -> list[tuple[str, Language]]:
        """Candidates whose facts neither memory nor the disk cache (by git blob id) knows."""
        self._preload(candidates)
        return [(path, language) for path, language in candidates if path not in self._facts]

    def _pending(self, unknown: list[tuple[str, Language]], result: Search) -> Iterator[tuple[str, Language, bytes]]:
        """The bytes of files to parse, less untracked ones whose content the disk cache knows by hash.
        Read lazily, so that worker processes parse the first files while later ones are read."""
        for path, language in unknown:
            data = self._candidate_bytes(path, result)
            if data is not None and not self._cached_untracked(path, language, data):
                yield path, language, data

    def _prefilter_key(self, listing: _Listing, wanted: dict[str, Sequence[bytes]]) -> str | None:
        """Names the tracked files of a search (as staged) and the needles: what a recorded prefilter answers."""
        if self.cache is None or listing.staged is None:
            return None
        digest = hashlib.sha1(f"{FACTS_VERSION}\0{self.repo.max_file_size}\0{sorted(wanted.items())!r}\0{listing.staged}".encode())  # noqa: S324
        return f"prefilter:{digest.hexdigest()}"

    def _recorded(self, key: str | None) -> _Recorded | None:
        if key is None or self.cache is None:
            return None
        found = self.cache.get_many([key]).get(key)
        try:
            return _Recorded.from_dict(found) if found is not None else None
        except (KeyError, TypeError, ValueError):
            return None  # a well-formed row of the wrong shape: judge the files again

    def _remember(self, record: _Prefilter) -> None:
        if self.cache is not None and record.key is not None:
            self.cache.put(record.key, record.to_dict())

    def _candidate_bytes(self, path: str, result: Search) -> bytes | None:
        """The bytes a search judges, or None for a file that is not source after all (binary,
        over the size cap: remembered in `_skipped`) or cannot be read (added to `result`)."""
        data = self._bytes.get(path)
        if data is not None or path in self._skipped:
            return data
        try:
            data = self.repo.read_bytes(path)
        except FileTooLargeError:
            self._skipped.add(path)  # skipped as `Repository.files` skips it
            self._oversized.add(path)
            return None
        except (OSError, UnsafePathError):
            result.unreadable.append(path)
            return None
        if looks_binary(data):
            self._skipped.add(path)
            return None
        self._keep(path, data)
        return data

    def _parse_until(self, goal: Goal, answer: _Answer, result: Search) -> None:
        """Parse likely files first until the goal is met; what is left unparsed is counted as unexamined.

        Facts already known count first: when they meet the goal, no unknown
        candidate is even read (a new process on a warm cache reads nothing).
        """
        if answer.met >= goal.files:
            result.unexamined = len(answer.candidates) - len(answer.known)
            return
        if answer.pending is None:
            answer.pending = []
            unknown = [path for path in answer.candidates if path not in answer.known]
            self._preload([(path, answer.listing.language[path]) for path in unknown])
            for path in unknown:
                if path in self._facts:
                    answer.count(path, self._facts[path], goal)
                else:
                    self._pend(answer, path, goal, result)
        language = answer.listing.language
        likely = self._likely(goal)
        ranked = _likely_first(answer.pending, None if likely is None else lambda path: likely(path, language[path], lambda: self._candidate_bytes(path, result) or b""))
        for rank, path in ranked:
            if goal.done(answer.met, rank, answer.settled > 0):
                break
            self.context.check_deadline()
            data = self._candidate_bytes(path, result)
            if data is None:  # kept bytes dropped and the file gone since: it cannot be parsed now
                continue
            facts = self._extract(path, language[path], data)
            self._store(path, language[path], data, facts)
            answer.count(path, facts, goal)
        result.unexamined = len(answer.pending)

    def everything(self, scope: str | None = None) -> Search:
        """Facts of every source file in scope, prefilter off: the full index (benchmarks, whole-tree reports)."""
        return self.search(scope, lambda language: (), parse_all=True)

    def facts(self, path: str) -> Facts | None:
        """The facts of one file (None when no language plugin parses it); raises OSError/UnsafePathError."""
        self.context.shared.read(path)
        size = self.size(path)
        if size > self.repo.max_file_size:  # as a read would refuse it: facts cached under a larger cap do not answer
            raise FileTooLargeError(path, size, self.repo.max_file_size)
        if path in self._facts:
            return self._facts[path]
        language = self.language(path)
        if language is None:
            return None
        self._preload([(path, language)])
        if path not in self._facts:
            data = self._bytes.get(path)  # a changed file's watch or a search read it: not again
            if data is None:
                data = self.repo.read_bytes(path)
            if not self._cached_untracked(path, language, data):
                self._store(path, language, data, self._extract(path, language, data))
        self.flush()  # also stamps anew an old entry just read, so it outlives a trim
        return self._facts[path]

    def read(self, path: str) -> bytes:
        """A file's bytes: those a search kept, else from the disk (raises OSError/UnsafePathError)."""
        self.context.shared.read(path)
        data = self._bytes.get(path)
        return data if data is not None else self.repo.read_bytes(path)

    def size(self, path: str) -> int:
        """A file's size, without a read or a stat where a search kept its bytes (0 if unreadable),
        remembered until the file changes."""
        self.context.shared.read(path)
        if path not in self._sizes:
            self._sizes[path] = self._size(path)
        return self._sizes[path]

    def _size(self, path: str) -> int:
        data = self._bytes.get(path)
        if data is not None:
            return len(data)
        try:
            resolve = getattr(self.repo, "resolve", None)  # a revision has no working file: read it
            return resolve(path).stat().st_size if resolve is not None else len(self.repo.read_bytes(path))
        except (OSError, UnsafePathError):
            return 0

    def contains(self, path: str, needle: bytes) -> bool | None:
        """Whether a file's bytes hold the needle, None when it cannot be read: answered from what the
        prefilter remembered, or the bytes it kept, before the disk."""
        seen = self._contains.setdefault(needle, {})
        self.context.shared.read(path)
        if path not in seen:
            data = self._bytes.get(path)
            if data is None:
                try:
                    data = self.repo.read_bytes(path)
                except (OSError, UnsafePathError):
                    return None
            seen[path] = needle in data
        return seen[path]

    def judged(self, label: Hashable, path: str, test: Callable[[bytes], bool]) -> bool:
        """Whether a file's bytes pass `test`, remembered under `label` until the file changes: a kind's
        per-file judgement (does it spell an import line of this module?) that every recall would
        otherwise make again. Raises OSError/UnsafePathError."""
        self.context.shared.read(path)
        seen = self._judged.setdefault(label, {})
        if path not in seen:
            data = self._bytes.get(path)
            seen[path] = test(data if data is not None else self.repo.read_bytes(path))
        return seen[path]

    def derived(self, label: Hashable, path: str, work: Callable[[], _T]) -> _T:
        """A value `work` derives from one file's facts and the listing (which of its imports name a
        module), kept under `label` until the file changes or the checkout is listed again: a search's
        goal, its report and `cite` each ask it of the same files at every recall."""
        self.context.shared.read(path)
        seen = self._derived.setdefault(label, {})
        if path not in seen:
            seen[path] = work()
        return seen[path]  # type: ignore[return-value]

    def _likely(self, goal: Goal) -> Callable[[str, Language, Callable[[], bytes]], bool] | None:
        """A goal's `likely` of a file (its bytes read only when needed); with a label, each file's
        answer is kept until the file changes."""
        likely = goal.likely
        if likely is None:
            return None
        if goal.label is None:
            return lambda path, language, read: likely(language, read())
        label = goal.label

        def judge(path: str, language: Language, read: Callable[[], bytes]) -> bool:
            seen = self._judged.setdefault((label, language.name), {})  # as `judged`: what `cite` asks too
            if path not in seen:
                seen[path] = likely(language, read())
            return seen[path]

        return judge

    def flush(self) -> None:
        if self.cache is not None:
            self.cache.flush()

    # -- internals -------------------------------------------------------------

    def _key(self, language: Language, blob: str) -> str:
        return f"{_fingerprint(language)}:{blob}"

    def _preload(self, files: Iterable[tuple[str, Language]]) -> None:
        """Fetch cached facts of tracked, unmodified files in one query: no file is read for them."""
        if self.cache is None:
            return
        blob_ids = self.repo.blob_ids
        keys: dict[str, str] = {}
        for path, language in files:
            if path in self._facts or path in self._preloaded:
                continue
            self._preloaded.add(path)
            blob = blob_ids.get(path)
            if blob:
                keys[self._key(language, blob)] = path
        for key, value in self.cache.get_many(keys).items():
            try:
                self._facts[keys[key]] = Facts.from_dict(value)
            except (KeyError, TypeError, ValueError):
                continue  # a well-formed row of the wrong shape: recompute rather than trust it
            self._learned.append(keys[key])

    def _cached_untracked(self, path: str, language: Language, data: bytes) -> bool:
        """For a file git does not vouch for, look its content up by hash; True when found."""
        if self.cache is None or path in self.repo.blob_ids:
            return False
        key = self._key(language, git_blob_id(data))
        found = self.cache.get_many([key]).get(key)
        if found is None:
            return False
        try:
            self._facts[path] = Facts.from_dict(found)
        except (KeyError, TypeError, ValueError):
            return False
        self._learned.append(path)
        return True

    def _parse(self, pending: Iterable[tuple[str, Language, bytes]], parallel: bool = False) -> None:
        """Parse cache misses: in worker processes when there are many and workers are allowed, or
        when a deadline must hold whatever the files hold (`anchorcheck.evidence.parsepool`).

        Chunks go to the workers as soon as they are read, and are cut by size,
        not count, so that no worker is left with the last large files alone.
        """
        until = self.context.deadline
        if until is not None and self._bounded.usable():
            self.repo.join_prefetch()  # the pool forks: no thread may be mid-call then
            chunks = list(_chunks(pending))
            for chunk, facts_list in zip(chunks, self._bounded.map(_extract_chunk, chunks, until)):
                for (path, language, data), facts in zip(chunk, facts_list):
                    self._store(path, language, data, facts)
            return
        if self._workers > 1 and parallel:
            from concurrent.futures import ProcessPoolExecutor  # a pool is rare: most searches parse a few files

            self.repo.join_prefetch()  # the pool forks: no thread may be mid-call then
            with ProcessPoolExecutor(max_workers=self._workers) as pool:
                try:
                    submitted = [(chunk, pool.submit(_extract_chunk, chunk, until)) for chunk in _chunks(pending)]
                    for chunk, future in submitted:
                        facts_list = future.result()
                        self.context.check_deadline()
                        for (path, language, data), facts in zip(chunk, facts_list):
                            self._store(path, language, data, facts)
                except BaseException:
                    pool.shutdown(cancel_futures=True)
                    raise
            return
        for path, language, data in pending:
            self.context.check_deadline()
            self._store(path, language, data, self._extract(path, language, data))

    def _extract(self, path: str, language: Language, data: bytes) -> Facts:
        """One file's facts: here, or under a deadline in a worker process that can be stopped."""
        until = self.context.deadline
        if until is None or not self._bounded.usable():
            return _extract_or_broken(language, data, until)
        self.repo.join_prefetch()  # the pool forks: no thread may be mid-call then
        return next(self._bounded.map(_extract_chunk, [[(path, language, data)]], until))[0]

    def _keep(self, path: str, data: bytes) -> None:
        """Keep a file's bytes, and their copy in the arena, while both fit in the memory allowed."""
        if path not in self._bytes and 2 * len(data) <= self._bytes_left:
            self._bytes[path] = data
            self._arena.add(path, data)
            self._bytes_left -= 2 * len(data)

    def _store(self, path: str, language: Language, data: bytes, facts: Facts) -> None:
        self.parsed += 1
        self._facts[path] = facts
        self._learned.append(path)
        if self.cache is not None:
            # The hash of the bytes parsed, not git's id for the path: a file edited after git listed
            # it must not file its facts under the old content's id in a cache other checkouts share.
            key = self._key(language, git_blob_id(data))
            self.cache.put(key, facts.to_dict())


PREFILTER_MEMORY = 256 * 1024 * 1024  # bytes of read files kept for later anchors of a Verifier, counted twice (the arena's copy)
PARALLEL_PARSE = 400  # misses below this parse faster here than a pool starts
_CHUNK_BYTES = 256 * 1024  # a worker's share per round trip: about 25 ms of parsing


LIKELY, LIKELY_TEST, LIKELY_ASIDE, UNLIKELY = 0, 1, 2, 3  # the order in which a goal's candidates are parsed
_ASIDE = frozenset({"example", "vendored"})  # evidence there counts, but core code's comes first


def _walk_key(path: str, data: bytes) -> tuple[int, int, str]:
    """The order a lazy prefilter walks files in (`_walk_order`): how the arena lays out what it holds, so
    that each block a walk judges is one run of its bytes."""
    return _KIND.get(classify(path), _ASIDE_KIND), len(data), path


def _likely_first(pending: list[tuple[int, str]], likely: Callable[[str], bool] | None) -> Iterator[tuple[int, str]]:
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


def _needles_key(scope: str | None, wanted: Mapping[str, Sequence[bytes]]) -> Hashable:
    """Names a search's scope and needles: what its kept prefilter verdicts answer."""
    return (scope, tuple(sorted((name, tuple(needles)) for name, needles in wanted.items())))


def _frozen(clauses: Sequence[Clause]) -> tuple[tuple[tuple[bytes, ...], str | None], ...]:
    """A search's `requires` clauses as a key."""
    return tuple((tuple(needles), directory) for needles, directory in clauses)


def _chunks(pending: Iterable[tuple[str, Language, bytes]]) -> Iterator[list[tuple[str, Language, bytes]]]:
    chunk: list[tuple[str, Language, bytes]] = []
    size = 0
    for item in pending:
        chunk.append(item)
        size += len(item[2])
        if size >= _CHUNK_BYTES:
            yield chunk
            chunk, size = [], 0
    if chunk:
        yield chunk


def _extract_chunk(chunk: list[tuple[str, Language, bytes]], until: float | None) -> list[Facts]:
    """A worker's share: `until` is a `time.monotonic()` deadline, the same clock in every process of
    this machine (CLOCK_MONOTONIC, mach_absolute_time, QueryPerformanceCounter are system-wide)."""
    return [_extract_or_broken(language, data, until) for _, language, data in chunk]


def _extract_or_broken(language: Language, data: bytes, until: float | None = None) -> Facts:
    """A language plugin that fails on one file makes that file unparseable, not the search; a file
    the deadline cut short raises BudgetExceeded, and nothing about it is remembered."""
    try:
        return extract_facts(language, data, until)
    except BudgetExceeded:
        raise
    except Exception:  # noqa: BLE001 - contained to the file, reported as its error line
        return Facts(error=1)


_QUERIES: dict[str, _Queries] = {}
_READ_CHUNK = 1 << 16  # bytes handed to tree-sitter per read callback of a bounded parse
PARSE_BUDGET = 5.0  # seconds one file may parse: 2 MB of real code parses in 0.3 s, a looping grammar never ends


def extract_facts(language: Language, data: bytes, until: float | None = None) -> Facts:
    """Parse bytes with the language's grammar and run its extract function (per process, no I/O).

    With `until` (a `time.monotonic()` deadline) the parse stops at that time,
    through tree-sitter's progress callback, and raises BudgetExceeded. Queries
    cannot be stopped from here (see `anchorcheck.evidence.parsepool`): the caller runs
    this in a worker process it can kill. Without a deadline nothing may hang
    either: a parse past PARSE_BUDGET, or a tree whose error recovery would make
    queries quadratic, gives a file that does not parse cleanly (absence claims
    about it are INCONCLUSIVE), not a stuck process.
    """
    grammar = language.grammar
    if isinstance(grammar, str):
        parser = parser_for(grammar)
    else:
        from tree_sitter import Parser

        parser = Parser(grammar())
    budget = time.monotonic() + PARSE_BUDGET
    try:
        tree = _bounded_parse(parser, data, budget if until is None else min(until, budget))
    except BudgetExceeded:
        if until is not None and time.monotonic() > until:
            raise  # the caller's deadline: nothing about this file is known
        return Facts(error=1)  # the grammar itself loops (a 1 KB TSX input did): unparseable, not a hang
    if not tree.root_node.has_error:
        # A tree parsed through a read callback fetches each node's text through it again (0.3 ms a
        # node on a 100 KB file: extraction took 4x the parse). Parsing the bytes with that tree as the
        # old one reuses every node (0.3-2 ms) and keeps the bytes. A tree with errors may reuse
        # little, which would be a second unbounded parse: it keeps the callback.
        tree = parser.parse(data, old_tree=tree)
    if too_broken_to_query(tree.root_node):
        return Facts(error=first_error_line(tree.root_node))
    queries = _QUERIES.get(language.name)
    if queries is None or queries.language is not language:
        queries = _QUERIES[language.name] = _Queries(language)
    facts: Facts = language.extract(Parsed(tree.root_node, data, queries))  # type: ignore[misc]
    facts.error = first_error_line(tree.root_node)
    return facts


def _bounded_parse(parser, data: bytes, until: float):  # noqa: ANN001, ANN202 - tree_sitter.Parser, Tree
    """Parse through a read callback, which is what lets tree-sitter ask whether to go on."""
    if time.monotonic() > until:
        raise BudgetExceeded()
    try:
        return parser.parse(
            lambda at, _point: data[at : at + _READ_CHUNK],
            progress_callback=lambda _offset, _has_error: time.monotonic() > until,
        )
    except ValueError:  # "Parsing failed": the callback stopped it
        parser.reset()  # else the next parse would resume this one
        if time.monotonic() > until:
            raise BudgetExceeded() from None
        raise


def _holds_any(path: Path, needles: Sequence[bytes], chunk: int = 1 << 20) -> bool:
    """Whether a file too large to read whole holds a needle: read a chunk at a time, each
    overlapping the last by the longest needle, so memory stays bounded whatever the size."""
    overlap = max((len(n) for n in needles), default=1) - 1
    tail = b""
    try:
        with open(path, "rb") as handle:
            while block := handle.read(chunk):
                window = tail + block
                if any(needle in window for needle in needles):
                    return True
                tail = window[-overlap:] if overlap else b""
    except OSError:
        return True  # unreadable now: it may hold one
    return False
