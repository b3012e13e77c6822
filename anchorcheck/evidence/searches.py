"""Searches of a scope for the files that could hold a kind's evidence, and goal searches kept and
patched per changed file: what `SourceIndex.search` and `SourceIndex.ranked` answer."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from anchorcheck.evidence.facts_store import PARALLEL_PARSE
from anchorcheck.evidence.goals import Answer, Search, likely_first
from anchorcheck.evidence.listing import ASIDE_KIND, CITED, WALK_KIND, classify
from anchorcheck.evidence.prefilter import Record, clauses_key, needles_key
from anchorcheck.evidence.walks import Walks

if TYPE_CHECKING:
    from anchorcheck.evidence.bytestore import ByteStore
    from anchorcheck.evidence.facts_store import FactsStore
    from anchorcheck.evidence.goals import Goal
    from anchorcheck.evidence.listing import Listing, Scopes
    from anchorcheck.evidence.prefilter import Clause, Prefilter, Verdicts
    from anchorcheck.model.registry import Language
    from anchorcheck.repo.context import Context


class Searches:
    """The searches of one index, with each labelled goal search's answer kept to patch (`Answer`)."""

    def __init__(self, context: Context, scopes: Scopes, bytes: ByteStore, prefilter: Prefilter, store: FactsStore) -> None:
        self.context, self.scopes, self.bytes, self.prefilter, self.store = context, scopes, bytes, prefilter, store
        self.walks = Walks(context, bytes, prefilter, store)
        # Per goal search (needles, clauses, goal): its answer, patched per changed file (`Answer`).
        self.answers: dict[Hashable, Answer] = {}

    def forget(self, stale: set[str], relisted: bool) -> None:
        for answer in self.answers.values():
            answer.dirty |= stale
        if relisted:
            self.answers = {}  # worked out again over the new listing

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
            listing = self.scopes.listing(scope)
            wanted = {name: needles(language) for name, language in listing.languages.items()}
            result = self._search(scope, listing, wanted, inside, goal, parse_all, requires)
        kept = self.prefilter.kept.get(needles_key(scope, wanted))
        self._depend(listing, result, wanted, kept.skipped if kept is not None else set(), listing.forces(inside, parse_all))
        return result

    def _depend(
        self, listing: Listing, result: Search, wanted: Mapping[str, Sequence[bytes]], skipped: set[str], forced: Callable[[str], bool]
    ) -> None:
        """What a search's result depends on, for the memo of whoever asked: the files it did not rule out
        (candidates, binary, oversized, unreadable), whatever their change; every other file of the scope
        only if its new bytes hold a needle (a file that `requires` would rule out all the same is searched
        again too: rarely, and never wrongly), or if it came or went where the search takes every file
        (`forced`). Any other file that comes or goes is one it rules out by its bytes or no language
        parses: it moves the counts alone, which follow the listing (`Search.follow`), and a reader of
        them depends on every file of the scope. A walk not run to the end depends on the whole listing
        (what it has yet to judge is laid out from it). A new listing of the checkout drops them all."""
        memo = self.context.shared
        if result.walk is None:
            memo.listed_where(forced)
        else:
            memo.listed()
        holds = listing.holds
        result.follow(listing, lambda: memo.listed_where(holds))
        if result.answer is not None and result.walk is None:
            # A goal search's candidates: its answer's set, patched only for files a `forget` named first.
            memo.read_held(result.answer.chosen)
        else:
            memo.read_all(result.found)  # a lazy search declares what it scans later as it scans it
        memo.read_all(result.unreadable)
        # Skipped (binary, oversized) as read now, or as the prefilter recorded on disk for the same bytes.
        memo.read_all([path for path in self.bytes.skipped | skipped if path in listing.language])
        memo.watch(lambda path: listing.matters(path, wanted, self.bytes.current))

    def _search(
        self,
        scope: str | None,
        listing: Listing,
        wanted: dict[str, Sequence[bytes]],
        inside: Callable[[Language], str | None] | None,
        goal: Goal | None,
        parse_all: bool,
        requires: Callable[[Language], Sequence[Clause]] | None,
    ) -> Search:
        files = listing.files
        result = Search(searched=len(files), unsupported=listing.others)
        key = needles_key(scope, wanted)
        # The first search of a listing reads every file: it judges each as it reads it, as cheap as
        # ordering them (a walk made it 10% slower on Django); the searches after it walk.
        lazy = listing.read and not listing.walk_whole and key not in self.prefilter.kept
        if lazy and goal is not None and goal.likely is not None and not parse_all:
            record = Record(self.prefilter.key(listing, wanted), listing.clean)
            order = self.walks.order(listing, result) if self.prefilter.recorded(record.key) is None else None
            if order is not None:
                return self.walks.search(key, listing, wanted, inside, goal, requires, record, result, order)
        found = self.prefilter.verdicts(scope, listing, wanted, result)
        listing.read = True
        forced = set(listing.language) if parse_all else listing.forced(inside)
        clauses: dict[str, tuple[tuple[tuple[bytes, ...], str | None], ...]] = {}
        met: dict[str, bool] = {}
        if requires is not None:
            clauses = {name: clauses_key(requires(language)) for name, language in listing.languages.items()}
            met = self.prefilter.met.setdefault(tuple(sorted(clauses.items())), {})
        skipped = len(found.skipped)
        result.searched -= skipped
        result.unsupported += skipped
        if goal is not None:
            signature = (key, goal.label, goal.files, goal.likely_required, tuple(sorted(clauses.items())) if requires is not None else None)
            answer = self.answers.pop(signature, None) if goal.label is not None else None
            try:
                if answer is None or answer.listing is not listing or answer.forced != forced or result.unreadable:
                    answer = self.answer(listing, found, forced, clauses if requires is not None else None, met, goal, result)
                else:
                    self._patch(answer, found, clauses if requires is not None else None, met, goal, result)
            finally:
                self.store.flush()
            if goal.label is not None and not result.unreadable:
                self.answers[signature] = answer
            result.ruled_out = len(files) - skipped - len(found.unreadable) - len(answer.candidates)
            result.found = answer.candidates  # not copied: a patch replaces it (`Answer.choose`)
            result.hits = [(path, self.store.facts[path]) for path in sorted(answer.known)]  # in listing order, as candidates
            answer.version += 1
            result.answer, result.version = answer, answer.version
            return result
        chosen = self._chosen(listing, found, forced, clauses if requires is not None else None, met, found.hits | forced)
        candidates = [(path, listing.language[path]) for path in sorted(chosen)]  # in listing order
        result.ruled_out = len(files) - skipped - len(found.unreadable) - len(candidates)
        unknown = self.store.unknown(candidates)
        try:
            self.store.parse(self.store.pending(unknown, result), parallel=len(unknown) >= PARALLEL_PARSE)
        finally:
            self.store.flush()
        result.hits = [(path, self.store.facts[path]) for path, _ in candidates if path in self.store.facts]
        result.found = [path for path, _ in candidates]
        return result

    def _chosen(
        self,
        listing: Listing,
        found: Verdicts,
        forced: set[str],
        clauses: Mapping[str, Sequence[Clause]] | None,
        met: dict[str, bool],
        paths: Iterable[str],
    ) -> set[str]:
        """Which of `paths` are candidates: a prefilter hit, or forced in and readable source, meeting every clause."""
        chosen = {path for path in paths if path in found.hits or (path in forced and path not in found.skipped and path not in found.unreadable)}
        if clauses is not None:
            chosen = {path for path in chosen if self.prefilter.meets(path, clauses[listing.language[path].name], met)}
        return chosen

    def answer(
        self,
        listing: Listing,
        found: Verdicts,
        forced: set[str],
        clauses: Mapping[str, Sequence[Clause]] | None,
        met: dict[str, bool],
        goal: Goal,
        result: Search,
    ) -> Answer:
        """A goal search worked out over every candidate: the answer a later search patches."""
        chosen = self._chosen(listing, found, forced, clauses, met, found.hits | forced)
        answer = Answer(listing, forced, chosen, sorted(chosen))
        self.store.preload([(path, listing.language[path]) for path in answer.candidates])
        for path in answer.candidates:
            if path in self.store.facts:
                answer.count(path, self.store.facts[path], goal)
        self._parse_until(goal, answer, result)
        answer.learned = len(self.store.learned)  # what it parsed is counted
        return answer

    def _patch(
        self,
        answer: Answer,
        found: Verdicts,
        clauses: Mapping[str, Sequence[Clause]] | None,
        met: dict[str, bool],
        goal: Goal,
        result: Search,
    ) -> None:
        """A kept goal search brought up to date: the files changed since are judged again and moved
        in it, the facts learned since are counted, and parsing goes on where the goal now needs it."""
        listing = answer.listing
        dirty = sorted(answer.dirty)
        answer.dirty = set()
        for path in dirty:
            answer.drop(path)  # also a file the listing no longer holds
        chosen = self._chosen(listing, found, answer.forced, clauses, met, [path for path in dirty if path in listing.language])
        answer.choose(dirty, chosen)
        for path in chosen:
            if answer.order is not None:
                answer.placed[path] = place = (CITED.index(classify(path)), self.bytes.size(path), path)
                bisect.insort(answer.order, place)
            self.store.preload([(path, listing.language[path])])
            if answer.pending is not None and path not in self.store.facts:
                self._pend(answer, path, goal, result)
        for path in self.store.learned[answer.learned :]:
            if path in answer.chosen and path not in answer.known and path in self.store.facts:
                answer.count(path, self.store.facts[path], goal)
        self._parse_until(goal, answer, result)
        answer.learned = len(self.store.learned)  # what it parsed is counted

    def _pend(self, answer: Answer, path: str, goal: Goal, result: Search) -> None:
        """An unknown candidate joins the files to parse (unless it cannot be read, or the disk cache
        knows its content by hash, when it counts at once)."""
        data = self.bytes.candidate(path, result.unreadable)
        if data is None:
            return
        if self.store.cached_untracked(path, answer.listing.language[path], data):
            answer.count(path, self.store.facts[path], goal)
        else:
            answer.pend(path, len(data))

    def _parse_until(self, goal: Goal, answer: Answer, result: Search) -> None:
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
            self.store.preload([(path, answer.listing.language[path]) for path in unknown])
            for path in unknown:
                if path in self.store.facts:
                    answer.count(path, self.store.facts[path], goal)
                else:
                    self._pend(answer, path, goal, result)
        language = answer.listing.language
        likely = self.prefilter.likely(goal)
        ranked = likely_first(answer.pending, None if likely is None else lambda path: likely(path, language[path], lambda: self.bytes.candidate(path, result.unreadable) or b""))
        for rank, path in ranked:
            if goal.done(answer.met, rank, answer.settled > 0):
                break
            self.context.check_deadline()
            data = self.bytes.candidate(path, result.unreadable)
            if data is None:  # kept bytes dropped and the file gone since: it cannot be parsed now
                continue
            facts = self.store.extract(path, language[path], data)
            self.store.add(path, language[path], data, facts)
            answer.count(path, facts, goal)
        result.unexamined = len(answer.pending)

    def ranked(self, search: Search) -> Iterator[str]:
        """A search's candidates as `cite` reads them: production code, tests, examples, vendored code,
        each smallest first, then by path. A goal search that stopped early scans the files it had not
        reached only as far as this is read (examples and vendored code, last, are scanned whole)."""
        def key(path: str) -> tuple[int, int, str]:
            return (CITED.index(classify(path)), self.bytes.size(path), path)

        answer = search.answer
        if search.walk is None and answer is not None and answer.version == search.version:
            # A kept goal search: its order is patched per changed file, not sorted again per recall.
            if answer.order is None:
                answer.order = sorted(map(key, search.found))
                answer.placed = {place[2]: place for place in answer.order}
            for _, _, path in list(answer.order):  # a copy: read lazily, patched by a later search
                yield path
            return
        if search.walk is None:
            yield from sorted(search.found, key=key)
            return
        for kind, path, _ in search.walk.candidates():
            if kind == ASIDE_KIND:
                break
            self.context.shared.read(path)
            yield path
        yield from sorted((path for path in search.candidates if WALK_KIND.get(classify(path), ASIDE_KIND) == ASIDE_KIND), key=key)
