"""`anchorcheck rebank ANCHOR... [--file FILE]` — re-fingerprint the named stale spans.

A stale span is a claim someone must re-read; rebanking says "I did, and
the new lines still support the memory". So it only ever touches the spans
named on the command line, and only when they are stale.
"""

from __future__ import annotations

import argparse

from anchorcheck.citation_store import rebank_file
from anchorcheck.cli.common import EXIT_CLEAN, EXIT_FAILED, UsageError, add_root, make_verifier
from anchorcheck.cli.store_files import add_store_options, print_changes, store_errors, store_files


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("rebank", help="re-fingerprint named stale spans in the lock or memory files")
    parser.add_argument("anchors", nargs="+", metavar="ANCHOR", help="span anchors as stored, e.g. 'span:src/a.py#L3-L9'")
    parser.add_argument("--file", dest="files", action="append", default=[], metavar="FILE", help="lock or *.memories.toml file (repeatable; default: anchorcheck.lock)")
    add_root(parser)
    add_store_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    verifier = make_verifier(args)
    wanted = {a.strip() for a in args.anchors}
    files = store_files(args.files, verifier.root, verifier.registry)
    changes = []
    for path, shown in files:
        with store_errors():
            changes += rebank_file(path, shown, verifier, wanted, dry_run=args.dry_run)
    print_changes(changes, "rebanked", args.dry_run)
    missing = sorted(wanted - {c.anchor for c in changes})
    if missing:
        names = ", ".join(shown for _, shown in files)
        raise UsageError(f"no citation {', '.join(missing)} in {names}")
    return EXIT_FAILED if any(c.action == "failed" for c in changes) else EXIT_CLEAN
