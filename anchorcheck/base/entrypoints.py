"""Entry points of the installed distributions, read without importing `importlib.metadata`.

`importlib.metadata` imports the email parser, zipfile and csv on the way:
more than the interpreter's own start-up, on every run, to read a few
`entry_points.txt` files. This reads them the way its `PathFinder` does —
each `sys.path` directory in order, `*.dist-info` before `*.egg-info`, the
first distribution of a (normalized) name wins — and hands anything it does
not model (a zip on `sys.path`, a finder of its own that lists
distributions) to `importlib.metadata` itself.
"""

from __future__ import annotations

import os
import re
import sys
from importlib import import_module
from typing import Any, NamedTuple

from anchorcheck.base.codesig import metadata_dirs

_SEPARATORS = re.compile(r"[-_.]+")


class EntryPoint(NamedTuple):
    """One entry point: `load()` imports `module` and returns `module:attr` (or the module). A named
    tuple, not a dataclass: a replayed `check` reads the installed distributions and nothing more."""

    name: str
    value: str
    group: str
    dist_path: str | None = None

    def load(self) -> Any:
        module, _, attrs = self.value.partition(":")
        target = import_module(module.strip())
        for attr in filter(None, attrs.split("[")[0].strip().split(".")):
            target = getattr(target, attr)
        return target

    @property
    def dist(self) -> Any:
        """The distribution that declares it (`importlib.metadata`'s, read when asked for: listings only)."""
        if self.dist_path is None:
            return None
        from importlib.metadata import PathDistribution
        from pathlib import Path

        return PathDistribution(Path(self.dist_path))


def entry_points(*groups: str) -> dict[str, list[Any]]:
    """The entry points of each group (`name`, `value`, `load()`, `dist`), as `importlib.metadata` finds them."""
    if not _modelled():
        from importlib import metadata

        return {group: list(metadata.entry_points(group=group)) for group in groups}
    found: dict[str, list[Any]] = {group: [] for group in groups}
    seen: set[str] = set()
    for directory in metadata_dirs():
        name = _SEPARATORS.sub("_", os.path.basename(directory).lower().rpartition(".")[0].partition("-")[0])
        if name in seen:
            continue
        seen.add(name)
        for group, entries in _read(os.path.join(directory, "entry_points.txt")).items():
            if group in found:
                found[group].extend(EntryPoint(key, value, group, directory) for key, value in entries)
    return found


def installed(prefix: str) -> list[str]:
    """The `name-version` of every installed distribution whose normalized name starts with `prefix`
    (what the `*.dist-info` folder names say), sorted: what cached results made with them are keyed by."""
    found = set()
    for directory in metadata_dirs():
        stem = os.path.basename(directory).rpartition(".")[0]
        if _SEPARATORS.sub("_", stem.lower()).startswith(prefix):
            found.add(stem)
    return sorted(found)


def _modelled() -> bool:
    """Whether every place distributions may come from is a directory on sys.path this module reads."""
    from importlib.machinery import PathFinder

    for finder in sys.meta_path:
        if finder is not PathFinder and hasattr(finder, "find_distributions"):
            return False
    return not any(os.path.isfile(entry) or entry.lower().endswith(".egg") for entry in sys.path)


def _read(path: str) -> dict[str, list[tuple[str, str]]]:
    """`entry_points.txt`: INI sections of `name = value` lines (comments and blank lines skipped)."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError):
        return {}
    sections: dict[str, list[tuple[str, str]]] = {}
    current: list[tuple[str, str]] | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1].strip(), [])
        elif current is not None and "=" in line:
            key, _, value = line.partition("=")
            current.append((key.strip(), value.strip()))
    return sections
