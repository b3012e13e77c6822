"""Benchmark: source evidence (`import:`, `env:`, `sym:`) on real code downloaded from PyPI.

At benchmark time (never committed) it downloads sdists (`pip download
--no-deps --no-binary :all:`), unpacks each into a temp dir and commits it to a
fresh git repository (a real checkout has blob ids), and installs deptry and
FawltyDeps into a throwaway venv. Then, for each tree, in one run:

1. cold full import index: anchorcheck (`SourceIndex.everything()`, no cache)
   of every file a language plugin parses, and of the Python files alone (the
   files deptry reads), versus `deptry` and `fawltydeps --list-imports`, and
   versus the floor of any tree-sitter index (reading and parsing every .py
   file in a process pool, nothing else), each a fresh process: wall and CPU
   time (best of 3, runs interleaved; FawltyDeps, 3-20x slower, once) and peak
   RSS; plus the sets of imported third-party top-level modules, and where
   they differ;
2. cold verification of 50 mixed anchors (a new Verifier, empty cache) versus
   the floor: reading every candidate file (all files a language parses) once;
3. warm re-verification: the same Verifier again, and a new Verifier on the
   warm on-disk cache, per memory;
4. after editing one file: a new Verifier, warm cache; what it costs and how
   many files it parses;
5. with `--drop-page-cache` (root on Linux): 2. again with the OS page cache
   emptied before the floor and before the verification, reads from the disk.

Run: `python benchmarks/source_index.py [--package django==5.1.* ...] [--drop-page-cache]`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
from pathlib import Path
from typing import NamedTuple

DEFAULT_PACKAGES = ["django==5.1.*", "sqlalchemy==2.0.*", "flask==3.1.*"]
TOOLS = ["deptry", "fawltydeps"]

FULL_INDEX = """
import json, sys
from anchorcheck import Verifier
from anchorcheck.evidence.index import SourceIndex
v = Verifier(sys.argv[1], options={"cache": False, "prefetch_listing": True})  # as the CLI builds it
search = SourceIndex.of(v.context).everything(sys.argv[2] if len(sys.argv) > 2 else None)
imports = sorted({m for p, f in search.hits if p.endswith((".py", ".pyi")) for m, _, _ in f.imports})
print(json.dumps({"files": len(search.hits), "imports": imports}))
"""

# The floor of any tree-sitter index: read and parse every .py file in a pool of one process
# per CPU, and nothing else (no listing, no queries, no facts). What is left between this
# and deptry is tree-sitter's Python grammar against deptry's Rust parser.
PARSE_FLOOR = """
import os, sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from tree_sitter_language_pack import get_parser

def parse(paths):
    parser = get_parser("python")
    for path in paths:
        parser.parse(Path(path).read_bytes())
    return len(paths)

if __name__ == "__main__":
    files = [str(p) for p in Path(sys.argv[1]).rglob("*.py") if ".git" not in p.parts]
    with ProcessPoolExecutor(os.cpu_count()) as pool:
        print(sum(pool.map(parse, [files[i::64] for i in range(64)])))
"""

ANCHOR_PHASES = """
import json, sys, time
from anchorcheck import Memory, Verifier
from anchorcheck.evidence.index import SourceIndex
root, cache, edit = sys.argv[1], sys.argv[2], sys.argv[3]
anchors = json.loads(sys.argv[4])
memories = [Memory(id=str(i), anchors=[a]) for i, a in enumerate(anchors)]
out = {}

def timed(name, verifier):
    start = time.perf_counter()
    reports = verifier.verify_many(memories)
    out[name] = time.perf_counter() - start
    out[name + "_parsed"] = SourceIndex.of(verifier.context).parsed
    return reports

def new():
    return Verifier(root, options={"cache_dir": cache})

def listed(name):
    # A new Verifier's fixed cost, paid once per process: git's listing of the checkout.
    verifier = new()
    start = time.perf_counter()
    SourceIndex.of(verifier.context).sources(None)
    out[name + "_listing"] = time.perf_counter() - start
    return verifier

cold = new()
reports = timed("cold", cold)
out["verdicts"] = [r.verdict.value for r in reports]
timed("warm_same", cold)
timed("warm_new", listed("warm_new"))
with open(f"{root}/{edit}", "a", encoding="utf-8") as handle:
    handle.write("\\nimport absentmod0  # benchmark edit\\n")
timed("edited", listed("edited"))
print(json.dumps(out))
"""


COLD_VERIFY = """
import json, sys, time
from anchorcheck import Memory, Verifier
memories = [Memory(id=str(i), anchors=[a]) for i, a in enumerate(json.loads(sys.argv[3]))]
verifier = Verifier(sys.argv[1], options={"cache_dir": sys.argv[2]})
start = time.perf_counter()
verifier.verify_many(memories)
print(time.perf_counter() - start)
"""


def sh(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=False)


class Run(NamedTuple):
    """One fresh process: wall seconds, CPU seconds (user + system, its waited-for children
    included: worker processes, a tool's threads), peak RSS in MiB, stdout and exit code.
    CPU time is the steadier figure on a shared machine, where wall time takes the load."""

    seconds: float
    cpu: float
    rss: int
    out: str
    code: int


def measured(args: list[str], cwd: Path | None = None) -> Run:
    """Run one fresh process. The peak comes from GNU time when it is installed: a forked
    child's own rusage would also count the benchmark process it was forked from."""
    gnu_time = Path("/usr/bin/time")
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss_file:
        prefix = [str(gnu_time), "-f", "%M", "-o", rss_file.name] if gnu_time.exists() else []
        start = time.perf_counter()
        proc = subprocess.Popen([*prefix, *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        out = proc.stdout.read() if proc.stdout else ""
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        text = rss_file.read().strip().splitlines()
        peak_kib = int(text[-1]) if prefix and text and text[-1].isdigit() else usage.ru_maxrss
    return Run(seconds, usage.ru_utime + usage.ru_stime, peak_kib // 1024, out, os.waitstatus_to_exitcode(status))


def fetch(spec: str, work: Path) -> Path:
    downloads = work / "downloads"
    before = set(downloads.glob("*")) if downloads.exists() else set()
    done = sh(sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:", spec, "-d", str(downloads))
    if done.returncode:
        raise SystemExit(f"pip download {spec} failed: {done.stderr.strip()[-400:]}")
    archive = sorted(set(downloads.glob("*.tar.gz")) - before or downloads.glob(f"{spec.split('=')[0]}*.tar.gz"))[-1]
    with tarfile.open(archive) as tar:
        tar.extractall(work / "trees", filter="data")
    root = work / "trees" / archive.name[: -len(".tar.gz")]
    env = dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@e", GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@e")
    for args in (["init", "-q"], ["add", "-A", "-f"], ["commit", "-qm", "sdist"]):
        subprocess.run(["git", "-C", str(root), *args], check=True, env=env, capture_output=True)
    return root


def tool_venv(work: Path) -> Path:
    venv = work / "tools"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    done = sh(str(venv / "bin" / "pip"), "install", "-q", *TOOLS)
    if done.returncode:
        raise SystemExit(f"installing {TOOLS} failed: {done.stderr.strip()[-400:]}")
    return venv / "bin"


def third_party(imports: list[str], root: Path) -> set[str]:
    """Top-level names that are neither standard library, first-party, relative, nor __future__.

    First-party: a top-level entry of the root, src/ or lib/ (where a package
    ships from). Test apps that a test runner puts on sys.path are not
    recognised, so they show up here; the docs say so.
    """
    local = {p.name.removesuffix(".py") for base in (root, root / "src", root / "lib") if base.is_dir() for p in base.iterdir()}
    tops = {m.split(".")[0] for m in imports if m and not m.startswith(".")}
    return {t for t in tops if t not in sys.stdlib_module_names and t not in local and t != "__future__" and t}


def declared_modules(root: Path) -> set[str]:
    from packaging.requirements import InvalidRequirement, Requirement

    from anchorcheck_plugins.ecosystems.pypi_import_names import imports_for_distribution

    try:
        project = tomllib.loads((root / "pyproject.toml").read_text()).get("project", {})
    except (OSError, tomllib.TOMLDecodeError):
        return set()
    specs = list(project.get("dependencies", [])) + [s for group in project.get("optional-dependencies", {}).values() for s in group]
    names = set()
    for spec in specs:
        try:
            names.add(Requirement(spec).name)
        except InvalidRequirement:
            continue
    return {m.split(".")[0] for n in names for m in imports_for_distribution(n)}


def best_of(runs: int, commands: dict[str, tuple[list[str], Path | None]]) -> dict[str, Run]:
    """Each command `runs` times, interleaved (a load spike hits all alike): the fastest wall and
    CPU times, the largest peak RSS, and the output and exit code of the last run."""
    best: dict[str, Run] = {}
    for _ in range(runs):
        for name, (args, cwd) in commands.items():
            run = measured(args, cwd)
            if name in best:
                run = run._replace(seconds=min(run.seconds, best[name].seconds), cpu=min(run.cpu, best[name].cpu), rss=max(run.rss, best[name].rss))
            best[name] = run
    return best


def full_index(root: Path, tools: Path, work: Path) -> dict[str, object]:
    rows: dict[str, tuple[Run, int | None]] = {}  # the run, and the files it indexed
    report = work / f"deptry-{root.name}.json"
    args = [str(tools / "deptry"), ".", "-e", r"\.git", "--json-output", str(report)]
    if not (root / "pyproject.toml").is_file() or b"[project]" not in (root / "pyproject.toml").read_bytes():
        empty = work / "empty-requirements.txt"
        empty.write_text("")
        args += ["--requirements-files", str(empty)]
    runs = best_of(3, {
        "anchorcheck": ([sys.executable, "-c", FULL_INDEX, str(root)], None),
        "anchorcheck, .py only": ([sys.executable, "-c", FULL_INDEX, str(root), "*.py"], None),
        "tree-sitter parse only": ([sys.executable, "-c", PARSE_FLOOR, str(root)], None),
        "deptry": (args, root),
    })
    for name in ("anchorcheck", "anchorcheck, .py only"):
        rows[name] = (runs[name], json.loads(runs[name].out)["files"])
    rows["tree-sitter parse only"] = (runs["tree-sitter parse only"], None)
    ours = third_party(json.loads(runs["anchorcheck"].out)["imports"], root)
    rows["deptry"] = (runs["deptry"], None)
    deptry_missing = None
    if report.is_file():
        deptry_missing = {v["module"] for v in json.loads(report.read_text()) if v["error"]["code"] == "DEP001"}
    fawltydeps = measured([str(tools / "fawltydeps"), "--list-imports", "--json", "--code", "."], cwd=root)
    rows["fawltydeps"] = (fawltydeps, None)
    fawlty = {i["name"].split(".")[0] for i in json.loads(fawltydeps.out)["imports"]} if fawltydeps.out.strip() else set()
    ours_missing = ours - declared_modules(root)
    return {
        "rows": rows,
        "ours": ours,
        "fawlty": fawlty,
        "only_ours_vs_fawlty": sorted(ours - fawlty),
        "only_fawlty": sorted(fawlty - ours),
        "deptry_missing": None if deptry_missing is None else sorted(deptry_missing),
        "only_ours_missing": None if deptry_missing is None else sorted(ours_missing - deptry_missing),
        "only_deptry_missing": None if deptry_missing is None else sorted(deptry_missing - ours_missing),
    }


def pick_anchors(root: Path, rng: random.Random) -> tuple[list[str], str, list[str]]:
    """50 anchors: present and absent imports (some scoped), env reads, symbols; plus the file to edit."""
    from anchorcheck import Verifier
    from anchorcheck.evidence.index import SourceIndex

    v = Verifier(root, options={"cache": False})
    hits = SourceIndex.of(v.context).everything().hits
    py = [(p, f) for p, f in hits if p.endswith(".py") and f.imports and f.defs]
    anchors = []
    for path, facts in rng.sample(py, 15):
        module = rng.choice([m for m, _, _ in facts.imports if not m.startswith(".")] or ["os"])
        anchors.append(f"import:{module.split('.')[0]}")
    anchors += [f"import:absentmod{i}" for i in range(8)]
    for path, facts in rng.sample(py, 5):
        scope = path.rsplit("/", 1)[0] + "/" if "/" in path else path
        anchors.append(f"import:{rng.choice(['json', 'redis', 'typing', 'absentmod9'])} in:{scope}")
    env = sorted({k for _, f in hits for k, _ in f.env})
    anchors += [f"env:{k}" for k in rng.sample(env, min(5, len(env)))] + ["env:ABSENT_KEY_1", "env:ABSENT_KEY_2"]
    for path, facts in rng.sample(py, 50 - len(anchors) - 3):
        anchors.append(f"sym:{path}::{rng.choice(facts.defs)[0]}")
    anchors += [f"sym:{py[0][0]}::NoSuchName", f"sym:{py[1][0]}::Nope.nope", "sym:gone/file.py::X"]
    sources = [p for p, _ in hits]
    edit = next(p for p, f in py if any(m.split(".")[0] == anchors[0].split(":")[1] for m, _, _ in f.imports))
    return anchors[:50], edit, sources


def read_floor(root: Path, sources: list[str]) -> tuple[float, float]:
    """Best of 3: plain open+read of each candidate, and the same through `Repository.read_bytes`
    (the path-safety checks every plugin's read goes through)."""
    from anchorcheck import Repository

    plain = safe = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for rel in sources:
            with open(root / rel, "rb") as handle:
                handle.read()
        plain = min(plain, time.perf_counter() - start)
        repo = Repository(root)
        start = time.perf_counter()
        for rel in sources:
            repo.read_bytes(rel)
        safe = min(safe, time.perf_counter() - start)
    return plain, safe


def drop_page_cache() -> bool:
    """Empty the OS page cache, so the next reads come from the disk (Linux, as root); False when not allowed."""
    try:
        os.sync()
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
    except OSError:
        return False
    return True


def page_cold(root: Path, sources: list[str], anchors: list[str], work: Path) -> tuple[float, float] | None:
    """Best of 2, each after emptying the page cache: reading every candidate once, and the cold
    verification of the anchors (new Verifier, empty cache; the Verifier's creation not timed)."""
    floor = verify = float("inf")
    for attempt in range(2):
        if not drop_page_cache():
            return None
        start = time.perf_counter()
        for rel in sources:
            with open(root / rel, "rb") as handle:
                handle.read()
        floor = min(floor, time.perf_counter() - start)
        cache = work / f"cache-page-cold-{root.name}-{attempt}"
        drop_page_cache()
        run = measured([sys.executable, "-c", COLD_VERIFY, str(root), str(cache), json.dumps(anchors)])
        if run.code:
            raise SystemExit(f"cold verification failed on {root.name}")
        verify = min(verify, float(run.out))
    return floor, verify


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--package", action="append", help="pip requirement of an sdist (repeatable)")
    parser.add_argument("--drop-page-cache", action="store_true", help="also measure cold verification with the OS page cache emptied (root on Linux; slows the whole machine briefly)")
    args = parser.parse_args()
    rng = random.Random(20261202)
    with tempfile.TemporaryDirectory(prefix="anchorcheck-bench-") as tmp:
        work = Path(tmp)
        tools = tool_venv(work)
        for spec in args.package or DEFAULT_PACKAGES:
            root = fetch(spec, work)
            print(f"\n## {root.name}")
            full = full_index(root, tools, work)
            rows = full["rows"]
            base = rows["deptry"][0]
            print(f"full import index of {rows['anchorcheck'][1]} source files, {rows['anchorcheck, .py only'][1]} of them .py (cold, fresh process each):")
            for name, (run, _) in rows.items():
                note = "" if run.code == 0 else f"  (exit {run.code})"
                print(
                    f"  {name:22s} {run.seconds:7.2f} s  {run.seconds / base.seconds:5.2f}x deptry"
                    f"  CPU {run.cpu:5.2f} s  {run.cpu / base.cpu:5.2f}x deptry's  peak {run.rss:4d} MiB{note}"
                )
            print(f"  third-party top-level imports: anchorcheck {len(full['ours'])}, fawltydeps {len(full['fawlty'])}")
            print(f"  only anchorcheck: {full['only_ours_vs_fawlty']}")
            print(f"  only fawltydeps:  {full['only_fawlty']}")
            if full["deptry_missing"] is not None:
                print(f"  undeclared, only anchorcheck: {full['only_ours_missing']}")
                print(f"  undeclared, only deptry:      {full['only_deptry_missing']}")
            anchors, edit, sources = pick_anchors(root, rng)
            floor, safe = read_floor(root, sources)
            cold_disk = page_cold(root, sources, anchors, work) if args.drop_page_cache else None
            cache = work / f"cache-{root.name}"
            phases = measured([sys.executable, "-c", ANCHOR_PHASES, str(root), str(cache), edit, json.dumps(anchors)])
            if phases.code:
                raise SystemExit(f"anchor phases failed on {root.name}")
            got = json.loads(phases.out)
            counts = {v: got["verdicts"].count(v) for v in ("VERIFIED", "REFUTED", "INCONCLUSIVE")}
            print(f"50 anchors ({counts}); floor: read {len(sources)} candidate files once = {floor * 1000:.1f} ms, through Repository.read_bytes {safe * 1000:.1f} ms")
            print(f"  cold (new Verifier, empty cache)  {got['cold'] * 1000:8.1f} ms  {got['cold'] / floor:5.1f}x floor  {got['cold'] / safe:5.1f}x safe-read floor  parsed {got['cold_parsed']}")
            print(f"  warm, same Verifier               {got['warm_same'] * 1000:8.2f} ms  {got['warm_same'] * 1000 / 50:.3f} ms/memory")
            print(f"  warm, new Verifier + disk cache   {got['warm_new'] * 1000:8.1f} ms  {got['warm_new'] * 1000 / 50:.3f} ms/memory  parsed {got['warm_new_parsed']}  (+ listing {got['warm_new_listing'] * 1000:.1f} ms once)")
            print(f"  after editing {edit}: {got['edited'] * 1000:8.1f} ms  parsed {got['edited_parsed']}  (+ listing {got['edited_listing'] * 1000:.1f} ms once)")
            print(f"  peak RSS of the anchor phases: {phases.rss} MiB")
            if cold_disk is not None:
                disk_floor, disk_cold = cold_disk
                print(f"  page cache emptied first: read {len(sources)} candidate files once = {disk_floor * 1000:.1f} ms, cold verification {disk_cold * 1000:.1f} ms  {disk_cold / disk_floor:5.2f}x floor")


if __name__ == "__main__":
    main()
