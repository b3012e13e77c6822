"""Smoke test against a deployed instance: create an order and read it back."""

from __future__ import annotations

import sys

import requests


def smoke(base_url: str) -> None:
    created = requests.post(f"{base_url}/orders", json={"customer": "smoke", "total": 1}, timeout=10)
    created.raise_for_status()
    order_id = created.json()["id"]
    fetched = requests.get(f"{base_url}/orders/{order_id}", timeout=10)
    fetched.raise_for_status()


if __name__ == "__main__":
    smoke(sys.argv[1])
