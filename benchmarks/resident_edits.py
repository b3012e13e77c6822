"""Benchmark: a long-lived Verifier's recall right after one file was edited, added or deleted, on
generated trees of 1,000 and 16,000 files (issue 29: the work after a change must follow the change,
not the tree).

    python benchmarks/resident_edits.py [--sizes 1000,16000] [--repo PATH ...] [--rounds N] [--processes N] [--against CHECKOUT] [--work DIR]

Each tree is a git repository of Python files of 14 lines, 100 to a folder (`src/d<k>/m<i>.py`), each
importing `json` and `os` and defining a class with a method. One Verifier per process is warmed with
the anchors, then each round:

- edit: a comment line appended to `src/d0/m0.py`, then one anchor recalled (each of the four in
  turn: `import:json in:src/`, the `sym:` of that file, a `file:`, an absent `import:zlib`), then all
  four after one more edit;
- add: a new file beside it, `anchorcheck_new.py` (`import json`), written, then all four recalled;
- delete: that file deleted, then all four recalled;
- floors: reading the edited file and tree-sitter's parse of it; reading it and extracting its facts
  (the parse and the language's queries: what any recall that needs the file's facts does); each
  also right after an edit, as a recall meets the file (the write leaves the caches cold); and what
  a sound `sym:` recall cannot skip: the kernel's events read, the file read, parsed under the time
  bound and its definitions walked (`extraction.definitions_only`; Linux, and code that has it).

A checkout given with `--repo` gets `scale.py`'s anchors drawn from its own facts, recalled together
after each change (the edited file is the one the first `sym:` names; the added one sits beside it),
and that `sym:` anchor recalled alone right after an edit.

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
EVERY = ["edit: every anchor", "add: every anchor", "delete: every anchor"]
FLOORS = [
    "floor: read and parse the file",
    "floor: read it and extract its facts",
    "floor: read and parse it, right after an edit",
    "floor: read it and extract its facts, right after an edit",
    "floor: what a `sym:` recall cannot skip, right after an edit",
]
SYM_ALONE = "edit: the `sym:` anchor of that file alone"  # a checkout's (`--repo`): its first `sym:` anchor
ROWS = [*(f"edit: {a}" for a in ANCHORS), SYM_ALONE, *EVERY, *FLOORS]


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


def worker(root: Path, rounds: int, real: bool) -> dict[str, list[float]]:
    """The rounds in this process, with whatever `anchorcheck` is first on the path. `real`: a checkout
    given with `--repo`, its anchors drawn from its own facts (`scale.scale_anchors`), the edited file
    the first `sym:` one names; no recall of each anchor alone."""
    from tree_sitter_language_pack import get_parser

    from anchorcheck import Memory, Verifier
    from anchorcheck.evidence import trees
    from anchorcheck.evidence.extraction import extract_facts
    from anchorcheck.evidence.freshness import _Inotify

    try:
        from anchorcheck.evidence.extraction import definitions_only
    except ImportError:  # code from before `sym:` answered from the definitions alone
        definitions_only = None

    if real:
        from scale import cited_source, language_comment, scale_anchors

        anchors = scale_anchors(root)
        rel = cited_source(root, anchors)
        comment = language_comment(rel)
    else:
        anchors, rel, comment = ANCHORS, EDITED, b"#"
    verifier = Verifier(root, options={"cache": False})
    memories = [Memory(id=str(i), anchors=[a]) for i, a in enumerate(anchors)]
    for memory in memories:
        verifier.verify(memory)
    cited = next(memory for memory in memories if memory.anchors[0].startswith(f"sym:{rel}::"))
    edited = root / rel
    # The kernel's events on the edited file's folder, in a queue of their own (the Verifier's stays its own).
    events = _Inotify.watching([str(edited.parent)], str(root))
    added = edited.with_name("anchorcheck_new" + edited.suffix)
    language = verifier.plugins.registry.language_for(rel)
    original = edited.read_bytes()
    samples: dict[str, list[float]] = {}
    edits = 0

    def timed(row: str, work) -> None:  # type: ignore[no-untyped-def]
        start = cpu()
        work()
        samples.setdefault(row, []).append(cpu() - start)

    def edit() -> None:
        nonlocal edits
        edits += 1
        edited.write_bytes(original + comment + b" edit %d\n" % edits)

    def recall() -> None:
        for memory in memories:
            verifier.verify(memory)

    try:
        for _ in range(rounds):
            for memory in [cited] if real else memories:
                edit()
                timed(SYM_ALONE if real else f"edit: {memory.anchors[0]}", lambda m=memory: verifier.verify(m))
            edit()
            timed(EVERY[0], recall)
            added.write_bytes(b"import json\n" if edited.suffix == ".py" else comment + b" new\n")
            timed(EVERY[1], recall)
            added.unlink()
            timed(EVERY[2], recall)
            timed(FLOORS[0], lambda: get_parser(language.grammar).parse(edited.read_bytes()))
            # The recall parsed these bytes: their kept tree would spare the floor its parse. The floor
            # parses with no tree kept, and the Verifier's are put back (the next recall may parse an
            # edited file from one, as a long-lived process does: forgetting them made every round's first
            # recall after an edit parse its file whole).
            held, trees._HELD = trees._HELD, trees._Held(trees._HELD_BYTES)
            timed(FLOORS[1], lambda: extract_facts(language, edited.read_bytes()))
            trees._HELD = held
            # As a recall meets it: the first work after a write runs with the caches the write left (on
            # this machine the first syscall after it costs 4x, and plain Python 1.4x, for some 50 us).
            edit()
            timed(FLOORS[2], lambda: get_parser(language.grammar).parse(edited.read_bytes()))
            edit()
            timed(FLOORS[3], lambda: extract_facts(language, edited.read_bytes()))
            if events is not None and definitions_only is not None:
                edit()
                timed(FLOORS[4], lambda: (events.happened(), definitions_only(language, edited.read_bytes())))  # type: ignore[misc]
    finally:
        edited.write_bytes(original)
        added.unlink(missing_ok=True)
    return samples


def run(code: Path | None, root: Path, rounds: int, real: bool) -> dict[str, list[float]]:
    """One worker process: this checkout's code, or `code`'s first on PYTHONPATH."""
    env = dict(os.environ)
    if code is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(code), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    command = [sys.executable, __file__, "--worker", str(root), "--rounds", str(rounds), *(["--real"] if real else [])]
    out = subprocess.run(command, capture_output=True, text=True, check=True, env=env, cwd=code or Path.cwd())
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", default="1000,16000", help="generated trees, by files (none: --sizes '')")
    parser.add_argument("--repo", type=Path, action="append", default=[], help="a git checkout to measure too (repeatable)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per process")
    parser.add_argument("--processes", type=int, default=3, help="worker processes per tree and code, interleaved")
    parser.add_argument("--against", type=Path, help="a checkout of the code to compare with (its anchorcheck/ and plugins/)")
    parser.add_argument("--work", type=Path, help="where the trees go (default: a temp dir)")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--real", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker is not None:
        print(json.dumps(worker(args.worker, args.rounds, args.real)))
        return 0
    work = args.work or Path(tempfile.mkdtemp(prefix="anchorcheck-resident-"))
    work.mkdir(parents=True, exist_ok=True)
    trees = [(f"{int(size):,} files", tree(work, int(size)), False) for size in args.sizes.split(",") if size]
    trees += [(repo.resolve().name, repo.resolve(), True) for repo in args.repo]
    codes: dict[str, Path | None] = {"now": None} if args.against is None else {"against": args.against.resolve(), "now": None}
    samples: dict[tuple[str, str], dict[str, list[float]]] = {(c, t): {} for c in codes for t, _, _ in trees}
    for _ in range(args.processes):
        for label, root, real in trees:
            for name, code in codes.items():
                for row, values in run(code, root, args.rounds, real).items():
                    samples[name, label].setdefault(row, []).extend(values)
    columns = [(name, label) for label, _, _ in trees for name in codes]
    print(f"{time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, Python {sys.version.split()[0]}, "
          f"CPU medians of {args.processes} x {args.rounds} rounds per column (the process and the git it waited for)\n")
    print("| recall right after | " + " | ".join(f"{label}, {name}" for name, label in columns) + " |")
    print("|---|" + "---:|" * len(columns))
    medians = {key: {row: statistics.median(values) for row, values in rows.items()} for key, rows in samples.items()}
    for row in ROWS:
        cells = [f"{medians[key][row] * 1000:.2f} ms" if row in medians[key] else "—" for key in columns]
        print(f"| {row} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
