"""`anchorcheck check FILE...` — verify the memories in memory files."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from anchorcheck.cli.common import UsageError, add_format, add_root, add_verification, emit, exit_code, make_verifier
from anchorcheck.memoryfiles import MemoryFileError, read_memory_file
from anchorcheck.receipts import ReceiptLog
from anchorcheck.report import Run


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("check", help="verify the memories in memory files")
    parser.add_argument("files", nargs="+", metavar="FILE", help="memory files to check")
    add_root(parser)
    add_format(parser)
    add_verification(parser)
    parser.add_argument(
        "--receipts",
        metavar="FILE",
        help="append a JSONL receipt for each memory whose verdict changed since the last run",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    verifier = make_verifier(args)
    start = time.perf_counter()
    reports, shown_files = [], []
    for name in args.files:
        path = Path(name)
        if not path.exists():
            raise MemoryFileError(name, None, "no such file")
        if path.is_dir():
            raise UsageError(f"{name}: is a directory; name the memory files to check")
        shown = _shown(path, verifier.root)
        shown_files.append(shown)
        for memory in read_memory_file(path, shown, verifier.registry):
            reports.append(verifier.verify(memory))
    if args.receipts:
        ReceiptLog(args.receipts).record(reports, revision=verifier.repo.head)
    result = Run(reports, files=shown_files, elapsed=time.perf_counter() - start, verbose=args.verbose)
    emit(result, args.format)
    return exit_code(result, args.fail_on or verifier.config.fail_on)


def _shown(path: Path, root: Path) -> str:
    """Paths as the user typed them: relative to the current directory when possible."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.as_posix()
