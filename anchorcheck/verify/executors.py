"""Executors that `Verifier.verify_many` and `verify_fleet` take beside `concurrent.futures` ones.

Ray's pools are not `concurrent.futures` executors (`ray.util.multiprocessing.Pool`
has no `submit`), so Ray needs this small adapter: each task becomes a Ray
remote call, and its ObjectRef's future is what `verify_many` waits on. Dask
needs none: `distributed.Client(...).get_executor()` is one already.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any


class RayExecutor(Executor):
    """Run tasks as Ray remote functions (`ray` must be installed; `ray.init` is called if needed).

    `workers` is how many tasks run at once (by default the cluster's CPUs):
    `verify_many` cuts its chunks by it. `remote_options` go to `ray.remote`
    (`num_cpus=1`, `runtime_env=...`).
    """

    def __init__(self, workers: int | None = None, **remote_options: Any) -> None:
        import ray

        if not ray.is_initialized():
            ray.init()
        self._ray = ray
        self.workers = workers or int(ray.cluster_resources().get("CPU", 1))
        self._options = remote_options
        self._remote: dict[Callable[..., Any], Any] = {}

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:  # type: ignore[override]
        remote = self._remote.get(fn)
        if remote is None:
            remote = self._remote[fn] = self._ray.remote(**self._options)(fn) if self._options else self._ray.remote(fn)
        return remote.remote(*args, **kwargs).future()
