"""Orders in Postgres. Connecting is retried because the database starts after us in compose."""

from __future__ import annotations

import json
from typing import Any

import psycopg
from tenacity import retry, stop_after_attempt, wait_exponential


class OrderStore:
    def __init__(self, dsn: str) -> None:
        self._dsn = dsn

    @retry(stop=stop_after_attempt(5), wait=wait_exponential(multiplier=0.5, max=8))
    def _connect(self) -> psycopg.Connection:
        return psycopg.connect(self._dsn, autocommit=True)

    def get(self, order_id: str) -> dict[str, Any] | None:
        with self._connect() as conn:
            row = conn.execute("SELECT body FROM orders WHERE id = %s", (order_id,)).fetchone()
        return None if row is None else json.loads(row[0])

    def create(self, order: dict[str, Any]) -> str:
        with self._connect() as conn:
            row = conn.execute(
                "INSERT INTO orders (body) VALUES (%s) RETURNING id", (json.dumps(order),)
            ).fetchone()
        return str(row[0])

    def list_recent(self, limit: int = 50) -> list[dict[str, Any]]:
        with self._connect() as conn:
            rows = conn.execute(
                "SELECT id, body FROM orders ORDER BY created_at DESC LIMIT %s", (limit,)
            ).fetchall()
        return [dict(json.loads(body), id=str(order_id)) for order_id, body in rows]
