"""Benchmark: the scale table, each figure beside its own floor measured in the same run (issue 29).

    python benchmarks/scale.py [--repo NAME=PATH ...] [--rounds N] [--quick] [--work DIR]

One row per repository: a small generated one always, then each `--repo` (a git checkout: Django, a
pnpm + cargo monorepo, a long-history repository). Columns, each a median of `--rounds` interleaved
rounds: CPU milliseconds (this process's and those of the children it waited for, counted in 10 ms
ticks: steadier than the wall clock on a shared machine), the floor's in parentheses, the ratio, and
the wall clock's ratio:

- cold: the anchors (`scale_anchors`: imports, absent imports, env keys, symbols, files, the packages
  the manifests declare) on a new Verifier, no disk cache. Floor: reading every candidate source file
  once, tree-sitter's parse of the source files the answers cite, and the manifests they cite parsed
  by the fastest parser (`tomllib`, `json`, PyYAML's C loader).
- warm: `anchorcheck check` of those anchors in a new process, disk cache filled, nothing changed (the
  stored report replayed). Floor: `python -c pass` and git's three listing commands, as processes.
- resident: one long-lived Verifier, all the anchors recalled right after a one-line edit of a cited
  source file. Floor: reading and parsing that file.
- prose: `anchorcheck check --no-cache` of the repository's own instruction file (AGENTS.md,
  CLAUDE.md or README.md: implicit references), a new process. Floor: as warm's.

`--quick` is one round on the small repository (a smoke test); no figure of it means anything.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from speed import commit, needed, process_env  # noqa: E402

PROSE = ("AGENTS.md", "CLAUDE.md", "README.md")
LISTING = "git ls-files -s -z >/dev/null; git diff-files --name-only -z >/dev/null; git ls-files -z --others --exclude-standard >/dev/null"


def small_repository(work: Path) -> Path:
    """A 60-file Python project with a manifest and an instruction file, committed."""
    root = work / "small"
    if root.exists():
        return root
    files = {
        "pyproject.toml": '[project]\nname = "app"\nversion = "1"\ndependencies = ["requests>=2", "click"]\n',
        "AGENTS.md": "# Agents\n\nRun `pytest` from the root. The entry point is `src/app/main.py`; settings live in `src/app/settings.py`.\n",
    }
    for i in range(60):
        files[f"src/app/m{i}.py"] = f"import json\nimport os\nimport requests\n\nKEY = os.environ.get('KEY_{i}')\n\n\ndef f{i}():\n    return json.dumps({{}})\n"
    files["src/app/main.py"] = "import click\n"
    files["src/app/settings.py"] = "DEBUG = False\n"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return commit(root)


def scale_anchors(root: Path, count: int = 24, seed: int = 29) -> list[str]:
    """Anchors of every kind drawn from the tree's own facts and manifests, any language, fixed seed."""
    from anchorcheck import Verifier
    from anchorcheck.evidence.index import SourceIndex

    rng = random.Random(seed)
    verifier = Verifier(root, options={"cache": False})
    hits = SourceIndex.of(verifier.context).everything().hits
    some: Callable[[list[Any], int], list[Any]] = lambda items, n: rng.sample(items, min(n, len(items)))  # noqa: E731
    modules = sorted({m for _, f in hits for m, _, _ in f.imports if m[:1].isalpha()})
    defined = sorted((path, name) for path, f in hits for name, *_ in f.defs[:3])
    env = sorted({k for _, f in hits for k, _ in f.env})
    anchors = [f"import:{m}" for m in some(modules, 6)] + ["import:absentmod_scale"]
    anchors += [f"env:{k}" for k in some(env, 3)] + ["env:ABSENT_SCALE_KEY"]
    anchors += [f"sym:{path}::{name}" for path, name in some(defined, 6)]
    anchors += [f"file:{path}" for path, _ in some(hits, 2)] + ["file:no/such/file.txt"]
    for name, ecosystem in verifier.registry.ecosystems.items():
        declared = sorted({d.name for d in ecosystem.read(verifier.context, None).declarations if d.relation != "locked"})
        anchors += [f"pkg:{name}/{package}" for package in some(declared, 2)]
    return anchors[:count] if len(anchors) > count else anchors


def cpu() -> float:
    """CPU seconds of this process (to the nanosecond) and of the children it waited for (git, checks)."""
    times = os.times()
    return time.process_time() + times.children_user + times.children_system


class Clock:
    """Wall-clock and CPU seconds per named part, one list a part; `median` of each (or their sum)."""

    def __init__(self) -> None:
        self.wall: dict[str, list[float]] = {}
        self.cpu: dict[str, list[float]] = {}

    def time(self, name: str, work: Callable[[], Any]) -> Any:
        start, start_cpu = time.perf_counter(), cpu()
        value = work()
        self.wall.setdefault(name, []).append(time.perf_counter() - start)
        self.cpu.setdefault(name, []).append(cpu() - start_cpu)
        return value

    def median(self, *names: str) -> tuple[float, float]:
        return sum(statistics.median(self.wall[n]) for n in names), sum(statistics.median(self.cpu[n]) for n in names)


def _manifest_floor(root: Path, paths: set[str]) -> None:
    """The manifests and lockfiles the answers cite, parsed by the fastest parser of their format."""
    import yaml

    for rel in sorted(paths):
        data = (root / rel).read_bytes()
        if rel.endswith((".toml", ".lock")) and not rel.endswith(("yarn.lock", "Gemfile.lock")):
            try:
                tomllib.loads(data.decode())
            except (tomllib.TOMLDecodeError, UnicodeDecodeError):
                pass
        elif rel.endswith(".json"):
            json.loads(data)
        elif rel.endswith((".yaml", ".yml")):
            yaml.load(data, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def cold(root: Path, anchors: list[str], clock: Clock) -> None:
    from tree_sitter_language_pack import get_parser

    from anchorcheck import Memory, Verifier
    from anchorcheck.evidence.index import SourceIndex

    forget_trees()
    # The last round's Verifier leaves its context, index and searches referring to each other (23,000 objects
    # on dd-trace-py), freed only by a full collection: a new process starts with no such garbage, and freeing
    # it took 20-40 ms of whichever later round's check a full collection happened to fall in.
    gc.collect()
    verifier = Verifier(root, options={"cache": False})
    memories = [Memory(id=str(i), anchors=[a]) for i, a in enumerate(anchors)]
    results = clock.time("cold", lambda: [r for m in memories for r in verifier.verify(m).results])
    candidates, _ = SourceIndex.of(verifier.context).sources(None)
    must = needed(results, anchors, {path for path, _ in candidates})
    manifests = {e.path for r in results if r.anchor.startswith("pkg:") for e in r.evidence if e.path and (root / e.path).is_file()}
    candidates = [(path, language) for path, language in candidates if (root / path).is_file()]  # not a sparse checkout's left-out file
    data = clock.time("cold read", lambda: {path: (root / path).read_bytes() for path, _ in candidates})
    clock.time("cold parse", lambda: [get_parser(language.grammar).parse(data[path]) for path, language in candidates if path in must])
    clock.time("cold manifests", lambda: _manifest_floor(root, manifests))


def forget_trees() -> None:
    """Trees a cold run parsed stay in the process (`anchorcheck.evidence.trees`): the next cold run starts
    without them, as a new process would. Code older than that store keeps none."""
    try:
        from anchorcheck.evidence.trees import forget
    except ImportError:
        return
    forget()


def cited_source(root: Path, anchors: list[str]) -> str:
    """The file the first `sym:` anchor names that is on disk: the one a resident Verifier sees edited."""
    return next(a[4:].split("::")[0] for a in anchors if a.startswith("sym:") and (root / a[4:].split("::")[0]).is_file())


def resident(verifier: Any, root: Path, anchors: list[str], edited: str, clock: Clock, at: int) -> None:
    from tree_sitter_language_pack import get_parser

    from anchorcheck import Memory

    memories = [Memory(id=str(i), anchors=[a]) for i, a in enumerate(anchors)]
    path = root / edited
    original = path.read_bytes()
    language = verifier.plugins.registry.language_for(edited)
    try:
        path.write_bytes(original + b"\n" + language_comment(edited) + b" scale edit %d\n" % at)
        clock.time("resident", lambda: [verifier.verify(m) for m in memories])
    finally:
        path.write_bytes(original)
        # git's index takes the file's new stat (what `git status` does): else every later warm check finds
        # it modified and no stored report matches.
        subprocess.run(["git", "update-index", "-q", "--refresh"], cwd=root, capture_output=True, check=False)
    # The index moved: the Verifier takes that in now, untimed, so the next round's recall follows the edit
    # alone (it measured a relisting of the whole checkout each round before).
    for memory in memories:
        verifier.verify(memory)
    clock.time("resident floor", lambda: get_parser(language.grammar).parse(path.read_bytes()))


def language_comment(path: str) -> bytes:
    return b"#" if path.endswith((".py", ".rb", ".sh", ".toml", ".yaml", ".yml")) else b"//"


def process(args: list[str], cwd: Path, clock: Clock, name: str) -> None:
    clock.time(name, lambda: subprocess.run(args, cwd=cwd, capture_output=True, check=False, env=process_env()))


def measure(name: str, root: Path, work: Path, rounds: int) -> dict[str, Any]:
    """One row of the table: every part of every round interleaved, then the medians."""
    from anchorcheck import Verifier

    anchors = scale_anchors(root)
    notes = work / f"NOTES-{name}.md"
    notes.write_text("# Notes\n\n" + "".join(f"- fact {i}: `{a}`\n" for i, a in enumerate(anchors)))
    os.environ["ANCHORCHECK_CACHE_DIR"] = str(work / f"cache-{name}")
    check = [sys.executable, "-m", "anchorcheck", "check", "--root", str(root), str(notes)]
    prose = next((root / p for p in PROSE if (root / p).is_file()), None)
    prose_check = [sys.executable, "-m", "anchorcheck", "check", "--no-cache", "--root", str(root), str(prose)] if prose else None
    subprocess.run(check, capture_output=True, check=False, env=process_env())  # fills the disk cache and the bytecode
    edited = cited_source(root, anchors)
    verifier = Verifier(root, options={"cache": False})
    for anchor in anchors:
        verifier.check(anchor)
    clock = Clock()
    for at in range(rounds):
        cold(root, anchors, clock)
        process(check, root, clock, "warm")
        process([sys.executable, "-c", "pass"], root, clock, "python")
        process(["sh", "-c", LISTING], root, clock, "listing")
        resident(verifier, root, anchors, edited, clock, at)
        if prose_check:
            process(prose_check, root, clock, "prose")
    files = len(subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=False).stdout.splitlines())
    row = {
        "repository": name, "files": files, "anchors": len(anchors),
        "cold": clock.median("cold"), "cold floor": clock.median("cold read", "cold parse", "cold manifests"),
        "warm": clock.median("warm"), "warm floor": clock.median("python", "listing"),
        "resident": clock.median("resident"), "resident floor": clock.median("resident floor"),
    }
    if prose_check:
        row.update({"prose": clock.median("prose"), "prose floor": clock.median("python", "listing"), "prose file": prose.name})  # type: ignore[union-attr]
    return row


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| repository | files | anchors | cold (floor) | warm (floor) | resident after an edit (floor) | prose check (floor) |",
        "|---|---:|---:|---|---|---|---|",
    ]
    for row in rows:
        cells = []
        for part in ("cold", "warm", "resident", "prose"):
            if part not in row:
                cells.append("—")
                continue
            (took, took_cpu), (floor, floor_cpu) = row[part], row[f"{part} floor"]
            precision = 0 if took_cpu >= 0.1 else 1 if took_cpu >= 0.01 else 2
            ratio = f"{took_cpu / floor_cpu:.2f}×" if floor_cpu > 0 else "—"
            cells.append(f"{took_cpu * 1000:.{precision}f} ms ({floor_cpu * 1000:.{precision}f}) **{ratio}**, wall {took / floor:.2f}×")
        lines.append(f"| {row['repository']} | {row['files']:,} | {row['anchors']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repo", action="append", default=[], metavar="NAME=PATH", help="a git checkout to measure (repeatable)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="one round on the small repository only: a smoke test")
    parser.add_argument("--work", type=Path, help="where the small repository, memory files and caches go (default: a temp dir)")
    args = parser.parse_args(argv)
    given = []
    for spec in [] if args.quick else args.repo:
        name, _, path = spec.partition("=")
        if not path or not (Path(path) / ".git").exists():
            parser.error(f"--repo {spec}: expected NAME=PATH of a git checkout")
        given.append((name, Path(path).resolve()))
    work = args.work or Path(tempfile.mkdtemp(prefix="anchorcheck-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    repos = [("small", small_repository(work)), *given]
    rounds = 1 if args.quick else args.rounds
    rows = []
    for name, root in repos:
        rows.append(measure(name, root, work, rounds))
        print(table(rows[-1:]).splitlines()[-1], file=sys.stderr)  # each row as soon as it is measured
    print(f"{time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, Python {sys.version.split()[0]}, medians of {rounds} interleaved round(s):\n")
    print(table(rows))
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
