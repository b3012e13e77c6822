"""A memory store in the repository: one native `*.memories.toml` file, every memory verified when read.

An agent that remembers something about the code needs it back later, and needs to know whether
it still holds. The store is a plain native memory file (docs/memory-format.md) in the checkout,
so what an agent stores is also what `anchorcheck check` reads, a person can review it in a diff,
and drift fails CI like any other memory file. Memories are added (`add`), read back by id
(`recall`) or by words (`search`) — each read verified against the code as it is then — and
removed (`forget`). The file is edited with tomlkit (comments and layout kept) and replaced
whole on each write, never left half written.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Sequence
from typing import Any

import tomlkit
from tomlkit.exceptions import TOMLKitError

from anchorcheck.memory.lockfile import attach, load_lock
from anchorcheck.memory.memoryfiles import MemoryFileError, read_memory_file
from anchorcheck.model.results import Memory, MemoryReport
from anchorcheck.repo.atomic import write_atomic
from anchorcheck.repo.paths import UnsafePathError, check_relative
from anchorcheck.verify.verifier import Verifier

DEFAULT_STORE = "agent.memories.toml"
SUFFIX = ".memories.toml"
_ID = re.compile(r"m(\d+)")
_WORDS = re.compile(r"\w+")


class StoreError(ValueError):
    """What a store cannot do, as one sentence naming the file (and the memory)."""


class MemoryStore:
    """The memories of one native file in the checkout of `verifier`, read and written by id."""

    def __init__(self, verifier: Verifier, path: str = DEFAULT_STORE) -> None:
        self.shown = check_store_path(path)
        self.verifier = verifier
        self.path = verifier.root / self.shown

    def memories(self) -> list[Memory]:
        """Every stored memory, in file order (none while the file does not exist)."""
        if not self.path.exists():
            return []
        try:
            return read_memory_file(self.path, self.shown, self.verifier.registry, root=self.verifier.root)
        except MemoryFileError as exc:
            raise StoreError(str(exc)) from None

    def add(self, text: str, anchors: Sequence[str], citations: Iterable[dict[str, Any]] = ()) -> Memory:
        """Store a new memory with the next free id (`m1`, `m2`, ...) and the citation records of its spans."""
        if not text.strip():
            raise StoreError("a memory needs some text")
        doc = self._document()
        taken = [int(m.group(1)) for m in (_ID.fullmatch(str(t.get("id", ""))) for t in _tables(doc)) if m]
        memory_id = f"m{max(taken, default=0) + 1}"
        table = tomlkit.table()
        table.update({"id": memory_id, "text": text, "anchors": list(anchors), "created": _now()})
        records = [{k: v for k, v in record.items() if v is not None} for record in citations]
        if records:
            table["citation"] = tomlkit.aot()
            table["citation"].extend(records)
        doc.setdefault("version", 1)
        doc.setdefault("memory", tomlkit.aot()).append(table)
        self._write(doc)
        return self._get(memory_id)

    def recall(self, memory_id: str) -> MemoryReport:
        """The memory with this id, verified now."""
        return self.verify([self._get(memory_id)])[0]

    def search(self, query: str, limit: int = 10) -> list[MemoryReport]:
        """The memories whose text or anchors hold the most words of `query` (at most `limit`), verified now."""
        words = {w.lower() for w in _WORDS.findall(query)}
        if not words:
            raise StoreError("the query has no words to search for")
        scored = []
        for index, memory in enumerate(self.memories()):
            seen = {w.lower() for w in _WORDS.findall(" ".join([memory.text, *map(str, memory.anchors)]))}
            hits = len(words & seen)
            if hits:
                scored.append((-hits, index, memory))
        return self.verify([memory for *_, memory in sorted(scored, key=lambda s: s[:2])[: max(limit, 0)]])

    def forget(self, memory_id: str) -> Memory:
        """Remove the memory with this id from the file; returns what was removed."""
        memory = self._get(memory_id)
        doc = self._document()
        tables = doc["memory"]
        del tables[next(i for i, t in enumerate(tables) if t.get("id") == memory_id)]
        self._write(doc)
        return memory

    def verify(self, memories: list[Memory]) -> list[MemoryReport]:
        """Each memory checked against the code as it is now, its spans by the citations it carries (else the lock)."""
        try:
            attach(memories, load_lock(self.verifier.root), self.verifier.registry.kinds)
        except MemoryFileError as exc:
            raise StoreError(str(exc)) from None
        return [self.verifier.verify(memory) for memory in memories]

    def _get(self, memory_id: str) -> Memory:
        for memory in self.memories():
            if memory.id == memory_id:
                return memory
        raise StoreError(f"{self.shown}: no memory with id {memory_id!r}")

    def _write(self, doc: tomlkit.TOMLDocument) -> None:
        """Replace the file whole; its folder is made when missing, never through a link out of the checkout."""
        root = self.verifier.root.resolve()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not self.path.parent.resolve().is_relative_to(root) or self.path.is_symlink():
            raise StoreError(f"memory store {self.shown!r}: refused, it leads out of the repository through a link")
        write_atomic(self.path, tomlkit.dumps(doc))

    def _document(self) -> tomlkit.TOMLDocument:
        """The file as tomlkit reads it (a new document when there is none); StoreError names what is wrong."""
        self.memories()  # the native reader's checks first, so a broken file is named by line, never overwritten
        if not self.path.exists():
            return tomlkit.document()
        try:
            return tomlkit.parse(self.path.read_text(encoding="utf-8"))
        except TOMLKitError as exc:
            raise StoreError(f"{self.shown}: invalid TOML: {exc}") from None


def check_store_path(path: str) -> str:
    """The store's repo-relative path in POSIX form; StoreError for one outside the repository or not a native file."""
    try:
        shown = check_relative(path)
    except UnsafePathError as exc:
        raise StoreError(f"memory store {path!r}: {exc}") from None
    if not shown.endswith(SUFFIX):
        raise StoreError(f"memory store {path!r}: the file name must end with {SUFFIX} (the native memory format)")
    return shown


def _tables(doc: tomlkit.TOMLDocument) -> list[Any]:
    memories = doc.get("memory", [])
    return [t for t in memories if hasattr(t, "get")] if isinstance(memories, list) else []


def _now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
