"""SQLite persistence for incidents."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone
from typing import Any

SEVERITIES = ("sev1", "sev2", "sev3")

SCHEMA = """
CREATE TABLE IF NOT EXISTS incidents (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    title TEXT NOT NULL,
    severity TEXT NOT NULL CHECK (severity IN ('sev1', 'sev2', 'sev3')),
    status TEXT NOT NULL DEFAULT 'open',
    opened_at TEXT NOT NULL,
    resolved_at TEXT
);
CREATE INDEX IF NOT EXISTS incidents_status ON incidents (status);
"""


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class IncidentStore:
    """All reads and writes of incident rows go through this class."""

    def __init__(self, path: str) -> None:
        self._conn = sqlite3.connect(path, check_same_thread=False)
        self._conn.row_factory = sqlite3.Row
        self._conn.executescript(SCHEMA)

    def create(self, title: str, severity: str) -> dict[str, Any]:
        if severity not in SEVERITIES:
            raise ValueError(f"unknown severity {severity!r}")
        with self._conn:
            cur = self._conn.execute(
                "INSERT INTO incidents (title, severity, opened_at) VALUES (?, ?, ?)",
                (title, severity, _now()),
            )
        incident = self.get(cur.lastrowid)
        assert incident is not None
        return incident

    def get(self, incident_id: int) -> dict[str, Any] | None:
        row = self._conn.execute(
            "SELECT * FROM incidents WHERE id = ?", (incident_id,)
        ).fetchone()
        return dict(row) if row else None

    def list_open(self, limit: int = 50) -> list[dict[str, Any]]:
        rows = self._conn.execute(
            "SELECT * FROM incidents WHERE status = 'open'"
            " ORDER BY severity, opened_at LIMIT ?",
            (limit,),
        ).fetchall()
        return [dict(row) for row in rows]

    def resolve(self, incident_id: int) -> dict[str, Any] | None:
        with self._conn:
            self._conn.execute(
                "UPDATE incidents SET status = 'resolved', resolved_at = ?"
                " WHERE id = ? AND status = 'open'",
                (_now(), incident_id),
            )
        return self.get(incident_id)

    def close(self) -> None:
        self._conn.close()
