"""`anchorcheck fix [FILE...] [--diff]` — write back the new place of every path that history shows moved.

It checks the memory files as `check` does; every REFUTED path whose history
gives exactly one destination (`anchorcheck.memory.fixes`) is rewritten where
it is written, in prose and in typed anchors, every other byte kept. The files
are written together through the journal (`anchorcheck.memory.journal`);
`--diff` prints what would change and writes nothing. `check --fix` does the
same after its report.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

from anchorcheck.cli.common import EXIT_CLEAN, add_memory_files, add_root, make_verifier
from anchorcheck.memory.fixes import Edit, apply, edit_for
from anchorcheck.memory.journal import Batch
from anchorcheck.memory.writeback import real_path
from anchorcheck.model.results import MemoryReport, Verdict
from anchorcheck.verify.staleness import GONE


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("fix", help="rewrite the paths that git history shows moved, in memory files")
    add_memory_files(parser, "the known memory files of the repository")
    add_root(parser)
    parser.add_argument("--diff", action="store_true", help="print the changes as a unified diff and write nothing")
    parser.set_defaults(run=run, no_implicit=False, claude_memory=False, receipts=None, deadline=None, no_cache=False)


def run(args: argparse.Namespace) -> int:
    from anchorcheck.cli.check import check_memories  # the same reading and checking as `check`

    verifier = make_verifier(args, resident=False)
    _, reports, _ = check_memories(args, verifier)
    write_fixes(reports, verifier.root, preview=args.diff)
    return EXIT_CLEAN


def write_fixes(reports: list[MemoryReport], root: Path, preview: bool = False) -> int:
    """Rewrite (or, with `preview`, print as a diff) every moved path the reports found; how many were fixed."""
    edits: dict[str, list[Edit]] = {}
    left: list[str] = []  # gone, with no single destination to write: said, so a person knows what is still stale
    for report in reports:
        memory = report.memory
        for index, result in enumerate(report.results):
            position = memory.anchor_position(index)
            edit = edit_for(result, position)
            if edit is not None and memory.source is not None:
                edits.setdefault(memory.source, []).append(edit)
            elif result.verdict is Verdict.REFUTED and result.state == GONE and memory.source is not None:
                where = f"{memory.source}:{position.line}:{position.column}" if position else memory.source
                left.append(f"left: {where}: {result.anchor} — {result.reason}\n")
    batch, fixed, seen = Batch(root), 0, set()
    for shown, wanted in edits.items():
        path = real_path(Path(shown))
        if path in seen:  # a symlink to a file already fixed (CLAUDE.md -> AGENTS.md)
            continue
        seen.add(path)
        with open(path, encoding="utf-8", newline="") as handle:  # newline="": CRLF stays CRLF
            before = handle.read()
        after, done = apply(before, wanted)
        fixed += len(done)
        if preview:
            sys.stdout.writelines(difflib.unified_diff(before.splitlines(True), after.splitlines(True), f"a/{shown}", f"b/{shown}"))
        elif after != before:
            batch.put(path, after)
    if not preview:
        batch.commit()
    sys.stderr.writelines(dict.fromkeys(left))
    print(f"{'would fix' if preview else 'fixed'} {fixed} moved reference{'s' if fixed != 1 else ''} in {len(seen)} file{'s' if len(seen) != 1 else ''}", file=sys.stderr)
    return fixed
