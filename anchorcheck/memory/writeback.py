"""Writing anchors back where memory files write them, so what an agent reads stays true.

`relocate` moves a span's `#Lx-Ly` (and path), `rebank` re-arms a fired
trigger, `suggest --write` adds anchors: each goes through the memory
format's own editor (`MemoryFormat.rename` / `insert`), which keeps every
byte it does not mean to change, and the file is replaced atomically. A
dry run computes the same edits and writes nothing.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from anchorcheck.repo.atomic import write_atomic
from anchorcheck.memory.memoryfiles import MemoryFileError, format_for, read_text
from anchorcheck.model.results import Memory
from anchorcheck.model.registry import Registry


@dataclass(frozen=True)
class Rewrite:
    """One anchor rewritten (or, in a dry run, to be rewritten) where a memory file writes it."""

    file: str
    line: int
    old: str
    new: str


def written_anchors(loaded: Iterable[tuple[str, list[Memory]]]) -> dict[str, list[str]]:
    """Each anchor text as memory files write it → the files writing it (shown paths)."""
    found: dict[str, list[str]] = {}
    for shown, memories in loaded:
        for memory in memories:
            for anchor in memory.anchors:
                if isinstance(anchor, str) and shown not in found.setdefault(anchor.strip(), []):
                    found[anchor.strip()].append(shown)
    return found


def rename_anchors(
    files: Iterable[tuple[Path, str]], renames: Mapping[str, str], registry: Registry, root: Path, *, dry_run: bool = False
) -> list[Rewrite]:
    """Rewrite each anchor written as a key of `renames` as its value, in every file whose format can.

    A memory file that is a symlink (CLAUDE.md → AGENTS.md) is edited where
    it points, once, and stays a symlink.
    """
    done: list[Rewrite] = []
    seen: set[Path] = set()
    for path, shown in files if renames else ():
        fmt = format_for(shown, registry)
        target = real_path(path)
        if fmt is None or fmt.rename is None or target in seen:
            continue
        seen.add(target)
        text = read_text(path, shown, root)
        new, changed = fmt.rename(shown, text, renames)
        done += [Rewrite(shown, line, old, renames[old]) for line, old in changed]
        if new != text and not dry_run:
            write_atomic(target, new)
    return done


def real_path(path: Path) -> Path:
    """Where a memory file's bytes are: a symlink is written through, not replaced by a copy."""
    return Path(os.path.realpath(path))


def insert_anchors(
    path: Path, shown: str, additions: Mapping[str, Sequence[tuple[str, str | None]]], registry: Registry, root: Path
) -> tuple[str, str]:
    """The file's text before and after adding anchors to its memories (by memory id); nothing written."""
    fmt = format_for(shown, registry)
    if fmt is None or fmt.insert is None:
        raise MemoryFileError(shown, None, "this memory format cannot be written back")
    text = read_text(path, shown, root)
    return text, fmt.insert(shown, text, additions) if additions else text
