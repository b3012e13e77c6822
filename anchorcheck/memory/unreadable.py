"""A memory file that cannot be read, as one finding of a run rather than the end of it.

One malformed `memory.jsonl` or a CLAUDE.md saved as UTF-16 used to stop
`check` with exit 2 and no other findings, so one bad file hid every stale
memory of the others. `check` now reads the other files and reports the bad
one as an INCONCLUSIVE finding at its file and line (nothing in it could be
checked), which fails the run under `--fail-on inconclusive`. The commands
that write (`lock`, `relocate`, `rebank`, `suggest --write`) still refuse a
bad file before writing anything.
"""

from __future__ import annotations

from anchorcheck.memory.memoryfiles import MemoryFileError
from anchorcheck.model.results import AnchorResult, Memory, MemoryReport, Position, Verdict

UNREADABLE = "unreadable-file"


def unreadable_report(error: MemoryFileError) -> MemoryReport:
    """The finding for a memory file that could not be read: at its file and line, with the reason."""
    where = Position(error.line or 1, 1)
    memory = Memory(text="(unreadable memory file)", id=f"{error.path}:{where.line}", source=error.path, position=where, anchor_positions=[where])
    reason = f"the memory file could not be read, so none of its memories were checked: {error.message}"
    return MemoryReport(memory, [AnchorResult(error.path, Verdict.INCONCLUSIVE, reason, state=UNREADABLE)])
