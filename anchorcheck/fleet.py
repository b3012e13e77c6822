"""Verifying the memories of many repositories in one call, on one executor.

A fleet (every repository of an organisation, the checkouts an agent platform
hosts) is a batch per repository. With an executor (a process pool, Dask's
`Client.get_executor()`, `anchorcheck.executors.RayExecutor`), the chunks of
every batch are submitted together, so the workers stay busy across
repositories; each worker keeps one Verifier per repository it was sent.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from anchorcheck.model import Memory, MemoryReport
from anchorcheck.verifier import Verifier, submit_batches

if TYPE_CHECKING:
    from concurrent.futures import Executor


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
