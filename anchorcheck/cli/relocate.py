"""`anchorcheck relocate [FILE...]` — update the line numbers of spans that moved intact.

FILE is a lock file or a native `*.memories.toml` file; by default the
repository's `anchorcheck.lock`. Only relocated records change; stale ones
are left for a person (see `anchorcheck rebank`).
"""

from __future__ import annotations

import argparse

from anchorcheck.citation_store import relocate_file
from anchorcheck.cli.common import EXIT_CLEAN, add_root, make_verifier
from anchorcheck.cli.store_files import add_store_options, print_changes, store_errors, store_files


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("relocate", help="update line numbers of relocated spans in the lock or memory files")
    parser.add_argument("files", nargs="*", metavar="FILE", help="lock or *.memories.toml files (default: anchorcheck.lock)")
    add_root(parser)
    add_store_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    verifier = make_verifier(args)
    changes = []
    for path, shown in store_files(args.files, verifier.root, verifier.registry):
        with store_errors():
            changes += relocate_file(path, shown, verifier, dry_run=args.dry_run)
    print_changes(changes, "relocated", args.dry_run)
    return EXIT_CLEAN
