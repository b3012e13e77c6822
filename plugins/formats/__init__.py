"""The memory-file formats: one module per format, its writer in a `*_edit` module beside it."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any


def editor(module: str, name: str) -> Callable[..., Any]:
    """A format's writer (`rename`/`insert`), imported at its first call: reading memory files is what
    every check does, writing them back is what `relocate`, `suggest --write` and `rebank` do, so a
    check never imports the `*_edit` modules (or their regexes)."""

    def write_back(*args: Any, **kwargs: Any) -> Any:
        return getattr(import_module(f"anchorcheck_plugins.formats.{module}"), name)(*args, **kwargs)

    write_back.__name__ = write_back.__qualname__ = name
    return write_back
