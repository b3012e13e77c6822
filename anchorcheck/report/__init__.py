"""Report formats: each module renders a `Run` (the reports of one invocation) as text.

A format is a module with a function `render(run, stream)`; `renderer(name)`
imports the one a name the CLI accepts (`format_names()`) stands for.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from functools import cached_property
from pathlib import Path
from typing import IO

from anchorcheck.memory.lifecycle import armed, only_armed
from anchorcheck.model.mistakes import MISTAKES, OPEN_WORLD
from anchorcheck.model.results import AnchorResult, MemoryReport, Verdict


CopyKey = tuple[str, str, str, str]


def copy_key(result: AnchorResult) -> CopyKey:
    """What makes two implicit results the same finding: the token as written, and what it was checked as and found."""
    return (str(result.details.get("written", "")), result.anchor, result.verdict.value, result.reason)


def fails_under(report: MemoryReport, fail_on: str) -> bool:
    """Whether a memory fails a run with this `--fail-on`: what `check` exits 1 on and `--quiet` prints, so the
    two cannot disagree. An anchor written wrongly always; `error` (the default) a finding of severity error, or a
    memory its lifecycle REFUTED with no REFUTED anchor (expired); `warning` likely findings too; `refuted` any
    REFUTED; `inconclusive` any INCONCLUSIVE too (an anchor, or a memory with anchors a lifecycle rule left so).
    Armed triggers are never findings (`armed`)."""
    if any(r.state in MISTAKES for r in report.results):
        return True
    findings = [r for r in report.results if not armed(r) and r.verdict is not Verdict.VERIFIED]
    if fail_on in ("error", "warning"):
        severities = ("error", "warning") if fail_on == "warning" else ("error",)
        expired = report.verdict is Verdict.REFUTED and not any(r.verdict is Verdict.REFUTED for r in report.results)
        return expired or any((r.severity or "note") in severities for r in findings)
    listed = not only_armed(report)
    if (listed and report.verdict is Verdict.REFUTED) or any(r.verdict is Verdict.REFUTED for r in findings):
        return True
    inconclusive = any(r.verdict is Verdict.INCONCLUSIVE for r in findings) or (listed and report.verdict is Verdict.INCONCLUSIVE)
    return fail_on == "inconclusive" and bool(report.results) and inconclusive


class Run:
    """Everything one CLI invocation found, in the order it was checked.

    Real repositories ship the same file many times (CLAUDE.md beside a
    near-identical AGENTS.md, a file imported from several places): an
    implicit reference written in several places with the same result is one
    finding, and a memory whose text and results repeat an earlier one is
    one memory. The counts below count each once (`results` and `memories`
    leave the repeats out); the formats show one finding with every place.
    """

    def __init__(
        self, reports: list[MemoryReport], files: list[str] | None = None, elapsed: float = 0.0, verbose: bool = False, color: bool = False, root: str | None = None,
        checkout: str | None = None,
    ) -> None:
        # A plain class, not a dataclass: nothing compares or copies it, and a dataclass's generated methods cost every check ~0.5 ms at import.
        self.reports = reports
        self.files = [] if files is None else files
        self.elapsed = elapsed
        self.verbose = verbose
        self.quiet = False  # only what fails the run: set by `check --quiet`
        self.fail_on = "refuted"  # what fails the run (`--fail-on`): set by `check`, so `--quiet` prints just that
        self.color = color
        # The repository's top folder: code-scanning formats place files relative to it, not to the shell nor
        # to `--root` (a project folder of a monorepo); `checkout` is the `--root` that evidence paths are relative to.
        self.root = root
        self.checkout = checkout or root

    def from_root(self, file: str) -> str | None:
        """A memory file shown relative to the shell (`../AGENTS.md`) as a path from the repository's top, which
        code-scanning formats place files by; None when it lies outside it or the top is unknown."""
        if self.root is None:
            return None
        real, base = Path(file).resolve(), Path(self.root)
        return real.relative_to(base).as_posix() if base in real.parents else None

    def evidence_path(self, path: str) -> str:
        """An evidence path (relative to the checkout) as a path from the repository's top."""
        if self.root is None or self.checkout is None or self.checkout == self.root:
            return path
        return self.from_root(str(Path(self.checkout, path))) or path

    @cached_property
    def _repeats(self) -> tuple[frozenset[tuple[int, int]], frozenset[int]]:
        """(report, result) indexes of implicit results that repeat an earlier one, and report indexes of
        memories that repeat an earlier one (same text, every result a repeat)."""
        seen: set[CopyKey] = set()
        texts: set[str] = set()
        results: set[tuple[int, int]] = set()
        memories: set[int] = set()
        for i, report in enumerate(self.reports):
            for j, result in enumerate(report.results):
                if result.implicit:
                    key = copy_key(result)
                    if key in seen:
                        results.add((i, j))
                    seen.add(key)
            text = report.memory.text
            if report.memory.source is not None and text in texts and all((i, j) in results for j in range(len(report.results))):
                memories.add(i)
            texts.add(text)
        return frozenset(results), frozenset(memories)

    def memories(self) -> list[MemoryReport]:
        """The reports, each memory once (a repeat of an earlier memory left out)."""
        repeats = self._repeats[1]
        return [report for i, report in enumerate(self.reports) if i not in repeats]

    def results(self) -> Iterator[AnchorResult]:
        """Every anchor result, each implicit reference once however many places repeat it."""
        repeats = self._repeats[0]
        for i, report in enumerate(self.reports):
            yield from (r for j, r in enumerate(report.results) if (i, j) not in repeats)

    def is_repeat(self, report_index: int, result_index: int) -> bool:
        """Whether this result repeats an implicit result found earlier in the run (a copied file)."""
        return (report_index, result_index) in self._repeats[0]

    def anchor_counts(self) -> Counter[Verdict]:
        """Verdicts of the anchors, armed triggers left out (see `armed_triggers`)."""
        return Counter(r.verdict for r in self.results() if not armed(r))

    def memory_counts(self) -> Counter[Verdict]:
        """Verdicts of the memories, those watched only by armed triggers left out (see `armed_memories`)."""
        return Counter(report.verdict for report in self.memories() if not only_armed(report))

    def severity_counts(self) -> Counter[str]:
        """Severities of the findings that are not VERIFIED (a VERIFIED result is a note: nothing to act on); a
        memory REFUTED by its lifecycle (expired) with no REFUTED anchor counts as an error."""
        counts = Counter(r.severity or "note" for r in self.results() if r.verdict is not Verdict.VERIFIED and not armed(r))
        counts["error"] += sum(
            1 for m in self.memories() if m.verdict is Verdict.REFUTED and not any(r.verdict is Verdict.REFUTED for r in m.results)
        )
        return counts

    def armed_triggers(self) -> int:
        """Triggers that have not fired: never evidence, and nothing to act on, so never a finding."""
        return sum(1 for r in self.results() if armed(r))

    def armed_memories(self) -> int:
        """Memories whose only anchors are armed triggers: INCONCLUSIVE by nature, reported like bare ones."""
        return sum(1 for report in self.memories() if only_armed(report))

    def mistakes(self) -> int:
        """Anchors written wrongly (unknown kind, malformed, span not banked): they fail the run."""
        return sum(1 for r in self.results() if r.state in MISTAKES)

    def open_world(self) -> int:
        """Anchors that can never be REFUTED as written: the world their absence is judged in is open."""
        return sum(1 for r in self.results() if r.state in OPEN_WORLD)


Renderer = Callable[[Run, IO[str]], None]


def only_in(result: AnchorResult) -> str | None:
    """"test", "example", "vendored"...: a VERIFIED result that only such code bears out (the present
    trap, visible in every format even without `in:`), else None."""
    where = result.details.get("only_in") if result.verdict is Verdict.VERIFIED else None
    return where if isinstance(where, str) and where else None


# Format name -> the module of this package that renders it, imported when that format is asked for:
# listing the choices of `--format` imports none of them.
_FORMAT_MODULES = {"text": "text", "json": "json_format", "sarif": "sarif", "github": "github", "markdown": "markdown"}


def format_names() -> list[str]:
    return sorted(_FORMAT_MODULES)


def renderer(name: str) -> Renderer:
    from importlib import import_module

    return import_module(f"anchorcheck.report.{_FORMAT_MODULES[name]}").render  # type: ignore[no-any-return]
