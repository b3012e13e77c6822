"""Python lockfiles: uv.lock, poetry.lock, pdm.lock, Pipfile.lock and pylock.toml (PEP 751).

A lockfile records what an install resolves to, so every package in it is
evidence ("locked only", with its version) even when no manifest names it
directly, and its versions are what `pkg:pypi/NAME@VERSION` compares with.
"""

from __future__ import annotations

from typing import TYPE_CHECKING


from anchorcheck.plugin import FileFacts, LockEntry, ManifestError, as_table, decode_manifest, load_manifest, locked_facts
from anchorcheck_plugins.ecosystems.parsing import LineFinder, parse_json, parse_toml, toml_packages
from anchorcheck_plugins.ecosystems.pypi_common import normalize

if TYPE_CHECKING:
    from anchorcheck.plugin import Context


def parse_package_lock(context: Context, path: str) -> FileFacts:
    """uv.lock, poetry.lock, pdm.lock: `[[package]]` tables with name and version."""
    return locked_facts(path, load_manifest(context, path, toml_packages), normalize)


def _pipfile_lock(data: bytes) -> list[LockEntry]:
    doc = parse_json(data)
    if not isinstance(doc, dict):
        raise ManifestError("Pipfile.lock should be a JSON object", 1)
    finder = LineFinder(decode_manifest(data))
    entries: list[LockEntry] = []
    for section in ("default", "develop"):
        after = finder.offset(finder.key(section))
        for name, info in as_table(doc.get(section), f'"{section}"').items():
            line = finder.key(name, after=after)
            version = info.get("version") if isinstance(info, dict) else None
            if version is not None and not isinstance(version, str):
                raise ManifestError(f"{section}.{name}.version should be a string", line)
            entries.append((name, version.lstrip("=") if version else None, line))
    return entries


def parse_pipfile_lock(context: Context, path: str) -> FileFacts:
    return locked_facts(path, load_manifest(context, path, _pipfile_lock), normalize)


def _pylock(data: bytes) -> list[LockEntry]:
    from packaging.pylock import Pylock, PylockUnsupportedVersionError, PylockValidationError  # rare: imported on use

    doc = parse_toml(data)
    try:
        lock = Pylock.from_dict(doc)
    except (PylockValidationError, PylockUnsupportedVersionError) as exc:
        raise ManifestError(f"invalid pylock.toml: {exc}") from None
    finder = LineFinder(decode_manifest(data))
    headers = [finder.line(at) for at in _find_all(finder.text, "[[packages]]")]
    return [
        (str(p.name), str(p.version) if p.version is not None else None, headers[i] if i < len(headers) else None)
        for i, p in enumerate(lock.packages)
    ]


def _find_all(text: str, needle: str) -> list[int]:
    found, at = [], text.find(needle)
    while at >= 0:
        found.append(at)
        at = text.find(needle, at + 1)
    return found


def parse_pylock(context: Context, path: str) -> FileFacts:
    return locked_facts(path, load_manifest(context, path, _pylock), normalize)
