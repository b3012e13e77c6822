"""The `cargo` ecosystem: Cargo.toml (with workspaces) and Cargo.lock (versions 1-4).

`[dependencies]` are direct (optional ones are tied to the features that
enable them), `[dev-dependencies]` dev, `[build-dependencies]` build, and
the same tables under `[target.'cfg(...)']` count alike. A renamed
dependency (`foo = { package = "bar" }`) declares `bar`.
`[workspace.dependencies]` are offered to members, who inherit them with
`workspace = true`. Names compare with `-` and `_` equal, as crates.io does;
versions by semver with Cargo's requirement rules (a bare `1.2` is `^1.2`).
"""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING, Any

from anchorcheck import Ecosystem, hookimpl
from anchorcheck.plugin import (
    BUILD,
    DEV,
    DIRECT,
    OPTIONAL,
    PROJECT,
    WORKSPACE,
    Declaration,
    FileFacts,
    ManifestError,
    ManifestStatus,
    PackageIndex,
    as_table,
    load_manifest,
    locked_facts,
    project_index,
)
from anchorcheck_plugins.ecosystems import semver
from anchorcheck_plugins.ecosystems.discovery import Layout, Reader, collect, member_dirs
from anchorcheck_plugins.ecosystems.parsing import LineFinder, read_toml, toml_packages

if TYPE_CHECKING:
    from anchorcheck.plugin import Context

_TABLES = (("dependencies", DIRECT), ("dev-dependencies", DEV), ("build-dependencies", BUILD))
_BUILTIN = frozenset({"std", "core", "alloc", "proc-macro", "test"})


def normalize(name: str) -> str:
    return name.strip().lower().replace("_", "-")


def parse_cargo_toml(context: Context, path: str) -> FileFacts:
    doc, lines = read_toml(context, path)
    package = as_table(doc.get("package"), "[package]")
    found: list[Declaration] = []
    if isinstance(package.get("name"), str):
        found.append(Declaration(normalize(package["name"]), PROJECT, path, lines.key("name", "package"), written=package["name"]))
    features = _features(as_table(doc.get("features"), "[features]"))
    workspace = as_table(doc.get("workspace"), "[workspace]")
    renames = _Renames(context, path, workspace if isinstance(doc.get("workspace"), dict) else None)
    for section, relation in _TABLES:
        found += _table(doc.get(section), section, relation, features, path, lines, renames)
        if "-" in section:  # the legacy spelling, dev_dependencies
            found += _table(doc.get(section.replace("-", "_")), section, relation, features, path, lines, renames)
    for target, body in as_table(doc.get("target"), "[target]").items():
        for section, relation in _TABLES:
            found += _table(as_table(body, f"[target.{target}]").get(section), f"target.{target}.{section}", relation, features, path, lines, renames)
    found += _table(workspace.get("dependencies"), "workspace.dependencies", WORKSPACE, {}, path, lines, renames)
    return FileFacts(found, ManifestStatus(path))


class _Renames:
    """The packages `[workspace.dependencies]` renames (`pubgrub = { package = "astral-pubgrub" }`), which a
    member's `pubgrub = { workspace = true }` inherits with the rest of the entry. The workspace root is
    the nearest Cargo.toml at or above the manifest with a `[workspace]` table, as cargo finds it; read
    only when a dependency inherits."""

    def __init__(self, context: Context, path: str, workspace: dict[str, Any] | None) -> None:
        self.context, self.path, self.workspace = context, path, workspace
        self.found: dict[str, str] | None = None

    def package(self, key: str) -> str:
        if self.found is None:
            self.found = {}
            table = as_table((self.workspace if self.workspace is not None else self._root()).get("dependencies"), "[workspace.dependencies]")
            for name, spec in table.items():
                if isinstance(spec, dict) and isinstance(spec.get("package"), str):
                    self.found[name] = spec["package"]
        return self.found.get(key, key)

    def _root(self) -> dict[str, Any]:
        directory = posixpath.dirname(self.path)
        return _workspace_above(self.context, posixpath.dirname(directory)) if directory else {}


def _workspace_above(context: Context, directory: str) -> dict[str, Any]:
    """The `[workspace]` table of the nearest Cargo.toml at or above `directory` that has one; {} when none
    does or one cannot be read. Shared by every member below (a monorepo's 54 manifests looked at their
    parents 215 times, each look a resolved path)."""

    def find() -> dict[str, Any]:
        manifest = posixpath.join(directory, "Cargo.toml") if directory else "Cargo.toml"
        try:
            if context.repo.is_file(manifest):
                workspace = read_toml(context, manifest)[0].get("workspace")
                if isinstance(workspace, dict):
                    return workspace
        except ManifestError:
            return {}  # reported by that manifest's own reader
        return _workspace_above(context, posixpath.dirname(directory)) if directory else {}

    return context.memo(("anchorcheck_plugins.ecosystems.cargo.workspace", directory), find)


def _features(table: dict[str, Any]) -> dict[str, list[str]]:
    """Which features enable each optional dependency (`dep:x`, `x/feat`, or `x`)."""
    enabling: dict[str, list[str]] = {}
    for feature, items in table.items():
        for item in items if isinstance(items, list) else []:
            if isinstance(item, str):
                dep = item.removeprefix("dep:").split("/", 1)[0].rstrip("?")
                enabling.setdefault(dep, []).append(feature)
    return enabling


def _line(lines: LineFinder, name: str, section: str) -> int | None:
    """`name = ...` under the section, or a `[section.name]` header of its own."""
    if "dependencies." not in lines.text:  # no `[dependencies.NAME]` header in the file: no pattern to compile
        return lines.key(name, section)
    header = re.search(r"^[ \t]*\[[^\]\n]*dependencies\.\s*[\"']?" + re.escape(name) + r"[\"']?\s*\]", lines.text, re.MULTILINE)
    if header:
        return lines.line(header.start())
    return lines.key(name, section)


def _table(
    value: Any, section: str, relation: str, features: dict[str, list[str]], path: str, lines: LineFinder, renames: _Renames
) -> list[Declaration]:
    found = []
    for key, spec in as_table(value, f"[{section}]").items():
        line = _line(lines, key, section)
        if isinstance(spec, str):
            found.append(Declaration(normalize(key), relation, path, line, specifier=spec, written=key))
            continue
        if not isinstance(spec, dict):
            raise ManifestError(f"[{section}] {key} should be a version string or a table", line)
        name = spec.get("package", renames.package(key) if spec.get("workspace") is True else key)
        if not isinstance(name, str):
            raise ManifestError(f"[{section}] {key}.package should be a string", line)
        specifier = str(spec.get("version", "workspace" if spec.get("workspace") else spec.get("path", spec.get("git", ""))))
        if spec.get("optional") is True and relation == DIRECT:
            for feature in features.get(key, [key]):
                found.append(Declaration(normalize(name), OPTIONAL, path, line, specifier=specifier, group=feature, written=key))
        else:
            found.append(Declaration(normalize(name), relation, path, line, specifier=specifier, written=key))
    return found


def parse_cargo_lock(context: Context, path: str) -> FileFacts:
    return locked_facts(path, load_manifest(context, path, toml_packages), normalize)


def _members(context: Context, directory: str) -> list[str]:
    """`[workspace] members` globs minus `exclude`, each a directory with a Cargo.toml."""
    path = f"{directory}/Cargo.toml" if directory else "Cargo.toml"
    try:
        if not context.repo.is_file(path):
            return []
        workspace = as_table(read_toml(context, path)[0].get("workspace"), "[workspace]")
    except ManifestError:
        return []  # reported by the manifest's own reader
    members, exclude = workspace.get("members", []), workspace.get("exclude", [])
    return member_dirs(context, directory, members if isinstance(members, list) else [], "Cargo.toml", exclude if isinstance(exclude, list) else [])


LAYOUT = Layout(
    ecosystem="cargo",
    readers=(
        Reader("manifest", parse_cargo_toml, names=("Cargo.toml",)),
        Reader("lockfile", parse_cargo_lock, names=("Cargo.lock",)),
    ),
    members=_members,
)


def read(context: Context, scope: str | None) -> PackageIndex:
    return collect(context, LAYOUT, scope)


def version_matches(wanted: str, actual: str, is_range: bool) -> bool:
    """Cargo requirements (`^1.2`, `~1`, `>=1, <2`, `1.*`); an exact `@1.2.3` is semver equality."""
    return semver.matches(wanted, actual, "cargo") if is_range else semver.same_version(wanted, actual)


def pinned(specifier: str) -> str | None:
    """Only `=1.2.3` pins in Cargo: a bare `1.2.3` means `^1.2.3`."""
    found = re.fullmatch(r"=\s*(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)", specifier.strip())
    return found.group(1) if found else None


def builtin(name: str) -> str | None:
    return "part of the Rust standard distribution" if name in _BUILTIN else None


def import_names(package: str, context: Context | None = None) -> list[str]:
    """The crate names code uses a package by: `-` folded to `_`, then each rename (`memmap = {
    package = "memmap2" }` is used as `memmap::`) and, for a workspace member, its `[lib] name`."""
    name = normalize(package)
    names = [name.replace("-", "_")]
    for decl in _declarations(context).get(name, []):
        used = decl.relation == PROJECT and _lib_name(context, decl.file) or decl.written
        names.append(used.replace("-", "_"))
    return list(dict.fromkeys(names))


def packages_for_import(module: str, context: Context | None = None) -> list[str]:
    """The package a crate name in code stands for: the one renamed to it, else the name itself."""
    crate = module.split("::", 1)[0].replace("-", "_")
    if crate in _LOCAL or builtin(normalize(crate)):
        return []
    renamed = [d.name for decls in _declarations(context).values() for d in decls if d.written.replace("-", "_") == crate]
    return list(dict.fromkeys(renamed)) or [normalize(crate)]


_LOCAL = frozenset({"crate", "self", "super", "Self"})


def _declarations(context: Context | None) -> dict[str, list[Declaration]]:
    """The whole project's declarations by package name (none without a context)."""
    if context is None:
        return {}

    def by_name() -> dict[str, list[Declaration]]:
        index = project_index(context, "cargo", read)  # inside: this entry goes when the index does
        return {d.name: index.find(d.name) for d in index.declarations}

    return context.memo(("cargo.declarations",), by_name)


def _lib_name(context: Context | None, manifest: str) -> str | None:
    """A member's `[lib] name`: the crate name its code is imported by, when it differs from the package's."""
    if context is None:
        return None
    try:
        lib = read_toml(context, manifest)[0].get("lib")
    except ManifestError:
        return None
    name = lib.get("name") if isinstance(lib, dict) else None
    return name if isinstance(name, str) and name else None


@hookimpl
def register_ecosystems(register):  # noqa: ANN001, ANN201 - hook signature
    register(
        Ecosystem(
            name="cargo",
            manifests=("Cargo.toml", "Cargo.lock"),
            read=read,
            summary="Rust: Cargo.toml (dependencies, dev, build, target.*, workspace), Cargo.lock v1-4",
            normalize=normalize,
            version_matches=version_matches,
            pinned=pinned,
            builtin=builtin,
            languages=("rust",),
            import_names=import_names,
            packages_for_import=packages_for_import,
            range_relation=semver.relation_for("cargo"),
        )
    )
