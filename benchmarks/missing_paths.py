"""Benchmark: `file:` anchors to missing paths against the same number to existing ones, whole processes.

    python benchmarks/missing_paths.py [--count N] [--rounds N] [--against DIR]

A git repository is made in a temp dir: N files, twenty to a folder, in folders
three deep, a `.gitignore` at the root and in each top folder, and two memory
files (one memory per line), one
naming the N files (`file:` anchors, all VERIFIED) and one naming N paths
beside them that never existed (all REFUTED: each is judged against the
ignore files, and history is asked about it). Each round runs
`anchorcheck check --no-cache` of each memory file in turn (interleaved), and
the medians of the CPU time (the child's and the git it waited for) are printed
with the missing/existing ratio.

`--against DIR` times another checkout's source in the same rounds (DIR holds its
`anchorcheck` and `anchorcheck_plugins` packages: `git archive main anchorcheck plugins
| tar -x -C DIR && mv DIR/plugins DIR/anchorcheck_plugins`), run by this interpreter with
DIR first on the import path.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from speed import commit, process_env  # noqa: E402


def repository(work: Path, count: int) -> Path:
    root = work / "repo"
    (root / ".gitignore").parent.mkdir(parents=True)
    (root / ".gitignore").write_text("*.log\n/build/\n.env\n__pycache__/\n*.tmp\n")
    for top in range(10):
        (root / f"pkg{top}").mkdir()
        (root / f"pkg{top}" / ".gitignore").write_text("*.cache\n/out/\n")
    existing, missing = [], []
    for i in range(count):
        at = i // 20
        folder = f"pkg{at % 10}/sub{at // 10 % 5}/leaf{at // 50}"
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / f"m{i}.py").write_text(f"X{i} = {i}\n")
        existing.append(f"{folder}/m{i}.py")
        missing.append(f"{folder}/gone{i}.py")
    (root / "existing.md").write_text("".join(f"- `file:{p}`\n" for p in existing))
    (root / "missing.md").write_text("".join(f"- `file:{p}`\n" for p in missing))
    return commit(root)


def child_cpu(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    """The CPU seconds of a run (its workers' and the git they ran included), and its summary line."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, check=False, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    summary = (done.stdout.strip().splitlines() or [done.stderr.strip()])[-1]
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--against", type=Path, help="another checkout's source tree, timed in the same rounds")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        root = repository(Path(tmp), args.count)
        versions = {"this": process_env()}
        if args.against is not None:
            versions["against"] = {**process_env(), "PYTHONPATH": str(args.against.resolve())}
        times: dict[tuple[str, str], list[float]] = {}
        said: dict[tuple[str, str], str] = {}
        for _ in range(args.rounds):
            for version, env in versions.items():
                for memory in ("existing.md", "missing.md"):
                    command = [sys.executable, "-m", "anchorcheck", "check", "--no-cache", memory]
                    spent, said[version, memory] = child_cpu(command, root, env)
                    times.setdefault((version, memory), []).append(spent)
        for version in versions:
            existing = statistics.median(times[(version, "existing.md")])
            missing = statistics.median(times[(version, "missing.md")])
            print(f"{version:8} {args.count:,} existing {existing:7.2f} s   {args.count:,} missing {missing:7.2f} s   missing/existing {missing / existing:5.2f}x")
            print(f"         {said[version, 'existing.md']}  |  {said[version, 'missing.md']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
