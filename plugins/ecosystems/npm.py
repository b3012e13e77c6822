"""The `npm` ecosystem: package.json manifests, workspaces, and npm/yarn/pnpm lockfiles.

package.json `dependencies` are direct, `devDependencies` dev,
`peerDependencies` peer and `optionalDependencies` optional. Workspace
members come from package.json `workspaces` (npm, yarn) or
pnpm-workspace.yaml `packages` (pnpm), `!glob` excluding. Versions compare
by semver with npm's range rules (see semver.py).
"""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING, Any

from anchorcheck import Ecosystem, hookimpl
from anchorcheck.plugin import (
    DEV,
    DIRECT,
    OPTIONAL,
    PEER,
    PROJECT,
    Declaration,
    FileFacts,
    ManifestError,
    ManifestStatus,
    PackageIndex,
    decode_manifest,
    load_manifest,
    project_index,
)
from anchorcheck_plugins.ecosystems import semver
from anchorcheck_plugins.ecosystems.discovery import Layout, Reader, collect, member_dirs
from anchorcheck_plugins.ecosystems.npm_lockfiles import alias_target, parse_package_lock, parse_pnpm_lock, parse_yarn_lock
from anchorcheck_plugins.ecosystems.parsing import LineFinder, parse_json, parse_yaml

if TYPE_CHECKING:
    from anchorcheck.plugin import Context

_SECTIONS = (
    ("dependencies", DIRECT),
    ("devDependencies", DEV),
    ("peerDependencies", PEER),
    ("optionalDependencies", OPTIONAL),
)
_BUILTINS = frozenset(
    "assert async_hooks buffer child_process cluster console constants crypto dgram diagnostics_channel dns "
    "domain events fs http http2 https inspector module net os path perf_hooks process punycode querystring "
    "readline repl stream string_decoder sys timers tls trace_events tty url util v8 vm wasi worker_threads zlib".split()
)


def normalize(name: str) -> str:
    """npm names are case-insensitive in practice (new ones must be lowercase); `node:fs` is `fs`."""
    name = name.strip().lower()
    return name[5:] if name.startswith("node:") else name


def _package_json(data: bytes) -> tuple[Any, LineFinder]:
    return parse_json(data), LineFinder(decode_manifest(data))


def read_package_json(context: Context, path: str) -> tuple[dict[str, Any], LineFinder]:
    doc, lines = load_manifest(context, path, _package_json)
    if not isinstance(doc, dict):
        raise ManifestError("package.json should be a JSON object", 1)
    return doc, lines


def parse_package_json(context: Context, path: str) -> FileFacts:
    doc, lines = read_package_json(context, path)
    found = []
    name = doc.get("name")
    if isinstance(name, str) and name:
        found.append(Declaration(normalize(name), PROJECT, path, lines.key("name"), written=name))
    for section, relation in _SECTIONS:
        table = doc.get(section)
        if table is None:
            continue
        where = lines.key(section)
        if not isinstance(table, dict):
            raise ManifestError(f'"{section}" should be an object of name: version', where)
        after = lines.offset(where)
        for dep, spec in table.items():
            line = lines.key(dep, after=after)
            if not isinstance(spec, str):
                raise ManifestError(f'"{section}" entry {dep!r} should be a version string', line)
            found.append(Declaration(normalize(dep), relation, path, line, specifier=spec, written=dep))
            target = alias_target(spec)  # `"x": "npm:y@^1"` installs y, imported as x
            if target is not None and normalize(target[0]) != normalize(dep):
                found.append(Declaration(normalize(target[0]), relation, path, line, specifier=spec, written=dep))
    return FileFacts(found, ManifestStatus(path))


def _workspace_globs(context: Context, directory: str) -> list[str]:
    """Member globs from package.json `workspaces` (array or {packages}) and pnpm-workspace.yaml `packages`."""
    globs: list[str] = []
    manifest = posixpath.join(directory, "package.json") if directory else "package.json"
    pnpm = posixpath.join(directory, "pnpm-workspace.yaml") if directory else "pnpm-workspace.yaml"
    try:
        if context.repo.is_file(manifest):
            workspaces = read_package_json(context, manifest)[0].get("workspaces")
            if isinstance(workspaces, dict):
                workspaces = workspaces.get("packages")
            globs += [g for g in workspaces if isinstance(g, str)] if isinstance(workspaces, list) else []
        if context.repo.is_file(pnpm):
            config = load_manifest(context, pnpm, parse_yaml)
            packages = config.get("packages") if isinstance(config, dict) else None
            globs += [g for g in packages if isinstance(g, str)] if isinstance(packages, list) else []
    except ManifestError:
        pass  # the broken file is reported as a manifest problem by its own reader
    return globs


def _parse_pnpm_workspace(context: Context, path: str) -> FileFacts:
    """pnpm-workspace.yaml declares members and catalogs, no dependencies; it must still parse."""
    load_manifest(context, path, parse_yaml)
    return FileFacts([], ManifestStatus(path, kind="workspace"))


def _members(context: Context, directory: str) -> list[str]:
    return member_dirs(context, directory, _workspace_globs(context, directory), "package.json")


LAYOUT = Layout(
    ecosystem="npm",
    readers=(
        Reader("manifest", parse_package_json, names=("package.json",)),
        Reader("workspace", _parse_pnpm_workspace, names=("pnpm-workspace.yaml",)),
        Reader("lockfile", parse_package_lock, names=("package-lock.json", "npm-shrinkwrap.json")),
        Reader("lockfile", parse_yarn_lock, names=("yarn.lock",)),
        Reader("lockfile", parse_pnpm_lock, names=("pnpm-lock.yaml",)),
    ),
    members=_members,
)


def read(context: Context, scope: str | None) -> PackageIndex:
    return collect(context, LAYOUT, scope)


def _range(specifier: str) -> str:
    """The range of a specifier, an alias's included (`npm:y@^1` is `^1`)."""
    target = alias_target(specifier.strip())
    return target[1] if target is not None else specifier


def range_relation(claim: str, claim_is_range: bool, declared: str) -> str:
    """A claimed version or range against a declared range, by semver intervals."""
    return _relation(claim, claim_is_range, _range(declared))


_relation = semver.relation_for("npm")


def import_names(package: str, context: Context | None = None) -> list[str]:
    """The names code imports a package by: its own, then each alias it is installed under (`"x": "npm:y@^1"`)."""
    name = normalize(package)
    aliases = [d.written for d in _index(context).find(name) if normalize(d.written) != name] if context is not None else []
    return list(dict.fromkeys([name, *aliases]))


def packages_for_import(module: str, context: Context | None = None) -> list[str]:
    """The package an import names: the package before any subpath (`@s/p/sub` is `@s/p`), or what an alias installs."""
    parts = normalize(module).split("/")
    top = "/".join(parts[:2]) if parts[0].startswith("@") else parts[0]
    if not top or builtin(top):
        return []
    aliased = [d.name for d in _index(context).declarations if normalize(d.written) == top and d.name != top] if context is not None else []
    return list(dict.fromkeys(aliased)) or [top]


def _index(context: Context) -> PackageIndex:
    return project_index(context, "npm", read)


def version_matches(wanted: str, actual: str, is_range: bool) -> bool:
    """npm semver: ranges with ^ ~ x-ranges, hyphens and ||; RangeError (a ValueError) when unreadable."""
    return semver.matches(wanted, actual, "npm") if is_range else semver.same_version(wanted, actual)


def pinned(specifier: str) -> str | None:
    """`1.2.3` or `=1.2.3` pins a version; ranges, tags, URLs and `workspace:`/`catalog:` pin nothing."""
    found = re.fullmatch(r"=?v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)", _range(specifier).strip())
    return found.group(1) if found else None


def builtin(name: str) -> str | None:
    return "a Node.js built-in module" if name in _BUILTINS else None


@hookimpl
def register_ecosystems(register):  # noqa: ANN001, ANN201 - hook signature
    register(
        Ecosystem(
            name="npm",
            manifests=("package.json", "pnpm-workspace.yaml", "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml"),
            read=read,
            summary="Node: package.json and workspaces; package-lock v1-3, yarn.lock v1 and Berry, pnpm-lock 5/6/9",
            normalize=normalize,
            version_matches=version_matches,
            pinned=pinned,
            builtin=builtin,
            languages=("javascript", "typescript"),
            import_names=import_names,
            packages_for_import=packages_for_import,
            range_relation=range_relation,
        )
    )
