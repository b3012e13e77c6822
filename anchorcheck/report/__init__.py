"""Report formats: each module renders a `Run` (the reports of one invocation) as text.

A format is a function `render(run, stream)`; `FORMATS` maps the names the
CLI accepts to them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO

from anchorcheck.lifecycle import armed, only_armed
from anchorcheck.mistakes import MISTAKES, OPEN_WORLD
from anchorcheck.model import AnchorResult, MemoryReport, Verdict


@dataclass
class Run:
    """Everything one CLI invocation found, in the order it was checked."""

    reports: list[MemoryReport]
    files: list[str] = field(default_factory=list)
    elapsed: float = 0.0
    verbose: bool = False
    color: bool = False

    def anchor_counts(self) -> Counter[Verdict]:
        """Verdicts of the anchors, armed triggers left out (see `armed_triggers`)."""
        return Counter(r.verdict for report in self.reports for r in report.results if not armed(r))

    def memory_counts(self) -> Counter[Verdict]:
        """Verdicts of the memories, those watched only by armed triggers left out (see `armed_memories`)."""
        return Counter(report.verdict for report in self.reports if not only_armed(report))

    def armed_triggers(self) -> int:
        """Triggers that have not fired: never evidence, and nothing to act on, so never a finding."""
        return sum(1 for report in self.reports for r in report.results if armed(r))

    def armed_memories(self) -> int:
        """Memories whose only anchors are armed triggers: INCONCLUSIVE by nature, reported like bare ones."""
        return sum(1 for report in self.reports if only_armed(report))

    def mistakes(self) -> int:
        """Anchors written wrongly (unknown kind, malformed, span not banked): they fail the run."""
        return sum(1 for report in self.reports for r in report.results if r.state in MISTAKES)

    def open_world(self) -> int:
        """Anchors that can never be REFUTED as written: the world their absence is judged in is open."""
        return sum(1 for report in self.reports for r in report.results if r.state in OPEN_WORLD)


Renderer = Callable[[Run, IO[str]], None]


def only_in(result: AnchorResult) -> str | None:
    """"test", "example", "vendored"...: a VERIFIED result that only such code bears out (the present
    trap, visible in every format even without `in:`), else None."""
    where = result.details.get("only_in") if result.verdict is Verdict.VERIFIED else None
    return where if isinstance(where, str) and where else None


def formats() -> dict[str, Renderer]:
    from anchorcheck.report import github, json_format, sarif, text

    return {"text": text.render, "json": json_format.render, "sarif": sarif.render, "github": github.render}
