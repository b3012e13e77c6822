"""The facts store: the facts of every file an index knows, from the disk cache or parsed, and the parsing.

Facts of a tracked, unmodified file are looked up in the shared disk cache by
git's blob id without reading the file; an untracked or edited file's by the
hash of its bytes. The rest are parsed: here, in worker processes when there are
many, or under a deadline in a pool that can be stopped (`anchorcheck.evidence.parsepool`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import TYPE_CHECKING, TypeVar

from anchorcheck.evidence.cache import git_blob_id
from anchorcheck.evidence.extraction import chunked, extract_chunk, extract_or_broken, fingerprint
from anchorcheck.evidence.facts import Facts
from anchorcheck.evidence.parsepool import BoundedPool

if TYPE_CHECKING:
    from anchorcheck.evidence.bytestore import ByteStore
    from anchorcheck.evidence.cache import FactsCache
    from anchorcheck.evidence.goals import Search
    from anchorcheck.model.registry import Language
    from anchorcheck.repo.context import Context

_T = TypeVar("_T")
PARALLEL_PARSE = 400  # misses below this parse faster here than a pool starts


class FactsStore:
    """Per-file facts of one checkout, found in the cache or parsed, with the order they became known."""

    def __init__(self, context: Context, cache: FactsCache | None, bytes: ByteStore) -> None:
        self.context = context
        self.repo = context.repo
        self.cache = cache
        self.bytes = bytes
        self.facts: dict[str, Facts] = {}
        # Paths already looked up in the disk cache and missed: a later search need not ask again
        # (a miss only turns into facts through `add`, which fills `facts` itself).
        self.preloaded: set[str] = set()
        self.learned: list[str] = []  # the files whose facts became known, in turn: what an answer counts next
        # Per label, per file: a value worked out from its facts and the listing (`derived`).
        self.derivations: dict[Hashable, dict[str, object]] = {}
        self.workers = int(context.options.get("workers") or os.cpu_count() or 1)
        self.bounded = BoundedPool(self.workers)  # parses under a deadline; no process until one is needed
        self.parsed = 0  # files parsed (cache misses): for benchmarks and tests
        # What a path is named by to `trees`, which parses an edited file from its last content's tree.
        self.named = f"{self.repo.root}/"

    def succeed(self, old: FactsStore, stale: set[str]) -> None:
        """Take over `old`'s facts of every file but the `stale` ones, its pool and its count."""
        self.facts = {path: facts for path, facts in old.facts.items() if path not in stale}
        self.bounded, self.parsed = old.bounded, old.parsed

    def forget(self, stale: set[str], relisted: bool) -> None:
        for known in (self.facts, *self.derivations.values()):
            for path in stale:
                known.pop(path, None)
        self.preloaded -= stale
        if relisted:
            self.derivations = {}

    def unknown(self, candidates: list[tuple[str, Language]]) -> list[tuple[str, Language]]:
        """Candidates whose facts neither memory nor the disk cache (by git blob id) knows."""
        self.preload(candidates)
        return [(path, language) for path, language in candidates if path not in self.facts]

    def pending(self, unknown: list[tuple[str, Language]], result: Search) -> Iterator[tuple[str, Language, bytes]]:
        """The bytes of files to parse, less untracked ones whose content the disk cache knows by hash.
        Read lazily, so that worker processes parse the first files while later ones are read."""
        for path, language in unknown:
            data = self.bytes.candidate(path, result.unreadable)
            if data is not None and not self.cached_untracked(path, language, data):
                yield path, language, data

    def derived(self, label: Hashable, path: str, work: Callable[[], _T]) -> _T:
        """A value `work` derives from one file's facts and the listing (which of its imports name a
        module), kept under `label` until the file changes or the checkout is listed again: a search's
        goal, its report and `cite` each ask it of the same files at every recall."""
        self.context.shared.read(path)
        seen = self.derivations.setdefault(label, {})
        if path not in seen:
            seen[path] = work()
        return seen[path]  # type: ignore[return-value]

    def flush(self) -> None:
        if self.cache is not None:
            self.cache.flush()

    def key(self, language: Language, blob: str) -> str:
        return f"{fingerprint(language)}:{blob}"

    def preload(self, files: Iterable[tuple[str, Language]]) -> None:
        """Fetch cached facts of tracked, unmodified files in one query: no file is read for them."""
        if self.cache is None:
            return
        blob_ids = self.repo.blob_ids
        keys: dict[str, str] = {}
        for path, language in files:
            if path in self.facts or path in self.preloaded:
                continue
            self.preloaded.add(path)
            blob = blob_ids.get(path)
            if blob:
                keys[self.key(language, blob)] = path
        for key, value in self.cache.get_many(keys).items():
            try:
                self.facts[keys[key]] = Facts.from_dict(value)
            except (KeyError, TypeError, ValueError):
                continue  # a well-formed row of the wrong shape: recompute rather than trust it
            self.learned.append(keys[key])

    def cached_untracked(self, path: str, language: Language, data: bytes) -> bool:
        """For a file git does not vouch for, look its content up by hash; True when found."""
        if self.cache is None or path in self.repo.blob_ids:
            return False
        key = self.key(language, git_blob_id(data))
        found = self.cache.get_many([key]).get(key)
        if found is None:
            return False
        try:
            self.facts[path] = Facts.from_dict(found)
        except (KeyError, TypeError, ValueError):
            return False
        self.learned.append(path)
        return True

    def parse(self, pending: Iterable[tuple[str, Language, bytes]], parallel: bool = False) -> None:
        """Parse cache misses: in worker processes when there are many and workers are allowed, or
        when a deadline must hold whatever the files hold (`anchorcheck.evidence.parsepool`).

        Chunks go to the workers as soon as they are read, and are cut by size,
        not count, so that no worker is left with the last large files alone.
        """
        until = self.context.deadline
        if until is not None and self.bounded.usable():
            self.repo.join_prefetch()  # the pool forks: no thread may be mid-call then
            chunks = list(chunked(pending))
            for chunk, facts_list in zip(chunks, self.bounded.map(extract_chunk, chunks, until)):
                for (path, language, data), facts in zip(chunk, facts_list):
                    self.add(path, language, data, facts)
            return
        if self.workers > 1 and parallel:
            from concurrent.futures import ProcessPoolExecutor  # a pool is rare: most searches parse a few files

            self.repo.join_prefetch()  # the pool forks: no thread may be mid-call then
            with ProcessPoolExecutor(max_workers=self.workers) as pool:
                try:
                    submitted = [(chunk, pool.submit(extract_chunk, chunk, until)) for chunk in chunked(pending)]
                    for chunk, future in submitted:
                        facts_list = future.result()
                        self.context.check_deadline()
                        for (path, language, data), facts in zip(chunk, facts_list):
                            self.add(path, language, data, facts)
                except BaseException:
                    pool.shutdown(cancel_futures=True)
                    raise
            return
        for path, language, data in pending:
            self.context.check_deadline()
            self.add(path, language, data, self.extract(path, language, data))

    def extract(self, path: str, language: Language, data: bytes) -> Facts:
        """One file's facts: here, or under a deadline in a worker process that can be stopped."""
        until = self.context.deadline
        if until is None or not self.bounded.usable():
            return extract_or_broken(language, data, until, self.named + path)
        self.repo.join_prefetch()  # the pool forks: no thread may be mid-call then
        return next(self.bounded.map(extract_chunk, [[(path, language, data)]], until))[0]

    def add(self, path: str, language: Language, data: bytes, facts: Facts) -> None:
        self.parsed += 1
        self.facts[path] = facts
        self.learned.append(path)
        if self.cache is not None:
            # The hash of the bytes parsed, not git's id for the path: a file edited after git listed
            # it must not file its facts under the old content's id in a cache other checkouts share.
            key = self.key(language, git_blob_id(data))
            self.cache.put(key, facts.to_dict())
