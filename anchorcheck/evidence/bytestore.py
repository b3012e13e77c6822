"""The bytes of the files a search read, kept for the next one, and what reading them told.

The next anchor's prefilter scans memory instead of the disk: each file's bytes
are kept while they fit in the memory allowed, with a copy laid end to end in a
`ScanArena`, so that one pass answers a needle for all of them. A file that is
binary or over the size cap is not source whatever its name says: it is
remembered as skipped (an oversized one is streamed for needles, never parsed).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anchorcheck.evidence.listing import walk_key
from anchorcheck.evidence.scanarena import ScanArena
from anchorcheck.repo.paths import UnsafePathError, looks_binary
from anchorcheck.repo.safe_read import FileTooLargeError

if TYPE_CHECKING:
    from anchorcheck.repo.context import Context

PREFILTER_MEMORY = 256 * 1024 * 1024  # bytes of read files kept for later anchors of a Verifier, counted twice (the arena's copy)


class ByteStore:
    """The kept bytes of one index's files, their sizes, and the files reading showed not to be source."""

    def __init__(self, context: Context) -> None:
        self.context = context
        self.repo = context.repo
        self.data: dict[str, bytes] = {}
        self.arena = ScanArena(walk_key)
        self.left = int(context.options.get("prefilter_memory", PREFILTER_MEMORY))
        self.skipped: set[str] = set()  # binary or over the size cap: not source, whatever the name says
        self.oversized: set[str] = set()  # of those, the ones over the cap: streamed for needles, never parsed
        self.sizes: dict[str, int] = {}

    def succeed(self, old: ByteStore, stale: set[str]) -> None:
        """Take over what `old` kept of every file but the `stale` ones (its arena too: the old index
        answers from its own bytes, file by file)."""
        self.skipped = old.skipped - stale
        self.data = {path: data for path, data in old.data.items() if path not in stale}
        self.arena, old.arena = old.arena, ScanArena(walk_key)
        self.arena.drop(stale)
        self.left -= sum(len(data) for data in self.data.values()) + self.arena.size

    def forget(self, stale: set[str]) -> None:
        """Files changed, added or removed: their bytes, sizes and verdicts go."""
        for path in stale & self.data.keys():
            self.left += len(self.data.pop(path))
        held = self.arena.size
        self.arena.drop(stale)
        self.left += held - self.arena.size
        for path in stale:
            self.sizes.pop(path, None)
        self.skipped -= stale
        self.oversized -= stale

    def candidate(self, path: str, unreadable: list[str]) -> bytes | None:
        """The bytes a search judges, or None for a file that is not source after all (binary,
        over the size cap: remembered in `skipped`) or cannot be read (added to `unreadable`)."""
        data = self.data.get(path)
        if data is not None or path in self.skipped:
            return data
        try:
            data = self.repo.read_bytes(path)
        except FileTooLargeError:
            self.skipped.add(path)  # skipped as `Repository.files` skips it
            self.oversized.add(path)
            return None
        except (OSError, UnsafePathError):
            unreadable.append(path)
            return None
        if looks_binary(data):
            self.skipped.add(path)
            return None
        self.keep(path, data)
        return data

    def keep(self, path: str, data: bytes) -> None:
        """Keep a file's bytes, and their copy in the arena, while both fit in the memory allowed."""
        if path not in self.data and 2 * len(data) <= self.left:
            self.data[path] = data
            self.arena.add(path, data)
            self.left -= 2 * len(data)

    def current(self, path: str) -> bytes | None:
        """A changed file's bytes as they are now, kept for the next search's prefilter; None when unreadable."""
        data = self.data.get(path)  # every search's watch asks: read once
        return data if data is not None else self.candidate(path, [])

    def read(self, path: str) -> bytes:
        """A file's bytes: those a search kept, else from the disk (raises OSError/UnsafePathError)."""
        self.context.shared.read(path)
        data = self.data.get(path)
        return data if data is not None else self.repo.read_bytes(path)

    def size(self, path: str) -> int:
        """A file's size, without a read or a stat where a search kept its bytes (0 if unreadable),
        remembered until the file changes."""
        self.context.shared.read(path)
        if path not in self.sizes:
            self.sizes[path] = self._size(path)
        return self.sizes[path]

    def _size(self, path: str) -> int:
        data = self.data.get(path)
        if data is not None:
            return len(data)
        try:
            size = getattr(self.repo, "file_size", None)  # a revision has no working file: read it
            return size(path) if size is not None else len(self.repo.read_bytes(path))
        except (OSError, UnsafePathError):
            return 0
