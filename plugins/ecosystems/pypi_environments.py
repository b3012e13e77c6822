"""Pipfile (pipenv) and conda `environment.yml`, the two environment-style Python manifests.

Pipfile `[packages]` are direct, `[dev-packages]` the dev group, any other
table of packages a named group. In environment.yml, the `pip:` list holds
PyPI requirements (direct); the other entries are conda packages (recorded
with relation `conda`, since conda and PyPI share most names), minus the
interpreter and pip themselves.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from anchorcheck.plugin import (
    CONDA,
    DEV,
    DIRECT,
    GROUP,
    Declaration,
    FileFacts,
    ManifestError,
    ManifestStatus,
    decode_manifest,
    load_manifest,
)
from anchorcheck_plugins.ecosystems.parsing import LineFinder, parse_yaml, read_toml
from anchorcheck_plugins.ecosystems.pypi_common import declare, normalize

if TYPE_CHECKING:
    from anchorcheck.plugin import Context

_PIPFILE_META = frozenset({"source", "requires", "pipenv", "scripts"})
_CONDA_SPEC = re.compile(r"^(?:(?P<channel>[^:\s]+)::)?(?P<name>[A-Za-z0-9_.\-]+)\s*(?P<spec>.*)$")
_NOT_PACKAGES = frozenset({"python", "pip"})


def parse_pipfile(context: Context, path: str) -> FileFacts:
    doc, lines = read_toml(context, path)
    found = []
    for section, body in doc.items():
        if section in _PIPFILE_META:
            continue
        if not isinstance(body, dict):
            raise ManifestError(f"[{section}] should be a table of packages", lines.key(section))
        relation, group = {"packages": (DIRECT, None), "dev-packages": (DEV, "dev")}.get(section, (GROUP, section))
        for name, spec in body.items():
            specifier = spec if isinstance(spec, str) else spec.get("version", "") if isinstance(spec, dict) else None
            if not isinstance(specifier, str):
                raise ManifestError(f"[{section}] {name} should be a version string or a table", lines.key(name, section))
            found.append(
                Declaration(normalize(name), relation, path, lines.key(name, section), specifier=specifier, group=group, written=name)
            )
    return FileFacts(found, ManifestStatus(path))


def _environment(data: bytes) -> tuple[Any, LineFinder]:
    return parse_yaml(data), LineFinder(decode_manifest(data))


def parse_environment(context: Context, path: str) -> FileFacts:
    doc, lines = load_manifest(context, path, _environment)
    if not isinstance(doc, dict):
        raise ManifestError("environment.yml should be a mapping with a dependencies list", 1)
    dependencies = doc.get("dependencies", [])
    if not isinstance(dependencies, list):
        raise ManifestError("dependencies should be a list", lines.key("dependencies"))
    found = []
    for entry in dependencies:
        if isinstance(entry, dict) and set(entry) == {"pip"} and isinstance(entry["pip"], list):
            at = lines.offset(lines.key("pip"))
            for text in entry["pip"]:
                if not isinstance(text, str):
                    raise ManifestError("pip: entries should be requirement strings", lines.line(at))
                found.append(declare(text, DIRECT, path, lines.string(text, at)))
            continue
        if not isinstance(entry, str):
            raise ManifestError(f"dependency entries should be strings or a pip: list, not {entry!r}", lines.key("dependencies"))
        match = _CONDA_SPEC.match(entry.strip())
        if not match:
            raise ManifestError(f"cannot read conda dependency {entry!r}", lines.string(entry))
        if match.group("name").lower() in _NOT_PACKAGES:
            continue
        found.append(
            Declaration(
                normalize(match.group("name")), CONDA, path, lines.string(entry), specifier=match.group("spec").strip(), written=match.group("name")
            )
        )
    return FileFacts(found, ManifestStatus(path))
