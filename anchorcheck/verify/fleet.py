"""Verifying memories on an executor's workers: one repository's batch, or a fleet of them in one call.

A fleet (every repository of an organisation, the checkouts an agent platform
hosts) is a batch per repository. With an executor (a process pool, Dask's
`Client.get_executor()`, `anchorcheck.verify.executors.RayExecutor`), the chunks of
every batch are submitted together, so the workers stay busy across
repositories; each worker keeps one Verifier per repository it was sent.

What a repository costs a worker the first time (its listing, reading every
candidate file once, the first scans) is paid again by every other worker
that gets a chunk of it; what each memory costs is not. So chunks follow the
repositories: with at least two per worker, each goes whole (cut only past
`MAX_CHUNK` memories, into equal parts), the largest first, so that no large
one is left for last; with fewer, each is cut into equal parts until every
worker has `CHUNKS_PER_WORKER` of them.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from anchorcheck.base.memo import Memo, Reads
from anchorcheck.model.results import AnchorResult, Memory, MemoryReport, Verdict
from anchorcheck.verify import staleness
from anchorcheck.verify.verifier import Verifier, _verify_here

if TYPE_CHECKING:
    from concurrent.futures import Executor

MAX_CHUNK = 64  # memories per task at most: a round trip costs little beside 64 checks
CHUNKS_PER_WORKER = 4  # tasks per worker at least when a batch is cut: a slow chunk is not the tail
WHOLE_PER_WORKER = 2  # repositories per worker from which each goes to one worker whole


def verify_fleet(
    memories: Mapping[str | os.PathLike[str], Iterable[Memory]],
    executor: Executor | None = None,
    *,
    deadline: float | None = None,
    now: datetime | None = None,
    **verifier_options: Any,
) -> dict[str, list[MemoryReport]]:
    """Each repository's reports, keyed by its root as given, in the order of its memories.

    `deadline` is a budget in seconds for the whole fleet; `verifier_options`
    go to every `Verifier` (`options=`, `only_plugins=`, ...). Without an
    executor the repositories are verified here, one after the other.
    """
    until = time.time() + deadline if deadline is not None else None
    roots = list(memories)
    verifiers = [Verifier(root, **verifier_options) for root in roots]
    batches = [list(memories[root]) for root in roots]
    if executor is None:
        reports = []
        for verifier, batch in zip(verifiers, batches):
            left = None if until is None else max(0.0, until - time.time())
            reports.append(verifier.verify_many(batch, deadline=left, now=now))
    else:
        reports = submit_batches(executor, [(v._spec, batch) for v, batch in zip(verifiers, batches)], until, now)
    return {str(root): found for root, found in zip(roots, reports)}


def plan(sizes: list[int], workers: int) -> list[list[tuple[int, int]]]:
    """The (start, stop) of every chunk of each batch of these sizes, for this many workers."""
    batches = sum(1 for size in sizes if size)
    wanted = 1 if batches >= WHOLE_PER_WORKER * workers else -(-workers * CHUNKS_PER_WORKER // max(1, batches))
    chunks = []
    for size in sizes:
        parts = min(size, max(wanted, -(-size // MAX_CHUNK)))
        chunks.append([(size * i // parts, size * (i + 1) // parts) for i in range(parts)])
    return chunks


def submit_batches(
    executor: Executor, batches: list[tuple[tuple[Any, ...], list[Memory]]], until: float | None, now: datetime | None,
    memo: Memo | None = None,
) -> list[list[MemoryReport]]:
    """Verify each (Verifier spec, memories) batch on the executor's workers; reports per batch, in order.

    The chunks of all batches are submitted at once, those of the largest
    batches first (see `plan`): eight repositories on two workers keep both busy.
    What the workers read is handed to `memo`'s running computation, as if read
    here (one repository's batch: a `check` whose memories went to a pool is
    stored for replay, and watched, by every file its workers read).
    """
    import pickle  # only a batch sent to other processes needs it

    chunks = plan([len(memories) for _, memories in batches], workers_of(executor))
    submitted: dict[tuple[int, int], Any] = {}
    for index in sorted(range(len(batches)), key=lambda index: -len(batches[index][1])):
        spec, memories = batches[index]
        packed = pickle.dumps(spec)
        for start, stop in chunks[index]:
            sent = [m.to_dict() for m in memories[start:stop]]
            submitted[index, start] = executor.submit(_verify_chunk, packed, sent, until, now)
    reports: list[list[MemoryReport]] = [[] for _ in batches]
    for index, (_, memories) in enumerate(batches):
        for start, stop in chunks[index]:
            done_chunk = submitted[index, start].result()
            if memo is not None:
                memo.took(Reads.from_dict(done_chunk["reads"]))
            for memory, done in zip(memories[start:stop], done_chunk["reports"]):
                results = [AnchorResult.from_dict(r) for r in done["results"]]
                reports[index].append(MemoryReport(memory, results, Verdict(done["verdict"]), done.get("reason", "")))
    return reports


def workers_of(executor: Executor) -> int:
    """How many tasks an executor runs at once: a process or thread pool's workers, a Dask client's
    threads, a `workers` attribute (anchorcheck.verify.executors); else the CPUs here."""
    known = getattr(executor, "workers", None) or getattr(executor, "_max_workers", None)
    client = getattr(executor, "_client", None)  # distributed.Client.get_executor()
    if not known and client is not None and callable(getattr(client, "nthreads", None)):
        known = sum(client.nthreads().values())
    return max(1, int(known or os.cpu_count() or 1))


# One Verifier per spec per worker thread: Dask's in-process workers and a thread pool are threads of one
# process, and a Verifier (its memo, its index) is no object two threads may use at once.
_WORKER = threading.local()


def _verify_chunk(
    spec: bytes, memories: list[dict[str, Any]], until: float | None, now: datetime | None = None
) -> dict[str, Any]:
    """Runs in a worker: one Verifier per spec per worker thread, reused across chunks so its index stays warm."""
    verifiers: dict[bytes, Verifier] = _WORKER.__dict__.setdefault("verifiers", {})
    verifier = verifiers.get(spec)
    if verifier is None:
        import pickle

        root, plugins, only, config, options = pickle.loads(spec)  # noqa: S301 - our own pickle, same program
        extra = [__import__(p, fromlist=["_"]) if isinstance(p, str) else p for p in plugins]
        # One process per worker already: the index must not start a pool of its own.
        options = {**options, "workers": 1}
        verifier = verifiers[spec] = Verifier(root, plugins=extra, only_plugins=only, config=config, options=options)
    verifier.refresh()  # kept across chunks and calls: it must see the checkout as it is now
    chunk = [Memory.from_dict(m) for m in memories]
    # The paths the caller's walk left out (past its `MAX_PATHS`) are looked up in one walk per chunk, not one
    # each: 3,000 missing paths ran git 6,000 times here. What the caller walked is read from the cache.
    with verifier.context.shared.recording() as reads:  # (what the caller keys a stored report by)
        staleness.want(chunk, verifier.context)
        reports = _verify_here(verifier, chunk, until, now)
    done = [{"results": [r.to_dict() for r in rep.results], "verdict": str(rep.verdict), "reason": rep.reason} for rep in reports]
    return {"reports": done, "reads": reads.to_dict()}
