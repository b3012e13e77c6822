"""Semantic versions and the range syntaxes of npm, Cargo and Go, for `pkg:...@RANGE` anchors.

One comparator engine serves three dialects, because they differ only in how
a bare version reads: npm treats `1.2` as the x-range `1.2.x`, Cargo treats
`1.2` as `^1.2`, Go (which has no range syntax of its own) treats it as
exactly that version. Carets, tildes, x-ranges, hyphen ranges (npm) and `||`
(npm) follow the npm and Cargo rules. AND is written with `,` (Cargo's own
separator; npm's space is accepted too, but an anchor cannot contain one
unless it is percent-encoded as `%20`).

Ranges are matched against a locked version, which is a fact rather than a
candidate for resolution, so npm's rule that excludes pre-releases from
ranges is not applied: a pre-release is compared by semver precedence.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import total_ordering

from anchorcheck_plugins.ecosystems import ranges

_VERSION = re.compile(
    r"^v?(?P<major>0|[1-9]\d*)(?:\.(?P<minor>0|[1-9]\d*)(?:\.(?P<patch>0|[1-9]\d*))?)?"
    r"(?:-(?P<pre>[0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$"
)
_PARTIAL = re.compile(r"^v?(?P<parts>(?:\d+|[xX*])(?:\.(?:\d+|[xX*])){0,2})(?:-(?P<pre>[0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$")
_COMPARATOR = re.compile(r"^(?P<op><=|>=|<|>|=|\^|~>|~)?\s*(?P<version>\S*)$")

DIALECTS = ("npm", "cargo", "golang")


class RangeError(ValueError):
    """A range or version that the dialect cannot read."""


@total_ordering
class SemVer:
    """A semantic version; compares by semver 2.0 precedence (build metadata ignored)."""

    __slots__ = ("major", "minor", "patch", "pre")

    def __init__(self, major: int, minor: int = 0, patch: int = 0, pre: tuple[str, ...] = ()) -> None:
        self.major, self.minor, self.patch, self.pre = major, minor, patch, pre

    @classmethod
    def parse(cls, text: str) -> SemVer:
        found = _VERSION.match(text.strip().lstrip("="))
        if not found:
            raise RangeError(f"{text!r} is not a semantic version")
        pre = tuple(found.group("pre").split(".")) if found.group("pre") else ()
        return cls(int(found.group("major")), int(found.group("minor") or 0), int(found.group("patch") or 0), pre)

    def _key(self) -> tuple[object, ...]:
        # A release sorts after its pre-releases; numeric identifiers sort before alphanumeric ones.
        pre = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in self.pre)
        return (self.major, self.minor, self.patch, not self.pre, pre)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SemVer) and self._key() == other._key()

    def __lt__(self, other: SemVer) -> bool:
        return self._key() < other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        pre = "-" + ".".join(self.pre) if self.pre else ""
        return f"{self.major}.{self.minor}.{self.patch}{pre}"


_FLOOR = ("0",)  # the lowest pre-release: `<2.0.0-0` excludes 2.0.0's pre-releases too

Bound = tuple[str, SemVer]


def _partial(text: str) -> tuple[list[int | None], tuple[str, ...]]:
    found = _PARTIAL.match(text)
    if not found:
        raise RangeError(f"{text!r} is not a version or partial version")
    parts: list[int | None] = [None if p in "xX*" else int(p) for p in found.group("parts").split(".")]
    while len(parts) < 3:
        parts.append(None)
    if any(p is None for p in parts[:-1]) and any(p is not None for p in parts[parts.index(None):]):
        raise RangeError(f"{text!r}: nothing may follow a wildcard")
    return parts, tuple(found.group("pre").split(".")) if found.group("pre") else ()


def _next(parts: list[int | None], upto: int) -> SemVer:
    """The first version past the part at index `upto`: 1.2.x -> 2.0.0-0 (upto 0) or 1.3.0-0 (upto 1)."""
    bumped = [p or 0 for p in parts[: upto + 1]]
    bumped[upto] += 1
    bumped += [0] * (3 - len(bumped))
    return SemVer(bumped[0], bumped[1], bumped[2], _FLOOR)


def _known(parts: list[int | None]) -> int:
    return sum(1 for p in parts if p is not None)


def _bounds(op: str, text: str, dialect: str) -> list[Bound]:
    """One comparator as a conjunction of (operator, version) bounds."""
    if text in ("", "*", "x", "X"):
        return []
    parts, pre = _partial(text)
    known = _known(parts)
    low = SemVer(*(p or 0 for p in parts), pre=pre)  # type: ignore[misc]
    if op == "" and dialect == "cargo":
        op = "^"
    if op in ("", "=") and dialect == "golang":
        if known < 3:
            raise RangeError(f"{text!r}: a Go version needs major, minor and patch")
        return [("=", low)]
    if op in ("", "="):
        return [("=", low)] if known == 3 else [(">=", low), ("<", _next(parts, known - 1))] if known else []
    if op == "^":
        if known == 0:
            return []
        first = next((i for i, p in enumerate(parts) if p), None)
        upto = min(first, known - 1) if first is not None else known - 1
        return [(">=", low), ("<", _next(parts, upto))]
    if op in ("~", "~>"):
        return [(">=", low), ("<", _next(parts, 0 if known == 1 else 1))] if known else []
    if op == ">" and known < 3:
        return [(">=", _next(parts, known - 1))] if known else [("<", SemVer(0, 0, 0, _FLOOR))]
    if op == "<=" and known < 3:
        return [("<", _next(parts, known - 1))] if known else []
    return [(op, low)]


def _satisfies(version: SemVer, bounds: list[Bound]) -> bool:
    checks = {
        "=": version.__eq__,
        "<": version.__lt__,
        "<=": version.__le__,
        ">": version.__gt__,
        ">=": version.__ge__,
    }
    return all(checks[op](bound) for op, bound in bounds)


def _conjunction(text: str, dialect: str) -> list[Bound]:
    text = text.strip()
    hyphen = re.fullmatch(r"(\S+)\s+-\s+(\S+)", text)
    if hyphen and dialect == "npm":
        low_parts, _ = _partial(hyphen.group(2))
        high = hyphen.group(2)
        upper = [("<=", SemVer.parse(high))] if _known(low_parts) == 3 else [("<", _next(low_parts, _known(low_parts) - 1))]
        return _bounds(">=", hyphen.group(1), dialect) + upper
    bounds: list[Bound] = []
    for token in re.split(r"[,\s]+", re.sub(r"(<=|>=|<|>|=|\^|~>|~)\s+", r"\1", text)):
        if not token:
            continue
        found = _COMPARATOR.match(token)
        if not found:
            raise RangeError(f"{token!r} is not a comparator")
        bounds += _bounds(found.group("op") or "", found.group("version"), dialect)
    return bounds


def matches(range_text: str, version: str, dialect: str) -> bool:
    """Whether `version` satisfies `range_text` under the dialect's rules; RangeError when unreadable."""
    if dialect not in DIALECTS:
        raise RangeError(f"no range dialect {dialect!r}")
    candidate = SemVer.parse(version.split("+", 1)[0])
    alternatives = range_text.split("||") if dialect == "npm" else [range_text]
    return any(_satisfies(candidate, _conjunction(alt, dialect)) for alt in alternatives)


def intervals(range_text: str, dialect: str, is_range: bool = True) -> list[ranges.Interval]:
    """A range (or, with `is_range` false, one exact version) as the union of intervals it admits."""
    if dialect not in DIALECTS:
        raise RangeError(f"no range dialect {dialect!r}")
    if not is_range:
        version = SemVer.parse(range_text.split("+", 1)[0])
        return [ranges.Interval(version, True, version, True)]
    alternatives = range_text.split("||") if dialect == "npm" else [range_text]
    return [ranges.conjunction(_conjunction(alt, dialect)) for alt in alternatives]


def relation_for(dialect: str) -> Callable[[str, bool, str], str]:
    """The `range_relation` capability of an ecosystem using this dialect."""

    def relation(claim: str, claim_is_range: bool, declared: str) -> str:
        return ranges.relation(intervals(claim, dialect, claim_is_range), intervals(declared, dialect))

    return relation


def same_version(a: str, b: str) -> bool:
    """Exact equality by semver precedence (`v1.0.9` == `1.0.9`); falls back to the strings."""
    try:
        return SemVer.parse(a) == SemVer.parse(b)
    except RangeError:
        return a.strip() == b.strip()
