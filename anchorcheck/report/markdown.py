"""`--format markdown`: a report for a pull request or a CI job summary (`$GITHUB_STEP_SUMMARY`).

What fails the run first (REFUTED, anchors written wrongly), then what could not be checked, as one
table each: place (from the repository's top), anchor, reason. The text summary line and its
next-step hints close it, so the page says what was checked and what to run.
"""

from __future__ import annotations

from typing import IO

from anchorcheck.model.results import Verdict
from anchorcheck.report import Run
from anchorcheck.report.findings import Finding, findings
from anchorcheck.report.text import next_steps, summary

_MAX_ROWS = 200  # a job summary holds 1 MiB: past this many rows, the rest are counted


def render(run: Run, out: IO[str]) -> None:
    found = list(findings(run))
    errors = [f for f in found if f.mistake or f.result.verdict is Verdict.REFUTED]
    notes = [f for f in found if f not in errors and f.result.verdict is Verdict.INCONCLUSIVE]
    out.write("## anchorcheck\n\n")
    out.write(("**Memories contradicted by the code**" if errors else "No memory is contradicted by the code.") + "\n\n")
    _table(run, errors, out)
    if notes and not run.quiet:
        out.write("<details><summary>Could not be checked either way</summary>\n\n")
        _table(run, notes, out)
        out.write("</details>\n\n")
    for hint in next_steps(run):
        out.write(f"- {_cell(hint)}\n")
    out.write(f"\n{summary(run)}\n")


def _table(run: Run, rows: list[Finding], out: IO[str]) -> None:
    if not rows:
        return
    out.write("| where | anchor | reason |\n|---|---|---|\n")
    for finding in rows[:_MAX_ROWS]:
        file = run.from_root(finding.file) or finding.file if finding.file else ""
        where = f"{file}:{finding.line}" if finding.line else file
        implicit = " (implicit)" if finding.result.implicit else ""
        out.write(f"| `{_cell(where)}` | `{_cell(finding.result.anchor)}`{implicit} | {_cell(finding.result.reason)} |\n")
    if len(rows) > _MAX_ROWS:
        out.write(f"\n…and {len(rows) - _MAX_ROWS} more.\n")
    out.write("\n")


def _cell(text: str) -> str:
    """Text inside a table cell: a pipe would end the cell, a newline the row; backticks would end the code span."""
    return text.replace("|", "\\|").replace("\n", " ").replace("`", "'")
