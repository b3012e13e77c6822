"""Orders cached in Redis as JSON, with a TTL so that a missed invalidation heals itself."""

from __future__ import annotations

import json
from typing import Any

import redis

_PREFIX = "order:"


class OrderCache:
    def __init__(self, url: str, ttl: int) -> None:
        self._client = redis.Redis.from_url(url)
        self._ttl = ttl

    def get(self, order_id: str) -> dict[str, Any] | None:
        raw = self._client.get(_PREFIX + order_id)
        return None if raw is None else json.loads(raw)

    def put(self, order_id: str, order: dict[str, Any]) -> None:
        self._client.setex(_PREFIX + order_id, self._ttl, json.dumps(order, sort_keys=True))

    def invalidate(self, order_id: str) -> None:
        self._client.delete(_PREFIX + order_id)
