"""Benchmark: history questions on a repository of 100,000+ commits, cold and warm (issues 27 and 29).

    python benchmarks/history.py [--commits N] [--rounds N] [--work DIR] [--base TREE] [--no-commit-graph]

Builds a linear repository with one `git fast-import` stream (under a minute for 100,000 commits):
3,000 files in 100 folders, one file edited per commit, a file renamed every 97 commits, one deleted
and one added every 211, a folder moved every 20,000, and the paths the questions name:

- recent: `recent/gone_recent.py`, deleted 10 commits before HEAD;
- deep: `deep/gone_deep.py`, deleted at commit 1,000 (the walk must go 99,000 commits deep);
- never: `nowhere/never_here.py`, never in the history (the worst case: the walk goes to the root);
- folder: `legacy/` (20 files), moved to `lib/legacy/` at commit 50,000;
- many: a memory naming 40 paths never in the history (`nowhere/never_0.py` …): more than a walk hands git as
  pathspecs, so git prints every commit's changes and the walk matches them (a `check` only, as for the floor);
- floor: `pkg/d00/f00.py`, which exists (no history asked).

Git's commit-graph is written first (what `git gc` keeps; `--no-commit-graph` removes it). Each question,
rounds interleaved, medians of wall and CPU (the process's and git's):

- check cold / warm: `anchorcheck check` of a memory naming that path, in a new process, with an empty
  cache folder / the folder a run before filled (a run that asked history is never replayed: warm is a
  full check that finds history's answers in the cache);
- history cold / warm: the history question alone (`History.fate`) on a new Verifier in a new process,
  no cache / the cache filled (warm: the median of 15 questions, each on a new Verifier), the checkout's
  listing taken before the clock; with the commits read.

`--base TREE` measures another anchorcheck source tree (`git archive main | tar -x -C TREE`) in the same
rounds, each question by each version in turn.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from speed import process_env  # noqa: E402

QUESTIONS = {
    "recent": "recent/gone_recent.py",
    "deep": "deep/gone_deep.py",
    "never": "nowhere/never_here.py",
    "folder": "legacy/",
}
PRESENT = "pkg/d00/f00.py"  # never touched by a rename or deletion: the floor's path
MANY = [f"nowhere/never_{i}.py" for i in range(40)]  # past the walk's PATHSPECS_MOST
FOLDERS, PER_FOLDER, LEGACY = 100, 30, 20
DEEP_AT, FOLDER_AT = 1_000, 50_000


def build(root: Path, commits: int) -> Path:
    """A repository of `commits` commits made by one `git fast-import` stream (see the module's docstring)."""
    if (root / ".git").exists():
        return root
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    proc = subprocess.Popen(["git", "fast-import", "--quiet", "--done"], cwd=root, stdin=subprocess.PIPE)
    assert proc.stdin is not None
    write = proc.stdin.write
    live = [f"pkg/d{d:02d}/f{f:02d}.py" for d in range(FOLDERS) for f in range(PER_FOLDER)]
    made = len(live)

    def data(text: str) -> bytes:
        body = text.encode()
        return b"data %d\n%s\n" % (len(body), body)

    for at in range(1, commits + 1):
        ops: list[bytes] = []
        if at == 1:
            first = [*live, QUESTIONS["recent"], QUESTIONS["deep"], *(f"legacy/m{i}.py" for i in range(LEGACY))]
            ops += [b"M 100644 inline %s\n" % p.encode() + data(f"# {p}\nVALUE = {i}\n") for i, p in enumerate(first)]
        else:
            path = live[(at * 7919) % len(live)]
            ops.append(b"M 100644 inline %s\n" % path.encode() + data(f"# {path}\nVALUE = {at}\n"))
        if at % 97 == 0:
            index = (at * 31) % len(live)
            old = live[index]
            if old != PRESENT:
                new = f"{old.rsplit('/', 1)[0]}/r{at}.py"
                ops.append(b"R %s %s\n" % (old.encode(), new.encode()))
                live[index] = new
        if at % 211 == 0:
            index = (at * 17) % len(live)
            if live[index] != PRESENT:
                ops.append(b"D %s\n" % live[index].encode())
                made += 1
                live[index] = f"pkg/d{at % FOLDERS:02d}/n{made}.py"
                ops.append(b"M 100644 inline %s\n" % live[index].encode() + data(f"# new {made}\n"))
        if at % 20_000 == 0 and at != commits:
            folder = f"pkg/d{(at // 20_000) + 50:02d}"
            ops.append(b"R %s pkg/moved/%s\n" % (folder.encode(), folder.rsplit("/", 1)[1].encode()))
            live = [p.replace(folder + "/", f"pkg/moved/{folder.rsplit('/', 1)[1]}/", 1) if p.startswith(folder + "/") else p for p in live]
        if at == DEEP_AT:
            ops.append(b"D %s\n" % QUESTIONS["deep"].encode())
        if at == FOLDER_AT:
            ops.append(b"R legacy lib/legacy\n")
        if at == commits - 10:
            ops.append(b"D %s\n" % QUESTIONS["recent"].encode())
        stamp = 1_500_000_000 + at * 600
        header = b"commit refs/heads/main\ncommitter Bench <bench@example.com> %d +0000\n" % stamp
        write(header + data(f"change {at}") + b"".join(ops) + b"\n")
    write(b"done\n")
    proc.stdin.close()
    if proc.wait() != 0:
        raise RuntimeError("git fast-import failed")
    subprocess.run(["git", "checkout", "-q", "-f", "main"], cwd=root, check=True)
    return root


def commit_graph(root: Path, on: bool) -> None:
    """Write git's commit-graph (what `git gc` and `git maintenance` keep; most clones have one) or remove it."""
    graph = root / ".git/objects/info"
    for name in ("commit-graph", "commit-graphs"):
        target = graph / name
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()
    if on:
        subprocess.run(["git", "commit-graph", "write", "--reachable"], cwd=root, check=True, capture_output=True)


# Measured in a new process: one history question on a new Verifier (no cache, or a cache folder), the
# listing taken before the clock (it is not history's); prints seconds, CPU seconds (the process's and
# git's), the walks and the commits they read, and the answer.
PROBE = """
import json, resource, sys, time
from anchorcheck import Verifier
from anchorcheck.evidence.history import history_of
root, path, cache, times = sys.argv[1:5]
def cpu():
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
took = []
for _ in range(int(times)):
    verifier = Verifier(root, options={"cache": False} if cache == "-" else {"cache_dir": cache})
    history = history_of(verifier.context)
    verifier.repo.listing_outputs(), verifier.repo.in_git
    start, start_cpu = time.perf_counter(), cpu()
    fate = history.fate(path)
    took.append((time.perf_counter() - start, cpu() - start_cpu))
took.sort()
print(json.dumps([*took[len(took) // 2], history.walks, getattr(history, "commits", None), fate.describe() if fate else "no answer"]))
"""
WARM_TIMES = 15  # warm questions asked in one process, each on a new Verifier: the median of them
# Runs the code of another anchorcheck source tree (`--base`) in place of the installed one.
LOADER = """
import sys
sys.meta_path = [finder for finder in sys.meta_path if "editable" not in repr(finder).lower()]
sys.path.insert(0, {links!r})
"""


def children_cpu() -> float:
    times = os.times()
    return times.children_user + times.children_system


class Code:
    """One version of anchorcheck to measure: the installed one, or a source tree (`--base`)."""

    def __init__(self, name: str, tree: Path | None, work: Path) -> None:
        self.name = name
        self.prefix = ""
        if tree is not None:
            links = work / f"code-{name}"
            links.mkdir(exist_ok=True)
            for link, target in (("anchorcheck", tree / "anchorcheck"), ("anchorcheck_plugins", tree / "plugins")):
                if not (links / link).exists():
                    (links / link).symlink_to(target.resolve())
            self.prefix = LOADER.format(links=str(links))

    def command(self, *args: str) -> list[str]:
        """`anchorcheck ARGS` run by this version."""
        return [sys.executable, "-c", self.prefix + "import sys\nfrom anchorcheck.cli import main\nsys.exit(main(sys.argv[1:]))", *args]


def run_check(code: Code, root: Path, memory: Path, cache: Path) -> tuple[float, float, str]:
    """Wall and CPU seconds of one `anchorcheck check` in a new process, and its one result's reason."""
    env = {**process_env(), "ANCHORCHECK_CACHE_DIR": str(cache)}
    start, start_cpu = time.perf_counter(), children_cpu()
    out = subprocess.run(code.command("check", "--format", "json", "-v", "--root", str(root), str(memory)), capture_output=True, text=True, env=env, check=False)
    wall, cpu = time.perf_counter() - start, children_cpu() - start_cpu
    results = json.loads(out.stdout)["results"] if out.stdout.strip() else []
    return wall, cpu, results[0]["reason"] if results else out.stderr[-300:]


def probe(code: Code, root: Path, path: str, cache: Path | None) -> list[Any]:
    """One history question alone, in a new process (warm: the median of `WARM_TIMES`): [seconds, CPU
    seconds, walks, commits read, answer]."""
    out = subprocess.run(
        [sys.executable, "-c", code.prefix + PROBE, str(root), path, str(cache) if cache else "-", str(WARM_TIMES if cache else 1)],
        capture_output=True, text=True, env=process_env(), check=True,
    )
    return json.loads(out.stdout)


def measure(codes: list[Code], root: Path, work: Path, rounds: int) -> list[dict[str, Any]]:
    """Every question, every version, cold and warm, interleaved round by round; the medians."""
    memories = {}
    for name, paths in [*((n, [p]) for n, p in QUESTIONS.items()), ("many", MANY), ("floor", [PRESENT])]:
        memories[name] = work / f"MEMORY-{name}.md"
        memories[name].write_text("".join(f"- `file:{path}`\n" for path in paths))
    warm = {(code.name, name): work / f"cache-warm-{code.name}-{name}" for code in codes for name in memories}
    for code in codes:
        for name, memory in memories.items():
            run_check(code, root, memory, warm[code.name, name])  # fills each warm cache (and the bytecode)
            if name in QUESTIONS:
                probe(code, root, QUESTIONS[name], warm[code.name, name])
    times: dict[tuple[str, ...], list[float]] = {}
    answers: dict[tuple[str, str], str] = {}
    for at in range(rounds):
        for name, memory in memories.items():
            for code in codes:
                cold = work / f"cache-cold-{code.name}-{name}-{at}"
                for kind, cache in (("cold", cold), ("warm", warm[code.name, name])):
                    wall, cpu, answers[code.name, name] = run_check(code, root, memory, cache)
                    times.setdefault((code.name, name, f"check {kind}"), []).append(wall)
                    times.setdefault((code.name, name, f"check {kind} cpu"), []).append(cpu)
                shutil.rmtree(cold, ignore_errors=True)
                if name not in QUESTIONS:
                    continue
                for kind, cache in (("cold", None), ("warm", warm[code.name, name])):
                    took, cpu, walks, commits, _ = probe(code, root, QUESTIONS[name], cache)
                    for part, value in ((f"history {kind}", took), (f"history {kind} cpu", cpu), (f"walks {kind}", walks), (f"commits {kind}", commits)):
                        if value is not None:
                            times.setdefault((code.name, name, part), []).append(value)
    rows = []
    for name in memories:
        for code in codes:
            row: dict[str, Any] = {"question": name, "code": code.name, "answer": answers[code.name, name]}
            row.update({key[2]: statistics.median(values) for key, values in times.items() if key[:2] == (code.name, name)})
            rows.append(row)
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| question | code | check cold: wall (CPU) | check warm: wall (CPU) | history cold: wall (CPU) | history warm: wall (CPU) | commits read cold | answer |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]

    def cell(row: dict[str, Any], part: str, digits: int) -> str:
        if part not in row:
            return "—"
        return f"{row[part] * 1000:,.{digits}f} ms ({row[part + ' cpu'] * 1000:,.{digits}f})"

    for row in rows:
        cells = [cell(row, "check cold", 0), cell(row, "check warm", 0), cell(row, "history cold", 0), cell(row, "history warm", 1)]
        commits = f"{row['commits cold']:,.0f}" if "commits cold" in row else "—"
        answer = row["answer"].split("; ", 1)[-1][:80]
        lines.append(f"| {row['question']} | {row['code']} | " + " | ".join(cells) + f" | {commits} | {answer} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--commits", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--work", type=Path, help="where the repository, memories and caches go (default: a temp dir)")
    parser.add_argument("--base", type=Path, help="another anchorcheck source tree (e.g. `git archive main`), measured in the same rounds")
    parser.add_argument("--no-commit-graph", action="store_true", help="measure without git's commit-graph file")
    args = parser.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="anchorcheck-history-"))
    work.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    root = build(work / f"repo-{args.commits}", args.commits)
    print(f"built {args.commits:,} commits in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    commit_graph(root, not args.no_commit_graph)
    codes = [Code("this", None, work)] + ([Code("base", args.base, work)] if args.base else [])
    try:
        rows = measure(codes, root, work, args.rounds)
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    graph = "off" if args.no_commit_graph else "on"
    load, version = os.getloadavg()[0], sys.version.split()[0]
    print(f"{time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores, load {load:.1f}, Python {version}, {args.commits:,} commits, "
          f"commit-graph {graph}, medians of {args.rounds} interleaved rounds:\n\n{table(rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
