"""Read-through cache for incident lookups, backed by Redis."""

from __future__ import annotations

import json
from typing import Any

import redis

from tracker.config import Settings

KEY_PREFIX = "tracker:incident:"


class RedisCache:
    """Caches serialized incidents under ``tracker:incident:<id>`` with a TTL."""

    def __init__(self, client: redis.Redis, ttl: int = 300) -> None:
        self._client = client
        self._ttl = ttl

    @classmethod
    def from_settings(cls, settings: Settings) -> RedisCache:
        client = redis.Redis.from_url(settings.redis_url, decode_responses=True)
        return cls(client, ttl=settings.cache_ttl)

    def get(self, incident_id: int) -> dict[str, Any] | None:
        raw = self._client.get(f"{KEY_PREFIX}{incident_id}")
        if raw is None:
            return None
        return json.loads(raw)

    def set(self, incident: dict[str, Any]) -> None:
        key = f"{KEY_PREFIX}{incident['id']}"
        self._client.set(key, json.dumps(incident), ex=self._ttl)

    def invalidate(self, incident_id: int) -> None:
        self._client.delete(f"{KEY_PREFIX}{incident_id}")

    def ping(self) -> bool:
        try:
            return bool(self._client.ping())
        except redis.RedisError:
            return False
