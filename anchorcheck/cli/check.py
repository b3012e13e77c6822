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
from typing import TYPE_CHECKING

from anchorcheck.cli.common import UsageError, add_memory_files, add_format, add_output, add_root, add_verification, emit, exit_code, make_verifier
from anchorcheck.cli.watch import add_watch, watch
from anchorcheck.evidence.cache import open_cache
from anchorcheck.evidence.history import history_of
from anchorcheck.memory.implicit import Unsure
from anchorcheck.memory.dependencies import Dependencies
from anchorcheck.memory.lockfile import attach, load_lock
from anchorcheck.base.memo import Reads
from anchorcheck.memory.selection import select_kinds
from anchorcheck.memory.memoryfiles import MemoryFileError, ReferenceReading, claude_memory_dir, claude_memory_files, load
from anchorcheck.model.results import Memory, MemoryReport
from anchorcheck.serve.replay import Recording
from anchorcheck.report import Run
from anchorcheck.repo.gitdir import top_of
from anchorcheck.memory.unreadable import UNREADABLE, unreadable_report
from anchorcheck.verify import identifiers
from anchorcheck.verify.prose import drop_runner_names, soften
from anchorcheck.verify.verifier import Verifier

if TYPE_CHECKING:
    from pathlib import Path

    from anchorcheck.memory.documents import Documents
    from anchorcheck.repo.context import Context


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
        "--strict",
        action="store_true",
        help="a code span of prose written like an anchor but none (`imprt:redis`, `pkg:pypi/`) is an error, not a warning",
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
    parser.add_argument("--select", type=kinds_list, default=(), metavar="KIND,...", help="check only anchors of these kinds (file, cmd, pkg, span, ...)")
    parser.add_argument("--ignore", type=kinds_list, default=(), metavar="KIND,...", help="leave out anchors of these kinds")
    parser.add_argument("--baseline", metavar="FILE", help="leave out the findings recorded in FILE (anchorcheck baseline): fail only on new ones")
    add_output(parser)
    parser.add_argument(
        "--fix",
        action="store_true",
        help="then rewrite the paths that git history shows moved, where they are written (anchorcheck fix)",
    )
    add_watch(parser)
    parser.set_defaults(run=run)


def kinds_list(text: str) -> frozenset[str]:
    """`file,cmd` as a set of kinds (checked against the registered kinds once the plugins are loaded)."""
    return frozenset(word.strip() for word in text.split(",") if word.strip())


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
        result = Run(reports, files=files, elapsed=time.perf_counter() - start, verbose=args.verbose, root=str(top_of(verifier.root)), checkout=str(verifier.root))
        if args.baseline:
            from anchorcheck.cli.baseline import leave_out_known

            leave_out_known(result, args.baseline)
        result.quiet, result.fail_on = args.quiet, args.fail_on or verifier.config.fail_on
        emit(result, args.format, color=args.color, output=args.output)
        if args.watch:
            return watch(args, verifier, reports, reads, lambda: check_memories(args, verifier)[1:])
        code = exit_code(result, result.fail_on)
        if args.fix:
            from anchorcheck.cli.fix import write_fixes  # only a run that fixes needs it

            write_fixes(reports, verifier.root)
        if recording is not None and not any(r.results and r.results[0].state == UNREADABLE for r in reports):
            recording.store(verifier, reads, loaded, result, code)  # a bad file is read again next time
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
        context = verifier.context
        dependencies = Dependencies(verifier.repo, lambda: open_cache(context.options, verifier.repo.root, context.time_left)) if "pkg" in kinds else None
        documents = _documents(context, verifier.repo.root)
        reading = ReferenceReading(verifier.repo, kinds, unsure=unsure, dependencies=dependencies, documents=documents) if kinds else None
        unreadable: list[MemoryFileError] = []  # one bad file is one finding; the others are still checked
        loaded = load(args.files, verifier.repo, verifier.registry, verifier.config.memory_files, reading, unreadable)
        if args.claude_memory:
            auto = claude_memory_files(verifier.root)
            if not auto:
                print(f"anchorcheck: no Claude Code auto-memory at {claude_memory_dir(verifier.root)}", file=sys.stderr)
            loaded += load([str(p) for p in auto], verifier.repo, verifier.registry, (), reading, unreadable) if auto else []
        _known_kinds(args, verifier)
        batch = []
        for _, memories in loaded:
            select_kinds(memories, getattr(args, "select", ()), getattr(args, "ignore", ()))
            attach(memories, lock, verifier.registry.kinds)
            batch.extend(memories)
        drop_runner_names(batch, verifier)
        started = time.monotonic()
        identifiers.settle(batch, verifier, args.deadline)  # before the checks: drops the names that are no claim
        left = None if args.deadline is None else max(0.0, args.deadline - (time.monotonic() - started))
        reports = _verify(verifier, batch, left)
        if not getattr(args, "strict", False):
            soften(reports, verifier.registry)
    if args.receipts:  # HEAD is read for the receipts alone: a run that appends none printed nothing of it
        from anchorcheck.memory.receipts import ReceiptLog  # a run without --receipts does not import it

        ReceiptLog(args.receipts).record(reports, revision=verifier.repo.head)
    loaded += [(error.path, []) for error in unreadable]
    return loaded, reports + [unreadable_report(error) for error in unreadable], reads


def _documents(context: Context, root: Path) -> Documents | None:
    """The store of the Markdown files' parsed structure; None with the cache off (`--no-cache`), which then
    does not even import it."""
    if not context.options.get("cache", True):
        return None
    from anchorcheck.memory.documents import Documents

    return Documents(lambda: open_cache(context.options, root, context.time_left))


def _known_kinds(args: argparse.Namespace, verifier: Verifier) -> None:
    """A kind no plugin registers in `--select`/`--ignore` is a typo that would silently check nothing (or everything)."""
    unknown = sorted((set(getattr(args, "select", ())) | set(getattr(args, "ignore", ()))) - set(verifier.registry.kinds))
    if unknown:
        raise UsageError(f"--select/--ignore: unknown anchor kind {unknown[0]!r} (known: {', '.join(sorted(verifier.registry.kinds))})")


def _verify(verifier: Verifier, batch: list[Memory], deadline: float | None) -> list[MemoryReport]:
    """Reports in file order. Memories without anchors (most prose) cost nothing to judge and are judged
    here, so that they never push a batch of a few anchored memories into a process pool."""
    anchored = [m for m in batch if m.anchors]
    done = iter(verifier.verify_many(anchored, deadline=deadline))
    return [next(done) if memory.anchors else verifier.verify(memory) for memory in batch]
