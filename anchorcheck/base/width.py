"""The width help and usage text are laid out in, as `shutil.get_terminal_size` finds it, without
importing shutil (bz2 and lzma with it: ~3 ms of every `check`, for a width only help text uses).

A client of `anchorcheck serve` reports it with its terminal: the server's own is not the client's
(`anchorcheck.serve.checkserver`).
"""

from __future__ import annotations

import os
import sys


def columns(fallback: int = 80) -> int:
    """`shutil.get_terminal_size().columns`: `COLUMNS` when it is a positive number, else the width of
    the terminal standard output is on, else `fallback`."""
    try:
        width = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        width = 0
    if width > 0:
        return width
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or fallback  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):  # no stdout, closed, detached or not a terminal
        return fallback
