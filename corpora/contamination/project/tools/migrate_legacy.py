"""One-off: copy orders from the legacy back office's SQLite export into the service."""

from __future__ import annotations

import json
import sqlite3
import sys

from ordersvc import config
from ordersvc.store import OrderStore


def migrate(export_path: str) -> int:
    store = OrderStore(config.load().database_url)
    legacy = sqlite3.connect(export_path)
    count = 0
    for (body,) in legacy.execute("SELECT payload FROM legacy_orders"):
        store.create(json.loads(body))
        count += 1
    return count


if __name__ == "__main__":
    print(f"migrated {migrate(sys.argv[1])} orders")
