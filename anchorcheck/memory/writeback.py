"""Writing anchors back where memory files write them, so what an agent reads stays true.

`relocate` moves a span's `#Lx-Ly` (and path), `rebank` re-arms a fired
trigger, `suggest --write` adds anchors: each goes through the memory
format's own editor (`MemoryFormat.rename` / `insert`), which keeps every
byte it does not mean to change. The new text goes into the command's
`Batch`, which writes every file the command changed together, so a kill
never leaves the lock re-keyed and the memory files not
(`anchorcheck.memory.journal`); a dry run computes the same edits and writes nothing.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from anchorcheck.memory.journal import Batch
from anchorcheck.memory.lockfile import is_lock_text
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


def rename_anchors(files: Iterable[tuple[Path, str]], renames: Mapping[str, str], registry: Registry, batch: Batch) -> list[Rewrite]:
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
        text = batch.text(target, lambda: read_text(path, shown, batch.root))
        new, changed = fmt.rename(shown, text, renames)
        done += [Rewrite(shown, line, old, renames[old]) for line, old in changed]
        if new != text:
            batch.put(target, new)
    return done


def writes(registry: Registry) -> Callable[[str, str], bool]:
    """Whether anchorcheck writes a file of this name and text: a memory file its format reads, or a lock.
    What a journal left by a killed command may write when it is replayed (`anchorcheck.memory.journal`)."""

    def accepts(shown: str, text: str) -> bool:
        return format_for(shown, registry) is not None or is_lock_text(text)

    return accepts


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
