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

from collections import Counter
from typing import IO

from anchorcheck.base.printable import printable
from anchorcheck.base.words import plural
from anchorcheck.memory.lifecycle import armed, only_armed
from anchorcheck.memory.selection import kind_of
from anchorcheck.model.mistakes import UNBANKED
from anchorcheck.model.results import AnchorResult, MemoryReport, Verdict
from anchorcheck.report import CopyKey, Run, copy_key, fails_under, only_in

_COLORS = {Verdict.VERIFIED: "\033[32m", Verdict.REFUTED: "\033[31m", Verdict.INCONCLUSIVE: "\033[33m"}
_RESET = "\033[0m"
MAX_EVIDENCE = 3
MAX_PLACES = 8  # places listed after `also at:`; the rest are counted
IMPLICIT_MARK = "(implicit)"  # after the anchor of a reference read from prose rather than written as an anchor


def render(run: Run, out: IO[str]) -> None:
    shown = errors_first([report for report in run.reports if _shown(report, run)])
    if run.quiet:
        shown = [report for report in shown if fails_under(report, run.fail_on)]
    places = _places(shown, run)
    for report in shown:
        _memory(report, run, out, places)
    if run.quiet:
        return
    _moved(run, out)
    for hint in next_steps(run):
        out.write(f"hint: {hint}\n")
    out.write(summary(run) + "\n")


def errors_first(reports: list[MemoryReport]) -> list[MemoryReport]:
    """Errors first (a finding of severity `error`, a memory its lifecycle REFUTED, an anchor written wrongly: what
    fails the run by default), then the other REFUTED (warnings), then the rest, each part grouped by file in the
    order files were read: the one REFUTED of a run must not be line 38 of 38, nor after a warning."""
    files: dict[str | None, int] = {}
    for report in reports:
        files.setdefault(report.memory.source, len(files))

    def rank(report: MemoryReport) -> tuple[int, int]:
        return (0 if fails_under(report, "error") else 1 if fails_under(report, "refuted") else 2, files[report.memory.source])

    return sorted(reports, key=rank)  # stable: file order within a file


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


def _moved(run: Run, out: IO[str]) -> None:
    """Spans that moved intact still verify, but the anchors name their old lines: a note for each, where it
    is now (the `relocate` hint follows), so drift does not pile up until a changed span can no longer be followed."""
    rows = []
    for report in run.reports:
        for index, result in enumerate(report.results):
            if result.state == "relocated" and not result.implicit:
                now = result.details
                where = _where(report, index)
                rows.append(f"{where + ': ' if where else ''}{result.anchor} is now at {now.get('path')} lines {now.get('start_line')}-{now.get('end_line')}")
    out.writelines(printable(f"note: {row}\n") for row in rows)


def _verdict(verdict: Verdict, run: Run) -> str:
    if not run.color:
        return verdict.value
    return f"{_COLORS[verdict]}{verdict.value}{_RESET}"


def summary(run: Run) -> str:
    """One line: how many anchors and references (implicit ones), per verdict, in how many files, how fast.

    Memories are not counted: most paragraphs of an instruction file carry nothing to check, and a count
    of them ("1828 without anchors") buried the one finding that mattered.
    """
    counted = [r for r in run.results() if not armed(r)]
    references = sum(1 for r in counted if r.implicit)
    anchors = len(counted) - references
    what = plural(anchors, "anchor") if anchors or not references else ""
    if references:
        what += f"{' and ' if what else ''}{plural(references, 'reference')}"
    if run.files:
        what += f" in {plural(len(run.files), 'file')}"
    verdicts = Counter(r.verdict for r in counted)
    parts = [f"{verdicts[v]} {v.value.lower()}" for v in (Verdict.REFUTED, Verdict.INCONCLUSIVE, Verdict.VERIFIED) if verdicts[v]]
    mistakes, open_world, stale = run.mistakes(), run.open_world(), run.memory_counts()[Verdict.REFUTED]
    extras = [
        *([f"{mistakes} written wrongly"] if mistakes else []),
        *([f"{open_world} can never be refuted as written"] if open_world else []),
        *([f"{plural(stale, 'memory', 'memories')} refuted"] if stale and run.files else []),
        *([plural(run.armed_triggers(), "armed trigger")] if run.armed_triggers() else []),
        *([f"{run.armed_memories()} watched only by armed triggers"] if run.armed_memories() else []),
    ]
    counts = ", ".join(parts) + "".join(f"; {extra}" for extra in extras)
    return f"Checked {what}{': ' + counts if counts else ''} in {run.elapsed:.2f}s."


# What a person can run next, per result state: (noun, what to do).
_NEXT_STEPS = (
    ("relocated", "span", "moved intact", "run `anchorcheck relocate` to record where"),
    (UNBANKED, "span", "not banked", "run `anchorcheck lock`"),
    ("stale", "span", "changed", "re-read the code, fix the memory, then `anchorcheck rebank` it"),
    ("fired", "trigger", "fired", "re-check the memories, then `anchorcheck rebank` them"),
)


def next_steps(run: Run) -> list[str]:
    """`3 spans moved intact: run anchorcheck relocate ...`: one line per kind of follow-up the results call for,
    relocated spans included (they verify, so they are not printed, and their lines drift until recorded)."""
    states = Counter((r.state, kind_of(r.anchor)) for r in run.results())
    hints = []
    for state, kind, happened, todo in _NEXT_STEPS:
        count = states[(state, "watch" if kind == "trigger" else kind)]
        if count:
            hints.append(f"{plural(count, kind)} {happened}: {todo}")
    return hints
