"""`anchorcheck rebank ANCHOR... [--file FILE]` — re-fingerprint the named stale spans, re-arm the named triggers.

A stale span is a claim someone must re-read; rebanking says "I did, and
the new lines still support the memory". So it only ever touches the
anchors named on the command line, and only when they need it. A stale
span is followed to where its content went (`anchorcheck.verify.rebanking`)
and both texts are printed side by side; since its content changed, the
memory may now be false, and the new fingerprint is stored only with
`--accept`. Its record in the lock or a `*.memories.toml` then points at
the new lines, and so does the anchor where memory files write it. A
fired (or never banked) `watch:` trigger is re-armed where the memory
files write it, its text rewritten with the fingerprint of the files now
(the kind's result says what to write: `details["rebank"]`). Every file
changed is written together (`anchorcheck.memory.journal`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from anchorcheck.verify.citation_store import Change, rebank_file
from anchorcheck.cli.common import EXIT_CLEAN, EXIT_FAILED, UsageError, add_root, make_verifier
from anchorcheck.cli.store_files import add_store_options, memory_files, no_store, print_changes, print_rewrites, store_errors
from anchorcheck.memory.journal import Batch
from anchorcheck.verify.verifier import Verifier
from anchorcheck.memory.writeback import rename_anchors, written_anchors


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("rebank", help="re-fingerprint named stale spans, re-arm named fired triggers")
    parser.add_argument(
        "anchors", nargs="+", metavar="ANCHOR", help="anchors as written, e.g. 'span:src/a.py#L3-L9' or 'watch:uv.lock@...'"
    )
    parser.add_argument(
        "--file",
        dest="files",
        action="append",
        default=[],
        metavar="FILE",
        help="lock, *.memories.toml or memory file (repeatable; default: anchorcheck.lock and the known memory files)",
    )
    parser.add_argument(
        "--accept",
        action="store_true",
        help="store the new fingerprint of spans whose content changed (after reading both texts: the memory may now be false)",
    )
    add_root(parser)
    add_store_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    verifier = make_verifier(args)
    wanted = {a.strip() for a in args.anchors}
    loaded, stores = memory_files(args.files, verifier)
    written = written_anchors(loaded)
    changes, renames = _rearm([a for a in sorted(wanted) if a in written], verifier)
    targets = [(Path(shown), shown) for shown, _ in loaded]
    batch = Batch(verifier.root)
    rewrites = rename_anchors(targets, renames, verifier.registry, batch)
    rest = wanted - {c.anchor for c in changes}
    if rest and not stores:
        raise no_store(verifier.root)
    for path, shown in stores if rest else []:
        with store_errors():
            changes += rebank_file(path, shown, verifier, rest, batch, accept=args.accept, rename=written)
    moved = {c.anchor: c.renamed for c in changes if c.renamed}
    rewrites += rename_anchors(targets, moved, verifier.registry, batch)
    if not args.dry_run:
        batch.commit()
    print_changes(changes, "rebanked", args.dry_run)
    print_rewrites(rewrites, args.dry_run)
    missing = sorted(wanted - {c.anchor for c in changes})
    if missing:
        names = ", ".join([shown for _, shown in stores] + [shown for shown, _ in loaded]) or "no citation store"
        raise UsageError(f"no citation {', '.join(missing)} in {names}")
    return EXIT_FAILED if any(c.action in ("failed", "refused") for c in changes) else EXIT_CLEAN


def _rearm(anchors: list[str], verifier: Verifier) -> tuple[list[Change], dict[str, str]]:
    """The named anchors that memory files write and whose kind says how to re-bank them."""
    changes, renames = [], {}
    for anchor in anchors:
        result = verifier.check(anchor)
        new = result.details.get("rebank")
        if not isinstance(new, str):
            continue  # a span: its fingerprint lives in the lock, rebank_file's job
        if new != anchor:
            renames[anchor] = new
            changes.append(Change("memory files", anchor, "rebanked", f"re-armed on the files as they are now: {new}"))
        else:
            changes.append(Change("memory files", anchor, "skipped", f"{result.state}: {result.reason}"))  # armed as written
    return changes, renames
