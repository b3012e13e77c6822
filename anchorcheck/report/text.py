"""The human format: `path:line:col: VERDICT anchor — reason`, quiet about what is fine.

Everything printed that a repository or a store wrote (paths, memory text, anchors, reasons, quoted
lines) goes through `printable`: only the verdicts' colours are escape sequences of its own.

Memories that verified, and memories without anchors, are left out unless verbose; every other memory is
printed as a group (the memory line, then one line per anchor, then its
evidence indented), and a summary line always closes the report. An implicit
reference written in several places (a copied file, a file imported from
several others) is printed once, where it was first written, followed by
`also at:` and the other places; a memory left with nothing else to show is
not printed again.
"""

from __future__ import annotations

from typing import IO

from anchorcheck.base.printable import printable
from anchorcheck.memory.lifecycle import armed, only_armed
from anchorcheck.model.results import AnchorResult, MemoryReport, Verdict
from anchorcheck.report import CopyKey, Run, copy_key, only_in

_COLORS = {Verdict.VERIFIED: "\033[32m", Verdict.REFUTED: "\033[31m", Verdict.INCONCLUSIVE: "\033[33m"}
_RESET = "\033[0m"
MAX_EVIDENCE = 3
MAX_PLACES = 8  # places listed after `also at:`; the rest are counted
IMPLICIT_MARK = "(implicit)"  # after the anchor of a reference read from prose rather than written as an anchor


def render(run: Run, out: IO[str]) -> None:
    shown = [report for report in run.reports if _shown(report, run)]
    places = _places(shown, run)
    for report in shown:
        _memory(report, run, out, places)
    out.write(summary(run) + "\n")


def _shown(report: MemoryReport, run: Run) -> bool:
    """Whether a memory is printed: fine ones, bare ones and ones watched only by armed triggers are only counted."""
    verified = report.verdict is Verdict.VERIFIED and not any(only_in(r) for r in report.results)
    return run.verbose or not (verified or not report.results or only_armed(report))


def _places(shown: list[MemoryReport], run: Run) -> dict[CopyKey, list[str]]:
    """Every place each printed implicit result is written, in order, for those written in more than one."""
    places: dict[CopyKey, list[str]] = {}
    for report in shown:
        for index, result in enumerate(report.results):
            if result.implicit and _printed(result, run):
                places.setdefault(copy_key(result), []).append(_where(report, index))
    return {key: found for key, found in places.items() if len(found) > 1}


def _printed(result: AnchorResult, run: Run) -> bool:
    return run.verbose or not armed(result)


def _where(report: MemoryReport, index: int) -> str:
    memory = report.memory
    if memory.source is None:
        return ""
    pos = memory.anchor_position(index)
    return f"{memory.source}:{pos.line}:{pos.column}" if pos else memory.source


def _memory(report: MemoryReport, run: Run, out: IO[str], places: dict[CopyKey, list[str]]) -> None:
    memory = report.memory
    rows = []
    for index, result in enumerate(report.results):
        if not _printed(result, run):
            continue
        where = _where(report, index)
        also = places.get(copy_key(result), []) if result.implicit else []
        if also and also[0] != where:
            continue  # the same reference, printed where it was first written
        rows.append((where, result, also[1:]))
    if report.results and not rows and not report.reason:
        return  # everything it says was printed at an earlier place
    if memory.source is not None:
        line = memory.position.line if memory.position else 1
        text = memory.text if len(memory.text) <= 80 else memory.text[:77] + "..."
        out.write(f"{printable(memory.source)}:{line}: {_verdict(report.verdict, run)} memory: {printable(text)}\n")
        if report.reason:  # no anchors, or a lifecycle rule (expired, pending, trigger fired, as of)
            out.write(f"    {printable(report.reason)}\n")
    elif report.reason and not report.results:
        out.write(f"{_verdict(report.verdict, run)} {printable(report.reason)}\n")
    for where, result, also in rows:
        trap = only_in(result)
        marker = f" (only in {trap} code)" if trap else ""
        mark = f" {IMPLICIT_MARK}" if result.implicit else ""
        prefix = f"{where}: " if where else ""
        out.write(f"{printable(prefix)}{_verdict(result.verdict, run)}{printable(f'{marker} {result.anchor}{mark} — {result.reason}')}\n")
        if also:
            more = f" and {len(also) - MAX_PLACES} more" if len(also) > MAX_PLACES else ""
            out.write(printable(f"    also at: {', '.join(also[:MAX_PLACES])}{more}\n"))
        _evidence(result, run, out)


def _evidence(result: AnchorResult, run: Run, out: IO[str]) -> None:
    if result.verdict is Verdict.VERIFIED and not run.verbose:
        return
    for item in result.evidence[:MAX_EVIDENCE]:
        detail = f" {item.detail}" if item.detail else ""
        out.write(printable(f"    evidence: {item.location()}{detail}\n"))
    hidden = len(result.evidence) - MAX_EVIDENCE
    if hidden > 0:
        out.write(f"    ... and {hidden} more\n")
    diff = result.details.get("diff") if isinstance(result.details, dict) else None
    if isinstance(diff, str) and diff:
        for line in diff.splitlines():
            out.write(printable(f"    | {line}\n"))


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
    counted = run.memories()
    scope = f"{len(counted)} memor{'y' if len(counted) == 1 else 'ies'}"
    if run.files:
        scope += f" in {len(run.files)} file{'s' if len(run.files) != 1 else ''}"
    mem = ", ".join(f"{memories[v]} {v.value.lower()}" for v in Verdict)
    bare = sum(1 for report in counted if not report.results)
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
