"""The byte prefilter: which files of a listing could hold a search's evidence, judged from their bytes.

A file whose bytes lack every needle of its language cannot hold the evidence,
so it is ruled out unparsed. Verdicts are per file, a function of its bytes and
the needles alone: kept per search (scope, needles) for a long-lived index, so
that after an edit only the changed files are judged again, and remembered on
disk per tree state for the files git vouches for, so that a later process
judges only the files git says changed.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from anchorcheck.base import digests
from anchorcheck.evidence.extraction import FACTS_VERSION
from anchorcheck.repo.paths import UnsafePathError

if TYPE_CHECKING:
    from anchorcheck.evidence.bytestore import ByteStore
    from anchorcheck.evidence.cache import FactsCache
    from anchorcheck.evidence.goals import Goal, Search
    from anchorcheck.evidence.listing import Listing
    from anchorcheck.model.registry import Language
    from anchorcheck.repo.context import Context

Clause = tuple[Sequence[bytes], str | None]  # needles a file spells one of, or a directory it lies below

HIT, MISS, SKIPPED, UNREADABLE = "hit", "miss", "skipped", "unreadable"


class Record:
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
            if path not in self.clean or verdict == UNREADABLE:
                self.uncovered.append(path)
            elif verdict == HIT:
                self.hits.append(path)
            elif verdict == SKIPPED:
                self.skipped.append(path)

    def to_dict(self) -> dict[str, list[str]]:
        return {"hits": self.hits, "skipped": self.skipped, "uncovered": self.uncovered}


class Recorded:
    """A remembered prefilter: the verdict of every clean file it covered."""

    __slots__ = ("hits", "skipped", "uncovered")

    def __init__(self, hits: frozenset[str], skipped: frozenset[str], uncovered: frozenset[str]) -> None:
        self.hits, self.skipped, self.uncovered = hits, skipped, uncovered

    @classmethod
    def from_dict(cls, data: dict[str, list[str]]) -> Recorded:
        parts = [data["hits"], data["skipped"], data["uncovered"]]
        if not all(isinstance(part, list) and all(isinstance(p, str) for p in part) for part in parts):
            raise TypeError("a prefilter record holds lists of paths")
        return cls(*(frozenset(part) for part in parts))


class Verdicts:
    """The prefilter's verdicts of a search: hits, and the files that are neither hit nor miss."""

    __slots__ = ("hits", "skipped", "unreadable")

    def __init__(self, hits: set[str] | None = None, skipped: set[str] | None = None, unreadable: set[str] | None = None) -> None:
        self.hits = set() if hits is None else hits
        self.skipped = set() if skipped is None else skipped
        self.unreadable = set() if unreadable is None else unreadable

    @classmethod
    def recalled(cls, known: Recorded, listing: Listing) -> Verdicts:
        """A remembered prefilter's verdicts of the files it still speaks for (clean, covered)."""
        return cls(listing.still_clean(known.hits), listing.still_clean(known.skipped))

    def note(self, verdicts: Mapping[str, str]) -> None:
        for path, verdict in verdicts.items():
            if verdict == HIT:
                self.hits.add(path)
            elif verdict == SKIPPED:
                self.skipped.add(path)
            elif verdict == UNREADABLE:
                self.unreadable.add(path)


class Kept:
    """A search's prefilter verdicts as a long-lived index keeps them: per file, a function of its
    bytes and the needles alone, so after an edit only the changed files are judged again
    (`Prefilter.forget` takes them out). Unreadable files are never kept: judged at every search."""

    __slots__ = ("listing", "verdicts", "hits", "skipped", "unjudged", "trimmed")

    def __init__(
        self, listing: Listing, verdicts: dict[str, str] | None = None, hits: set[str] | None = None, skipped: set[str] | None = None, unjudged: set[str] | None = None
    ) -> None:
        self.listing = listing  # the listing judged last: while it stands, only `unjudged` paths can lack a verdict
        self.verdicts = {} if verdicts is None else verdicts  # path -> hit, miss or skipped
        self.hits = set() if hits is None else hits
        self.skipped = set() if skipped is None else skipped
        self.unjudged = set() if unjudged is None else unjudged  # changed since, or unreadable
        # The listing `hits` and `skipped` were last cut down to: while it stands, what `note` adds is
        # of its files and what leaves it is `forget`-ed, so they need no cutting again per search.
        self.trimmed: Listing | None = None

    @classmethod
    def of(cls, listing: Listing, found: Verdicts) -> Kept:
        verdicts = {path: MISS for path in listing.language if path not in found.unreadable}
        verdicts.update(dict.fromkeys(found.hits, HIT))
        verdicts.update(dict.fromkeys(found.skipped, SKIPPED))
        return cls(listing, verdicts, set(found.hits), set(found.skipped), set(found.unreadable))

    def undecided(self, listing: Listing) -> list[tuple[str, Language]]:
        """The files of `listing` without a verdict, in listing order."""
        if listing is not self.listing:  # listed again: files may have come
            self.listing = listing
            return [(path, language) for path, language in listing.files if path not in self.verdicts]
        todo = [path for path in self.unjudged if path in listing.language]
        return [(path, listing.language[path]) for path in sorted(todo)]  # a listing is in path order

    def note(self, verdicts: Mapping[str, str]) -> None:
        # In comprehensions: a lazy search notes every file of the tree, a block at a time.
        unreadable = {path for path, verdict in verdicts.items() if verdict == UNREADABLE}
        judged = {path: verdict for path, verdict in verdicts.items() if verdict != UNREADABLE} if unreadable else verdicts
        self.unjudged.difference_update(judged)
        self.unjudged |= unreadable
        self.verdicts.update(judged)
        self.hits.update([path for path, verdict in judged.items() if verdict == HIT])
        self.skipped.update([path for path, verdict in judged.items() if verdict == SKIPPED])

    def found(self, listing: Listing, judged: Mapping[str, str]) -> Verdicts:
        """The verdicts of this listing's files (`judged`: those just judged, unreadable ones among them);
        the hits and skipped files are the kept sets themselves, for the caller to read at once."""
        if listing is not self.trimmed:
            self.hits &= listing.language.keys()
            self.skipped &= listing.language.keys()
            self.trimmed = listing
        return Verdicts(self.hits, self.skipped, {path for path, verdict in judged.items() if verdict == UNREADABLE})

    def forget(self, stale: set[str]) -> None:
        for path in stale & self.verdicts.keys():
            del self.verdicts[path]
        self.hits -= stale
        self.skipped -= stale
        self.unjudged |= stale


class Prefilter:
    """The prefilter's verdicts and every judgement of a file's bytes an index keeps: whether a file holds
    a needle, meets a search's clauses, or passes a kind's test (`judged`), until the file changes."""

    def __init__(self, context: Context, cache: FactsCache | None, bytes: ByteStore) -> None:
        self.context = context
        self.repo = context.repo
        self.cache = cache
        self.bytes = bytes
        self.seen: dict[bytes, dict[str, bool]] = {}  # needle -> path -> whether its bytes hold it
        self.judgements: dict[Hashable, dict[str, bool]] = {}  # label -> path -> a kind's judgement of its bytes
        # Per search (scope, needles): the prefilter's verdicts, and per `requires` clauses whether each
        # file meets them; both per file, so an edit costs a judgement of the edited file only.
        self.kept: dict[Hashable, Kept] = {}
        self.met: dict[Hashable, dict[str, bool]] = {}

    def succeed(self, old: Prefilter, stale: set[str]) -> None:
        """Take over which files held which needle, but for the `stale` ones."""
        self.seen = {needle: {p: v for p, v in seen.items() if p not in stale} for needle, seen in old.seen.items()}

    def forget(self, stale: set[str]) -> None:
        for known in (*self.seen.values(), *self.judgements.values(), *self.met.values()):
            for path in stale:
                known.pop(path, None)
        for kept in self.kept.values():
            kept.forget(stale)

    def verdicts(self, scope: str | None, listing: Listing, wanted: dict[str, Sequence[bytes]], result: Search) -> Verdicts:
        """The prefilter's verdicts on the files of a listing. The first search with these needles
        judges the files no record on disk speaks for; a later one only the files changed since."""
        key = needles_key(scope, wanted)
        kept = self.kept.get(key)
        if kept is not None:
            judged = self.judge(kept.undecided(listing), wanted, result)
            kept.note(judged)
            return kept.found(listing, judged)
        record = Record(self.key(listing, wanted), listing.clean)
        known = self.recorded(record.key)
        found = Verdicts.recalled(known, listing) if known is not None else Verdicts()
        judged = self.judge(listing.undecided(known), wanted, result)
        found.note(judged)
        if known is None:
            record.note(judged)
            self.remember(record)
        self.kept[key] = Kept.of(listing, found)
        return found

    def judge(self, files: list[tuple[str, Language]], wanted: Mapping[str, Sequence[bytes]], result: Search) -> dict[str, str]:
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
                seen = self.seen.setdefault(needle, {})
                unseen = [p for p in paths if p not in seen]
                if self._scan_kept(needle, unseen, seen):
                    paths = [p for p in paths if not seen[p]] if self._hits_among(paths, seen, verdicts) else paths
                    continue
                for path in [p for p in unseen if p not in seen]:
                    self.context.check_deadline()  # between files: the first search reads the whole tree
                    data = self.bytes.candidate(path, result.unreadable)
                    if data is None:
                        verdicts[path] = SKIPPED if path in self.bytes.skipped else UNREADABLE
                        if path in self.bytes.oversized and holds_any(self.repo.resolve(path), needles):
                            verdicts[path] = UNREADABLE  # a candidate too large to parse: absence is unproven
                            result.unreadable.append(path)
                        continue
                    seen[path] = needle in data
                    if path not in self.bytes.data:  # past the memory kept: answer every needle now, not read again
                        for later in needles[at + 1 :]:
                            self.seen.setdefault(later, {})[path] = later in data
                paths = [p for p in paths if p in seen]  # drops the files just found skipped or unreadable
                if self._hits_among(paths, seen, verdicts):
                    paths = [p for p in paths if not seen[p]]
            verdicts.update(dict.fromkeys(paths, MISS))
        return verdicts

    def _scan_kept(self, needle: bytes, paths: list[str], seen: dict[str, bool]) -> bool:
        """Whether the kept bytes of these files hold the needle, into `seen`: the arena's scan for the files
        it holds, a comprehension for those kept past it. True when every file was kept (all answered)."""
        arena, kept = self.bytes.arena, self.bytes.data
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
        verdicts.update(dict.fromkeys(hits, HIT))
        return bool(hits)

    def meets(self, path: str, clauses: Sequence[Clause], met: dict[str, bool]) -> bool:
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

    def contains(self, path: str, needle: bytes) -> bool | None:
        """Whether a file's bytes hold the needle, None when it cannot be read: answered from what the
        prefilter remembered, or the bytes it kept, before the disk."""
        seen = self.seen.setdefault(needle, {})
        self.context.shared.read(path)
        if path not in seen:
            data = self.bytes.data.get(path)
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
        seen = self.judgements.setdefault(label, {})
        if path not in seen:
            data = self.bytes.data.get(path)
            seen[path] = test(data if data is not None else self.repo.read_bytes(path))
        return seen[path]

    def likely(self, goal: Goal) -> Callable[[str, Language, Callable[[], bytes]], bool] | None:
        """A goal's `likely` of a file (its bytes read only when needed); with a label, each file's
        answer is kept until the file changes."""
        likely = goal.likely
        if likely is None:
            return None
        if goal.label is None:
            return lambda path, language, read: likely(language, read())
        label = goal.label

        def judge(path: str, language: Language, read: Callable[[], bytes]) -> bool:
            seen = self.judgements.setdefault((label, language.name), {})  # as `judged`: what `cite` asks too
            if path not in seen:
                seen[path] = likely(language, read())
            return seen[path]

        return judge

    def key(self, listing: Listing, wanted: dict[str, Sequence[bytes]]) -> str | None:
        """Names the tracked files of a search (as staged) and the needles: what a recorded prefilter answers."""
        if self.cache is None or listing.staged is None:
            return None
        digest = digests.sha1(f"{FACTS_VERSION}\0{self.repo.max_file_size}\0{sorted(wanted.items())!r}\0{listing.staged}".encode())
        return f"prefilter:{digest.hexdigest()}"

    def recorded(self, key: str | None) -> Recorded | None:
        if key is None or self.cache is None:
            return None
        found = self.cache.get_many([key]).get(key)
        try:
            return Recorded.from_dict(found) if found is not None else None
        except (KeyError, TypeError, ValueError):
            return None  # a well-formed row of the wrong shape: judge the files again

    def remember(self, record: Record) -> None:
        if self.cache is not None and record.key is not None:
            self.cache.put(record.key, record.to_dict())


def needles_key(scope: str | None, wanted: Mapping[str, Sequence[bytes]]) -> Hashable:
    """Names a search's scope and needles: what its kept prefilter verdicts answer."""
    return (scope, tuple(sorted((name, tuple(needles)) for name, needles in wanted.items())))


def clauses_key(clauses: Sequence[Clause]) -> tuple[tuple[tuple[bytes, ...], str | None], ...]:
    """A search's `requires` clauses as a key."""
    return tuple((tuple(needles), directory) for needles, directory in clauses)


def holds_any(path: Path, needles: Sequence[bytes], chunk: int = 1 << 20) -> bool:
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
