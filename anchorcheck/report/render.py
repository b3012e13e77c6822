"""Turning verified memories into prompt text for an agent, with an explicit policy.

Verification is advisory: anchorcheck never deletes or rewrites a memory on
its own. A memory store picks what the agent sees:

- `mark` (default): every memory keeps its text; a REFUTED one gets one line
  saying what changed (the file, the banked and current revisions) and to
  re-read it before relying on the memory. A memory whose span verified in a
  different checkout of the same history says so too, and so does one whose
  evidence is only test, example or vendored code (`details["only_in"]`).
- `filter`: REFUTED memories are left out and counted (`Rendered.omitted`).

Memories without anchors, and INCONCLUSIVE ones, are rendered unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from anchorcheck.model.results import AnchorResult, MemoryReport, Verdict
from anchorcheck.report import only_in

POLICIES = ("mark", "filter")


@dataclass(frozen=True)
class Rendered:
    """The prompt text and what the policy did: memories shown, marked and left out."""

    text: str
    shown: int
    marked: int
    omitted: int


def render_prompt(reports: Iterable[MemoryReport], policy: str = "mark", *, bullet: str = "- ") -> Rendered:
    """One bullet per memory, in the order given; see the module docstring for the policies."""
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; expected one of {', '.join(POLICIES)}")
    out: list[str] = []
    shown = marked = omitted = 0
    for report in reports:
        if policy == "filter" and report.verdict is Verdict.REFUTED:
            omitted += 1
            continue
        shown += 1
        out.append(f"{bullet}{report.memory.text}")
        if policy == "mark":
            note = mark_for(report)
            if note:
                marked += 1
                out.append(f"{' ' * len(bullet)}({note})")
    if omitted:
        out.append(f"({omitted} memor{'y' if omitted == 1 else 'ies'} left out: the current code contradicts them.)")
    return Rendered("\n".join(out), shown, marked, omitted)


def mark_for(report: MemoryReport) -> str | None:
    """The one advisory line for a memory, or None when it needs none."""
    if report.verdict is Verdict.REFUTED:
        refuted = [r for r in report.results if r.verdict is Verdict.REFUTED]
        return "; ".join(_refuted_note(r) for r in refuted)
    if report.verdict is Verdict.VERIFIED:
        notes = []
        trapped = [(r, only_in(r)) for r in report.results if only_in(r)]
        if trapped:
            notes.append("; ".join(f"{r.anchor} holds only in {where} code, not in the product" for r, where in trapped))
        if any(r.details.get("checkout") == "different" for r in report.results):
            notes.append(
                "the cited source verified in a different checkout of this history; "
                "re-read the file if the project context matters"
            )
        return "; ".join(notes) or None
    return None


def _refuted_note(result: AnchorResult) -> str:
    path = result.details.get("path")
    if result.state == "stale" and isinstance(path, str):
        banked, now = result.details.get("banked_head"), result.details.get("current_head")
        revisions = ""
        if banked and now and banked != now:
            revisions = f" (recorded at {str(banked)[:12]}, tree now at {str(now)[:12]})"
        elif banked:
            revisions = f" (recorded at {str(banked)[:12]})"
        return f"source changed since this was recorded: {path}{revisions} — re-read the file before relying on it"
    return f"contradicted by the code: {result.anchor} — {result.reason}; check before relying on it"
