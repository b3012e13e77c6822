"""Node lockfiles: package-lock.json / npm-shrinkwrap.json (v1-3), yarn.lock (v1 and Berry), pnpm-lock.yaml (5, 6, 9).

Each lockfile becomes `locked` declarations with versions; lines are found
with one regex pass over the text (the real package-lock.json is 1.6 MB, so
no per-package search). yarn.lock v1 is not YAML and has its own small
parser; Berry lockfiles (with `__metadata`) are YAML.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from anchorcheck.plugin import FileFacts, LockEntry, ManifestError, decode_manifest, load_manifest, locked_facts
from anchorcheck_plugins.ecosystems.parsing import LineFinder, parse_json, parse_yaml

if TYPE_CHECKING:
    from anchorcheck.plugin import Context


_LOCK_KEY = re.compile(r'^[ \t]*"([^"\n]+)":[ \t]*\{', re.MULTILINE)
_YAML_KEY = re.compile(r"""(?P<indent> *)(?P<q>['"]?)(?P<key>[^'"\n#][^\n]*?)(?P=q):[ \t]*""")  # one whole line


def _yaml_keys(text: str) -> Iterator[tuple[str, str, int]]:
    """The lines that are a mapping key with its value below them (`key:`, `'key':`): each one's indent, key
    and 1-based line. Only a line that ends in a colon (and blanks) can be one, so the pattern is tried on
    those alone: a 600 KB pnpm-lock.yaml took 40 ms to scan with it at every line start."""
    for number, line in enumerate(text.split("\n"), 1):
        if line.rstrip(" \t").endswith(":"):
            found = _YAML_KEY.fullmatch(line)
            if found is not None:
                yield found.group("indent"), found.group("key"), number


def descriptor_name(descriptor: str) -> str:
    """`@scope/x@^1.0` -> `@scope/x`; `x@npm:1.0` -> `x` (the name ends at the first `@` after the first character)."""
    at = descriptor.find("@", 1)
    return descriptor if at < 0 else descriptor[:at]


def alias_target(spec: str) -> tuple[str, str] | None:
    """An npm alias `npm:real@^1` (or `npm:@scope/real`): the real name and its range; None for any other spec."""
    if not spec.startswith("npm:") or len(spec) <= 4:
        return None
    target = spec[4:]
    name = descriptor_name(target)
    return name, target[len(name) + 1 :]


def _aliased(alias: str, real: str, version: str | None, line: int | None) -> list[LockEntry]:
    """The entries of one locked package: under its real name, and under the alias code imports it by."""
    return [(real, version, line)] + ([(alias, version, line)] if alias != real else [])


# -- package-lock.json -------------------------------------------------------------


def _package_lock(data: bytes) -> list[LockEntry]:
    doc = parse_json(data)
    if not isinstance(doc, dict):
        raise ManifestError("a package-lock should be a JSON object", 1)
    text = decode_manifest(data)
    finder = LineFinder(text)
    key_lines: dict[str, int] = {}
    for match in _LOCK_KEY.finditer(text):
        key_lines.setdefault(match.group(1), finder.line(match.start()))
    entries: list[LockEntry] = []
    packages = doc.get("packages")
    if isinstance(packages, dict):  # lockfileVersion 2 and 3
        for key, info in packages.items():
            if not key or not isinstance(info, dict):
                continue
            name = info.get("name") if isinstance(info.get("name"), str) else key.rsplit("node_modules/", 1)[-1]
            if "node_modules/" not in key and not info.get("name"):
                continue  # a workspace folder without a name: its package.json speaks for it
            version = info.get("version")
            alias = key.rsplit("node_modules/", 1)[-1] if "node_modules/" in key else name  # `node_modules/x` holding y
            entries += _aliased(alias, name, version if isinstance(version, str) else None, key_lines.get(key))
    elif packages is not None:
        raise ManifestError('"packages" should be an object', None)
    else:  # lockfileVersion 1: nested "dependencies"
        _legacy(doc.get("dependencies"), key_lines, entries, depth=0)
    return entries


def _legacy(table: Any, key_lines: dict[str, int], entries: list[LockEntry], depth: int) -> None:
    if table is None:
        return
    if not isinstance(table, dict) or depth > 200:
        raise ManifestError('"dependencies" should be an object of packages')
    for name, info in table.items():
        if not isinstance(info, dict):
            raise ManifestError(f"dependency {name!r} should be an object", key_lines.get(name))
        version = info.get("version") if isinstance(info.get("version"), str) else None
        target = alias_target(version) if version else None  # v1 writes an alias's version `npm:y@1.2.3`
        entries += _aliased(name, target[0], target[1] or None, key_lines.get(name)) if target else [(name, version, key_lines.get(name))]
        _legacy(info.get("dependencies"), key_lines, entries, depth + 1)


def parse_package_lock(context: Context, path: str) -> FileFacts:
    return locked_facts(path, load_manifest(context, path, _package_lock), str.lower)


# -- yarn.lock -----------------------------------------------------------------------


def _yarn_v1(text: str) -> list[LockEntry]:
    """The classic format: unindented `desc, desc:` headers, then indented `version "x"`."""
    entries: list[LockEntry] = []
    names: list[str] = []
    header_line = 0
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        if not raw.startswith((" ", "\t")):
            if not raw.rstrip().endswith(":"):
                raise ManifestError("expected a package header ending with ':'", number)
            descriptors = [d.strip().strip('"') for d in raw.rstrip()[:-1].split(",")]
            names = list(dict.fromkeys(name for d in descriptors if d for name in _descriptor_names(d)))
            header_line = number
            continue
        stripped = raw.strip()
        if stripped.startswith("version ") and names and raw.startswith("  ") and not raw.startswith("   "):
            version = stripped[len("version "):].strip().strip('"')
            entries += [(name, version, header_line) for name in names]
            names = []
    return entries


def _yarn_berry(data: bytes, text: str) -> list[LockEntry]:
    doc = parse_yaml(data)
    if not isinstance(doc, dict):
        raise ManifestError("a yarn lockfile should be a mapping of packages", 1)
    key_lines = {key: line for indent, key, line in _yaml_keys(text) if not indent}
    entries: list[LockEntry] = []
    for key, info in doc.items():
        if key == "__metadata":
            continue
        if not isinstance(info, dict) or not isinstance(key, str):
            raise ManifestError(f"entry {key!r} should be a mapping", key_lines.get(str(key)))
        version = info.get("version")
        names = dict.fromkeys(name for d in key.split(",") for name in _descriptor_names(d.strip()))
        resolution = info.get("resolution")
        if isinstance(resolution, str) and resolution:  # `y@npm:1.2.3`: the package an alias resolved to
            names[descriptor_name(resolution)] = None
        entries += [(name, str(version) if version is not None else None, key_lines.get(key)) for name in names]
    return entries


def _descriptor_names(descriptor: str) -> list[str]:
    """A descriptor's name, and the real name of an alias (`x@npm:y@^1`, Berry `x@npm:y@npm:^1`)."""
    name = descriptor_name(descriptor)
    target = alias_target(descriptor[len(name) + 1 :])
    return [name, target[0]] if target and target[0] != name else [name]


def _yarn_lock(data: bytes) -> list[LockEntry]:
    text = decode_manifest(data)
    if re.search(r"^__metadata:", text, re.MULTILINE):
        return _yarn_berry(data, text)
    return _yarn_v1(text)


def parse_yarn_lock(context: Context, path: str) -> FileFacts:
    return locked_facts(path, load_manifest(context, path, _yarn_lock), str.lower)


# -- pnpm-lock.yaml ------------------------------------------------------------------

_PEER_SUFFIX = re.compile(r"\(.*\)$|_.*$")
# A dependency resolved to another package: v9 `y@1.2.3(peer@1)`, v6 `/y@1.2.3`, v5 `/y/1.2.3_peer`.
_RESOLVED_ELSEWHERE = re.compile(r"/?(?P<name>(?:@[^/@]+/)?[^/@(]+)[@/](?P<version>\d[^(]*)")
_VERSION_LIKE = re.compile(r"\d+\.\d+\.\d+")


def _pnpm_key(key: str, version: float) -> tuple[str, str | None]:
    """Package keys: v9 `name@1.0.0(peer)`, v6 `/name@1.0.0`, v5 `/name/1.0.0_peer`."""
    key = key.lstrip("/")
    if version < 6:
        name, _, ver = key.rpartition("/")
        return (name, _PEER_SUFFIX.sub("", ver) or None) if name else (key, None)
    name = descriptor_name(key)
    ver = key[len(name) + 1:] if len(key) > len(name) else None
    return name, _PEER_SUFFIX.sub("", ver) if ver else None


def _pnpm_lock(data: bytes) -> list[LockEntry]:
    doc = parse_yaml(data)
    if not isinstance(doc, dict):
        raise ManifestError("pnpm-lock.yaml should be a mapping", 1)
    try:
        lock_version = float(str(doc.get("lockfileVersion", "9")))
    except ValueError:
        raise ManifestError(f"unknown lockfileVersion {doc.get('lockfileVersion')!r}", 1) from None
    text = decode_manifest(data)
    key_lines: dict[str, int] = {}
    for _, key, line in _yaml_keys(text):
        key_lines.setdefault(key, line)
    entries: list[LockEntry] = []
    for section in ("packages", "snapshots"):
        table = doc.get(section) or {}
        if not isinstance(table, dict):
            raise ManifestError(f"{section}: should be a mapping", key_lines.get(section))
        for key, info in table.items():
            name, version = _pnpm_key(str(key), lock_version)
            entries.append((name, version, key_lines.get(str(key))))
            entries += _pnpm_aliases(info, lock_version, key_lines)
    importers = doc.get("importers") if isinstance(doc.get("importers"), dict) else {"": doc}
    for importer in importers.values():
        entries += _pnpm_aliases(importer, lock_version, key_lines)
    return entries  # importers repeat what package.json declares and `packages` locks, but for aliases


def _pnpm_aliases(holder: Any, lock_version: float, key_lines: dict[str, int]) -> list[LockEntry]:
    """Aliases among a package's or importer's dependencies: `x: y@1.2.3` (v9), `x: /y@1.2.3` (v6),
    `x: {specifier: npm:y@^1, version: y@1.2.3}` (importers): x is y, locked at 1.2.3."""
    entries: list[LockEntry] = []
    if not isinstance(holder, dict):
        return entries
    for section in ("dependencies", "devDependencies", "optionalDependencies"):
        table = holder.get(section)
        for alias, value in table.items() if isinstance(table, dict) else ():
            resolved = value.get("version") if isinstance(value, dict) else value
            found = _RESOLVED_ELSEWHERE.match(resolved) if isinstance(resolved, str) else None
            if found is None or _VERSION_LIKE.match(found.group("name")) or found.group("name") == str(alias):
                continue  # a plain version (`1.2.3`, `1.2.3(react@18)`, v5 `1.2.3_react@18`), or no alias
            version = _PEER_SUFFIX.sub("", found.group("version")) if lock_version < 6 else found.group("version")
            entries += _aliased(str(alias), found.group("name"), version or None, key_lines.get(str(alias)))
    return entries


def parse_pnpm_lock(context: Context, path: str) -> FileFacts:
    return locked_facts(path, load_manifest(context, path, _pnpm_lock), str.lower)
