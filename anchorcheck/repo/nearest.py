"""The checkout around a directory, found with `os.path` alone: what a check answered by a server
(`anchorcheck.serve.checkclient`) looks up before it imports anything else."""

from __future__ import annotations

import os


def nearest_checkout(start: str) -> str:
    """The nearest directory at or above `start` (resolved) holding `.git`; else `start` itself, resolved."""
    here = candidate = os.path.realpath(start)
    while True:
        if os.path.exists(os.path.join(candidate, ".git")):
            return candidate
        parent = os.path.dirname(candidate)
        if parent == candidate:
            return here
        candidate = parent
