"""package.json files and the workspaces they form, as the npm runner reads them.

A package is one package.json: its name, scripts, dependencies and
binaries, with the line of each script and dependency. A workspace is the
root package and the members its pnpm-workspace.yaml `packages` or
package.json `workspaces` globs select (`!glob` excluding); both are
parsed once per Verifier.
"""

from __future__ import annotations

import json
import posixpath
import re
from typing import NamedTuple

from anchorcheck.plugin import Context
from anchorcheck_plugins.runners._support import (
    ConfigError,
    glob_regex,
    in_dir,
    is_file,
    join,
    line_of,
    parse_json,
    parse_yaml,
    read_text,
    upward,
)


class Package:
    """One package.json: its folder, name, scripts and dependencies with the line of each. A plain class
    (nothing compares or prints it): a dataclass's generated methods cost a check's start-up."""

    __slots__ = ("path", "folder", "name", "scripts", "dependencies", "bins", "workspaces")

    def __init__(
        self,
        path: str,
        folder: str,
        name: str | None,
        scripts: dict[str, int | None],
        dependencies: dict[str, int | None],
        bins: frozenset[str],
        workspaces: tuple[str, ...] | None,
    ) -> None:
        self.path, self.folder, self.name = path, folder, name
        self.scripts, self.dependencies, self.bins, self.workspaces = scripts, dependencies, bins, workspaces


def read_package(context: Context, path: str) -> Package:
    """A package.json, parsed once per Verifier; ConfigError when it is not a JSON object."""

    def parse() -> Package:
        text = read_text(context, path)
        doc = parse_json(path, text)
        if not isinstance(doc, dict):
            raise ConfigError(path, "package.json should be a JSON object", 1)
        scripts_at = text.find('"scripts"')
        scripts = {
            key: line_of(text, _json_key(key), max(scripts_at, 0))
            for key, value in _table(doc, "scripts").items()
            if isinstance(value, str)
        }
        dependencies: dict[str, int | None] = {}
        for section in ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies"):
            at = text.find(f'"{section}"')
            for key in _table(doc, section):
                dependencies.setdefault(key, line_of(text, _json_key(key), max(at, 0)))
        name = doc.get("name") if isinstance(doc.get("name"), str) else None
        bin_field = doc.get("bin")
        bins = frozenset(bin_field) if isinstance(bin_field, dict) else frozenset([name.rsplit("/", 1)[-1]] if isinstance(bin_field, str) and name else [])
        workspaces = doc.get("workspaces")
        if isinstance(workspaces, dict):
            workspaces = workspaces.get("packages")
        globs = tuple(w for w in workspaces if isinstance(w, str)) if isinstance(workspaces, list) else None
        return Package(path, posixpath.dirname(path) or ".", name, scripts, dependencies, bins, globs)

    return context.memo(("cmd-npm-package", path), parse)


def _table(doc: dict[str, object], key: str) -> dict[str, object]:
    value = doc.get(key)
    return value if isinstance(value, dict) else {}


def _json_key(key: str) -> str:
    return re.escape(json.dumps(key)) + r"\s*:"


class Workspace(NamedTuple):
    """The workspace a package belongs to: its root package and its members (the root included)."""

    root: Package
    members: tuple[Package, ...]
    config: str  # the file that lists the members


def find_workspace(context: Context, folder: str) -> Workspace | None:
    """The workspace whose root is at or above `folder`: pnpm-workspace.yaml, or package.json `workspaces`."""
    for here in upward(folder):
        pnpm = in_dir(here, "pnpm-workspace.yaml")
        manifest = in_dir(here, "package.json")
        globs: tuple[str, ...] | None = None
        config = manifest
        if is_file(context, pnpm):
            doc = parse_yaml(pnpm, read_text(context, pnpm))
            packages = doc.get("packages") if isinstance(doc, dict) else None
            globs = tuple(p for p in packages if isinstance(p, str)) if isinstance(packages, list) else ()
            config = pnpm
        elif is_file(context, manifest):
            globs = read_package(context, manifest).workspaces
        if globs is None:
            continue
        if not is_file(context, manifest):
            return None
        # Keyed by the globs too: they were read above, outside the entry, which records only its own reads.
        return context.memo(("cmd-npm-workspace", here, globs, config), lambda: _workspace(context, here, manifest, globs, config))
    return None


def _workspace(context: Context, here: str, manifest: str, globs: tuple[str, ...], config: str) -> Workspace:
    root = read_package(context, manifest)
    return Workspace(root, (root, *_members(context, here, globs)), config)


def _members(context: Context, base: str, globs: tuple[str, ...]) -> list[Package]:
    include = [glob_regex(posixpath.normpath(g)) for g in globs if not g.startswith("!")]
    exclude = [glob_regex(posixpath.normpath(g[1:])) for g in globs if g.startswith("!")]
    prefix = "" if base == "." else base + "/"
    found = []
    for path in context.repo.files(None if base == "." else base, named=["package.json"]):
        folder = posixpath.dirname(path)
        relative = folder[len(prefix):] if folder.startswith(prefix) else folder
        if relative and any(r.fullmatch(relative) for r in include) and not any(r.fullmatch(relative) for r in exclude):
            found.append(read_package(context, path))
    return found


def nearest_manifest(context: Context, cwd: str) -> str | None:
    for here in upward(cwd):
        if is_file(context, in_dir(here, "package.json")):
            return in_dir(here, "package.json")
    return None


_PACKAGE_NAME = re.compile(r"(?:@[a-z0-9][\w.-]*/)?[a-z0-9][\w.-]*", re.I)


def package_name(selector: str) -> str | None:
    """The package name a selector asks for (`web`, `@acme/web`, `...web^`), without pnpm's graph markers; None for a
    glob or a folder (`./web`, `{web}`, `packages/web`)."""
    clean = _clean(selector)
    return clean if _PACKAGE_NAME.fullmatch(clean) else None


def _clean(selector: str) -> str:
    return selector.strip().lstrip("!").removeprefix("...").removesuffix("...").removesuffix("^")


def select(workspace: Workspace, selector: str, *, unscoped: bool = False) -> list[Package]:
    """The workspace packages a `-w`/`--filter`/`workspace` selector names: by name, glob or folder.

    pnpm's graph markers (`...`, `^`, `!`) are taken off: the named package is among those run.
    With `unscoped` (pnpm's filters), a name without its scope picks the one package of that name in
    any scope (`-F agents-core` runs `@openai/agents-core`), as pnpm does since 6.19.
    """
    clean = _clean(selector)
    by_name = [p for p in workspace.members if p.name == clean]
    if unscoped and not by_name and "/" not in clean:
        by_name = [p for p in workspace.members if p.name and p.name.startswith("@") and p.name.partition("/")[2] == clean]
        by_name = by_name if len(by_name) == 1 else []
    if by_name:
        return by_name
    if "*" in clean and not clean.startswith(("./", "{")):
        pattern = glob_regex(clean)
        return [p for p in workspace.members if p.name and pattern.fullmatch(p.name)]
    folder = join(workspace.root.folder, clean.strip("{}"))
    if folder is None or folder == workspace.root.folder:
        return [workspace.root] if folder is not None else []
    return [p for p in workspace.members if p.folder == folder or p.folder.startswith(folder + "/")]
