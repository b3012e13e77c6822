"""The on-disk cache of per-file facts, keyed by content, shared by every process and checkout.

Keys are git blob ids (free for a tracked, unmodified file; computed the same
way for any other file) plus the extractor's fingerprint, so an entry is
invalidated by content and by a changed language plugin, never by time.
SQLite's locking makes concurrent readers and writers safe (a rollback journal, no
memory-mapped pages: a file truncated by another process is a read error, not SIGBUS); every payload
carries a checksum, so a damaged row is dropped and recomputed, and a database
that cannot be opened is moved aside and rebuilt, never trusted.

Nothing expires, so every commit of every repository would add rows forever:
the database has a size cap instead, and when a write takes it over the cap
the least recently used rows go first.
"""

from __future__ import annotations

import json
import os
import time
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anchorcheck.base import digests
from anchorcheck.repo.cachedir import default_cache_dir, usable_file, usable_folder
from anchorcheck.repo.treestate import git_blob_id as git_blob_id  # where its users have always found it

if TYPE_CHECKING:
    import sqlite3

_FILE = "facts-v2.sqlite"
_SIDE_FILES = ("", "-journal", "-wal", "-shm")  # the database and the files SQLite keeps beside it
_OLD_FILES = ("facts-v1.sqlite", "facts-v1.sqlite-wal", "facts-v1.sqlite-shm")  # another schema: never read again
_BATCH = 500
MAX_BYTES = 512 * 1024 * 1024  # default cap on the database's live pages
_TRIM_TO = 0.75  # a trim leaves this share of the cap, so the next writes do not trim again at once
_STALE = 24 * 3600  # a row read this long after its stamp gets a new one, so a read costs no write
BUSY_TIMEOUT = 30.0  # seconds to wait for another process's write lock before going on without the cache
_BUSY_PAUSE = 10.0  # after such a wait, seconds without the cache before trying it again
_BUSY_CODES = (5, 6)  # SQLITE_BUSY, SQLITE_LOCKED (sqlite3 is imported at the first connection)


def open_cache(options: dict[str, Any], root: Path, time_left: Callable[[], float | None] | None = None) -> FactsCache | None:
    """The cache a Verifier's `options` ask for (`cache`, `cache_dir`, `cache_max_bytes`); None with `cache` off."""
    if not options.get("cache", True):
        return None
    directory = options.get("cache_dir") or default_cache_dir()
    if directory is None:
        return None  # no folder of this user's own to keep it in (`anchorcheck.repo.cachedir`)
    return FactsCache(Path(directory), int(options.get("cache_max_bytes", MAX_BYTES)), time_left)


class _StillShared(Exception):
    """The database is in WAL mode and open elsewhere, so it cannot be switched to a rollback journal."""


class FactsCache:
    """A key -> JSON-safe dict store. Failures to read or write degrade to cache misses.

    Each row carries a `stamp`, the unix second it was last written or used;
    a flush that takes the live pages over `max_bytes` deletes the least
    recently stamped rows until they fit in three quarters of it.
    """

    def __init__(self, directory: Path, max_bytes: int = MAX_BYTES, time_left: Callable[[], float | None] | None = None) -> None:
        self.path = Path(directory) / _FILE
        self.max_bytes = max_bytes
        self.time_left = time_left  # the caller's deadline: no wait for a lock outlasts it
        self.rebuilt = False  # whether a damaged database was set aside on open
        self._db: sqlite3.Connection | None = None
        self._pending: dict[str, bytes] = {}
        self._used: set[str] = set()  # keys read with a stale stamp, stamped anew at the next flush
        self._busy_until = 0.0  # monotonic time: another process held the lock too long, go on without until then

    def _connect(self) -> sqlite3.Connection | None:
        import sqlite3  # here, not with the module: a run without the cache (`--no-cache`) never loads SQLite (4.5 M instructions)

        if time.monotonic() < self._busy_until:
            return None
        if self._db is not None:
            return self._patient(self._db)
        if not self._ours():
            self._busy_until = float("inf")  # not this user's own: never used by this process
            return None
        try:
            self._db = self._open()
        except sqlite3.DatabaseError as exc:
            if self._given_up(exc):
                return None
            self._set_aside()
            try:
                self._db = self._open()
            except (sqlite3.Error, OSError):
                return None
        except (OSError, _StillShared):
            return None
        self._remove_old_files()
        return self._patient(self._db)

    def _ours(self) -> bool:
        """Whether the folder and the database's files are this user's own, none a link (SQLite follows
        links: one would have it write a database over whatever file it names)."""
        return usable_folder(str(self.path.parent), make=True) and all(usable_file(f"{self.path}{suffix}") for suffix in _SIDE_FILES)

    def _patient(self, db: sqlite3.Connection) -> sqlite3.Connection:
        db.execute(f"PRAGMA busy_timeout = {int(self._wait() * 1000)}")
        return db

    def _wait(self) -> float:
        """How long to wait for another process's lock: BUSY_TIMEOUT, and never past the caller's deadline."""
        left = self.time_left() if self.time_left is not None else None
        return BUSY_TIMEOUT if left is None else max(0.0, min(BUSY_TIMEOUT, left))

    def _open(self) -> sqlite3.Connection:
        import sqlite3

        db = sqlite3.connect(self.path, timeout=self._wait(), isolation_level=None, check_same_thread=False)
        try:
            # No memory-mapped I/O at all: another process may truncate or replace the shared file at any
            # time, and a mapped page that vanished is SIGBUS, which kills this process. WAL maps its
            # `-shm` index whatever mmap_size says, so the journal is a rollback journal, read with read().
            db.execute("PRAGMA mmap_size = 0")
            if str(db.execute("PRAGMA journal_mode = DELETE").fetchone()[0]).lower() != "delete":
                raise _StillShared()  # a WAL database another process has open: no cache this run
            db.execute("PRAGMA synchronous = NORMAL")
            # A rowid table: a payload of a few KB stays in the tree's page (WITHOUT ROWID moves all
            # past about 1 KB to overflow pages of its own: 3-5x the bytes for rows of 1-2 KB), and rows
            # lie in write order, so deleting the oldest frees whole pages.
            db.execute("CREATE TABLE IF NOT EXISTS facts (key TEXT PRIMARY KEY, stamp INTEGER NOT NULL, payload BLOB NOT NULL)")
            db.execute("CREATE INDEX IF NOT EXISTS facts_by_stamp ON facts (stamp)")
            db.execute("SELECT count(*) FROM facts WHERE key = ''").fetchone()
        except (sqlite3.DatabaseError, _StillShared):
            db.close()
            raise
        return db

    def _remove_old_files(self) -> None:
        """Delete the database of the previous schema, best effort: it only takes space now."""
        for name in _OLD_FILES:
            try:
                (self.path.parent / name).unlink(missing_ok=True)
            except OSError:
                pass  # e.g. still open in an older process on Windows: the next open tries again

    def _set_aside(self) -> None:
        self.rebuilt = True
        for suffix in _SIDE_FILES:
            try:
                os.replace(f"{self.path}{suffix}", f"{self.path}{suffix}.corrupt")
            except OSError:
                pass

    def get_many(self, keys: Iterable[str]) -> dict[str, dict[str, Any]]:
        """The entries found for these keys; damaged ones are deleted and left out.

        A found row whose stamp is over a day old is stamped anew at the next
        `flush`: recency is kept to the day, and reading fresh rows writes nothing.
        """
        import sqlite3

        wanted = list(dict.fromkeys(keys))
        found: dict[str, dict[str, Any]] = {}
        db = self._connect()
        if db is None or not wanted:
            return found
        damaged: list[str] = []
        stale = int(time.time()) - _STALE
        try:
            for start in range(0, len(wanted), _BATCH):
                chunk = wanted[start : start + _BATCH]
                marks = ",".join("?" * len(chunk))
                for key, stamp, payload in db.execute(f"SELECT key, stamp, payload FROM facts WHERE key IN ({marks})", chunk):  # noqa: S608 - placeholders only
                    value = _decode(payload)
                    if value is None:
                        damaged.append(key)
                        continue
                    found[key] = value
                    if stamp < stale:
                        self._used.add(key)
            if damaged:
                db.executemany("DELETE FROM facts WHERE key = ?", [(k,) for k in damaged])
        except sqlite3.DatabaseError as exc:
            if not self._given_up(exc):
                self._reset()
            return {}
        return found

    def put(self, key: str, value: dict[str, Any]) -> None:
        """Queue an entry; `flush` writes the queue in one transaction."""
        self._pending[key] = _encode(value)
        if len(self._pending) >= _BATCH:
            self.flush()

    def flush(self) -> None:
        """Write the queued entries and the new stamps of stale rows read, then trim if over the cap."""
        if not self._pending and not self._used:
            return
        import sqlite3

        now = int(time.time())
        rows = [(key, now, payload) for key, payload in self._pending.items()]
        used = [(now, key) for key in self._used - self._pending.keys()]
        self._pending, self._used = {}, set()
        db = self._connect()
        if db is None:
            return
        try:
            db.execute("BEGIN IMMEDIATE")
            db.executemany("INSERT OR REPLACE INTO facts (key, stamp, payload) VALUES (?, ?, ?)", rows)
            db.executemany("UPDATE facts SET stamp = ? WHERE key = ?", used)
            if rows:
                self._trim(db)
            db.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            if not self._given_up(exc):
                self._reset()
                return
            if db.in_transaction:
                try:
                    db.execute("ROLLBACK")
                except sqlite3.Error:
                    pass

    def _given_up(self, exc: sqlite3.DatabaseError) -> bool:
        """A lock another process held past the wait is not damage: setting a healthy shared file
        aside would throw away every checkout's facts. This process goes on without the cache for a
        while (its queued rows are lost, to be computed again), so it does not wait at every call."""
        code = getattr(exc, "sqlite_errorcode", None)
        if code is None or code & 0xFF not in _BUSY_CODES:
            return False
        self._busy_until = time.monotonic() + _BUSY_PAUSE
        self._pending, self._used = {}, set()
        return True

    def _trim(self, db: sqlite3.Connection) -> None:
        """Over the cap, delete the least recently stamped rows until the live pages fit in `_TRIM_TO` of it.

        Runs in the flush's write transaction, so processes trimming at once
        take turns and each measures what the one before left. The live size
        comes from the page counts, not a scan. Each round deletes the share of
        the rows that the excess is of the live size, then measures again: the
        oldest rows may be smaller than most. Freed pages are reused by later
        writes, so the file stays near the cap.
        """
        live = _live_bytes(db)
        if live <= self.max_bytes:
            return
        target = int(self.max_bytes * _TRIM_TO)
        while live > target:
            (rows,) = db.execute("SELECT count(*) FROM facts").fetchone()
            if not rows:
                return  # the cap is below what an empty database takes
            doomed = -(-rows * (live - target) // live)
            db.execute("DELETE FROM facts WHERE rowid IN (SELECT rowid FROM facts ORDER BY stamp LIMIT ?)", (doomed,))
            live = _live_bytes(db)

    def _reset(self) -> None:
        """The database went bad under us: set it aside so the next use rebuilds it."""
        if self._db is not None:
            import sqlite3

            try:
                self._db.close()
            except sqlite3.Error:
                pass
        self._db = None
        self._set_aside()

    def close(self) -> None:
        self.flush()
        if self._db is not None:
            self._db.close()
            self._db = None

    def __getstate__(self) -> dict[str, Any]:
        # A connection cannot cross a process boundary; the copy reopens the same file.
        return {"path": self.path, "max_bytes": self.max_bytes, "rebuilt": False, "_db": None, "_pending": {}, "_used": set(), "_busy_until": 0.0, "time_left": None}


def _live_bytes(db: sqlite3.Connection) -> int:
    """The bytes of the pages in use, from the database header: no table is read."""
    pages = db.execute("PRAGMA page_count").fetchone()[0] - db.execute("PRAGMA freelist_count").fetchone()[0]
    return int(pages * db.execute("PRAGMA page_size").fetchone()[0])


def _encode(value: dict[str, Any]) -> bytes:
    # In the order given: a result read back must print as the one worked out (the JSON report keeps its
    # `details` in the order a checker wrote them).
    body = zlib.compress(json.dumps(value, separators=(",", ":")).encode("utf-8"))
    return digests.sha256(body).digest()[:16] + body


def _decode(payload: Any) -> dict[str, Any] | None:
    if not isinstance(payload, bytes) or len(payload) < 17:
        return None
    digest, body = payload[:16], payload[16:]
    if digests.sha256(body).digest()[:16] != digest:
        return None
    try:
        value = json.loads(zlib.decompress(body))
    except (zlib.error, ValueError):
        return None
    return value if isinstance(value, dict) else None
