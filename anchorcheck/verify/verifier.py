"""The public entry point: `Verifier(root).check(anchor)` and `.verify(memory)`.

The Verifier owns one Context, so evidence is gathered lazily (only what the
anchors ask for) and shared between anchors. It is made of two parts beside
what is here (calls, deadlines, memories and batches): `Dispatch` (one anchor
to one result, `verify.dispatch`) and `Resident` (its caches kept true to the
disk between calls, `verify.resident`).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from anchorcheck.memory import lifecycle
from anchorcheck.model.anchors import anchor_text
from anchorcheck.model.results import AnchorResult, Memory, MemoryReport, Verdict
from anchorcheck.repo.checkout import Repository
from anchorcheck.repo.config import Config, load_config
from anchorcheck.repo.context import Context
from anchorcheck.verify.dispatch import Dispatch, budget_exceeded
from anchorcheck.verify import staleness
from anchorcheck.verify.loading import plugins_for
from anchorcheck.verify.resident import Resident, lookout

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from anchorcheck.evidence.freshness import Snapshot
    from anchorcheck.evidence.stored import ResultStore

PARALLEL_THRESHOLD = 200  # below this many memories a pool costs more than it saves


class Verifier(Dispatch, Resident):
    """Checks anchors and memories against one checkout.

    `plugins` adds plugin objects (modules or instances with hookimpls) beside
    the installed ones; `only_plugins` restricts which installed plugins load
    (default: ANCHORCHECK_PLUGINS, then the config's `plugins` key).
    """

    def __init__(
        self,
        root: str | os.PathLike[str] = ".",
        *,
        plugins: Sequence[object] = (),
        only_plugins: Sequence[str] | None = None,
        config: Config | None = None,
        options: dict[str, Any] | None = None,
    ) -> None:
        root_path = Path(root)
        self.config = config if config is not None else load_config(root_path.resolve())
        self.repo = Repository(
            root_path,
            skip_dirs=self.config.skip_dirs,
            exclude=self.config.exclude,
            max_file_size=self.config.max_file_size,
        )
        # What the checkout looked like when this Verifier last answered; None before the first call,
        # and always for a one-shot Verifier (the CLI's `check`: nothing can change between its calls).
        self._resident = bool((options or {}).get("resident", True))
        self._snapshot: Snapshot | None = None
        # On before anything lists the checkout (a caller's own `repo.paths()`, a listing fetched in the
        # background): whatever the first snapshot's listing saw, a change after it began is seen.
        self._lookout = lookout(self.repo) if self._resident else None
        if (options or {}).get("prefetch_listing"):
            # Only where the first check follows at once (the CLI): the listing is a snapshot, and
            # one taken long before a library caller's first check would judge later edits wrongly.
            self.repo.prefetch_listing()
        self.plugins = plugins_for(only_plugins, self.config, plugins)
        self._chosen_plugins = (only_plugins, plugins)  # the config's `plugins` key may choose again (`_rebuild`)
        self.context = Context(self.repo, self.plugins.registry, self.config, options=dict(options or {}))
        self._own_config = config is None  # read from the checkout: read again when it changes there
        self._looked_yet = False  # whether the first look at the checkout was taken (see `_looked`)
        self._looking: threading.Thread | None = None
        self._ceiling: float | None = None  # a `within` block's deadline (time.monotonic()): no call inside passes it
        # Results on disk per tree state (anchorcheck.evidence.stored): None until first needed, False when not
        # used (no cache, plugins given as objects, or this resident Verifier saw a change since).
        self._results: ResultStore | None | bool = None if not plugins else False
        # What a worker process needs to build the same Verifier (modules travel by name).
        self._spec = (
            str(self.repo.root),  # resolved: a worker started elsewhere must check this tree, not its cwd's
            [p.__name__ if isinstance(p, ModuleType) else p for p in plugins],
            None if only_plugins is None else list(only_plugins),
            self.config,
            dict(options or {}),
        )

    @property
    def root(self) -> Path:
        return self.repo.root

    def attach_lock(self, memories: Iterable[Memory]) -> None:
        """Give the span anchors of recalled memories their banked records: the memory's own citations,
        else the entries of the repository's `anchorcheck.lock` (LockError, a ValueError naming the line,
        for a malformed lock). What a store calls before `verify` when its memories write `span:` anchors."""
        from anchorcheck.memory.lockfile import attach, load_lock

        attach(memories, load_lock(self.root), self.registry.kinds)

    def check(self, anchor: Any, *, deadline: float | None = None) -> AnchorResult:
        """Verify one anchor: a string, an `Anchor` or a `Citation`. Never raises for bad input.

        `deadline` is a budget in seconds for this call; past it the anchor is
        INCONCLUSIVE ("budget exceeded").
        """
        self.context.deadline = self._deadline(deadline)
        try:
            if not self._looked():
                return budget_exceeded(anchor_text(anchor), _LISTING)
            self.refresh()
            return self._check(anchor)
        finally:
            self.context.deadline = self._ceiling
            self._flush()

    @contextmanager
    def within(self, seconds: float) -> Iterator[None]:
        """Every call inside the block, and any work on this Verifier's context (a suggestion's index
        lookups), keeps to one deadline `seconds` from now; a call's own sooner deadline still wins.
        A server answering one request with many checks bounds the request so, not each check."""
        outer = self._ceiling
        self._ceiling = self.context.deadline = _sooner(outer, time.monotonic() + seconds)
        try:
            yield
        finally:
            self._ceiling = self.context.deadline = outer

    def _deadline(self, seconds: float | None) -> float | None:
        """The deadline of a call given `seconds` (None: none of its own) inside the current `within` block."""
        return _sooner(self._ceiling, time.monotonic() + seconds if seconds is not None else None)

    def verify(
        self, memory: Memory, *, deadline: float | None = None, now: datetime | None = None
    ) -> MemoryReport:
        """Verify every anchor of a memory and combine their verdicts under the lifecycle rules.

        The memory's `expires`, `resolve_after` and `as_of` fields (see
        `anchorcheck.memory.lifecycle`) are judged against `now` (default: the clock);
        `as_of` anchors are checked at that git revision.
        """
        self.context.deadline = self._deadline(deadline)
        try:
            if not self._looked():
                return _unchecked(memory)
            self.refresh()
            return self._verify_one(memory, now)
        finally:
            self.context.deadline = self._ceiling
            self._flush()

    def _verify_one(self, memory: Memory, now: datetime | None) -> MemoryReport:
        how = lifecycle.plan(memory, self.context)
        if how.problem is not None:
            return lifecycle.conclude(memory, [lifecycle.unchecked(a, how.problem) for a in memory.anchors], how, now)
        home = self.context
        how.context.deadline, self.context = home.deadline, how.context
        try:
            results = [self._check(anchor) for anchor in memory.anchors]
            if how.as_of is None:  # (a check as of a past revision asks nothing of its history)
                results = staleness.written_after(memory, results, self.context)
        finally:
            self.context = home
            if how.context is not home:
                how.context.deadline = None
        return lifecycle.conclude(memory, results, how, now)

    def verify_many(
        self,
        memories: Iterable[Memory],
        executor: Executor | None = None,
        *,
        deadline: float | None = None,
        now: datetime | None = None,
    ) -> list[MemoryReport]:
        """Verify many memories, in order; `deadline` is a budget in seconds for the whole call.

        `executor` is any `concurrent.futures.Executor` (a process pool, or
        Dask's / Ray's executors): memories go to it in chunks, and each
        worker builds its own Verifier for this root once, sharing the on-disk
        cache. Without one, a large batch gets a process pool and a small one
        runs here, where the in-memory index is warm. A memory that repeats
        an earlier one but for where it was written (a byte copy of a memory
        file) is checked once: its report is the earlier one's, placed there,
        unless a verdict in it rests on the history of the file that names it
        (gone, or written after it went): then the copy is judged by its own.
        """
        until = time.time() + deadline if deadline is not None else None
        batch = list(memories)
        keys = [_copy_key(memory) for memory in batch]
        distinct: dict[object, Memory] = {}
        for key, memory in zip(keys, batch):
            distinct.setdefault(key, memory)
        reports = dict(zip(distinct, self._verify_distinct(list(distinct.values()), executor, deadline, now)))
        placed = [reports[key] if reports[key].memory is memory else _placed(reports[key], memory) for key, memory in zip(keys, batch)]
        # Whether a gone name is stale is the history of the file that names it (`staleness.written_after`): a copy
        # written later than the first is judged on its own, its anchors' answers taken from the memo.
        again = [n for n, report in enumerate(placed) if report.memory is not distinct[keys[n]] and _judged_by_file(report)]
        for n, report in zip(again, _verify_here(self, [batch[n] for n in again], until, now) if again else ()):
            if not any(r.state == "budget" for r in report.results):  # out of time: the first copy's answer stands
                placed[n] = report
        return placed

    def _verify_distinct(
        self, batch: list[Memory], executor: Executor | None, deadline: float | None, now: datetime | None
    ) -> list[MemoryReport]:
        until = time.time() + deadline if deadline is not None else None
        if executor is None and len(batch) < PARALLEL_THRESHOLD:
            self.context.deadline = time.monotonic() + deadline if deadline is not None else None
            try:
                looked = self._looked()
            finally:
                self.context.deadline = None
            if not looked:
                return [_unchecked(memory) for memory in batch]
            self.refresh()
            staleness.want(batch, self.context)
            return _verify_here(self, batch, until, now)
        owned = executor is None
        self._looked()  # a process pool forks: no thread may be mid-call then
        self.refresh()  # a configuration changed since is the one the workers must check under
        staleness.want(batch, self.context, now=True)
        self.repo.join_prefetch()
        if executor is None:
            from concurrent.futures import ProcessPoolExecutor  # only large batches need it: spare the import

            executor = ProcessPoolExecutor(max_workers=min(os.cpu_count() or 1, 8))
        from anchorcheck.verify.fleet import submit_batches  # only batches sent to other processes need it

        try:
            return submit_batches(executor, [(self._spec, batch)], until, now, self.context.shared)[0]
        finally:
            if owned:
                executor.shutdown()


def _verify_here(
    verifier: Verifier, memories: list[Memory], until: float | None, now: datetime | None = None
) -> list[MemoryReport]:
    """Verify in this process against one wall-clock deadline (`time.time()` based, so it crosses processes)."""
    verifier.context.deadline = time.monotonic() + (until - time.time()) if until is not None else None
    try:
        return [verifier._verify_one(m, now) for m in memories]
    finally:
        verifier.context.deadline = None
        verifier._flush()


def _copy_key(memory: Memory) -> object:
    """What the report of a memory read from a file follows from: all of it but where it was written
    (`source`, `id`, the positions). A memory handed over without a file is its own key: a store's
    memories are checked as given, each one."""
    if memory.source is None:
        return id(memory)  # alive as long as the batch: no other memory has it meanwhile
    return repr((memory.text, memory.anchors, memory.metadata))


def _judged_by_file(report: MemoryReport) -> bool:
    """Whether a report holds a verdict that the history of its memory's own file decided (gone, or written after)."""
    return any(r.state in (staleness.GONE, staleness.WRITTEN_AFTER) for r in report.results)


def _placed(report: MemoryReport, memory: Memory) -> MemoryReport:
    """The report of a memory checked before, for a copy of it written elsewhere."""
    return replace(report, memory=memory, results=list(report.results))


_LISTING = "while the checkout was still being listed (a later call goes on from where this one stopped)"


def _unchecked(memory: Memory) -> MemoryReport:
    """A memory whose checkout could not even be listed within the call's budget."""
    results = [budget_exceeded(anchor_text(anchor), _LISTING) for anchor in memory.anchors]
    return MemoryReport(memory, results, Verdict.INCONCLUSIVE, f"budget exceeded {_LISTING}")


def _sooner(first: float | None, second: float | None) -> float | None:
    """The earlier of two deadlines, either of which may be None (none)."""
    return second if first is None else first if second is None else min(first, second)
