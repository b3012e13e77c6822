"""verify_many and verify_fleet on other executors: Dask's LocalCluster, Ray (when installed), process
pools; the same reports as a serial run, whatever the root looked like and wherever workers start."""

from __future__ import annotations

import os
from concurrent.futures import Future, ProcessPoolExecutor

import pytest
from tests._source_support import write
from tests.conftest import init_repo, needs_git

import anchorcheck
from anchorcheck import Memory, Verifier
from anchorcheck.verify.fleet import MAX_CHUNK, submit_batches


def _repo(root, name: str):
    write(root, {f"{name}/app.py": "import json\nimport redis\n", f"{name}/README.md": "x\n"})
    return root / name


def _memories() -> list[Memory]:
    anchors = ["import:redis", "import:celery", "file:README.md", "file:gone.md", "env:ABSENT", "sym:app.py::nothing"]
    return [Memory(id=str(i), anchors=[anchors[i % len(anchors)]]) for i in range(40)]


def _shown(reports) -> list[tuple[str, list[str]]]:
    return [(r.verdict.value, [x.reason for x in r.results]) for r in reports]


@needs_git
def test_dask_local_cluster_matches_serial_for_relative_and_absolute_roots(tmp_path, monkeypatch):
    distributed = pytest.importorskip("distributed")
    root = init_repo(_repo(tmp_path, "repo"))
    elsewhere = write(tmp_path / "elsewhere", {"other.py": "x = 1\n"})  # what a worker taking "." as given checks
    serial = _shown(Verifier(root, options={"cache": False}).verify_many(_memories()))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            executor = client.get_executor()
            absolute = Verifier(root, options={"cache": False}).verify_many(_memories(), executor)
            monkeypatch.chdir(root)
            relative = Verifier(".", options={"cache": False})
            monkeypatch.chdir(elsewhere)  # the workers' cwd is no longer the tree
            relative_reports = relative.verify_many(_memories(), executor)
    assert _shown(absolute) == serial
    assert _shown(relative_reports) == serial
    assert [r.memory.id for r in relative_reports] == [str(i) for i in range(40)]


class _Recording:
    """An executor that runs tasks at once and remembers how many it was given."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.tasks = 0

    def submit(self, fn, /, *args, **kwargs) -> Future:  # noqa: ANN001
        self.tasks += 1
        future: Future = Future()
        future.set_result(fn(*args, **kwargs))
        return future


def test_chunks_spread_a_batch_over_the_workers(tmp_path):
    root = _repo(tmp_path, "repo")
    executor = _Recording(workers=2)
    reports = Verifier(root, options={"cache": False}).verify_many(_memories(), executor)
    assert len(reports) == 40 and executor.tasks == 8  # 4 per worker, not one task of 64
    big = [Memory(anchors=["file:README.md"]) for _ in range(1000)]
    executor = _Recording(workers=2)
    submit_batches(executor, [(Verifier(root)._spec, big)], None, None)
    assert executor.tasks == -(-1000 // MAX_CHUNK)


def test_a_fleet_sends_each_repository_whole_to_one_worker(tmp_path):
    """A repository's first chunk on a worker costs its listing and reads; a second worker given a
    sliver of it (49 memories here, 1 there) pays them again. With two repositories per worker or
    more, each goes whole, the largest first; with fewer, each is cut into equal parts."""
    roots = [_repo(tmp_path, f"r{i}") for i in range(4)]
    fleet = {str(root): _memories()[: 30 + i] for i, root in enumerate(roots)}
    order = []

    class Seen(_Recording):
        def submit(self, fn, /, *args, **kwargs) -> Future:  # noqa: ANN001
            order.append(len(args[1]))
            return super().submit(fn, *args, **kwargs)

    reports = anchorcheck.verify_fleet(fleet, Seen(workers=2), options={"cache": False})
    assert order == [33, 32, 31, 30]  # one task per repository, largest first
    assert [len(reports[str(root)]) for root in roots] == [30, 31, 32, 33]
    order.clear()
    anchorcheck.verify_fleet(dict(list(fleet.items())[:1]), Seen(workers=2), options={"cache": False})
    assert order == [3, 4, 4, 4, 3, 4, 4, 4]  # one repository for two workers: eight equal parts


def test_fleet_of_repositories_in_one_call(tmp_path):
    roots = [_repo(tmp_path, f"r{i}") for i in range(3)]
    (roots[1] / "app.py").write_text("import json\n")  # this one does not use Redis
    fleet = {str(root): _memories()[:6] for root in roots}
    serial = anchorcheck.verify_fleet(fleet, options={"cache": False})
    with ProcessPoolExecutor(max_workers=2) as pool:
        pooled = anchorcheck.verify_fleet(fleet, pool, options={"cache": False})
    assert list(serial) == list(pooled) == [str(root) for root in roots]
    for root in serial:
        assert _shown(serial[root]) == _shown(pooled[root])
    assert [r.verdict.value for r in serial[str(roots[0])]][:2] == ["VERIFIED", "REFUTED"]
    assert serial[str(roots[1])][0].verdict.value == "REFUTED"


def test_ray_executor_matches_serial(tmp_path):
    pytest.importorskip("ray")
    from anchorcheck.verify.executors import RayExecutor

    root = _repo(tmp_path, "repo")
    serial = _shown(Verifier(root, options={"cache": False}).verify_many(_memories()))
    executor = RayExecutor(workers=2, num_cpus=1)
    assert _shown(Verifier(root, options={"cache": False}).verify_many(_memories(), executor)) == serial


def test_worker_spec_carries_the_resolved_root(tmp_path, monkeypatch):
    root = _repo(tmp_path, "repo")
    monkeypatch.chdir(root)
    assert Verifier(".")._spec[0] == str(root.resolve()) and os.path.isabs(Verifier(".")._spec[0])


@needs_git
def test_a_thread_pool_gives_each_thread_its_own_verifier(tmp_path):
    # Dask's in-process workers are threads of one process: a Verifier shared between them broke its
    # memo ("Set changed size during iteration") and could file one computation's reads under another's.
    from concurrent.futures import ThreadPoolExecutor

    root = init_repo(_repo(tmp_path, "repo"))
    memories = _memories() * 5
    serial = _shown(Verifier(root, options={"cache": False}).verify_many(memories))
    for _ in range(3):
        with ThreadPoolExecutor(max_workers=4) as pool:
            threaded = Verifier(root, options={"cache": False}).verify_many(memories, pool)
        assert _shown(threaded) == serial
