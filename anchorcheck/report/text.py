"""The human format: `path:line:col: VERDICT anchor — reason`, quiet about what is fine.

Memories that verified, and memories without anchors, are left out unless verbose; every other memory is
printed as a group (the memory line, then one line per anchor, then its
evidence indented), and a summary line always closes the report.
"""

from __future__ import annotations

from typing import IO

from anchorcheck.lifecycle import armed, only_armed
from anchorcheck.model import AnchorResult, MemoryReport, Verdict
from anchorcheck.report import Run, only_in

_COLORS = {Verdict.VERIFIED: "\033[32m", Verdict.REFUTED: "\033[31m", Verdict.INCONCLUSIVE: "\033[33m"}
_RESET = "\033[0m"
MAX_EVIDENCE = 3
IMPLICIT_MARK = "(implicit)"  # after the anchor of a reference read from prose rather than written as an anchor


def render(run: Run, out: IO[str]) -> None:
    for report in run.reports:
        verified = report.verdict is Verdict.VERIFIED and not any(only_in(r) for r in report.results)
        quiet = verified or not report.results or only_armed(report)
        if quiet and not run.verbose:
            continue  # fine, nothing to check, or only armed triggers: counted in the summary, not listed
        _memory(report, run, out)
    out.write(summary(run) + "\n")


def _memory(report: MemoryReport, run: Run, out: IO[str]) -> None:
    memory = report.memory
    if memory.source is not None:
        line = memory.position.line if memory.position else 1
        text = memory.text if len(memory.text) <= 80 else memory.text[:77] + "..."
        out.write(f"{memory.source}:{line}: {_verdict(report.verdict, run)} memory: {text}\n")
        if report.reason:  # no anchors, or a lifecycle rule (expired, pending, trigger fired, as of)
            out.write(f"    {report.reason}\n")
    elif report.reason and not report.results:
        out.write(f"{_verdict(report.verdict, run)} {report.reason}\n")
    for index, result in enumerate(report.results):
        if armed(result) and not run.verbose:
            continue
        if memory.source is not None:
            pos = memory.anchor_position(index)
            where = f"{memory.source}:{pos.line}:{pos.column}: " if pos else f"{memory.source}: "
        else:
            where = ""
        trap = only_in(result)
        marker = f" (only in {trap} code)" if trap else ""
        mark = f" {IMPLICIT_MARK}" if result.implicit else ""
        out.write(f"{where}{_verdict(result.verdict, run)}{marker} {result.anchor}{mark} — {result.reason}\n")
        _evidence(result, run, out)


def _evidence(result: AnchorResult, run: Run, out: IO[str]) -> None:
    if result.verdict is Verdict.VERIFIED and not run.verbose:
        return
    for item in result.evidence[:MAX_EVIDENCE]:
        detail = f" {item.detail}" if item.detail else ""
        out.write(f"    evidence: {item.location()}{detail}\n")
    hidden = len(result.evidence) - MAX_EVIDENCE
    if hidden > 0:
        out.write(f"    ... and {hidden} more\n")
    diff = result.details.get("diff") if isinstance(result.details, dict) else None
    if isinstance(diff, str) and diff:
        for line in diff.splitlines():
            out.write(f"    | {line}\n")


def _verdict(verdict: Verdict, run: Run) -> str:
    if not run.color:
        return verdict.value
    return f"{_COLORS[verdict]}{verdict.value}{_RESET}"


def summary(run: Run) -> str:
    """One line: how many memories and anchors, per verdict, from how many files, how fast."""
    anchors = run.anchor_counts()
    memories = run.memory_counts()
    n_anchors = sum(anchors.values())
    parts = ", ".join(f"{anchors[v]} {v.value.lower()}" for v in Verdict)
    scope = f"{len(run.reports)} memor{'y' if len(run.reports) == 1 else 'ies'}"
    if run.files:
        scope += f" in {len(run.files)} file{'s' if len(run.files) != 1 else ''}"
    mem = ", ".join(f"{memories[v]} {v.value.lower()}" for v in Verdict)
    bare = sum(1 for report in run.reports if not report.results)
    if bare:
        mem += f"; {bare} without anchors"
    if run.armed_memories():
        mem += f"; {run.armed_memories()} watched only by armed triggers"
    if run.armed_triggers():
        parts += f"; {run.armed_triggers()} armed trigger{'s' if run.armed_triggers() != 1 else ''}"
    mistakes, open_world = run.mistakes(), run.open_world()
    if mistakes:
        parts += f"; {mistakes} written wrongly"
    if open_world:
        parts += f"; {open_world} can never be refuted as written"
    if run.files:
        return f"Checked {n_anchors} anchors ({parts}) of {scope} ({mem}) in {run.elapsed:.2f}s."
    return f"Checked {n_anchors} anchor{'s' if n_anchors != 1 else ''}: {parts} in {run.elapsed:.2f}s."
