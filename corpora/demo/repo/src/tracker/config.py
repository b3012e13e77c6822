"""Runtime configuration, read once from the process environment."""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Settings:
    redis_url: str
    db_path: str
    cache_ttl: int
    page_size: int
    debug: bool


def _flag(value: str | None) -> bool:
    return (value or "").strip().lower() in {"1", "true", "yes", "on"}


def load_settings() -> Settings:
    """Build the settings from the environment; REDIS_URL is required."""
    try:
        redis_url = os.environ["REDIS_URL"]
    except KeyError:
        raise RuntimeError("REDIS_URL is not set; copy .env.example to .env") from None
    return Settings(
        redis_url=redis_url,
        db_path=os.getenv("TRACKER_DB_PATH", "tracker.db"),
        cache_ttl=int(os.environ.get("TRACKER_CACHE_TTL", "300")),
        page_size=int(os.getenv("TRACKER_PAGE_SIZE", "50")),
        debug=_flag(os.getenv("TRACKER_DEBUG")),
    )
