"""The source index: lazy per-file facts behind a byte prefilter and a content-keyed cache.

An anchor asks for the files of a scope that could hold its evidence; a file
whose bytes lack every needle cannot, so it is ruled out without parsing.
Only the files that pass are parsed (once per content, thanks to the cache),
which is what keeps a closed-world search cheap enough for every recall.

`SourceIndex` is what kinds talk to; it is made of parts, each with its own state:
the listings of scopes (`listing`), the kept bytes (`bytestore`), the prefilter's
and the kinds' judgements of those bytes (`prefilter`), the facts and their parsing
(`facts_store`, `extraction`), and the searches with their kept answers
(`searches`, `walks`, `goals`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, TypeVar

from anchorcheck.evidence.bytestore import ByteStore
from anchorcheck.evidence.cache import open_cache
from anchorcheck.evidence.extraction import definitions_only
from anchorcheck.evidence.facts_store import FactsStore
from anchorcheck.evidence.listing import Scopes
from anchorcheck.evidence.prefilter import Prefilter
from anchorcheck.evidence.searches import Searches
from anchorcheck.repo.safe_read import FileTooLargeError

if TYPE_CHECKING:
    from anchorcheck.evidence.cache import FactsCache
    from anchorcheck.evidence.facts import Facts
    from anchorcheck.evidence.goals import Goal, Search
    from anchorcheck.evidence.prefilter import Clause
    from anchorcheck.model.registry import Language
    from anchorcheck.repo.context import Context

_T = TypeVar("_T")


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
        self.scopes = Scopes(context)
        self.bytes = ByteStore(context)
        self.prefilter = Prefilter(context, self.cache, self.bytes)
        self.store = FactsStore(context, self.cache, self.bytes)
        self.searches = Searches(context, self.scopes, self.bytes, self.prefilter, self.store)

    @property
    def parsed(self) -> int:
        """Files parsed by this index (cache misses): for benchmarks and tests."""
        return self.store.parsed

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
            index.scopes.kept_from(old.scopes)
        index.store.succeed(old.store, stale)
        index.bytes.succeed(old.bytes, stale)
        index.prefilter.succeed(old.prefilter, stale)
        return context.memo("anchorcheck.evidence.index", lambda: index)

    def forget(self, stale: Iterable[str], relisted: bool, moved: tuple[set[str], set[str]] | None = None) -> None:
        """Files changed, added or removed since this index looked (a long-lived Verifier's refresh):
        what it knew of them goes, they are read and parsed again when asked for. Unless the checkout
        was `relisted`, its scopes' listings are kept, with git no longer vouching for the changed files;
        `moved`: the files the checkout's listing took in and let go one by one, which they follow
        (what was derived from a file's facts and the listing is worked out again)."""
        stale = set(stale)
        self.bytes.forget(stale)
        self.store.forget(stale, relisted or moved is not None)
        self.prefilter.forget(stale)
        self.searches.forget(stale, relisted)
        if moved is not None:
            self.scopes.patch(*moved)
        self.scopes.forget(stale, relisted)

    def language(self, path: str) -> Language | None:
        return self.scopes.language(path)

    def sources(self, scope: str | None) -> tuple[list[tuple[str, Language]], int]:
        """The files of a scope that some language plugin parses, and how many others there were."""
        listing = self.scopes.listing(scope)
        return listing.files, listing.others

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
        """Facts of the files in scope whose bytes contain one of their language's needles (`Searches.search`)."""
        return self.searches.search(scope, needles, inside, goal, parse_all=parse_all, requires=requires)

    def everything(self, scope: str | None = None) -> Search:
        """Facts of every source file in scope, prefilter off: the full index (benchmarks, whole-tree reports)."""
        return self.search(scope, lambda language: (), parse_all=True)

    def ranked(self, search: Search) -> Iterator[str]:
        """A search's candidates as `cite` reads them (`Searches.ranked`)."""
        return self.searches.ranked(search)

    def facts(self, path: str) -> Facts | None:
        """The facts of one file (None when no language plugin parses it); raises OSError/UnsafePathError."""
        unknown = self._unknown(path)
        if unknown is not None:
            self._extract(path, *unknown)
        return self.store.facts.get(path)

    def definitions(self, path: str) -> list[tuple[str, int]] | None:
        """What one file defines (`Facts.defs`, or its first entries): from its facts when they are
        known, else, where its language says them from the tree alone, without extracting the rest
        (`extraction.definitions_only`): what a `sym:` anchor on a file just edited needs. A name not
        there may still be in the full facts (an attribute, a run-time member): ask `facts` then.
        None when no language plugin parses the file; raises OSError/UnsafePathError as `facts`."""
        unknown = self._unknown(path)
        if unknown is not None:
            defined = definitions_only(*unknown, self.context.deadline, self.store.named + path)
            if defined is not None:
                return defined
            self._extract(path, *unknown)
        facts = self.store.facts.get(path)
        return facts.defs if facts is not None else None

    def _unknown(self, path: str) -> tuple[Language, bytes] | None:
        """A file's language and bytes when its facts are still to be extracted: not known here, nor in
        the cache. None when they are known (`store.facts`), or no language plugin parses the file."""
        self.context.shared.read(path)
        size = self.size(path)
        if size > self.repo.max_file_size:  # as a read would refuse it: facts cached under a larger cap do not answer
            raise FileTooLargeError(path, size, self.repo.max_file_size)
        store = self.store
        if path in store.facts:
            return None
        language = self.language(path)
        if language is None:
            return None
        store.preload([(path, language)])
        if path not in store.facts:
            data = self.bytes.data.get(path)  # a changed file's watch or a search read it: not again
            if data is None:
                data = self.repo.read_bytes(path)
            if not store.cached_untracked(path, language, data):
                return language, data
        store.flush()  # also stamps anew an old entry just read, so it outlives a trim
        return None

    def _extract(self, path: str, language: Language, data: bytes) -> None:
        store = self.store
        store.add(path, language, data, store.extract(path, language, data))
        store.flush()

    def read(self, path: str) -> bytes:
        """A file's bytes: those a search kept, else from the disk (raises OSError/UnsafePathError)."""
        return self.bytes.read(path)

    def size(self, path: str) -> int:
        """A file's size, without a read or a stat where a search kept its bytes (0 if unreadable)."""
        return self.bytes.size(path)

    def contains(self, path: str, needle: bytes) -> bool | None:
        """Whether a file's bytes hold the needle, None when it cannot be read (`Prefilter.contains`)."""
        return self.prefilter.contains(path, needle)

    def judged(self, label: Hashable, path: str, test: Callable[[bytes], bool]) -> bool:
        """Whether a file's bytes pass `test`, remembered under `label` until the file changes (`Prefilter.judged`)."""
        return self.prefilter.judged(label, path, test)

    def derived(self, label: Hashable, path: str, work: Callable[[], _T]) -> _T:
        """A value `work` derives from one file's facts and the listing, kept under `label` (`FactsStore.derived`)."""
        return self.store.derived(label, path, work)

    def flush(self) -> None:
        self.store.flush()
