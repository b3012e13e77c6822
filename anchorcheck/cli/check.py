"""`anchorcheck check [FILE|DIR|GLOB...]` — verify the memories in memory files.

With no arguments it checks the known memory files of the repository
(CLAUDE.md, AGENTS.md, memory-bank/, Cursor rules, Copilot instructions,
`*.memories.toml`, `memory.jsonl`, or the `memory-files` setting). Span
anchors get their fingerprints from `anchorcheck.lock`; `check` never writes
a memory file or the lock. With `--watch` it keeps running and checks again
whenever the checkout changes, printing only the verdicts that changed
(`anchorcheck.cli.watch`).
"""

from __future__ import annotations

import argparse
import sys
import time

from anchorcheck.cli.common import add_memory_files, add_format, add_root, add_verification, emit, exit_code, make_verifier
from anchorcheck.cli.watch import add_watch, watch
from anchorcheck.evidence.history import history_of
from anchorcheck.memory.implicit import Unsure
from anchorcheck.memory.lockfile import attach, load_lock
from anchorcheck.base.memo import Reads
from anchorcheck.memory.memoryfiles import ReferenceReading, claude_memory_dir, claude_memory_files, load
from anchorcheck.model.results import Memory, MemoryReport
from anchorcheck.serve.replay import Recording
from anchorcheck.report import Run
from anchorcheck.verify.verifier import Verifier


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
        "--claude-memory",
        action="store_true",
        help="also check Claude Code's auto-memory for this repository (~/.claude/projects/<encoded path>/memory/*.md)",
    )
    parser.add_argument(
        "--receipts",
        metavar="FILE",
        help="append a JSONL receipt for each memory whose verdict changed since the last run",
    )
    parser.add_argument(
        "--server",
        action="store_true",
        help="when no server answers for the checkout, start one in the background for the next checks (anchorcheck serve)",
    )
    parser.add_argument(
        "--fix",
        action="store_true",
        help="then rewrite the paths that git history shows moved, where they are written (anchorcheck fix)",
    )
    add_watch(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    recording = Recording.begin(args)  # before the plugins load: a warning they print is output too
    try:
        verifier = make_verifier(args, resident=args.watch)
        if recording is not None:
            recording.files_read(verifier)
        start = time.perf_counter()
        loaded, reports, reads = check_memories(args, verifier)
        if not loaded:
            print("anchorcheck: no memory files found (name them, or set memory-files in the config)", file=sys.stderr)
        files = [shown for shown, _ in loaded]
        result = Run(reports, files=files, elapsed=time.perf_counter() - start, verbose=args.verbose, root=str(verifier.root))
        emit(result, args.format)
        if args.watch:
            return watch(args, verifier, reports, reads, lambda: check_memories(args, verifier)[1:])
        code = exit_code(result, args.fail_on or verifier.config.fail_on)
        if args.fix:
            from anchorcheck.cli.fix import write_fixes  # only a run that fixes needs it

            write_fixes(reports, verifier.root)
        if recording is not None:
            recording.store(verifier, reads, loaded, result, code)
        if args.server and args.verifiers is None:  # checked here: no server answered (anchorcheck.serve.checkclient)
            _start_server(str(verifier.root))
        return code
    finally:
        if recording is not None:
            recording.stop()


def _start_server(root: str) -> None:
    """A server for the next checks of this checkout, unless none may run here."""
    from anchorcheck.serve.checkclient import DEFAULT_IDLE, address, spawn

    if address(root) is not None:
        spawn(root, DEFAULT_IDLE)


def check_memories(args: argparse.Namespace, verifier: Verifier) -> tuple[list[tuple[str, list[Memory]]], list[MemoryReport], Reads]:
    """Load the memory files (and the lock) as they are now and verify every memory in them; and what
    that read through the checkout (what a stored report must name, `anchorcheck.serve.replay`)."""
    with verifier.context.shared.recording() as reads:
        lock = load_lock(verifier.root)
        kinds = frozenset() if args.no_implicit else frozenset(verifier.config.implicit)
        unsure = Unsure(history_of(verifier.context)) if "file" in kinds else None
        reading = ReferenceReading(verifier.repo, kinds, unsure=unsure) if kinds else None
        loaded = load(args.files, verifier.repo, verifier.registry, verifier.config.memory_files, reading)
        if args.claude_memory:
            auto = claude_memory_files(verifier.root)
            if not auto:
                print(f"anchorcheck: no Claude Code auto-memory at {claude_memory_dir(verifier.root)}", file=sys.stderr)
            loaded += load([str(p) for p in auto], verifier.repo, verifier.registry, (), reading) if auto else []
        batch = []
        for _, memories in loaded:
            attach(memories, lock, verifier.registry.kinds)
            batch.extend(memories)
        reports = _verify(verifier, batch, args.deadline)
    if args.receipts:  # HEAD is read for the receipts alone: a run that appends none printed nothing of it
        from anchorcheck.memory.receipts import ReceiptLog  # a run without --receipts does not import it

        ReceiptLog(args.receipts).record(reports, revision=verifier.repo.head)
    return loaded, reports, reads


def _verify(verifier: Verifier, batch: list[Memory], deadline: float | None) -> list[MemoryReport]:
    """Reports in file order. Memories without anchors (most prose) cost nothing to judge and are judged
    here, so that they never push a batch of a few anchored memories into a process pool."""
    anchored = [m for m in batch if m.anchors]
    done = iter(verifier.verify_many(anchored, deadline=deadline))
    return [next(done) if memory.anchors else verifier.verify(memory) for memory in batch]
