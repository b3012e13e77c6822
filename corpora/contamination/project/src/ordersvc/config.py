"""Service settings, read once from the environment at start-up."""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Settings:
    redis_url: str
    amqp_url: str
    database_url: str
    cache_ttl: int
    log_level: str


def load() -> Settings:
    """Read the settings; ORDERS_AMQP_URL has no default because events must not go nowhere."""
    return Settings(
        redis_url=os.environ.get("ORDERS_REDIS_URL", "redis://localhost:6379/0"),
        amqp_url=os.environ["ORDERS_AMQP_URL"],
        database_url=os.getenv("ORDERS_DATABASE_URL", "postgresql://localhost/orders"),
        cache_ttl=int(os.getenv("ORDERS_CACHE_TTL", "300")),
        log_level=os.getenv("LOG_LEVEL", "INFO"),
    )
