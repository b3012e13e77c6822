"""The findings of a run as CI formats see them: one per anchor result, with a stable rule id.

SARIF and GitHub annotations both want a flat list of located findings
rather than memories, and both need the same rule id (`KIND/verdict`, e.g.
`span/refuted`: it depends only on the anchor kind and the verdict, so it is
stable across runs and versions; `implicit-file/refuted` for a reference read
from prose; `anchor/unknown-kind`, `anchor/malformed` and `span/unbanked` for
an anchor written wrongly, `anchor/looks-like-anchor` for a code span of prose written like one,
`memory-file/unreadable-file` for a memory file that could not be read) and the same fingerprint.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, replace

from anchorcheck.memory.lifecycle import armed
from anchorcheck.memory.memoryfiles import looks_like_anchor
from anchorcheck.memory.unreadable import UNREADABLE
from anchorcheck.model.mistakes import LOOKS_LIKE_ANCHOR, MISTAKES, UNBANKED
from anchorcheck.model.results import AnchorResult, Memory, Verdict
from anchorcheck.report import CopyKey, Run, copy_key, only_in


Location = tuple[str | None, int | None, int | None]  # memory file, line, column


@dataclass(frozen=True)
class Finding:
    """One anchor result, where it was written, and what identifies it across runs."""

    result: AnchorResult
    memory: Memory
    file: str | None
    line: int | None
    column: int | None
    copies: tuple[Location, ...] = ()  # other places the same implicit reference is written (copied files)

    @property
    def kind(self) -> str:
        return kind_of(self.result.anchor)

    @property
    def rule_id(self) -> str:
        """`KIND/verdict`, and `implicit-KIND/verdict` for a reference read from prose (not a typed anchor)."""
        if self.result.state == UNREADABLE:
            return f"memory-file/{UNREADABLE}"
        if self.result.state in MISTAKES or self.result.state == LOOKS_LIKE_ANCHOR:
            return f"{'anchor' if self.result.state != UNBANKED else self.kind}/{self.result.state}"
        kind = f"implicit-{self.kind}" if self.result.implicit else self.kind
        return f"{kind}/{self.result.verdict.value.lower()}"

    @property
    def mistake(self) -> bool:
        """An anchor written wrongly: an error of the memory file, whatever its verdict."""
        return self.result.state in MISTAKES

    @property
    def message(self) -> str:
        return f"{self.result.anchor} — {self.result.reason}"

    def fingerprint(self) -> str:
        """Stable when lines move: the file, the memory's text and the anchor, not line numbers."""
        key = "\0".join([self.file or "", self.memory.text, self.result.anchor, self.rule_id])
        return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()  # a lone surrogate in a memory's text


def kind_of(anchor: str) -> str:
    """The anchor kind of a result's anchor text (`!pkg:pypi/x` → `pkg`); `anchor` when it has none."""
    text = anchor.strip().lstrip("!")
    return text.split(":", 1)[0] if looks_like_anchor(text) else "anchor"


def findings(run: Run) -> Iterator[Finding]:
    """Every anchor result that is not VERIFIED, or VERIFIED only by test, example or vendored code,
    nor an armed trigger (all of them when the run is verbose), in order.

    An implicit reference written identically in several places (a file
    copied beside another, the same path in three nested AGENTS.md) is one
    finding whose `copies` are the other places: one stale path, not three.
    """
    merged: dict[CopyKey, list[Finding]] = {}
    order: list[list[Finding]] = []
    for report in run.reports:
        memory = report.memory
        for index, result in enumerate(report.results):
            fine = (result.verdict is Verdict.VERIFIED and only_in(result) is None) or armed(result)
            if fine and not run.verbose:
                continue
            pos = memory.anchor_position(index) if memory.source is not None else None
            found = Finding(result, memory, memory.source, pos.line if pos else None, pos.column if pos else None)
            if not result.implicit:
                order.append([found])
                continue
            key = copy_key(result)
            if key in merged:
                merged[key].append(found)
            else:
                merged[key] = [found]
                order.append(merged[key])
    for group in order:
        first = group[0]
        yield replace(first, copies=tuple((f.file, f.line, f.column) for f in group[1:])) if len(group) > 1 else first
