"""Benchmark: the speed targets of the source index, each printed as a ratio to a floor measured in the same run.

    python benchmarks/speed.py [--tree DIR] [--work DIR] [--only SECTION ...]

`--tree` is a git checkout of Django 5.2 (by default its sdist is downloaded
with `pip download django==5.2 --no-deps --no-binary :all:` and committed to a
fresh repository under `--work`). A 9,000-file tree is made from it (its files
copied under `copy-N/` until 9,000 are listed). The 50 anchors are
`benchmarks/verdicts.py`'s mixed set (top-level and dotted imports, env keys,
symbols, absent names). Sections:

1. cold: a new Verifier, no disk cache, the 50 anchors, against the floor:
   reading every candidate file (every file a language parses) once, plus
   tree-sitter's parse (no queries) of the files any checker must parse to
   give these answers (the files they cite, and each `sym:` anchor's file);
   then each anchor alone on a new Verifier against its own such floor;
2. resident recall: one Verifier, each memory recalled alone (`verify`) after a
   warm-up, nothing changed: median and p90 per recall, on both trees;
3. after one edit: each memory recalled right after the same file was edited,
   against reading and parsing that file (and, for the slowest, against reading
   it and extracting its facts as the index does);
4. warm `anchorcheck check` (new process, disk cache) against git's listing of
   the tree (the three commands a Verifier runs), whole processes: nothing
   changed, so the stored report is replayed; and the same check with the
   memory file edited before each run, which no stored report matches; and
   both answered by a server (`anchorcheck serve`) started for the tree;
5. start-up on a small repository (benchmarks/startup.py): `anchorcheck
   --version`, `anchorcheck check` as the pre-commit hooks run it, ruff and
   deptry when installed, against `python -c pass`, whole processes;
6. a fleet of 8 repositories (parts of Django) on a Dask LocalCluster of 2
   workers against the same fleet serially (needs the `dask` extra);
7. deadline: `check(deadline=0.5)` on a generated 50,000-file tree with a
   warm disk cache, against the deadline.

Whole processes are best of 5, interleaved; the cold run is the median of 5
rounds, each followed by its floor; other in-process figures are best of 3.
Sections by name with `--only`: cold, resident, warm, startup, fleet, deadline.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from verdicts import mixed_anchors  # noqa: E402

GIT_ENV = dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@e", GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@e")


def commit(root: Path) -> Path:
    for args in (["init", "-q"], ["add", "-A", "-f"], ["commit", "-qm", "tree"]):
        subprocess.run(["git", "-C", str(root), *args], check=True, env=GIT_ENV, capture_output=True)
    return root


def django(work: Path) -> Path:
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:", "django==5.2", "-d", str(work)], check=True)
    with tarfile.open(next(work.glob("[Dd]jango-5.2*.tar.gz"))) as tar:
        tar.extractall(work, filter="data")
    return commit(next(p for p in work.iterdir() if p.is_dir() and p.name.lower().startswith("django-5.2")))


def big_tree(source: Path, work: Path, files: int = 9000) -> Path:
    root = work / "tree9000"
    if not root.exists():
        listed = subprocess.run(["git", "-C", str(source), "ls-files"], capture_output=True, text=True, check=True).stdout.split()
        shutil.copytree(source, root, ignore=shutil.ignore_patterns(".git"))
        copy = 0
        while len(listed) * (copy + 2) <= files:
            copy += 1
            for rel in listed:
                target = root / f"copy-{copy}" / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source / rel, target)
        tail = files - len(listed) * (copy + 1)
        for rel in listed[:tail]:
            target = root / f"copy-{copy + 1}" / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source / rel, target)
        commit(root)
    return root


def process_env() -> dict[str, str]:
    """The environment of a timed process, which writes its bytecode: with PYTHONDONTWRITEBYTECODE set, every
    run would compile the modules edited since the last install again, inside the clock."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def best_process(commands: dict[str, list[str]], cwd: Path, runs: int = 5) -> dict[str, float]:
    best = dict.fromkeys(commands, float("inf"))
    for _ in range(runs):
        for name, args in commands.items():
            start = time.perf_counter()
            subprocess.run(args, cwd=cwd, capture_output=True, check=False, env=process_env())
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def needed(results: list[Any], anchors: list[str], candidates: set[str]) -> set[str]:
    """The files any checker must parse to give these answers: those the results cite (evidence, or
    named in a reason: the line that opened a world, the file a symbol was looked up in), and each
    `sym:` anchor's own file. A perfect prefilter would parse no other file: absence by bytes alone."""
    found = {e.path for result in results for e in result.evidence}
    for result in results:
        found |= {word.rstrip(",;:)").split(":")[0] for word in result.reason.split()}
    found |= {a.split("::")[0][len("sym:") :] for a in anchors if a.startswith("sym:") and "::" in a}
    return found & candidates


def cpu() -> float:
    """CPU seconds of this process and the children it waited for (git): steadier than the wall
    clock on a machine other jobs share."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def cold(root: Path, anchors: list[str], rounds: int = 5) -> None:
    """The 50 anchors on a new Verifier each round, interleaved with the floor's two parts; medians
    of the wall clock and of CPU time."""
    from tree_sitter_language_pack import get_parser

    from anchorcheck import Memory, Verifier
    from anchorcheck.evidence.index import SourceIndex

    memories = [Memory(id=str(i), anchors=[a]) for i, a in enumerate(anchors)]
    wall: dict[str, list[float]] = {"run": [], "read": [], "parse": []}
    used: dict[str, list[float]] = {"run": [], "read": [], "parse": []}
    parsed_counts = []
    slowest = (0.0, "")

    def timed(name: str, work: Callable[[], Any]) -> Any:
        start, start_cpu = time.perf_counter(), cpu()
        value = work()
        wall[name].append(time.perf_counter() - start)
        used[name].append(cpu() - start_cpu)
        return value

    def run(verifier: Any) -> list[Any]:
        nonlocal slowest
        results = []
        for memory in memories:
            one = time.perf_counter()
            results.extend(verifier.verify(memory).results)
            slowest = max(slowest, (time.perf_counter() - one, memory.anchors[0]))
        return results

    for _ in range(rounds):
        verifier = Verifier(root, options={"cache": False})
        results = timed("run", lambda: run(verifier))
        index = SourceIndex.of(verifier.context)
        candidates, _ = index.sources(None)
        parsed_counts.append(index.parsed)
        must = needed(results, anchors, {path for path, _ in candidates})
        data = timed("read", lambda: {path: (root / path).read_bytes() for path, _ in candidates})
        timed("parse", lambda: [get_parser(language.grammar).parse(data[path]) for path, language in candidates if path in must])
    median = {name: statistics.median(values) for name, values in wall.items()}
    median_cpu = {name: statistics.median(values) for name, values in used.items()}
    floor, floor_cpu = median["read"] + median["parse"], median_cpu["read"] + median_cpu["parse"]
    print(f"cold, 50 anchors, new Verifier, no disk cache: median {median['run'] * 1000:.0f} ms of {rounds} (CPU {median_cpu['run'] * 1000:.0f} ms), {statistics.median(parsed_counts):.0f} files parsed")
    print(
        f"  floor: read {len(candidates)} candidates {median['read'] * 1000:.0f} ms + parse the {len(must)} files the answers cite "
        f"{median['parse'] * 1000:.0f} ms = {floor * 1000:.0f} ms (CPU {floor_cpu * 1000:.0f} ms)"
    )
    ratios = sorted(r / (a + b) for r, a, b in zip(wall["run"], wall["read"], wall["parse"]))
    print(
        f"  ratio {median['run'] / floor:.2f}x floor (per round {ratios[0]:.2f}-{ratios[-1]:.2f}x; CPU {median_cpu['run'] / floor_cpu:.2f}x; "
        f"target <= 3x); slowest anchor {slowest[1]} {slowest[0] * 1000:.0f} ms"
    )


def each_alone(root: Path, anchors: list[str]) -> None:
    """Each anchor on its own new Verifier (what one recall of a fresh process costs), against its
    own floor: reading every candidate once plus parsing the files its answer cites; interleaved."""
    from tree_sitter_language_pack import get_parser

    from anchorcheck import Verifier
    from anchorcheck.evidence.index import SourceIndex

    Verifier(root, options={"cache": False}).check("import:json")  # plugins imported, grammar loaded
    ratios = []
    for anchor in anchors:
        verifier = Verifier(root, options={"cache": False})
        start = time.perf_counter()
        result = verifier.check(anchor)
        took = time.perf_counter() - start
        candidates, _ = SourceIndex.of(verifier.context).sources(None)
        must = needed([result], [anchor], {path for path, _ in candidates})
        start = time.perf_counter()
        data = {path: (root / path).read_bytes() for path, _ in candidates}
        for path, language in candidates:
            if path in must:
                get_parser(language.grammar).parse(data[path])
        floor = time.perf_counter() - start
        ratios.append((took / floor, took, floor, anchor))
    ratios.sort()
    median = statistics.median(r[0] for r in ratios)
    print(f"each anchor alone, new Verifier: median {median:.2f}x its floor; worst (target <= 10x):")
    for ratio, took, floor, anchor in ratios[-3:]:
        print(f"  {ratio:.2f}x {anchor}: {took * 1000:.0f} ms, floor {floor * 1000:.0f} ms")


def resident(root: Path, anchors: list[str], label: str) -> None:
    """One long-lived Verifier: recalls when nothing changed, then recalls each right after an edit."""
    from tree_sitter_language_pack import get_parser

    from anchorcheck import Memory, Verifier

    memories = [Memory(id=str(i), anchors=[a]) for i, a in enumerate(anchors)]
    verifier = Verifier(root, options={"cache": False})
    for memory in memories:
        verifier.verify(memory)
    times = []
    for _ in range(3):
        for memory in memories:
            start = time.perf_counter()
            verifier.verify(memory)
            times.append(time.perf_counter() - start)
    times.sort()
    median, p90 = statistics.median(times), times[int(len(times) * 0.9)]
    print(f"resident recall, nothing changed ({label}): median {median * 1000:.2f} ms, p90 {p90 * 1000:.2f} ms per memory (target <= 1 ms)")
    # Each memory recalled right after the same file was edited again (a comment appended): the recalls
    # whose answer the file feeds search it again, the others are answered as they were.
    edited = next(a.split("::")[0][4:] for a in anchors if a.startswith("sym:") and "::" in a and (root / a.split("::")[0][4:]).is_file())
    path = root / edited
    original = path.read_bytes()
    after, floors, touched, by_memory = [], [], [], []
    try:
        for at, memory in enumerate(memories):
            path.write_bytes(original + b"\n# benchmark edit %d\n" % at)
            start = time.perf_counter()
            verifier.verify(memory)
            after.append(time.perf_counter() - start)
            by_memory.append((after[-1], memory))
            if edited in memory.anchors[0]:
                touched.append(after[-1])
            start = time.perf_counter()
            get_parser("python").parse(path.read_bytes())
            floors.append(time.perf_counter() - start)
        # The slowest are the recalls whose answer the file feeds (their search is worked out again):
        # each again, 15 edits apiece, for a median that one stray pause does not make.
        fed = []
        for _, memory in sorted(by_memory, key=lambda item: item[0])[-3:]:
            again = []
            for at in range(15):
                path.write_bytes(original + b"\n# benchmark edit again %d\n" % at)
                start = time.perf_counter()
                verifier.verify(memory)
                again.append(time.perf_counter() - start)
            fed.append((statistics.median(again), memory.anchors[0]))
    finally:
        path.write_bytes(original)
    after.sort()
    floor = statistics.median(floors)
    print(
        f"  recall right after an edit of {edited}: median {statistics.median(after) * 1000:.1f} ms, p90 {after[int(len(after) * 0.9)] * 1000:.1f} ms, "
        f"max {after[-1] * 1000:.1f} ms; reading and parsing that file {floor * 1000:.1f} ms "
        f"(median {statistics.median(after) / floor:.2f}x, max {after[-1] / floor:.2f}x)"
    )
    if touched:
        print(f"  the recall of that file's own symbol: {touched[0] * 1000:.1f} ms ({touched[0] / floor:.2f}x)")
    # What the index itself does with the edited file: read it and extract its facts (a parse through
    # a read callback, the tree's reuse, the language's queries), the part of a recall no patch avoids.
    from anchorcheck.evidence.extraction import extract_facts

    language = verifier.plugins.registry.language_for(edited)
    extracting = []
    for _ in range(15):
        start = time.perf_counter()
        extract_facts(language, path.read_bytes())
        extracting.append(time.perf_counter() - start)
    facts = statistics.median(extracting)
    for took, anchor in sorted(fed, reverse=True):
        print(f"  slowest recall after an edit, {anchor}: median {took * 1000:.1f} ms of 15 ({took / floor:.2f}x; {took / facts:.2f}x reading it and extracting its facts, {facts * 1000:.2f} ms)")
    snapshot_cost(root)


def snapshot_cost(root: Path) -> None:
    """What a resident Verifier's snapshot adds to its first call, next to git's listing of the tree: the
    snapshot lists the tree itself (its watches go on before git looks at the files), so it is timed
    with the listing, on a new checkout each round, against the listing alone."""
    from anchorcheck.evidence.freshness import Snapshot
    from anchorcheck.repo.checkout import Repository

    listing, snapshot = [], []
    for _ in range(7):
        repo = Repository(root)
        start = time.perf_counter()
        repo.paths()
        listing.append(time.perf_counter() - start)
        repo = Repository(root)
        start = time.perf_counter()
        Snapshot(repo)
        snapshot.append(time.perf_counter() - start)
    took, floor = statistics.median(snapshot), statistics.median(listing)
    print(f"  snapshot taken at the first call: median {(took - floor) * 1000:.1f} ms over git's listing of {floor * 1000:.1f} ms ({(took - floor) / floor:.2f}x the listing)")


def warm_check(root: Path, anchors: list[str], work: Path) -> None:
    notes = work / f"NOTES-{root.name}.md"
    notes.write_text("# Notes\n\n" + "".join(f"- fact {i}: `{a}`\n" for i, a in enumerate(anchors)))
    env_cache = work / f"cache-{root.name}"
    check = [sys.executable, "-m", "anchorcheck", "check", "--root", str(root), str(notes)]
    os.environ["ANCHORCHECK_CACHE_DIR"] = str(env_cache)
    subprocess.run(check, capture_output=True, check=False, env=process_env())  # fills the disk cache and the bytecode
    git = ["sh", "-c", "git ls-files -s -z >/dev/null; git diff-files --name-only -z >/dev/null; git ls-files -z --others --exclude-standard >/dev/null"]
    best = best_process({"check": check, "listing": git}, root)
    print(f"warm `anchorcheck check` of 50 anchors (new process, disk cache): {best['check'] * 1000:.0f} ms; git's listing {best['listing'] * 1000:.0f} ms")
    print(f"  ratio {best['check'] / best['listing']:.2f}x listing (target <= 2x): the stored report, replayed (anchorcheck.serve.replay)")
    text, full = notes.read_text(), float("inf")
    for run in range(5):  # another byte in the memory file each time: no stored report matches, every verdict is stored
        notes.write_text(f"{text}\n<!-- run {run} -->\n")
        start = time.perf_counter()
        subprocess.run(check, capture_output=True, check=False, env=process_env())
        full = min(full, time.perf_counter() - start)
    print(f"  the same check when no stored report matches (the full check from stored verdicts): {full * 1000:.0f} ms, {full / best['listing']:.2f}x listing")
    serve = [*check[:3], "serve", "--root", str(root)]
    if subprocess.run([*serve, "--detach"], capture_output=True, check=False, env=process_env()).returncode != 0:
        print("  (no server could start: its figures left out)")
        return
    try:
        served = float("inf")
        for run in range(5):  # the memory file edited before each: the server's resident Verifier answers
            notes.write_text(f"{text}\n<!-- served {run} -->\n")
            start = time.perf_counter()
            subprocess.run(check, capture_output=True, check=False, env=process_env())
            served = min(served, time.perf_counter() - start)
        same = best_process({"served": check}, root)["served"]
    finally:
        subprocess.run([*serve, "--stop"], capture_output=True, check=False, env=process_env())
    print(f"  the same check answered by a server (anchorcheck serve), the memory file edited: {served * 1000:.0f} ms, {served / best['listing']:.2f}x listing; nothing changed: {same * 1000:.0f} ms, {same / best['listing']:.2f}x")


def startup(work: Path) -> None:
    from startup import measure  # benchmarks/startup.py: the same figures on their own

    measure(work / "startup")


def _fresh_workers() -> None:
    """Runs on each Dask worker between rounds: the next fleet finds no Verifier kept from the last."""
    from anchorcheck.verify import fleet

    fleet._WORKER_VERIFIERS.clear()


def _import_anchorcheck() -> None:
    """Runs on each Dask worker before the clock: the serial side's process has imported it too. On
    Linux the worker also takes a session of its own, as a `dask worker` process started on its
    own would have: the kernel's autogroup scheduler shares the CPUs between sessions, so on a
    machine other sessions keep busy, processes of one session cannot run in parallel at all."""
    from anchorcheck import Verifier

    if hasattr(os, "setsid"):
        try:
            os.setsid()
        except OSError:
            pass  # already a session leader
    Verifier(".", options={"cache": False}).check("import:json")


def _tree_cpu() -> float:
    """CPU seconds of this process and every process under it (the cluster's workers and nannies)."""
    import psutil  # a dependency of distributed

    total = 0.0
    me = psutil.Process()
    for process in [me, *me.children(recursive=True)]:
        try:
            times = process.cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system + times.children_user + times.children_system
    return total


def fleet(root: Path, work: Path, rounds: int = 3) -> None:
    """8 repositories x 50 anchors: serially in this process, then on a Dask LocalCluster of two
    worker processes (their imports done, no Verifier kept between rounds), interleaved; medians,
    of the wall clock and of the CPU time of every process involved (Dask's own cost)."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        print("fleet: skipped (pip install 'anchorcheck[dask]')")
        return
    import anchorcheck
    from anchorcheck import Memory

    parts = ["django/db", "django/contrib/admin", "django/contrib/auth", "django/core", "django/forms", "django/template", "django/utils", "django/contrib/gis"]
    repos = {}
    for part in parts:
        target = work / "fleet" / part.replace("/", "-")
        if not target.exists():
            shutil.copytree(root / part, target)
            commit(target)
        repos[str(target)] = [Memory(id=str(i), anchors=[a]) for i, a in enumerate(mixed_anchors(target))]
    options = {"options": {"cache": False}}
    wall: dict[str, list[float]] = {"serial": [], "dask": []}
    used: dict[str, list[float]] = {"serial": [], "dask": []}
    same = True
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, Client(cluster) as client:
        client.run(_import_anchorcheck)
        for _ in range(rounds):
            reports = {}
            for name, executor in (("serial", None), ("dask", client.get_executor())):
                client.run(_fresh_workers)
                start, start_cpu = time.perf_counter(), _tree_cpu()
                reports[name] = anchorcheck.verify_fleet(repos, executor, **options)
                wall[name].append(time.perf_counter() - start)
                used[name].append(_tree_cpu() - start_cpu)
            same = same and all([r.to_dict() for r in reports["serial"][k]] == [r.to_dict() for r in reports["dask"][k]] for k in repos)
    median = {name: statistics.median(values) for name, values in wall.items()}
    median_cpu = {name: statistics.median(values) for name, values in used.items()}
    ratios = sorted(d / s for d, s in zip(wall["dask"], wall["serial"]))
    print(f"fleet of 8 repositories x 50 anchors: serial {median['serial']:.2f} s, Dask 2 workers {median['dask']:.2f} s (medians of {rounds})")
    print(
        f"  ratio {median['dask'] / median['serial']:.2f}x serial (per round {ratios[0]:.2f}-{ratios[-1]:.2f}x; target <= 1x); "
        f"CPU of all processes {median_cpu['dask']:.2f} s against {median_cpu['serial']:.2f} s ({median_cpu['dask'] / median_cpu['serial']:.2f}x); identical reports: {same}"
    )


def deadline(work: Path, files: int = 50_000, budget: float = 0.5) -> None:
    """`check(..., deadline=0.5)` on a new Verifier over a generated tree of 50,000 small files whose
    disk cache is warm: the call must return within a small slack of its budget."""
    from anchorcheck import Verifier

    root = work / "tree50000"
    if not root.exists():
        for d in range(files // 100):
            folder = root / f"pkg{d}"
            folder.mkdir(parents=True)
            for f in range(100):
                (folder / f"m{f}.py").write_text(f"import os\nX = os.environ.get('K{d}_{f}')\n")
        commit(root)
    os.environ["ANCHORCHECK_CACHE_DIR"] = str(work / "cache-tree50000")
    Verifier(root).check("import:absentmod")  # the disk cache is warm
    for resident in (True, False):
        start = time.perf_counter()
        result = Verifier(root, options={"resident": resident}).check("import:absentmod", deadline=budget)
        took = time.perf_counter() - start
        print(f"deadline {budget} s, {files:,}-file tree, warm cache, {'resident' if resident else 'one-shot'} Verifier: {took:.2f} s ({took / budget:.2f}x), {result.verdict.value}")


SECTIONS = ["cold", "resident", "warm", "startup", "fleet", "deadline"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, help="a git checkout of Django 5.2 (default: download the sdist)")
    parser.add_argument("--work", type=Path, help="where downloads, copies and caches go (default: a temp dir)")
    parser.add_argument("--only", nargs="+", choices=SECTIONS, default=SECTIONS, help="the sections to run")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="anchorcheck-speed-"))
    work.mkdir(parents=True, exist_ok=True)
    root = args.tree.resolve() if args.tree else django(work)
    anchors = mixed_anchors(root)
    print(f"tree: {root} ({len(json.dumps(anchors))} bytes of anchors)")
    if "cold" in args.only:
        cold(root, anchors)
        each_alone(root, anchors)
    if "resident" in args.only:
        resident(root, anchors, "Django")
        big = big_tree(root, work)
        resident(big, mixed_anchors(big), "9,000-file tree")
    if "warm" in args.only:
        warm_check(root, anchors, work)
    if "startup" in args.only:
        startup(work)
    if "fleet" in args.only:
        fleet(root, work)
    if "deadline" in args.only:
        deadline(work)


if __name__ == "__main__":
    main()
