"""Substring scans over the kept bytes of many files at once, instead of one `needle in data` per file.

A cold check of 50 anchors on Django asks about 30 distinct needles of every
one of its 2,864 source files (19 MB each time): those scans were a quarter of
the run. CPython's `bytes.__contains__` runs at about 2 GB/s whatever the
needle; the C library's `memmem` (glibc's shift table on two-byte hashes) runs
about twice as fast over the same bytes, but a call through ctypes costs about
a microsecond, too much to pay per file and needle. So the files are laid end
to end in a few large buffers (one per batch of files kept since the last
scan, in the order the index walks them: files a search asks about together
lie together), and a needle costs one `memmem` call per run of consecutive
files asked about, plus one per file that holds it. A match that would
straddle two files is no match: the scan moves on to the next file from any
match, inside or across the end of the file it starts in. Where `memmem`
cannot be loaded (no C library that has it), `bytes.find` does the same walk.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence

_Find = Callable[[bytes, int, int], int]  # needle, start, end -> where it starts, or -1


class ScanArena:
    """The bytes of files kept for later searches, laid end to end so that one pass answers a needle for many.

    `order(path, data)` sorts each batch as it is laid out."""

    def __init__(self, order: Callable[[str, bytes], tuple[object, ...]]) -> None:
        self._order = order
        self._pending: dict[str, bytes] = {}
        self._chunks: list[_Chunk] = []
        self._where: dict[str, _Chunk | None] = {}  # path held -> the chunk holding its bytes (None: pending)
        self.size = 0  # bytes of the files held, pending or laid out

    def __contains__(self, path: str) -> bool:
        return path in self._where

    def held(self, paths: Iterable[str]) -> list[str]:
        """Those of these files whose bytes are held (one comprehension: asked of every file of a search)."""
        where = self._where
        return [path for path in paths if path in where]

    def add(self, path: str, data: bytes) -> None:
        """Hold a file's bytes (laid out with the others at the next scan); a path is held at most once."""
        if path not in self._where:
            self._where[path] = None
            self._pending[path] = data
            self.size += len(data)

    def drop(self, paths: Iterable[str]) -> None:
        """Forget these files (changed or gone): their bytes no longer answer any needle. A chunk mostly
        dropped gives its live files back to be laid out again, so dead bytes never outweigh live ones."""
        for path in paths:
            if path not in self._where:
                continue
            chunk = self._where.pop(path)
            if chunk is not None:
                self.size -= chunk.drop(path)
                if chunk.dead * 2 > len(chunk.data) or not chunk.index:
                    self._chunks.remove(chunk)
                    for live, data in chunk.files():
                        self._where[live] = None
                        self._pending[live] = data
            else:
                self.size -= len(self._pending.pop(path))

    def holding(self, needle: bytes, paths: Sequence[str]) -> set[str]:
        """Those of these files (every one held) whose bytes contain the needle."""
        if not needle:
            return set(paths)
        if self._pending:
            files = list(self._pending.items())
            if len(self._chunks) >= _MAX_CHUNKS:
                # Each edit of a long-lived index adds a small chunk: they are laid out again as one, the
                # largest (the tree as first read) left as it is, so this costs the edited files' bytes.
                largest = max(self._chunks, key=lambda chunk: len(chunk.data))
                files += [item for chunk in self._chunks if chunk is not largest for item in chunk.files()]
                self._chunks = [largest]
            chunk = _Chunk(sorted(files, key=lambda item: self._order(*item)))
            self._chunks.append(chunk)
            self._where.update(dict.fromkeys(chunk.index, chunk))
            self._pending = {}
        found: set[str] = set()
        if len(self._chunks) == 1:
            self._chunks[0].scan(needle, paths, found)
        else:
            where = self._where
            for chunk in self._chunks:
                chunk.scan(needle, [path for path in paths if where[path] is chunk], found)
        return found


_MAX_CHUNKS = 8  # past this many, all but the largest are laid out again as one


class _Chunk:
    """Files' bytes laid end to end, with where each starts; a dropped file's range stays, answering nothing."""

    def __init__(self, files: list[tuple[str, bytes]]) -> None:
        self.data = b"".join(data for _, data in files)
        self.find = _finder(self.data)
        self.starts: list[int] = []
        self.paths: list[str | None] = []
        self.index: dict[str, int] = {}  # path -> its place
        at = 0
        for path, data in files:
            self.index[path] = len(self.paths)
            self.starts.append(at)
            self.paths.append(path)
            at += len(data)
        self.starts.append(at)  # the end of the last file
        self.sizes = [len(data) for _, data in files]
        self.dead = 0  # bytes of the dropped files

    def drop(self, path: str) -> int:
        """Forget one file: its size."""
        place = self.index.pop(path)
        self.paths[place] = None
        size = self.starts[place + 1] - self.starts[place]
        self.dead += size
        return size

    def files(self) -> list[tuple[str, bytes]]:
        """The live files and their bytes."""
        return [(path, self.data[self.starts[place] : self.starts[place + 1]]) for path, place in self.index.items()]

    def scan(self, needle: bytes, paths: Sequence[str], found: set[str]) -> None:
        """Add to `found` those of these files (held here) that hold the needle. The files asked about
        together mostly lie together (a block of a walk, every file of a language): when the span from
        the first to the last is at most twice their bytes, that span is searched in one run and its
        hits outside them are ignored; otherwise one search per run of consecutive files."""
        if not paths:
            return
        places = sorted(map(self.index.__getitem__, paths))
        first, last = places[0], places[-1]
        starts = self.starts
        if last - first + 1 == len(places) or starts[last + 1] - starts[first] <= 2 * sum(map(self.sizes.__getitem__, places)):
            if last - first + 1 == len(places):
                self._scan_run(needle, first, last, found)
            else:
                hits: set[str] = set()
                self._scan_run(needle, first, last, hits)
                found.update(hits.intersection(paths))
            return
        first = last = places[0]
        for place in places[1:]:
            if place != last + 1:
                self._scan_run(needle, first, last, found)
                first = place
            last = place
        self._scan_run(needle, first, last, found)

    def _scan_run(self, needle: bytes, first: int, last: int, found: set[str]) -> None:
        starts, paths, find = self.starts, self.paths, self.find
        at, stop, width = starts[first], starts[last + 1], len(needle)
        while at < stop:
            hit = find(needle, at, stop)
            if hit < 0:
                return
            place = bisect_right(starts, hit, first, last + 1) - 1  # the file it starts in (an empty file starts where the next does)
            at = starts[place + 1]  # inside that file or straddling its end, the match answers that file
            path = paths[place]
            if hit + width <= at and path is not None:
                found.add(path)


_MEMMEM: list[Callable[[int, int, bytes, int], int | None] | None] = []


def _finder(data: bytes) -> _Find:
    """A search of `data` between two offsets: `memmem` from the C library through ctypes (no copy of the
    buffer), else `bytes.find`. The library is loaded once per process, at the first chunk."""
    if not _MEMMEM:
        _MEMMEM.append(_load_memmem())
    memmem = _MEMMEM[0]
    if memmem is None:
        return data.find
    import ctypes  # loaded above

    base = ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p).value or 0  # `data` is kept by the chunk

    def find(needle: bytes, start: int, end: int) -> int:
        where = memmem(base + start, end - start, needle, len(needle))
        return where - base if where else -1

    return find


def _load_memmem() -> Callable[[int, int, bytes, int], int | None] | None:
    try:
        import ctypes

        memmem = ctypes.CDLL(None).memmem  # the symbols the process has loaded: the C library's among them
    except (ImportError, OSError, AttributeError, TypeError):  # no ctypes, no such library (Windows), no memmem
        return None
    memmem.restype = ctypes.c_void_p
    memmem.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t]
    return memmem
