"""Goal searches without a remembered prefilter, run lazily: a file's needles are looked for only when
the search reaches it, so a positive answer stops scanning where it stops parsing."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from anchorcheck.evidence.goals import LIKELY, LIKELY_ASIDE, LIKELY_TEST, UNLIKELY, Search
from anchorcheck.evidence.listing import ASIDE_KIND, WALK_KIND, classify
from anchorcheck.evidence.prefilter import HIT, MISS, SKIPPED, UNREADABLE, Kept, clauses_key

if TYPE_CHECKING:
    from anchorcheck.evidence.bytestore import ByteStore
    from anchorcheck.evidence.facts_store import FactsStore
    from anchorcheck.evidence.goals import Goal
    from anchorcheck.evidence.listing import Block, Listing
    from anchorcheck.evidence.prefilter import Clause, Prefilter, Record
    from anchorcheck.model.registry import Language
    from anchorcheck.repo.context import Context

_BLOCK = 64  # files a lazy prefilter judges at first in one step (doubling each step): a few past where a search stops


class Walk:
    """A goal search's prefilter, run lazily in the order the search parses and `cite` reads its
    candidates: production code, then tests, then examples and vendored code, each smallest first
    (then by path). Every file is read once when the walk starts (its size orders it; binary,
    oversized and unreadable files are told apart then), but its needles are looked for only when
    the walk reaches it, a block at a time, by `Prefilter.judge` as every search judges files."""

    def __init__(
        self,
        prefilter: Prefilter,
        listing: Listing,
        order: list[Block],
        wanted: Mapping[str, Sequence[bytes]],
        forced: set[str],
        clauses: Mapping[str, Sequence[Clause]] | None,
        met: dict[str, bool] | None,
        kept: Kept,
        result: Search,
    ) -> None:
        self.prefilter, self.context, self.listing, self.wanted, self.forced, self.result = prefilter, prefilter.context, listing, wanted, forced, result
        self.clauses, self.met, self.kept_verdicts = clauses, met, kept
        self.verdicts: dict[str, str] = {}  # of every file judged (or skipped, or unreadable)
        self.chosen: set[str] = set()  # the candidates among them
        self.kept: list[tuple[int, str, Language]] = []  # candidates in walk order
        self.blocks = order
        # Binary and oversized files, as every search judges them (an oversized one holding a needle is unreadable).
        self.verdicts.update(prefilter.judge([(path, listing.language[path]) for path in listing.walk_skipped], wanted, result))
        self.verdicts.update(dict.fromkeys(result.unreadable, UNREADABLE))
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
        context = self.context
        context.check_deadline()
        fresh = [(path, language) for path, language in by_place if path not in self.early] if self.early else by_place
        with context.shared.unrecorded():  # what a step adds is declared below
            self.kept_verdicts.note(self._judge_all(fresh))
        added = [(kind, path, language) for kind, path, language in block if path in self.chosen]
        self.kept.extend(added)
        context.shared.read_all([path for _, path, _ in added])
        self.result.found = self._found()
        self.result.ruled_out = self.at - len(self.kept)
        return True

    def _judge_all(self, files: list[tuple[str, Language]]) -> dict[str, str]:
        """The prefilter's verdicts of these files, as every search judges them (`Prefilter.judge`),
        noting the candidates among them: the hits and the readable files forced in, meeting every
        clause. Returns their verdicts."""
        prefilter = self.prefilter
        verdicts = prefilter.judge(files, self.wanted, self.result)
        chosen = {path for path, verdict in verdicts.items() if verdict == HIT}
        if self.forced:
            chosen |= {path for path, verdict in verdicts.items() if verdict == MISS and path in self.forced}
        if self.clauses is not None and self.met is not None:
            clauses, met, language = self.clauses, self.met, self.listing.language
            chosen = {path for path in chosen if prefilter.meets(path, clauses[language[path].name], met)}
        self.chosen.update(chosen)
        self.verdicts.update(verdicts)
        return verdicts


class Walks:
    """The lazy goal searches of one index: the order a listing is walked in, and the walk itself."""

    def __init__(self, context: Context, bytes: ByteStore, prefilter: Prefilter, store: FactsStore) -> None:
        self.context, self.bytes, self.prefilter, self.store = context, bytes, prefilter, store

    def order(self, listing: Listing, result: Search) -> list[Block] | None:
        """The readable files of a listing in the order a lazy prefilter walks them, read once per
        listing (binary and oversized ones in `listing.walk_skipped`, unreadable ones added to `result`).
        None when their bytes do not fit in the memory kept: a walk would read them twice, so such a
        tree is judged whole at one read per search (the file that told is kept past the limit, once)."""
        if listing.walk_order is None or listing.walk_unreadable:
            sized, skipped, unreadable = [], [], []
            scratch = Search()  # unreadable files are reported to `result` below, at every search
            for path, _ in listing.files:
                self.context.check_deadline()  # between files: the first search reads the whole tree
                data = self.bytes.candidate(path, scratch.unreadable)
                if data is not None and path not in self.bytes.data:
                    self.bytes.data[path] = data
                    listing.walk_whole = True
                    return None
                if data is None:
                    (skipped if path in self.bytes.skipped else unreadable).append(path)
                else:
                    sized.append((WALK_KIND.get(classify(path), ASIDE_KIND), len(data), path, len(sized)))
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

    def search(
        self,
        key: Hashable,
        listing: Listing,
        wanted: dict[str, Sequence[bytes]],
        inside: Callable[[Language], str | None] | None,
        goal: Goal,
        requires: Callable[[Language], Sequence[Clause]] | None,
        record: Record,
        result: Search,
        order: list[Block],
    ) -> Search:
        """A goal search without a remembered prefilter: every candidate is read once (its size
        orders the search), but its needles are looked for only when the search reaches it, so a
        positive answer stops scanning where it stops parsing. What is left is scanned when someone
        asks for every candidate (`Search.candidates`, `ranked`), or when the goal is never met: only
        absence needs the whole scope. The prefilter remembered on disk says which files it covered.
        """
        clauses, met = None, None
        if requires is not None:
            clauses = {name: clauses_key(requires(language)) for name, language in listing.languages.items()}
            met = self.prefilter.met.setdefault(tuple(sorted(clauses.items())), {})
        # Kept for a later search with these needles as far as the walk goes: the rest is unjudged.
        kept = self.prefilter.kept[key] = Kept(listing, unjudged=set(listing.language))
        walk = Walk(self.prefilter, listing, order, wanted, listing.forced(inside), clauses, met, kept, result)
        result.walk = walk
        try:
            self._parse_walking(goal, walk, result)
        finally:
            self.store.flush()
        skipped = sum(1 for verdict in walk.verdicts.values() if verdict == SKIPPED)
        result.searched -= skipped
        result.unsupported += skipped
        if record.key is not None:
            record.note(walk.verdicts)
            record.uncovered.extend(path for path, _ in listing.files if path not in walk.verdicts and path in listing.clean)
            self.prefilter.remember(record)
            self.store.flush()
        result.hits = [(path, self.store.facts[path]) for path in result.found if path in self.store.facts]
        return result

    def _parse_walking(self, goal: Goal, walk: Walk, result: Search) -> None:
        """`Searches._parse_until` on a lazy prefilter: the same files parsed in the same order (likely production
        code, likely tests, likely examples and vendored code, each smallest first, then the unlikely
        ones smallest first), judged as they are reached."""
        self.store.preload(walk.listing.files)
        known = [(path, self.store.facts[path]) for path in walk.judge([path for path, _ in walk.listing.files if path in self.store.facts])]
        met = sum(1 for path, facts in known if goal.satisfied(path, facts))
        settled = any(goal.settled_by(path, facts) for path, facts in known)
        later: list[tuple[str, Language, bytes]] = []
        likely_file = self.prefilter.likely(goal)
        for kind, path, language in walk.candidates():
            if path in self.store.facts:
                continue  # counted above
            if met >= goal.files:
                result.unexamined = 1  # at least this one
                return
            data = self.bytes.candidate(path, result.unreadable)
            if data is None or self.store.cached_untracked(path, language, data):
                if path in self.store.facts:
                    met += goal.satisfied(path, self.store.facts[path])
                    settled = settled or goal.settled_by(path, self.store.facts[path])
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
        facts = self.store.extract(path, language, data)
        self.store.add(path, language, data, facts)
        return met + goal.satisfied(path, facts), settled or goal.settled_by(path, facts)
