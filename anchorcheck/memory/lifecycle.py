"""Memory-level lifecycle rules: time fields, historical revisions and invalidation triggers.

Anchors say whether the code still agrees with a memory; these rules say
whether the memory is still meant to be checked as it stands:

- `expires`: past it, a VERIFIED memory is INCONCLUSIVE ("expired: re-check");
  a REFUTED one stays REFUTED, because the contradicting evidence still holds.
- `resolve_after`: a forward-looking claim ("we drop Python 3.10 after the
  January release") is pending until then: INCONCLUSIVE, whatever the
  anchors say today, and the reason says so.
- `as_of`: a historical claim ("we used Redis until v2") is checked against
  that git revision, through a read-only `RevisionRepository`.
- triggers (`details["trigger"]`, set by `watch:` anchors): quiet ones are
  left out of the combination, a fired one makes the memory INCONCLUSIVE
  ("trigger fired: re-check"), and a memory with nothing but triggers is
  never VERIFIED.

The fields come from `Memory.metadata` (the native reader puts them there):
TOML datetimes and dates, or ISO 8601 strings; a date means 00:00 UTC and a
datetime without an offset is taken as UTC. A malformed field makes the
memory INCONCLUSIVE with a reason naming it, never an exception.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, NamedTuple

from anchorcheck.model.anchors import anchor_text
from anchorcheck.repo.context import Context
from anchorcheck.model.results import AnchorResult, Memory, MemoryReport, Verdict, combine

TRIGGER_KEY = "trigger"
QUIET = "quiet"


class LifecycleError(ValueError):
    """A time or revision field that cannot be used; the message names the field."""


class Plan(NamedTuple):
    """How to check one memory: the context its anchors are checked in, and its time fields."""

    context: Context
    expires: dt.datetime | None = None
    resolve_after: dt.datetime | None = None
    as_of: str | None = None
    problem: str | None = None


def plan(memory: Memory, context: Context) -> Plan:
    """Read the memory's lifecycle fields; `as_of` switches to a context at that revision."""
    meta = memory.metadata or {}
    try:
        expires = parse_time(meta.get("expires"), "expires")
        resolve_after = parse_time(meta.get("resolve_after"), "resolve_after")
        as_of = _revision_field(meta.get("as_of"))
    except LifecycleError as exc:
        return Plan(context, problem=str(exc))
    if as_of is None:
        return Plan(context, expires, resolve_after)
    from anchorcheck.repo.revision import RevisionError  # a memory with `as_of` only: most checks never need it

    try:
        past = context.memo(("lifecycle.revision", as_of), lambda: _revision_context(context, as_of))
    except RevisionError as exc:
        return Plan(context, expires, resolve_after, as_of, problem=f"as_of: {exc}")
    return Plan(past, expires, resolve_after, as_of)


def unchecked(anchor: Any, problem: str) -> AnchorResult:
    """The result for an anchor that was not checked because the memory's fields are unusable."""
    return AnchorResult(anchor_text(anchor), Verdict.INCONCLUSIVE, f"not checked: {problem}", state="unverifiable")


def conclude(memory: Memory, results: list[AnchorResult], how: Plan, now: dt.datetime | None = None) -> MemoryReport:
    """Combine the anchor results under the lifecycle rules into the memory's report."""
    if how.problem is not None:
        return MemoryReport(memory, results, Verdict.INCONCLUSIVE, f"not checked: {how.problem}")
    evidence = [r for r in results if not armed(r)]
    verdict = combine([r.verdict for r in evidence])
    notes: list[str] = []
    if how.as_of is not None:
        notes.append(f"checked as of {how.as_of} ({how.context.repo.head[:12] if how.context.repo.head else '?'})")
    fired = [r.anchor for r in results if r.details.get(TRIGGER_KEY) == "fired"]
    if fired and verdict is not Verdict.REFUTED:
        notes.append(f"trigger fired: re-check ({', '.join(fired)})")
    if results and not evidence:
        notes.append("only quiet triggers: a trigger is never evidence")
    if how.resolve_after is None and how.expires is None:  # the clock only for a memory that dates itself
        return MemoryReport(memory, results, verdict, "; ".join(notes))
    now = _utc(now or dt.datetime.now(dt.timezone.utc))
    if how.resolve_after is not None and now < how.resolve_after:
        notes.append(f"pending until {_shown(how.resolve_after)}: a forward-looking claim (anchors today: {verdict})")
        verdict = Verdict.INCONCLUSIVE
    elif how.expires is not None and now >= how.expires:
        if verdict is Verdict.VERIFIED:
            verdict = Verdict.INCONCLUSIVE
        notes.append(f"expired on {_shown(how.expires)}: re-check")
    return MemoryReport(memory, results, verdict, "; ".join(notes))


def armed(result: AnchorResult) -> bool:
    """A trigger that has not fired: INCONCLUSIVE by nature (never evidence), yet nothing to act on.

    Left out of the memory's combination here, and out of the counts, the
    listings and the exit code of reports (`anchorcheck.report`), so that a
    clean run stays quiet and `--fail-on inconclusive` stays usable.
    """
    return result.details.get(TRIGGER_KEY) == QUIET


def only_armed(report: MemoryReport) -> bool:
    """A memory whose only anchors are armed triggers: nothing was checked, and nothing has fired."""
    return bool(report.results) and all(armed(r) for r in report.results)


def parse_time(value: Any, name: str) -> dt.datetime | None:
    """A TOML datetime or date, or an ISO 8601 string, as an aware UTC datetime."""
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip()
        try:
            value = dt.datetime.fromisoformat(text.replace("Z", "+00:00")) if "T" in text or " " in text else dt.date.fromisoformat(text)
        except ValueError:
            raise LifecycleError(f"{name} = {value!r} is not an ISO 8601 date or datetime") from None
    if isinstance(value, dt.datetime):
        return _utc(value)
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day, tzinfo=dt.timezone.utc)
    raise LifecycleError(f"{name} must be a date or datetime, got {type(value).__name__}")


def _revision_field(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or value.strip().startswith("-"):
        raise LifecycleError(f"as_of = {value!r} is not a git revision")
    return value.strip()


def _revision_context(context: Context, revision: str) -> Context:
    from anchorcheck.repo.revision import RevisionRepository

    past = RevisionRepository(context.repo, revision)
    return Context(past, context.registry, context.config, options=dict(context.options))


def _utc(moment: dt.datetime) -> dt.datetime:
    if moment.tzinfo is None:
        return moment.replace(tzinfo=dt.timezone.utc)
    return moment.astimezone(dt.timezone.utc)


def _shown(moment: dt.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
