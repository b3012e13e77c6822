"""The on-disk cache of per-file facts, keyed by content, shared by every process and checkout.

Keys are git blob ids (free for a tracked, unmodified file; computed the same
way for any other file) plus the extractor's fingerprint, so an entry is
invalidated by content and by a changed language plugin, never by time.
SQLite in WAL mode makes concurrent readers and writers safe; every payload
carries a checksum, so a damaged row is dropped and recomputed, and a database
that cannot be opened is moved aside and rebuilt, never trusted.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

CACHE_ENV = "ANCHORCHECK_CACHE_DIR"
_FILE = "facts-v1.sqlite"
_BATCH = 500


def git_blob_id(data: bytes) -> str:
    """The id git gives these bytes as a blob, so untracked files share the key space of tracked ones."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()  # noqa: S324 - a content id, not security


def default_cache_dir(root: Path) -> Path:
    """ANCHORCHECK_CACHE_DIR, else the user's cache directory, else `<root>/.anchorcheck/`."""
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return Path(explicit)
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA")
    elif sys.platform == "darwin":
        base = str(Path.home() / "Library" / "Caches")
    else:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    if base:
        candidate = Path(base) / "anchorcheck"
        try:
            candidate.mkdir(parents=True, exist_ok=True)
            if os.access(candidate, os.W_OK):
                return candidate
        except OSError:
            pass
    return root / ".anchorcheck"


class FactsCache:
    """A key -> JSON-safe dict store. Failures to read or write degrade to cache misses."""

    def __init__(self, directory: Path) -> None:
        self.path = Path(directory) / _FILE
        self.rebuilt = False  # whether a damaged database was set aside on open
        self._db: sqlite3.Connection | None = None
        self._pending: dict[str, bytes] = {}

    def _connect(self) -> sqlite3.Connection | None:
        if self._db is not None:
            return self._db
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = self._open()
        except sqlite3.DatabaseError:
            self._set_aside()
            try:
                self._db = self._open()
            except (sqlite3.Error, OSError):
                return None
        except OSError:
            return None
        return self._db

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
        try:
            db.execute("PRAGMA busy_timeout = 30000")
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")
            db.execute("CREATE TABLE IF NOT EXISTS facts (key TEXT PRIMARY KEY, payload BLOB NOT NULL) WITHOUT ROWID")
            db.execute("SELECT count(*) FROM facts WHERE key = ''").fetchone()
        except sqlite3.DatabaseError:
            db.close()
            raise
        return db

    def _set_aside(self) -> None:
        self.rebuilt = True
        for suffix in ("", "-wal", "-shm"):
            try:
                os.replace(f"{self.path}{suffix}", f"{self.path}{suffix}.corrupt")
            except OSError:
                pass

    def get_many(self, keys: Iterable[str]) -> dict[str, dict[str, Any]]:
        """The entries found for these keys; damaged ones are deleted and left out."""
        wanted = list(dict.fromkeys(keys))
        found: dict[str, dict[str, Any]] = {}
        db = self._connect()
        if db is None or not wanted:
            return found
        damaged: list[str] = []
        try:
            for start in range(0, len(wanted), _BATCH):
                chunk = wanted[start : start + _BATCH]
                marks = ",".join("?" * len(chunk))
                for key, payload in db.execute(f"SELECT key, payload FROM facts WHERE key IN ({marks})", chunk):  # noqa: S608 - placeholders only
                    value = _decode(payload)
                    if value is None:
                        damaged.append(key)
                    else:
                        found[key] = value
            if damaged:
                db.executemany("DELETE FROM facts WHERE key = ?", [(k,) for k in damaged])
        except sqlite3.DatabaseError:
            self._reset()
            return {}
        return found

    def put(self, key: str, value: dict[str, Any]) -> None:
        """Queue an entry; `flush` writes the queue in one transaction."""
        self._pending[key] = _encode(value)
        if len(self._pending) >= _BATCH:
            self.flush()

    def flush(self) -> None:
        if not self._pending:
            return
        rows, self._pending = list(self._pending.items()), {}
        db = self._connect()
        if db is None:
            return
        try:
            db.execute("BEGIN IMMEDIATE")
            db.executemany("INSERT OR REPLACE INTO facts (key, payload) VALUES (?, ?)", rows)
            db.execute("COMMIT")
        except sqlite3.DatabaseError:
            self._reset()

    def _reset(self) -> None:
        """The database went bad under us: set it aside so the next use rebuilds it."""
        if self._db is not None:
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
        return {"path": self.path, "rebuilt": False, "_db": None, "_pending": {}}


def _encode(value: dict[str, Any]) -> bytes:
    body = zlib.compress(json.dumps(value, separators=(",", ":"), sort_keys=True).encode("utf-8"))
    return hashlib.sha256(body).digest()[:16] + body


def _decode(payload: Any) -> dict[str, Any] | None:
    if not isinstance(payload, bytes) or len(payload) < 17:
        return None
    digest, body = payload[:16], payload[16:]
    if hashlib.sha256(body).digest()[:16] != digest:
        return None
    try:
        value = json.loads(zlib.decompress(body))
    except (zlib.error, ValueError):
        return None
    return value if isinstance(value, dict) else None
