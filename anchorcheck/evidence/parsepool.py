"""Parsing under a deadline, in helper processes that can be stopped.

A tree-sitter query over a crafted file (150,000 `[` in Go) runs for minutes
inside C, holding the GIL: no signal, thread or check between files can stop
it, and py-tree-sitter 0.26's query progress callback reads a pointer to
freed stack memory (it crashes the process), so it cannot be used. A call
with a deadline therefore parses in worker processes; one still busy at the
deadline is killed with its pool, and the caller gets BudgetExceeded: what
did not finish is INCONCLUSIVE, and the next bounded parse starts a new pool.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from anchorcheck.repo.context import BudgetExceeded

if TYPE_CHECKING:
    from multiprocessing.pool import Pool

T = TypeVar("T")
R = TypeVar("R")
_GRACE = 0.05  # seconds past the deadline a worker may take to report that it stopped


class BoundedPool:
    """Worker processes for work that must end at a deadline; started on first use, kept until killed."""

    def __init__(self, workers: int) -> None:
        self.workers = max(1, workers)
        self._pool: Pool | None = None
        self._finalizer: weakref.finalize | None = None

    def usable(self) -> bool:
        """Whether worker processes can run here: a daemonic process (a multiprocessing or Dask
        worker) may not have children, and then bounded work runs in this process."""
        import multiprocessing  # 20 ms of start-up that only a call with a deadline needs

        return not multiprocessing.current_process().daemon

    def map(self, function: Callable[[T, float], R], items: Iterable[T], until: float) -> Iterator[R]:
        """`function(item, until)` for each item in worker processes, results in order; past `until`
        the pool is killed and BudgetExceeded raised. Items are handed out as they come."""
        pool = self._started()
        pending = [pool.apply_async(function, (item, until)) for item in items]
        for result in pending:
            yield self._wait(result, until)

    def _wait(self, result: Any, until: float) -> Any:
        import multiprocessing

        try:
            return result.get(timeout=max(0.0, until - time.monotonic()) + _GRACE)
        except multiprocessing.TimeoutError:
            self.kill()
            raise BudgetExceeded() from None

    def _started(self) -> Pool:
        if self._pool is None:
            import multiprocessing

            self._pool = multiprocessing.get_context().Pool(self.workers)
            self._finalizer = weakref.finalize(self, self._pool.terminate)
        return self._pool

    def kill(self) -> None:
        """Stop the workers at once (a stuck one cannot be asked to finish)."""
        if self._finalizer is not None:
            self._finalizer()
        self._pool = self._finalizer = None
