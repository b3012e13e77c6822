"""`anchorcheck.lock`: the fingerprints of the span anchors written in memory files.

People write `span:src/app.py#L10-L20` in a CLAUDE.md; nobody types a sha256.
`anchorcheck lock` banks each such anchor once and stores the citation in
the lock at the repository root, keyed by the anchor text exactly as written
(the format is in HELPERS.md and docs/memory-format.md). Readers attach the
entry to the anchor so the `span:` kind can verify it; an anchor with no
entry stays bare, and the kind answers INCONCLUSIVE "not banked, run
anchorcheck lock".

Like a package lockfile it is deterministic and diff-friendly: entries sorted
by anchor, one banked line per array element, and an entry that exists is
never rewritten by `lock` (so re-running it changes nothing). A stale entry
stays stale until someone looks: `anchorcheck rebank` and `relocate` are the
explicit ways to move it.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anchorcheck.model.anchors import Anchor, AnchorSyntaxError, parse_anchor
from anchorcheck.base.bounded import LimitError, brief, toml_loads
from anchorcheck.base.lazyregex import later
from anchorcheck.memory.memoryfiles import MemoryFileError, header_lines
from anchorcheck.model.results import Memory
from anchorcheck.model.registry import AnchorKind
from anchorcheck.repo.checkout import Repository
from anchorcheck.repo.safe_read import LOCK_CAP, read_capped, read_in_root

if TYPE_CHECKING:
    from tomlkit.items import Table

    from anchorcheck.model.citation import Citation

LOCK_NAME = "anchorcheck.lock"
VERSION = 1
SPAN = "span"
_HEADER = "Written by `anchorcheck lock`: fingerprints of the span anchors in the memory files."
_AT_LINE = later(r"\(at line (\d+),")
_CITATION_HEADER = later(r"^[ \t]*\[\[[ \t]*citation[ \t]*\]\]", re.MULTILINE)


class LockError(MemoryFileError):
    """A malformed `anchorcheck.lock`: names the file and line (exit 2 in the CLI)."""


class Lock:
    """The entries of one lock file: anchor text → citation record (the `Citation.to_dict()` fields).
    A plain class, as `LockUpdate` is."""

    __slots__ = ("path", "entries")

    def __init__(self, path: Path) -> None:
        self.path = path
        self.entries: dict[str, dict[str, Any]] = {}


def lock_path(root: Path) -> Path:
    return Path(root) / LOCK_NAME


def load_lock(root: Path) -> Lock:
    """The lock at the root (empty when there is none); LockError for a malformed one, or for one
    that is no regular file inside the root (a FIFO, a symlink out of the repository)."""
    path = lock_path(root)
    if not os.path.lexists(path):
        return Lock(path)
    return read_lock(path, LOCK_NAME, root)


def read_lock(path: Path, shown: str, root: Path | None = None) -> Lock:
    """The lock file at `path` (shown as `shown` in errors); LockError names the line of a malformed entry.

    With `root`, a lock inside the repository is read only where it really is inside it.
    """
    try:
        data = read_capped(path, LOCK_CAP, shown=shown) if root is None else read_in_root(root, path, LOCK_CAP, shown=shown)
        text = data.decode("utf-8")
        doc = toml_loads(text)  # read-only: tomllib is ~50x faster than tomlkit on a large lock
    except tomllib.TOMLDecodeError as exc:
        where = _AT_LINE.search(str(exc))
        raise LockError(shown, int(where.group(1)) if where else None, f"invalid TOML: {exc}") from None
    except LimitError as exc:
        raise LockError(shown, exc.line, f"invalid TOML: {exc.message}") from None
    except UnicodeDecodeError:
        raise LockError(shown, None, "not valid UTF-8 text") from None
    except OSError as exc:
        raise LockError(shown, None, f"cannot read: {exc.strerror or exc}") from None
    if doc.get("version") != VERSION:
        raise LockError(shown, 1, f"'version' must be {VERSION}, got {brief(doc.get('version'))}")
    records = doc.get("citation", [])
    if not isinstance(records, list):
        raise LockError(shown, None, "'citation' must be an array of tables: [[citation]]")
    lines = header_lines(text, _CITATION_HEADER)
    lock = Lock(path)
    for index, record in enumerate(records):
        line = lines[index] if index < len(lines) else None
        if not isinstance(record, dict) or not isinstance(record.get("anchor"), str):
            raise LockError(shown, line, "each [[citation]] needs an 'anchor' string (the span anchor as written)")
        key = record["anchor"]
        if key in lock.entries:
            raise LockError(shown, line, f"duplicate entry for {brief(key)}")
        lock.entries[key] = {k: v for k, v in record.items() if k != "anchor"}
    return lock


def is_lock_text(text: str) -> bool:
    """Whether a text is a lock by its shape: a `version` this module writes and `[[citation]]` tables only."""
    try:
        doc = toml_loads(text)
    except (tomllib.TOMLDecodeError, LimitError):
        return False
    return doc.get("version") == VERSION and set(doc) <= {"version", "citation"}


def attach(memories: Iterable[Memory], lock: Lock, kinds: Mapping[str, AnchorKind]) -> None:
    """Give each written span anchor its banked citation: the memory's own record, else the lock's.

    A memory's own citation that none of its anchors names is checked as an
    anchor of its own. Anchors without a record are left as written, and so
    are malformed ones (the Verifier reports those with their column).
    """
    for memory in memories:
        own = _own_citations(memory)
        used: set[str] = set()
        for index, raw in enumerate(memory.anchors):
            anchor = _span_anchor(raw, kinds)
            if anchor is None:
                continue
            key = raw.strip()
            used.add(key)
            record = own.get(key, lock.entries.get(key))
            if record is not None:
                memory.anchors[index] = replace(anchor, detail=_citation(record))
        extra = [_citation(record) for key, record in own.items() if key not in used]
        if extra:
            positions = [memory.anchor_position(i) for i in range(len(memory.anchors))]
            memory.anchors.extend(extra)
            memory.anchor_positions = positions + [memory.position] * len(extra)


def unbanked(memories: Iterable[Memory], kinds: Mapping[str, AnchorKind]) -> list[tuple[str, Memory]]:
    """The written span anchors that carry no citation of their own (what `lock` must bank)."""
    found = []
    for memory in memories:
        own = _own_citations(memory)
        for raw in memory.anchors:
            anchor = _span_anchor(raw, kinds)
            if anchor is not None and raw.strip() not in own:
                found.append((raw.strip(), memory))
    return found


class LockUpdate:
    """What `lock` did: anchors added, kept as they were, removed, and the ones that failed.
    A plain class, not a dataclass: nothing compares or copies it, and a dataclass's generated methods cost every check ~0.5 ms at import."""

    __slots__ = ("added", "kept", "removed", "failed")

    def __init__(self) -> None:
        self.added: list[str] = []
        self.kept: list[str] = []
        self.removed: list[str] = []
        self.failed: list[tuple[str, Memory, str]] = []

    @property
    def changed(self) -> bool:
        return bool(self.added or self.removed)


def update(lock: Lock, wanted: list[tuple[str, Memory]], repo: Repository, kinds: Mapping[str, AnchorKind], *, prune: bool) -> LockUpdate:
    """Bank the wanted anchors that have no entry; with `prune`, drop entries nobody writes any more.

    Existing entries are kept byte for byte, which is what makes a re-run a
    no-op and keeps a stale fingerprint stale. The lines to bank come from
    the registered `span` kind's parse (its `path`, `start` and `end`): the
    core knows the kind only through the registry.
    """
    from anchorcheck.spans.citation import BankError, bank

    result = LockUpdate()
    seen: set[str] = set()
    for key, memory in wanted:
        if key in seen:
            continue
        seen.add(key)
        if key in lock.entries:
            result.kept.append(key)
            continue
        try:
            anchor = parse_anchor(key, kinds)
            lines = kinds[anchor.kind].lines
            if lines is None:
                raise AnchorSyntaxError(f"the {anchor.kind!r} kind names no lines to bank")
            citation = bank(repo, *lines(anchor.value))
        except (AnchorSyntaxError, BankError) as exc:
            result.failed.append((key, memory, str(exc)))
            continue
        lock.entries[key] = citation.to_dict()
        result.added.append(key)
    if prune:
        for key in sorted(set(lock.entries) - seen):
            del lock.entries[key]
            result.removed.append(key)
    return result


def dumps(lock: Lock) -> str:
    """The lock's text: version, then one [[citation]] per anchor, sorted by anchor."""
    import tomlkit  # only a writer needs it: a check reads the lock with tomllib

    doc = tomlkit.document()
    doc.add(tomlkit.comment(_HEADER))
    doc["version"] = VERSION
    tables = tomlkit.aot()
    for key in sorted(lock.entries):
        tables.append(as_toml_table({"anchor": key, **lock.entries[key]}))
    if tables:
        doc["citation"] = tables
    return tomlkit.dumps(doc)


def as_toml_table(record: dict[str, Any]) -> Table:
    """A citation record as a TOML table, its line lists one line per element (diff-friendly)."""
    import tomlkit  # only a writer needs it: a check reads the lock with tomllib

    table = tomlkit.table()
    for name, value in record.items():
        if isinstance(value, list):
            array = tomlkit.array()
            array.extend(value)
            value = array.multiline(len(value) > 1)
        table[name] = value
    return table


def write(lock: Lock) -> None:
    from anchorcheck.repo.atomic import write_atomic

    write_atomic(lock.path, dumps(lock))


def _span_anchor(raw: Any, kinds: Mapping[str, AnchorKind]) -> Anchor | None:
    if not isinstance(raw, str) or not raw.strip().startswith(f"{SPAN}:"):
        return None
    try:
        return parse_anchor(raw, kinds)
    except AnchorSyntaxError:
        return None


def _own_citations(memory: Memory) -> dict[str, dict[str, Any]]:
    """Citation records a native memory carries itself (`[[memory.citation]]`), by anchor text."""
    own = {}
    for record in memory.metadata.get("citations", []) or []:
        if isinstance(record, dict):
            data = {k: v for k, v in record.items() if k != "anchor"}
            key = record.get("anchor")
            own[key if isinstance(key, str) else _citation(data).anchor_text()] = data
    return own


def _citation(record: dict[str, Any]) -> Citation:
    """A banked record as a Citation; the citation module is imported when a span anchor has one
    (a check of memories without span anchors does not load it)."""
    from anchorcheck.model.citation import Citation

    return Citation.from_dict(record)
