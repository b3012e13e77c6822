"""`anchorcheck relocate [FILE...]` — update the line numbers of spans that moved intact.

FILE is a lock file, a native `*.memories.toml` file, or a memory file
that writes span anchors (Markdown, `memory.jsonl`); by default the
repository's `anchorcheck.lock` and its known memory files. Only relocated
records change: the lock entry (or the native file's own citation) gets the
new path and lines, and where a memory file writes the span as
`span:a.py#L3-L5`, that text is rewritten to `span:a.py#L5-L7` and the lock
entry re-keyed to match, so what an agent reads points at the right lines.
Every file changed is written together: a kill leaves all of them as they
were or all updated (`anchorcheck.memory.journal`). Stale records are left for a
person (see `anchorcheck rebank`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from anchorcheck.verify.citation_store import relocate_file
from anchorcheck.cli.common import EXIT_CLEAN, add_root, make_verifier
from anchorcheck.cli.store_files import add_store_options, memory_files, no_store, print_changes, print_rewrites, store_errors
from anchorcheck.memory.journal import Batch
from anchorcheck.memory.writeback import rename_anchors, written_anchors


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("relocate", help="move relocated spans to their new lines in the lock and memory files")
    parser.add_argument(
        "files",
        nargs="*",
        metavar="FILE",
        help="lock, *.memories.toml or memory files (default: anchorcheck.lock and the known memory files)",
    )
    add_root(parser)
    add_store_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    verifier = make_verifier(args)
    loaded, stores = memory_files(args.files, verifier)
    if not stores:
        raise no_store(verifier.root)
    changes, batch = [], Batch(verifier.root)
    for path, shown in stores:
        with store_errors():
            changes += relocate_file(path, shown, verifier, batch, rename=written_anchors(loaded))
    renames = {c.anchor: c.renamed for c in changes if c.renamed}
    targets = [(Path(shown), shown) for shown, _ in loaded]
    rewrites = rename_anchors(targets, renames, verifier.registry, batch)
    if not args.dry_run:
        batch.commit()
    print_changes(changes, "relocated", args.dry_run)
    print_rewrites(rewrites, args.dry_run)
    return EXIT_CLEAN
