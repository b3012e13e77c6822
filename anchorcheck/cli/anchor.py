"""`anchorcheck anchor ANCHOR...` — check ad-hoc anchors, same exit codes as `check`."""

from __future__ import annotations

import argparse
import time

from anchorcheck.cli.common import add_format, add_root, add_verification, emit, exit_code, make_verifier
from anchorcheck.model.results import Memory
from anchorcheck.report import Run


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("anchor", help="check anchors given on the command line")
    parser.add_argument("anchors", nargs="+", metavar="ANCHOR", help="e.g. 'pkg:pypi/redis' or 'file:README.md'")
    add_root(parser)
    add_format(parser, ["text", "json"])
    add_verification(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    verifier = make_verifier(args)
    anchors = [verifier.parse(text) for text in args.anchors]  # malformed: exit 2 with the column
    start = time.perf_counter()
    reports = verifier.verify_many([Memory(text=str(a), anchors=[a]) for a in anchors], deadline=args.deadline)
    result = Run(reports, elapsed=time.perf_counter() - start, verbose=True)
    emit(result, args.format)
    return exit_code(result, args.fail_on or verifier.config.fail_on)
