"""pyproject.toml: PEP 621, PEP 735 dependency groups, Poetry, PDM and uv, read as declarations.

Poetry precedence (Poetry 2): when `[project].dependencies` is present it is
the declaration and `tool.poetry.dependencies` only adds detail; otherwise
`tool.poetry.dependencies` declares (minus `python`), with optional ones
attached to the `[tool.poetry.extras]` that name them. A `[project]` that
lists `dependencies` in `dynamic` with nothing else declaring them makes the
file dynamic: its absence of a package is no evidence.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from anchorcheck.plugin import (
    BUILD,
    DEV,
    DIRECT,
    GROUP,
    OPTIONAL,
    PROJECT,
    Declaration,
    FileFacts,
    ManifestError,
    ManifestStatus,
    as_table,
)
from anchorcheck_plugins.ecosystems.parsing import LineFinder, read_toml
from anchorcheck_plugins.ecosystems.pypi_common import declare, is_common, normalize, string_list

if TYPE_CHECKING:
    from anchorcheck.plugin import Context


def parse_pyproject(context: Context, path: str) -> FileFacts:
    doc, lines = read_toml(context, path)
    found: list[Declaration] = []
    project = as_table(doc.get("project"), "[project]")
    tool = as_table(doc.get("tool"), "[tool]")
    poetry = as_table(tool.get("poetry"), "[tool.poetry]")
    name = project.get("name") or poetry.get("name")
    if isinstance(name, str) and name:
        found.append(Declaration(normalize(name), PROJECT, path, lines.key("name"), written=name))
    found += _pep621(project, path, lines)
    found += _poetry(poetry, "dependencies" in project, path, lines)
    found += _groups(as_table(doc.get("dependency-groups"), "[dependency-groups]"), path, lines)
    found += _named_lists(as_table(tool.get("pdm"), "[tool.pdm]").get("dev-dependencies"), "tool.pdm.dev-dependencies", DEV, path, lines)
    uv_dev = as_table(tool.get("uv"), "[tool.uv]").get("dev-dependencies")
    found += _named_lists({"dev": uv_dev} if uv_dev is not None else None, "tool.uv", DEV, path, lines)
    build = as_table(doc.get("build-system"), "[build-system]").get("requires")
    found += [declare(r, BUILD, path, lines.string(r)) for r in string_list(build, "build-system.requires", lines.key("requires", "build-system"))]
    return FileFacts(found, _status(project, poetry, path, lines))


def _status(project: dict[str, Any], poetry: dict[str, Any], path: str, lines: LineFinder) -> ManifestStatus:
    dynamic = project.get("dynamic", [])
    if not isinstance(dynamic, list):
        raise ManifestError("[project] dynamic should be a list", lines.key("dynamic", "project"))
    computed = [field for field in ("dependencies", "optional-dependencies") if field in dynamic]
    if "dependencies" in computed and "dependencies" in poetry:
        computed.remove("dependencies")  # Poetry 2 fills a dynamic [project].dependencies from tool.poetry
    if computed:
        return ManifestStatus(path, dynamic=True, error=f"[project] dynamic = {computed}", line=lines.key("dynamic", "project"))
    return ManifestStatus(path)


def _pep621(project: dict[str, Any], path: str, lines: LineFinder) -> list[Declaration]:
    where = lines.key("dependencies", "project")
    found = [declare(r, DIRECT, path, lines.string(r, lines.offset(where))) for r in string_list(project.get("dependencies"), "[project] dependencies", where)]
    extras = as_table(project.get("optional-dependencies"), "[project.optional-dependencies]")
    return found + _named_lists(extras, "project.optional-dependencies", OPTIONAL, path, lines)


def _named_lists(table: Any, section: str, relation: str, path: str, lines: LineFinder) -> list[Declaration]:
    """`{name = [requirement, ...]}` tables: extras, PDM dev groups, uv's dev list."""
    found = []
    for group, requirements in as_table(table, f"[{section}]").items():
        at = lines.key(group, section)
        for text in string_list(requirements, f"{section}.{group}", at):
            found.append(declare(text, relation, path, lines.string(text, lines.offset(at)), group=group))
    return found


def _groups(groups: dict[str, Any], path: str, lines: LineFinder) -> list[Declaration]:
    """PEP 735 groups, with `include-group` resolved by packaging (cycles are errors, not hangs); packaging
    is imported only where a group includes another or holds what it alone can judge."""
    found: list[Declaration] = []
    if not groups:
        return found
    if _self_contained(groups):  # each group is its own list: nothing to resolve, nothing packaging would refuse
        for group, items in groups.items():
            at = lines.key(group, "dependency-groups")
            found += [declare(text, GROUP, path, lines.string(text, lines.offset(at)), group=group) for text in items]
        return found
    from packaging.dependency_groups import resolve_dependency_groups
    from packaging.requirements import Requirement

    for group in groups:
        at = lines.key(group, "dependency-groups")
        try:
            resolved = resolve_dependency_groups(groups, group)
        except (ValueError, TypeError, LookupError, ExceptionGroup) as exc:  # packaging groups its findings
            detail = "; ".join(str(e) for e in exc.exceptions) if isinstance(exc, ExceptionGroup) else str(exc)
            raise ManifestError(f"[dependency-groups] {group}: {detail}", at) from None
        own = [item for item in groups[group] if isinstance(item, str)] if isinstance(groups[group], list) else []
        for text in own:  # as written, so that the line search finds it
            found.append(declare(text, GROUP, path, lines.string(text, lines.offset(at)), group=group))
        # What include-group adds (packaging gives it back normalized): point at this group's line.
        written = {str(Requirement(text)) for text in own}
        found += [declare(text, GROUP, path, at, group=group) for text in resolved if text not in written]
    return found


def _self_contained(groups: dict[str, Any]) -> bool:
    """Whether every group is a list of requirement strings read without packaging, no two group names
    the same once normalized: what packaging's resolution would give back unchanged."""
    if len({normalize(group) for group in groups}) != len(groups):
        return False
    return all(isinstance(items, list) and all(isinstance(text, str) and is_common(text) for text in items) for items in groups.values())


def _poetry(poetry: dict[str, Any], pep621_declares: bool, path: str, lines: LineFinder) -> list[Declaration]:
    found: list[Declaration] = []
    extras = _poetry_extras(poetry, lines)
    if not pep621_declares:
        for name, spec in _poetry_table(poetry.get("dependencies"), "tool.poetry.dependencies", lines).items():
            line = lines.key(name, "tool.poetry.dependencies")
            optional = isinstance(spec, dict) and spec.get("optional") is True
            if optional:
                for extra in extras.get(normalize(name), [None]):
                    found.append(_poetry_decl(name, spec, OPTIONAL, path, line, extra))
            else:
                found.append(_poetry_decl(name, spec, DIRECT, path, line, None))
    for name, spec in _poetry_table(poetry.get("dev-dependencies"), "tool.poetry.dev-dependencies", lines).items():
        found.append(_poetry_decl(name, spec, DEV, path, lines.key(name, "tool.poetry.dev-dependencies"), "dev"))
    for group, body in as_table(poetry.get("group"), "[tool.poetry.group]").items():
        section = f"tool.poetry.group.{group}.dependencies"
        deps = as_table(body, f"[tool.poetry.group.{group}]").get("dependencies")
        for name, spec in _poetry_table(deps, section, lines).items():
            found.append(_poetry_decl(name, spec, GROUP, path, lines.key(name, section), group))
    return found


def _poetry_table(value: Any, section: str, lines: LineFinder) -> dict[str, Any]:
    table = as_table(value, f"[{section}]")
    return {k: v for k, v in table.items() if normalize(k) != "python"}


def _poetry_extras(poetry: dict[str, Any], lines: LineFinder) -> dict[str, list[str]]:
    by_package: dict[str, list[str]] = {}
    for extra, names in as_table(poetry.get("extras"), "[tool.poetry.extras]").items():
        for name in string_list(names, f"tool.poetry.extras.{extra}", lines.key(extra, "tool.poetry.extras")):
            by_package.setdefault(normalize(name), []).append(extra)
    return by_package


def _poetry_decl(name: str, spec: Any, relation: str, path: str, line: int | None, group: str | None) -> Declaration:
    """A Poetry dependency: a constraint string, a table ({version, path, git...}) or a list of tables."""
    if isinstance(spec, str):
        specifier = spec
    elif isinstance(spec, dict):
        specifier = next((f"{k} {spec[k]}" if k != "version" else str(spec[k]) for k in ("version", "path", "git", "url") if k in spec), "")
    elif isinstance(spec, list) and all(isinstance(item, dict) for item in spec):
        specifier = " | ".join(str(item.get("version", "")) for item in spec)
    else:
        raise ManifestError(f"dependency {name!r} should be a version string or a table", line)
    return Declaration(normalize(name), relation, path, line, specifier=specifier, group=group, written=name)


def workspace_members(context: Context, directory: str) -> tuple[list[str], list[str]]:
    """The `[tool.uv.workspace]` member and exclude globs of the pyproject in `directory` (none if absent or broken)."""
    path = f"{directory}/pyproject.toml" if directory else "pyproject.toml"
    try:
        if not context.repo.is_file(path):
            return [], []
        doc, _ = read_toml(context, path)
    except ManifestError:
        return [], []  # the manifest itself reports the error
    try:
        workspace = as_table(as_table(as_table(doc.get("tool"), "[tool]").get("uv"), "[tool.uv]").get("workspace"), "workspace")
    except ManifestError:
        return [], []
    members = workspace.get("members", [])
    exclude = workspace.get("exclude", [])
    return (members if isinstance(members, list) else []), (exclude if isinstance(exclude, list) else [])
