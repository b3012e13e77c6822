"""`anchorcheck lock [FILE|DIR|GLOB...]` — bank every span anchor of the memory files into `anchorcheck.lock`.

Span anchors that have no entry are banked from the current checkout;
entries that exist are kept as they are (a stale one is `rebank`'s job,
after someone has read the memory). With no arguments the known memory
files are read and entries that no memory file writes any more are
removed; naming files only adds. `--check` writes nothing and fails while
the lock lacks an entry, has one nobody writes, or names lines a span moved
away from (`anchorcheck relocate` updates those). Exit 0, or 1 when some anchor could not
be banked (each printed with its file and line), 2 for usage errors.
"""

from __future__ import annotations

import argparse
import sys

from anchorcheck.base.printable import printable
from anchorcheck.cli.common import add_memory_files, EXIT_CLEAN, EXIT_FAILED, add_root, make_verifier
from anchorcheck.memory.lockfile import LOCK_NAME, Lock, load_lock, unbanked, update, write
from anchorcheck.memory.memoryfiles import load
from anchorcheck.model.results import Memory
from anchorcheck.verify.verifier import Verifier


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("lock", help="bank the span anchors of the memory files into anchorcheck.lock")
    add_memory_files(parser, "the known memory files; also prunes unused entries")
    add_root(parser)
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if the lock is not up to date")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    verifier = make_verifier(args)
    lock = load_lock(verifier.root)
    loaded = load(args.files, verifier.repo, verifier.registry, verifier.config.memory_files)
    wanted = unbanked([m for _, memories in loaded for m in memories], verifier.registry.kinds)
    result = update(lock, wanted, verifier.repo, verifier.registry.kinds, prune=not args.files)
    for key, memory, message in result.failed:
        print(printable(f"{_where(key, memory)}: cannot bank {key}: {message}"), file=sys.stderr)
    summary = f"{len(result.added)} added, {len(result.removed)} removed, {len(result.kept)} unchanged"
    if args.check:
        moved = _moved(lock, result.kept, verifier)
        state = "out of date" if result.changed or moved else "up to date"
        print(f"{LOCK_NAME} is {state} ({summary}{f', {len(moved)} moved' if moved else ''}).")
        for line in moved:
            print(line)
        return EXIT_FAILED if result.changed or result.failed or moved else EXIT_CLEAN
    if result.changed or not lock.path.exists():
        write(lock)
    print(f"Wrote {LOCK_NAME}: {summary}." if result.changed else f"{LOCK_NAME} is up to date ({summary}).")
    return EXIT_FAILED if result.failed else EXIT_CLEAN


def _moved(lock: Lock, keys: list[str], verifier: Verifier) -> list[str]:
    """A line for each kept entry whose span moved intact: the lock (and the memory files) name old lines
    until `relocate` runs, and a span that drifts far enough can no longer be followed."""
    from anchorcheck.model.citation import Citation

    out = []
    for key in keys:
        result = verifier.check(Citation.from_dict(lock.entries[key]))
        if result.state == "relocated":
            now = result.details
            out.append(f"{key}: moved to {now['path']} lines {now['start_line']}-{now['end_line']}: run anchorcheck relocate")
    return out


def _where(key: str, memory: Memory) -> str:
    """`file:line:col` of the anchor as written (the memory's line when the reader gave no column)."""
    index = next((i for i, a in enumerate(memory.anchors) if isinstance(a, str) and a.strip() == key), None)
    pos = memory.anchor_position(index) if index is not None else memory.position
    return f"{memory.source}:{pos.line}:{pos.column}" if pos else str(memory.source)
