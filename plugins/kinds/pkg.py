"""`pkg:` — the project declares or locks a package (closed-world evidence from manifests).

Forms (see docs/packages.md):
    pkg:pypi/redis                 a package URL (purl): type/[namespace/]name
    pkg:npm/%40scope/x@1.2.3       `@VERSION`: the locked version must be exactly that
    pkg:cargo/serde@^1.0           `@RANGE`: the locked version must satisfy a range in the
                                   ecosystem's own syntax (PEP 440 for pypi, npm/Cargo/Go semver)
    pkg:redis                      shorthand without a type: any ecosystem present
    pkg:pypi/redis in:services/api the project at that directory (or just that file, or a glob)

A manifest lists every direct dependency, so when every manifest of the
ecosystem in scope parsed, none is dynamic, and none declares or locks the
package, the anchor is REFUTED; anything less is INCONCLUSIVE with the reason.
"""

from __future__ import annotations

import functools

from packageurl import PackageURL
from typing import NamedTuple

from anchorcheck import AnchorKind, AnchorResult, Evidence, Verdict, hookimpl
from anchorcheck.plugin import (
    Anchor,
    AnchorSyntaxError,
    Context,
    later,
    CONTAINS,
    DISJOINT,
    LOCKED,
    Declaration,
    PackageIndex,
    project_index,
    Ecosystem,
)
from anchorcheck_plugins.kinds.imports import note_import_usage

_RANGE_MARK = later(r"[<>=!~^*,|\s]|(?:^|\.)[xX](?:\.|$)")
_SHORTHAND = later(r"[A-Za-z0-9@][A-Za-z0-9._\-]*")


class PackageRef(NamedTuple):
    """A parsed `pkg:` value. `ecosystem` is the purl type, None for the shorthand."""

    ecosystem: str | None
    name: str
    version: str | None = None

    @property
    def is_range(self) -> bool:
        """A version with an operator, a comma, `||` or an x-wildcard is a range; else it is exact."""
        return self.version is not None and bool(_RANGE_MARK.search(self.version))

    @property
    def wanted(self) -> str:
        """The claimed version as a reason says it: `1.2.3`, or `the range ^1`."""
        return f"the range {self.version}" if self.is_range else str(self.version)


@functools.lru_cache(maxsize=4096)
def parse_pkg(value: str) -> PackageRef:
    """Parse the part after `pkg:`; AnchorSyntaxError (column relative to the value) when malformed.

    Cached: memory files repeat the same anchors, and a purl parse is most of a warm check."""
    head = value.split("?", 1)[0].split("#", 1)[0]
    if "/" not in head:
        return _parse_shorthand(value)
    try:
        purl = PackageURL.from_string("pkg:" + value)
    except ValueError as exc:
        raise AnchorSyntaxError(f"not a package URL: {exc}", column=1) from None
    if purl.qualifiers or purl.subpath:
        at = min(i for i in (value.find("?"), value.find("#")) if i >= 0)
        raise AnchorSyntaxError("qualifiers and subpaths are not supported in pkg: anchors", column=at + 1)
    name = f"{purl.namespace}/{purl.name}" if purl.namespace else purl.name
    if purl.version is not None and not purl.version.strip():
        raise AnchorSyntaxError("expected a version or range after '@'", column=len(value) + 1)
    return PackageRef(purl.type, name, purl.version)


def _parse_shorthand(value: str) -> PackageRef:
    name, at, version = value.partition("@")
    if not _SHORTHAND.fullmatch(name):
        raise AnchorSyntaxError(
            "expected a package name, or a package URL such as 'pypi/redis'", column=1
        )
    if at and not version:
        raise AnchorSyntaxError("expected a version or range after '@'", column=len(value) + 1)
    return PackageRef(None, name, version or None)


class _Finding(NamedTuple):
    verdict: Verdict
    reason: str
    evidence: list[Evidence]
    state: str


def verify_pkg(anchor: Anchor, context: Context) -> AnchorResult:
    ref: PackageRef = anchor.detail if isinstance(anchor.detail, PackageRef) else parse_pkg(anchor.value)
    shown = str(anchor)
    ecosystems = context.registry.ecosystems
    if ref.ecosystem is not None:
        ecosystem = ecosystems.get(ref.ecosystem)
        if ecosystem is None:
            known = ", ".join(sorted(ecosystems)) or "none loaded"
            return AnchorResult(
                shown, Verdict.INCONCLUSIVE, f"no loaded plugin reads {ref.ecosystem!r} manifests (loaded: {known})", state="unsupported"
            )
        finding = _check(ecosystem, ref, anchor.scope, context)
        result = AnchorResult(shown, finding.verdict, finding.reason, finding.evidence, state=finding.state)
        if finding.verdict is Verdict.VERIFIED:
            note_import_usage(result, ecosystem, ref.name, context, anchor.scope)  # source evidence: is the package ever imported?
        return result
    return _check_any(shown, ref, anchor.scope, context)


def _check_any(shown: str, ref: PackageRef, scope: str | None, context: Context) -> AnchorResult:
    """The shorthand: VERIFIED by any ecosystem present, REFUTED only when every present one refutes."""
    present = [
        (name, _check(eco, ref, scope, context))
        for name, eco in sorted(context.registry.ecosystems.items())
        if _present(_index(eco, scope, context))
    ]
    if not present:
        return AnchorResult(shown, Verdict.INCONCLUSIVE, "no manifest of any ecosystem is in scope", state="no-manifest")
    verified = [(n, f) for n, f in present if f.verdict is Verdict.VERIFIED]
    if verified:
        evidence = [e for _, f in verified for e in f.evidence]
        reason = "; ".join(f"{n}: {f.reason}" for n, f in verified)
        return AnchorResult(shown, Verdict.VERIFIED, reason, evidence, state=verified[0][1].state)
    reason = "; ".join(f"{n}: {f.reason}" for n, f in present)
    if all(f.verdict is Verdict.REFUTED for _, f in present):
        return AnchorResult(shown, Verdict.REFUTED, reason, [e for _, f in present for e in f.evidence], state="absent")
    return AnchorResult(shown, Verdict.INCONCLUSIVE, reason, state="incomplete")


def _present(index: PackageIndex) -> bool:
    """An ecosystem takes part in a shorthand check when it has a manifest, or a file that failed:
    a tool-only pyproject.toml in a JavaScript project must not make `pkg:left-pad` inconclusive."""
    return bool(index.manifests or index.problems() or index.declarations)


def _index(ecosystem: Ecosystem, scope: str | None, context: Context) -> PackageIndex:
    return project_index(context, ecosystem.name, ecosystem.read, scope)


def _check(ecosystem: Ecosystem, ref: PackageRef, scope: str | None, context: Context) -> _Finding:
    index = _index(ecosystem, scope, context)
    name = ecosystem.normalize(ref.name)
    found = index.find(name)
    if found:
        return _found(ecosystem, ref, name, found)
    where = f" in {scope}" if scope else ""
    builtin = ecosystem.builtin(name) if ecosystem.builtin else None
    if builtin:
        return _Finding(Verdict.INCONCLUSIVE, f"{ref.name} is {builtin}: out of scope for pkg: anchors", [], "builtin")
    if not index.manifests:
        return _Finding(Verdict.INCONCLUSIVE, f"no {ecosystem.name} manifest is in scope{where}", [], "no-manifest")
    problems = index.problems()
    if problems:
        listed = "; ".join(p.problem() for p in problems)
        return _Finding(
            Verdict.INCONCLUSIVE,
            f"{ref.name} is not declared, but the {ecosystem.name} evidence is incomplete: {listed}",
            [Evidence(p.file, p.line, p.error or "") for p in problems],
            "incomplete",
        )
    files = sorted({s.file for s in index.statuses})
    # A dependency written under this name installs another package (`pubgrub = { package =
    # "astral-pubgrub" }`): the package is not this one, and saying which it is lets the memory be mended.
    renamed = [d for d in index.declarations if d.written and d.name != name and ecosystem.normalize(d.written) == name][:3]
    also = "".join(f"; {Evidence(d.file, d.line, '').location()} installs {d.name} under the name {d.written}" for d in renamed)
    return _Finding(
        Verdict.REFUTED,
        f"no {ecosystem.name} manifest or lockfile{where} declares or locks {ref.name} (read {_listed(files)}){also}",
        [*(Evidence(d.file, d.line, f"installs {d.name} under the name {d.written}") for d in renamed), *(Evidence(f, None, "read: does not declare or lock it") for f in files)],
        "absent",
    )


def _found(ecosystem: Ecosystem, ref: PackageRef, name: str, found: list[Declaration]) -> _Finding:
    declared = [d for d in found if d.relation != LOCKED]
    locked = list(dict.fromkeys(d.locked_version for d in found if d.locked_version))
    evidence = [Evidence(d.file, d.line, _detail(d, bool(declared), locked)) for d in found]
    how = _listed(list(dict.fromkeys(d.describe() for d in declared))) if declared else found[0].describe()
    if ref.version is None:
        return _Finding(Verdict.VERIFIED, f"{name} is {how}", evidence, "declared" if declared else "locked")
    versions = locked
    source = "locked"
    if not versions and ecosystem.pinned is not None:
        versions = list(dict.fromkeys(v for d in declared if (v := ecosystem.pinned(d.specifier))))
        source = "pinned"
    if not versions:
        return _by_range(ecosystem, ref, name, how, [d.specifier for d in declared], evidence)
    if ecosystem.version_matches is None:
        return _Finding(Verdict.INCONCLUSIVE, f"the {ecosystem.name} plugin cannot compare versions", evidence, "unversioned")
    try:
        matching = [v for v in versions if ecosystem.version_matches(ref.version, v, ref.is_range)]
    except ValueError as exc:
        return _Finding(Verdict.INCONCLUSIVE, f"cannot compare {ref.version!r} with {', '.join(versions)}: {exc}", evidence, "unversioned")
    wanted = ref.wanted
    if matching:
        return _Finding(Verdict.VERIFIED, f"{name} is {how}, {source} at {', '.join(matching)} (matches {wanted})", evidence, "version-match")
    return _Finding(
        Verdict.REFUTED,
        f"{name} is {how}, but {source} at {', '.join(versions)}, not {wanted}",
        evidence,
        "version-mismatch",
    )


def _by_range(ecosystem: Ecosystem, ref: PackageRef, name: str, how: str, specifiers: list[str], evidence: list[Evidence]) -> _Finding:
    """No lockfile says which version is installed: the claim still holds when it admits every version
    each declaration does, and is false when it admits none of them (`cookie@^1` against `^0.7.1`)."""
    wanted = ref.wanted
    unknown = f"{name} is {how}, but no lockfile in scope records its version to compare with {ref.version}"
    if ecosystem.range_relation is None or not specifiers:
        return _Finding(Verdict.INCONCLUSIVE, unknown, evidence, "unversioned")
    try:
        relations = {spec: ecosystem.range_relation(ref.version or "", ref.is_range, spec) for spec in dict.fromkeys(specifiers)}
    except ValueError as exc:
        return _Finding(Verdict.INCONCLUSIVE, f"{unknown} ({exc})", evidence, "unversioned")
    declared = ", ".join(relations)
    if any(found == CONTAINS for found in relations.values()):
        return _Finding(Verdict.VERIFIED, f"{name} is {how}, declared {declared}: every version it admits matches {wanted}", evidence, "range-contained")
    if all(found == DISJOINT for found in relations.values()):
        return _Finding(Verdict.REFUTED, f"{name} is {how}, declared {declared}: no version it admits matches {wanted}", evidence, "range-disjoint")
    return _Finding(
        Verdict.INCONCLUSIVE,
        f"{name} is {how}, declared {declared}, which admits versions inside and outside {wanted}; no lockfile in scope says which is installed",
        evidence,
        "unversioned",
    )


def _listed(items: list[str], most: int = 4) -> str:
    """A readable list that stays one line: the first few, then how many more."""
    shown = ", ".join(items[:most])
    return shown if len(items) <= most else f"{shown} and {len(items) - most} more"


def _detail(decl: Declaration, declared: bool, locked: list[str]) -> str:
    """One evidence line: the relation, the declared specifier and the locked version(s).

    A lockfile entry of a declared package is just that, not 'locked only'."""
    if decl.relation == LOCKED:
        head = "lockfile entry" if declared else decl.describe()
        return f"{head}, locked {decl.locked_version}" if decl.locked_version else head
    parts = [decl.describe()]
    if decl.specifier:
        parts.append(f"specifier {decl.specifier}")
    if locked:
        parts.append(f"locked {', '.join(locked)}")
    return ", ".join(parts)


@hookimpl
def register_anchor_kinds(register):  # noqa: ANN001, ANN201 - hook signature
    register(
        AnchorKind(
            prefix="pkg",
            verify=verify_pkg,
            parse=parse_pkg,
            scoped=True,
            summary="a manifest or lockfile of the project declares or locks the package",
            example="pkg:pypi/redis",
        )
    )
