"""The `pypi` ecosystem: which Python manifests and lockfiles are read, and how names and versions compare.

The readers live in their own modules (pyproject, setuptools, requirements,
environments, lockfiles); this one wires them into a layout, finds uv
workspace members, and registers the ecosystem. Versions compare with
`packaging`: `@1.0` is PEP 440 equality (so 1.0 == 1.0.0) and a range is a
PEP 440 specifier set (`@>=5,<6`).
"""

from __future__ import annotations

import re
from importlib import import_module
from typing import TYPE_CHECKING

from anchorcheck import Ecosystem, hookimpl
from anchorcheck.plugin import FileFacts, ManifestStatus, PackageIndex
from anchorcheck_plugins.ecosystems import ranges
from anchorcheck_plugins.ecosystems.discovery import Layout, Reader, collect, member_dirs
from anchorcheck_plugins.ecosystems.pypi_common import normalize
from anchorcheck_plugins.ecosystems.pypi_import_names import distributions_for_import, imports_for_distribution, is_standard_library
from anchorcheck_plugins.ecosystems.pypi_pyproject import parse_pyproject, workspace_members
from anchorcheck_plugins.ecosystems.pypi_requirements import PATTERN as REQUIREMENTS, parse_requirements

if TYPE_CHECKING:
    from collections.abc import Callable

    from packaging.version import Version

    from anchorcheck.plugin import Context


def _on_first_file(module: str, name: str) -> Callable[[Context, str], FileFacts]:
    """A reader imported when a file it reads is first found: setup.py's needs tree-sitter, setup.cfg's
    configparser, the lockfiles' and environments' their parsers, and most projects have none of them."""

    def parse(context: Context, path: str) -> FileFacts:
        return getattr(import_module(f"anchorcheck_plugins.ecosystems.{module}"), name)(context, path)  # type: ignore[no-any-return]

    return parse

def _pyproject(context: Context, path: str) -> FileFacts:
    """A pyproject.toml that only configures tools (black, ruff...) is not a manifest: it proves no absence."""
    facts = parse_pyproject(context, path)
    if not facts.declarations and facts.status is not None and not facts.status.dynamic:
        facts.status = ManifestStatus(path, kind="config")
    return facts


def _setup_cfg(context: Context, path: str) -> FileFacts:
    facts = _on_first_file("pypi_setuptools", "parse_setup_cfg")(context, path)
    if not facts.declarations and facts.status is not None and not facts.status.dynamic:
        facts.status = ManifestStatus(path, kind="config")
    return facts


def _uv_members(context: Context, directory: str) -> list[str]:
    """uv workspace members: `[tool.uv.workspace] members` globs minus `exclude`, each with a pyproject.toml."""
    members, exclude = workspace_members(context, directory)
    return member_dirs(context, directory, members, "pyproject.toml", exclude)


LAYOUT = Layout(
    ecosystem="pypi",
    readers=(
        Reader("manifest", _pyproject, names=("pyproject.toml",)),
        Reader("manifest", _setup_cfg, names=("setup.cfg",)),
        Reader("manifest", _on_first_file("pypi_setuptools", "parse_setup_py"), names=("setup.py",)),
        Reader("manifest", parse_requirements, pattern=REQUIREMENTS),
        Reader("manifest", _on_first_file("pypi_environments", "parse_pipfile"), names=("Pipfile",)),
        Reader("manifest", _on_first_file("pypi_environments", "parse_environment"), names=("environment.yml", "environment.yaml")),
        Reader("lockfile", _on_first_file("pypi_lockfiles", "parse_package_lock"), names=("uv.lock", "poetry.lock", "pdm.lock")),
        Reader("lockfile", _on_first_file("pypi_lockfiles", "parse_pipfile_lock"), names=("Pipfile.lock",)),
        Reader("lockfile", _on_first_file("pypi_lockfiles", "parse_pylock"), names=("pylock.toml",), pattern=re.compile(r"pylock\.[^/]+\.toml")),
    ),
    members=_uv_members,
)



def read(context: Context, scope: str | None) -> PackageIndex:
    return collect(context, LAYOUT, scope)


def version_matches(wanted: str, actual: str, is_range: bool) -> bool:
    """PEP 440: equality for an exact version, a specifier set for a range (pre-releases count: a lock is a fact).
    packaging is imported here, where a version is compared, not with the ecosystem."""
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

    if is_range:
        return SpecifierSet(wanted).contains(Version(actual), prereleases=True)
    return Version(wanted) == Version(actual)


def pinned(specifier: str) -> str | None:
    """`==1.2.3` (or `===1.2.3`) pins a version; anything looser pins nothing."""
    found = re.fullmatch(r"===?\s*([^,;*\s]+)", specifier.split(";", 1)[0].strip())
    return found.group(1) if found else None


def range_relation(claim: str, claim_is_range: bool, declared: str) -> str:
    """A claimed PEP 440 version or specifier set against a declared one, by the intervals they admit."""
    from packaging.version import Version

    if claim_is_range:
        wanted = _intervals(claim)
    else:
        version = Version(claim)
        wanted = [ranges.Interval(version, True, version, True)]
    return ranges.relation(wanted, _intervals(declared.split(";", 1)[0]))


def _intervals(specifiers: str) -> list[ranges.Interval]:
    """A specifier set as the union of intervals it admits; `!=` cuts a point out."""
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

    bounds: list[tuple[str, Version]] = []
    holes: list[Version] = []
    for spec in SpecifierSet(specifiers):
        op, text = spec.operator, spec.version
        if op == "===":
            raise ValueError(f"cannot compare the arbitrary equality {spec}")
        if text.endswith(".*"):
            prefix = Version(text[:-2])
            ceiling = _bump(prefix, len(prefix.release) - 1)
            if op == "==":
                bounds += [(">=", Version(f"{prefix}.dev0")), ("<", ceiling)]
            # `!=1.2.*` removes a whole series: leave it out (a wider declaration never decides wrongly)
            continue
        version = Version(text)
        if op == "~=":
            bounds += [(">=", version), ("<", _bump(version, len(version.release) - 2))]
        elif op == "==":
            bounds.append(("=", version))
        elif op == "!=":
            holes.append(version)
        elif op == "<" and not version.is_prerelease:
            bounds.append(("<", Version(f"{version}.dev0")))  # `<2` admits no pre-release of 2
        else:
            bounds.append((op, version))
    pieces = [ranges.conjunction(bounds)]
    for hole in holes:  # `!=1.5` splits the interval around 1.5
        point = ranges.Interval(hole, True, hole, True)
        pieces = [
            part
            for piece in pieces
            for part in ((piece.meet(ranges.Interval(None, True, hole, False)), piece.meet(ranges.Interval(hole, False))) if point.within(piece) else (piece,))
        ]
    return pieces


def _bump(version: Version, at: int) -> Version:
    """The first release past the series: 1.4 at 0 -> 2.dev0, 1.4.2 at 1 -> 1.5.dev0."""
    from packaging.version import Version

    release = list(version.release[: at + 1])
    release[-1] += 1
    return Version(".".join(map(str, release)) + ".dev0")


def builtin(name: str) -> str | None:
    return "part of the Python standard library" if is_standard_library(name.replace("-", "_")) else None


@hookimpl
def register_ecosystems(register):  # noqa: ANN001, ANN201 - hook signature
    register(
        Ecosystem(
            name="pypi",
            manifests=("pyproject.toml", "setup.cfg", "setup.py", "requirements*.txt", "requirements/*.in", "Pipfile", "environment.yml"),
            read=read,
            summary="Python: PEP 621/735, Poetry, PDM, uv, setuptools, requirements, Pipfile, conda; uv/poetry/pdm/Pipfile locks, pylock.toml",
            normalize=normalize,
            version_matches=version_matches,
            pinned=pinned,
            builtin=builtin,
            languages=("python",),
            import_names=imports_for_distribution,
            packages_for_import=distributions_for_import,
            range_relation=range_relation,
        )
    )
