"""`anchorcheck check [FILE|DIR|GLOB...]` — verify the memories in memory files.

With no arguments it checks the known memory files of the repository
(CLAUDE.md, AGENTS.md, memory-bank/, Cursor rules, Copilot instructions,
`*.memories.toml`, `memory.jsonl`, or the `memory-files` setting). Span
anchors get their fingerprints from `anchorcheck.lock`; `check` never writes
a memory file or the lock.
"""

from __future__ import annotations

import argparse
import sys
import time

from anchorcheck.cli.common import add_memory_files, add_format, add_root, add_verification, emit, exit_code, make_verifier
from anchorcheck.lockfile import attach, load_lock
from anchorcheck.memoryfiles import ReferenceReading, load
from anchorcheck.model import Memory, MemoryReport
from anchorcheck.receipts import ReceiptLog
from anchorcheck.report import Run
from anchorcheck.verifier import Verifier


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("check", help="verify the memories in memory files")
    add_memory_files(parser, "the known memory files of the repository")
    add_root(parser)
    add_format(parser)
    add_verification(parser)
    parser.add_argument(
        "--no-implicit",
        action="store_true",
        help="check typed anchors only, not the paths, commands and packages written in prose (config: implicit)",
    )
    parser.add_argument(
        "--receipts",
        metavar="FILE",
        help="append a JSONL receipt for each memory whose verdict changed since the last run",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    verifier = make_verifier(args)
    start = time.perf_counter()
    lock = load_lock(verifier.root)
    kinds = frozenset() if args.no_implicit else frozenset(verifier.config.implicit)
    reading = ReferenceReading(verifier.repo, kinds) if kinds else None
    loaded = load(args.files, verifier.repo, verifier.registry, verifier.config.memory_files, reading)
    if not loaded:
        print("anchorcheck: no memory files found (name them, or set memory-files in the config)", file=sys.stderr)
    batch = []
    for _, memories in loaded:
        attach(memories, lock, verifier.registry.kinds)
        batch.extend(memories)
    reports = _verify(verifier, batch, args.deadline)
    if args.receipts:
        ReceiptLog(args.receipts).record(reports, revision=verifier.repo.head)
    files = [shown for shown, _ in loaded]
    result = Run(reports, files=files, elapsed=time.perf_counter() - start, verbose=args.verbose)
    emit(result, args.format)
    return exit_code(result, args.fail_on or verifier.config.fail_on)


def _verify(verifier: Verifier, batch: list[Memory], deadline: float | None) -> list[MemoryReport]:
    """Reports in file order. Memories without anchors (most prose) cost nothing to judge and are judged
    here, so that they never push a batch of a few anchored memories into a process pool."""
    anchored = [m for m in batch if m.anchors]
    done = iter(verifier.verify_many(anchored, deadline=deadline))
    return [next(done) if memory.anchors else verifier.verify(memory) for memory in batch]
