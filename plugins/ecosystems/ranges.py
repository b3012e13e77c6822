"""Version ranges as unions of intervals: how a claimed range relates to a declared one.

A manifest without a lockfile says which versions may be installed, not
which one is. A claim `pkg:npm/cookie@^1` against a declared `^0.7.1` is
still decidable: no version satisfies both (disjoint, the claim is false),
and a claim `router@^2` against `^2.2.0` admits every version the
declaration does (contains, the claim holds whatever gets installed). Each
ecosystem turns its own syntax into intervals over its own version type
(semver.py for npm/Cargo/Go, PEP 440 for PyPI); the algebra is the same.

Intervals are treated as continuous, which can only make two ranges look
overlapping when they are not, or not contained when they are: both answers
are the INCONCLUSIVE side, never a wrong verdict.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from anchorcheck.plugin import CONTAINS, DISJOINT, OVERLAPS


class Interval(NamedTuple):
    """Versions between `low` and `high` (None: unbounded), each end included or not."""

    low: Any = None
    low_closed: bool = True
    high: Any = None
    high_closed: bool = False

    def empty(self) -> bool:
        if self.low is None or self.high is None:
            return False
        return self.low > self.high or (self.low == self.high and not (self.low_closed and self.high_closed))

    def meet(self, other: Interval) -> Interval:
        """The versions in both."""
        low, low_closed = _tighter(self.low, self.low_closed, other.low, other.low_closed, higher=True)
        high, high_closed = _tighter(self.high, self.high_closed, other.high, other.high_closed, higher=False)
        return Interval(low, low_closed, high, high_closed)

    def within(self, other: Interval) -> bool:
        """Whether every version here is in `other` too."""
        if self.empty():
            return True
        low_ok = other.low is None or (
            self.low is not None and (self.low > other.low or (self.low == other.low and (other.low_closed or not self.low_closed)))
        )
        high_ok = other.high is None or (
            self.high is not None and (self.high < other.high or (self.high == other.high and (other.high_closed or not self.high_closed)))
        )
        return low_ok and high_ok


def _tighter(a: Any, a_closed: bool, b: Any, b_closed: bool, higher: bool) -> tuple[Any, bool]:
    if a is None:
        return b, b_closed
    if b is None or a == b:
        return a, a_closed and (b_closed if b is not None else True)
    return (a, a_closed) if (a > b) == higher else (b, b_closed)


def conjunction(bounds: list[tuple[str, Any]]) -> Interval:
    """The interval of `(operator, version)` bounds that must all hold (`>=1.2`, `<2.0.0-0`)."""
    result = Interval()
    for op, version in bounds:
        if op == "=":
            part = Interval(version, True, version, True)
        elif op in (">", ">="):
            part = Interval(version, op == ">=")
        elif op in ("<", "<="):
            part = Interval(None, True, version, op == "<=")
        else:
            raise ValueError(f"no interval for the operator {op!r}")
        result = result.meet(part)
    return result


def relation(claim: list[Interval], declared: list[Interval]) -> str:
    """How a claimed union of intervals relates to a declared one: CONTAINS, DISJOINT or OVERLAPS."""
    declared = [d for d in declared if not d.empty()]
    claim = [c for c in claim if not c.empty()]
    if not declared:
        return OVERLAPS  # a declaration no version satisfies: nothing to judge a claim by
    if all(any(d.within(c) for c in claim) for d in declared):
        return CONTAINS
    if all(c.meet(d).empty() for c in claim for d in declared):
        return DISJOINT
    return OVERLAPS
