"""The `golang` ecosystem: go.mod (require, replace, exclude, tool), go.work workspaces, and go.sum.

go.mod is the declaration set: a `require` is direct, or indirect when marked
`// indirect`; a `replace` target is a module the build uses in place of
another; a `tool` names a tool package. Its versions are the selected
minimums, so `@VERSION` compares with them. go.sum is only a record of the
build graph (it keeps checksums of modules whose go.mod was merely read, and
of old versions), so it never declares anything and its versions are not
compared: a module only there is VERIFIED as "locked only" and nothing more.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from anchorcheck import Ecosystem, hookimpl
from anchorcheck.plugin import (
    DIRECT,
    INDIRECT,
    PROJECT,
    REPLACEMENT,
    TOOL,
    Declaration,
    FileFacts,
    LockEntry,
    ManifestError,
    ManifestStatus,
    PackageIndex,
    decode_manifest,
    load_manifest,
    locked_facts,
    project_index,
)
from anchorcheck_plugins.ecosystems import semver
from anchorcheck_plugins.ecosystems.discovery import Layout, Reader, collect

if TYPE_CHECKING:
    from anchorcheck.plugin import Context

_DIRECTIVES = frozenset({"module", "go", "toolchain", "godebug", "require", "replace", "exclude", "retract", "tool", "use", "ignore"})

Statement = tuple[str, list[str], str, int]  # directive, arguments, trailing comment, line


def statements(data: bytes) -> list[Statement]:
    """go.mod / go.work as (directive, args, comment, line), with `directive ( ... )` blocks expanded."""
    out: list[Statement] = []
    block: str | None = None
    number = 0
    for number, raw in enumerate(decode_manifest(data).splitlines(), 1):
        code, _, comment = raw.partition("//")
        words = code.split()
        if not words:
            continue
        if block is not None:
            if words == [")"]:
                block = None
            else:
                out.append((block, [w.strip('"') for w in words], comment.strip(), number))
            continue
        directive = words[0]
        if directive not in _DIRECTIVES:
            raise ManifestError(f"unknown directive {directive!r}", number)
        if words[1:] == ["("]:
            block = directive
        else:
            out.append((directive, [w.strip('"') for w in words[1:]], comment.strip(), number))
    if block is not None:
        raise ManifestError(f"unterminated {block} ( block", number)
    return out


def parse_go_mod(context: Context, path: str) -> FileFacts:
    found = []
    for directive, args, comment, line in load_manifest(context, path, statements):
        if directive == "module" and args:
            found.append(Declaration(args[0], PROJECT, path, line, written=args[0]))
        elif directive == "require":
            if len(args) != 2:
                raise ManifestError("require needs a module path and a version", line)
            relation = INDIRECT if comment.startswith("indirect") else DIRECT
            found.append(Declaration(args[0], relation, path, line, specifier=args[1], written=args[0]))
        elif directive == "replace":
            if "=>" not in args:
                raise ManifestError("replace needs '=>'", line)
            target = args[args.index("=>") + 1:]
            if target and not target[0].startswith((".", "/")):  # a local directory replaces with no module
                found.append(Declaration(target[0], REPLACEMENT, path, line, specifier=" ".join(target[1:]), written=target[0]))
        elif directive == "tool" and args:
            found.append(Declaration(args[0], TOOL, path, line, written=args[0]))
    return FileFacts(found, ManifestStatus(path))


def _go_sum(data: bytes) -> list[LockEntry]:
    """Each module once, at its first line; versions are left out on purpose (see the module docstring)."""
    entries: dict[str, LockEntry] = {}
    for number, raw in enumerate(decode_manifest(data).splitlines(), 1):
        words = raw.split()
        if not words:
            continue
        if len(words) != 3 or not words[2].startswith("h1:"):
            raise ManifestError("expected 'module version h1:hash'", number)
        entries.setdefault(words[0], (words[0], None, number))
    return list(entries.values())


def parse_go_sum(context: Context, path: str) -> FileFacts:
    return locked_facts(path, load_manifest(context, path, _go_sum), str.strip)


def _parse_go_work(context: Context, path: str) -> FileFacts:
    load_manifest(context, path, statements)
    return FileFacts([], ManifestStatus(path, kind="workspace"))


def _members(context: Context, directory: str) -> list[str]:
    """go.work `use` directories that hold a go.mod."""
    path = f"{directory}/go.work" if directory else "go.work"
    try:
        if not context.repo.is_file(path):
            return []
        uses = [args[0] for d, args, _, _ in load_manifest(context, path, statements) if d == "use" and args]
    except ManifestError:
        return []  # reported by the go.work reader
    members = []
    for use in uses:
        member = re.sub(r"^\./", "", f"{directory}/{use}" if directory else use).rstrip("/")
        if member not in (".", "") and context.repo.is_file(f"{member}/go.mod"):
            members.append(member)
    return members


LAYOUT = Layout(
    ecosystem="golang",
    readers=(
        Reader("manifest", parse_go_mod, names=("go.mod",)),
        Reader("workspace", _parse_go_work, names=("go.work",)),
        Reader("lockfile", parse_go_sum, names=("go.sum",)),
    ),
    members=_members,
)


def read(context: Context, scope: str | None) -> PackageIndex:
    return collect(context, LAYOUT, scope)


def version_matches(wanted: str, actual: str, is_range: bool) -> bool:
    """Go versions are semver with a `v`; a range is comparators joined by `,` (`>=v1.8.0,<v2.0.0`)."""
    return semver.matches(wanted, actual, "golang") if is_range else semver.same_version(wanted, actual)


def pinned(specifier: str) -> str | None:
    """A go.mod require names the selected minimum version: that is the version compared."""
    return specifier.strip() or None


def builtin(name: str) -> str | None:
    """Standard-library import paths have no dot in their first element (`fmt`, `net/http`)."""
    return "part of the Go standard library" if "." not in name.split("/", 1)[0] else None


def import_names(module: str, context: Context | None = None) -> list[str]:
    """Go code imports a module's packages by their full paths, which begin with the module path."""
    return [module.strip()]


def packages_for_import(path: str, context: Context | None = None) -> list[str]:
    """The module an import path belongs to: the longest module path the project names that is a
    prefix of it by whole elements (`github.com/spf13/cobra/doc` -> github.com/spf13/cobra), else
    the path itself; [] for the standard library."""
    path = path.strip()
    if not path or builtin(path):
        return []
    modules = {d.name for d in project_index(context, "golang", read).declarations} if context is not None else set()
    owners = [m for m in modules if path == m or path.startswith(m + "/")]
    return [max(owners, key=len)] if owners else [path]


@hookimpl
def register_ecosystems(register):  # noqa: ANN001, ANN201 - hook signature
    register(
        Ecosystem(
            name="golang",
            manifests=("go.mod", "go.work", "go.sum"),
            read=read,
            summary="Go: go.mod (require, // indirect, replace, exclude, tool), go.work; go.sum as the build graph",
            normalize=str.strip,
            version_matches=version_matches,
            pinned=pinned,
            builtin=builtin,
            languages=("go",),
            import_names=import_names,
            packages_for_import=packages_for_import,
        )
    )
