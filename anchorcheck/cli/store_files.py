"""Shared by `relocate` and `rebank`: which citation files to edit, and how changes are printed."""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from anchorcheck.citation_store import LOCK_NAME, Change, CitationStoreError
from anchorcheck.cli.common import UsageError
from anchorcheck.lockfile import read_lock
from anchorcheck.memoryfiles import format_for, read_memory_file
from anchorcheck.registry import Registry


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
            raise UsageError(f"no {LOCK_NAME} in {root}; name the lock or *.memories.toml files to update")
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


def print_changes(changes: list[Change], done: str, dry_run: bool) -> None:
    for change in changes:
        verb = f"would be {change.action}" if dry_run and change.action in ("relocated", "rebanked") else change.action
        print(f"{change.file}: {change.anchor}: {verb}: {change.message}")
    count = sum(1 for c in changes if c.action == done)
    what = f"{count} citation{'s' if count != 1 else ''}"
    print(f"{'Would update' if dry_run else 'Updated'} {what} ({done}).")


@contextmanager
def store_errors() -> Iterator[None]:
    """A malformed lock or memory file is a one-line error and exit 2, like any usage error."""
    try:
        yield
    except CitationStoreError as exc:
        raise UsageError(str(exc)) from None
