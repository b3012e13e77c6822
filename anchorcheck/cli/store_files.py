"""Shared by `relocate` and `rebank`: which citation files to edit, and how changes are printed."""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from anchorcheck.base.printable import printable
from anchorcheck.verify.citation_store import LOCK_NAME, Change, CitationStoreError
from anchorcheck.base.width import columns
from anchorcheck.cli.common import UsageError
from anchorcheck.cli.sidebyside import side_by_side
from anchorcheck.memory.lockfile import read_lock
from anchorcheck.memory.memoryfiles import format_for, load, read_memory_file
from anchorcheck.model.results import Memory
from anchorcheck.model.registry import Registry
from anchorcheck.verify.verifier import Verifier
from anchorcheck.memory.writeback import Rewrite


def add_store_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dry-run", action="store_true", help="show what would change, write nothing")


def store_files(names: list[str], root: Path, registry: Registry) -> list[tuple[Path, str]]:
    """The files named, or the repository's lock file; a missing one is a usage error.

    Each file is read first the way `check` and `lock` read it (a memory
    file by its format, anything else as a lock), so a malformed one is
    refused with its line before anything is written.
    """
    if not names:
        lock = root / LOCK_NAME
        if not os.path.lexists(lock):
            raise no_store(root)
        out = [(lock, LOCK_NAME)]
    else:
        out = [(Path(name), name) for name in names]
    for path, shown in out:
        if not os.path.lexists(path):
            raise UsageError(f"{shown}: no such file")
        if format_for(shown, registry) is not None:
            read_memory_file(path, shown, registry, root=root)
        else:
            read_lock(path, shown, root)
    return out


def memory_files(names: list[str], verifier: Verifier) -> tuple[list[tuple[str, list[Memory]]], list[tuple[Path, str]]]:
    """The memory files that write anchors (read as `check` reads them), and the citation stores.

    A named file that no memory format reads is a lock; a `*.memories.toml`
    is both (its own citations, and anchors that lean on the lock); named
    memory files alone lean on the repository's lock. With no names: the
    known memory files, and as stores the lock (if there is one) and the
    native files among them.
    """
    registry = verifier.registry
    if names:
        texts = [n for n in names if format_for(n, registry) is not None]
        stores = [n for n in names if format_for(n, registry) is None or n.endswith(".memories.toml")]
        loaded = load(texts, verifier.repo, registry) if texts else []
        return loaded, store_files(stores, verifier.root, registry)
    loaded = load([], verifier.repo, registry, verifier.config.memory_files)
    native = [shown for shown, _ in loaded if shown.endswith(".memories.toml")]
    lock = store_files([], verifier.root, registry) if (verifier.root / LOCK_NAME).is_file() else []
    return loaded, lock + (store_files(native, verifier.root, registry) if native else [])


def no_store(root: Path) -> UsageError:
    return UsageError(f"no {LOCK_NAME} in {root}; name the lock or *.memories.toml files to update")


def print_changes(changes: list[Change], done: str, dry_run: bool) -> None:
    """One line per change; a span whose content changed also shows both texts side by side."""
    width = columns()
    for change in changes:
        verb = f"would be {change.action}" if dry_run and change.action in ("relocated", "rebanked") else change.action
        print(printable(f"{change.file}: {change.anchor}: {verb}: {change.message}"))
        for row in side_by_side(*change.texts, width) if change.texts else ():
            print(printable(f"    {row}"))
    count = sum(1 for c in changes if c.action == done)
    what = f"{count} citation{'s' if count != 1 else ''}"
    refused = sum(1 for c in changes if c.action == "refused")
    more = f"; {refused} refused: their lines changed, see above" if refused else ""
    print(f"{'Would update' if dry_run else 'Updated'} {what} ({done}){more}.")


def print_rewrites(rewrites: list[Rewrite], dry_run: bool) -> None:
    """One line per anchor rewritten where a memory file writes it."""
    verb = "would be rewritten" if dry_run else "rewritten"
    for item in rewrites:
        print(printable(f"{item.file}:{item.line}: {item.old}: {verb} as {item.new}"))
    if rewrites:
        count = len(rewrites)
        print(f"{'Would rewrite' if dry_run else 'Rewrote'} {count} anchor{'s' if count != 1 else ''} in memory files.")


@contextmanager
def store_errors() -> Iterator[None]:
    """A malformed lock or memory file is a one-line error and exit 2, like any usage error."""
    try:
        yield
    except CitationStoreError as exc:
        raise UsageError(str(exc)) from None
