"""Benchmark: a long-lived Verifier's recall right after one file was edited, added or deleted, on
generated trees of 1,000 and 16,000 files (issue 29: the work after a change must follow the change,
not the tree).

    python benchmarks/resident_edits.py [--sizes 1000,16000] [--rounds N] [--processes N] [--against CHECKOUT] [--work DIR]

Each tree is a git repository of Python files of 14 lines, 100 to a folder (`src/d<k>/m<i>.py`), each
importing `json` and `os` and defining a class with a method. One Verifier per process is warmed with
the anchors, then each round:

- edit: a comment line appended to `src/d0/m0.py`, then one anchor recalled (each of the four in
  turn: `import:json in:src/`, the `sym:` of that file, a `file:`, an absent `import:zlib`), then all
  four after one more edit;
- add: a new file `src/d0/new.py` (`import json`) written, then all four recalled;
- delete: that file deleted, then all four recalled;
- floor: reading the edited file and tree-sitter's parse of it.

CPU seconds of the process and of the children it waited for (git), medians over every round of every
process. With `--against`, a checkout of another revision (a `git archive` of main, say) runs the same
rounds in processes interleaved with this one's, its code put first on `PYTHONPATH`: both columns come
from the same minutes of a shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from speed import commit  # noqa: E402

ANCHORS = ["import:json in:src/", "sym:src/d0/m0.py::C0.m", "file:src/d0/m1.py", "import:zlib"]
EDITED = "src/d0/m0.py"
ADDED = "src/d0/new.py"
ROWS = [*(f"edit: {a}" for a in ANCHORS), "edit: all four", "add: all four", "delete: all four", "floor: read and parse the file"]


def tree(work: Path, files: int) -> Path:
    """The generated tree of `files` files, committed (made once per work directory)."""
    root = work / f"tree{files}"
    if (root / ".git").exists():
        return root
    for i in range(files):
        folder, at = divmod(i, 100)
        path = root / "src" / f"d{folder}" / f"m{at}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f"import json\nimport os\n\n\nclass C{at}:\n    def m(self):\n        return json.dumps({{}})\n\n\n"
            f"def f{at}():\n    return os.environ.get('K{at}')\n\n\nX = {i}\n"
        )
    return commit(root)


def cpu() -> float:
    times = os.times()
    return time.process_time() + times.children_user + times.children_system


def worker(root: Path, rounds: int) -> dict[str, list[float]]:
    """The rounds in this process, with whatever `anchorcheck` is first on the path."""
    from tree_sitter_language_pack import get_parser

    from anchorcheck import Memory, Verifier

    verifier = Verifier(root, options={"cache": False})
    memories = [Memory(id=str(i), anchors=[a]) for i, a in enumerate(ANCHORS)]
    for memory in memories:
        verifier.verify(memory)
    edited, added = root / EDITED, root / ADDED
    original = edited.read_bytes()
    samples: dict[str, list[float]] = {row: [] for row in ROWS}
    edits = 0

    def timed(row: str, work) -> None:  # type: ignore[no-untyped-def]
        start = cpu()
        work()
        samples[row].append(cpu() - start)

    def edit() -> None:
        nonlocal edits
        edits += 1
        edited.write_bytes(original + b"# edit %d\n" % edits)

    try:
        for _ in range(rounds):
            for memory in memories:
                edit()
                timed(f"edit: {memory.anchors[0]}", lambda m=memory: verifier.verify(m))
            edit()
            timed("edit: all four", lambda: [verifier.verify(m) for m in memories])
            added.write_text("import json\n")
            timed("add: all four", lambda: [verifier.verify(m) for m in memories])
            added.unlink()
            timed("delete: all four", lambda: [verifier.verify(m) for m in memories])
            timed("floor: read and parse the file", lambda: get_parser("python").parse(edited.read_bytes()))
    finally:
        edited.write_bytes(original)
        added.unlink(missing_ok=True)
    return samples


def run(code: Path | None, root: Path, rounds: int) -> dict[str, list[float]]:
    """One worker process: this checkout's code, or `code`'s first on PYTHONPATH."""
    env = dict(os.environ)
    if code is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(code), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    out = subprocess.run(
        [sys.executable, __file__, "--worker", str(root), "--rounds", str(rounds)], capture_output=True, text=True, check=True, env=env, cwd=code or Path.cwd()
    )
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", default="1000,16000")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per process")
    parser.add_argument("--processes", type=int, default=3, help="worker processes per tree and code, interleaved")
    parser.add_argument("--against", type=Path, help="a checkout of the code to compare with (its anchorcheck/ and plugins/)")
    parser.add_argument("--work", type=Path, help="where the trees go (default: a temp dir)")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker is not None:
        print(json.dumps(worker(args.worker, args.rounds)))
        return 0
    work = args.work or Path(tempfile.mkdtemp(prefix="anchorcheck-resident-"))
    work.mkdir(parents=True, exist_ok=True)
    sizes = [int(s) for s in args.sizes.split(",")]
    roots = {size: tree(work, size) for size in sizes}
    codes: dict[str, Path | None] = {"now": None} if args.against is None else {"against": args.against.resolve(), "now": None}
    samples: dict[tuple[str, int], dict[str, list[float]]] = {(c, s): {row: [] for row in ROWS} for c in codes for s in sizes}
    for _ in range(args.processes):
        for size in sizes:
            for name, code in codes.items():
                for row, values in run(code, roots[size], args.rounds).items():
                    samples[name, size][row].extend(values)
    columns = [(name, size) for name in codes for size in sizes]
    print(f"{time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, Python {sys.version.split()[0]}, "
          f"CPU medians of {args.processes} x {args.rounds} rounds per column (process and git children)\n")
    print("| recall right after | " + " | ".join(f"{name}, {size:,} files" for name, size in columns) + " | " + " | ".join(f"{name}: {sizes[-1] // 1000}k / {sizes[0] // 1000}k" for name in codes) + " |")
    print("|---|" + "---:|" * (len(columns) + len(codes)))
    medians = {key: {row: statistics.median(values) for row, values in rows.items()} for key, rows in samples.items()}
    for row in ROWS:
        cells = [f"{medians[key][row] * 1000:.2f} ms" for key in columns]
        ratios = [f"{medians[name, sizes[-1]][row] / medians[name, sizes[0]][row]:.1f}×" for name in codes]
        print(f"| {row} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
