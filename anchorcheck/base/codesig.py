"""The signature of the code that judges: what stored verdicts and replayed reports are keyed by.

A verdict stored on disk (`anchorcheck.evidence.stored`) or a whole report printed
again (`anchorcheck.serve.replay`) is only true for the code that made it:
anchorcheck's own sources and every plugin package's, by path, size and
modification time (an upgrade or an edit rewrites them), and for a replay
every installed distribution (`fingerprint`: grammars, plugins, their entry
points). Stat-ing them costs a fraction of importing them, which is what lets
a replay skip the imports.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from anchorcheck.base import digests

ANCHORCHECK = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the whole package, not its layer
_SIGNED: dict[tuple[tuple[tuple[str, ...], ...], tuple[str, ...]], str] = {}


def plugin_sources(modules: Sequence[str]) -> list[str] | None:
    """Where the code of these plugin modules (`pkg.mod` or `pkg.mod:attr`) lives: their whole top-level
    package (a plugin module leans on its siblings), or the module file itself. None for one not found."""
    import importlib.util

    places = []
    for package in sorted({module.split(":", 1)[0].split(".", 1)[0] for module in modules}):
        try:
            spec = importlib.util.find_spec(package)
        except (ImportError, ValueError):
            spec = None
        if spec is None or spec.origin is None:
            return None
        origin = os.path.abspath(spec.origin)
        places.append(os.path.dirname(origin) if os.path.basename(origin) == "__init__.py" else origin)
    return places


def code_signature(plugins: Sequence[tuple[str, str]], places: Sequence[str]) -> str:
    """The plugins by name and module, and every `.py` file under `places` (and anchorcheck's own) by path,
    size and time. Taken once per process (the code does not change under a running program): a check
    that finds no stored report to replay asks for it three times."""
    key = (tuple(sorted(tuple(plugin) for plugin in plugins)), tuple(places))
    if key not in _SIGNED:
        _SIGNED[key] = signature_now(key[0], places)
    return _SIGNED[key]


def signature_now(plugins: Sequence[tuple[str, ...]], places: Sequence[str]) -> str:
    """`code_signature` as the files are now, not memoized: for a process the code may change under
    (`anchorcheck.serve.checkserver`)."""
    files: set[str] = set()
    for place in {ANCHORCHECK, *places}:
        if place.endswith(".py"):
            files.add(place)
            continue
        for folder, subfolders, names in os.walk(place):
            subfolders[:] = [name for name in subfolders if name != "__pycache__"]  # bytecode only: no source to sign
            files.update(os.path.join(folder, name) for name in names if name.endswith(".py"))
    digest = digests.sha1(repr(list(plugins)).encode())  # a content id, not security
    for source in sorted(files):
        try:
            info = os.stat(source)
        except OSError:
            continue
        digest.update(f"{source}\0{info.st_size}\0{info.st_mtime_ns}\0".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def fingerprint() -> list[str]:
    """Every installed distribution's metadata folder, in `sys.path` order, with its entry points file's
    size and time: another install, an upgrade, a removal or a new entry point (an editable reinstall)
    changes it. What a replayed report is keyed by, read without importing a plugin."""
    found = []
    for directory in metadata_dirs():
        try:
            info = os.stat(os.path.join(directory, "entry_points.txt"))
            found.append(f"{directory}\0{info.st_size}\0{info.st_mtime_ns}")
        except OSError:
            found.append(directory)
    return found


def metadata_dirs() -> list[str]:
    """Every `*.dist-info` and `*.egg-info` folder on `sys.path`, in its order: where installed distributions
    declare themselves (`anchorcheck.base.entrypoints` reads their entry points from them)."""
    dirs = []
    for entry in sys.path:
        base = entry or "."
        try:
            children = os.listdir(base)
        except OSError:
            continue
        dirs += [os.path.join(base, c) for c in children if c.lower().endswith((".dist-info", ".egg-info"))]
    return dirs
