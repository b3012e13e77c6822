"""`--format json`: one object, `{"results": [...], "memories": [...], "summary": {...}}`.

Each result carries the anchor, verdict, reason and evidence; results read
from memory files add the file, memory id, line and column so a tool can
point back at them. An implicit reference written in several places (copied
files) has a row at each; the rows after the first say `copy_of`: the index
of the first one in `results`. The summary counts it once.
"""

from __future__ import annotations

import json
from typing import IO, Any

from anchorcheck.base.printable import json_safe
from anchorcheck.model.results import Verdict
from anchorcheck.report import CopyKey, Run, copy_key


def as_dict(run: Run) -> dict[str, Any]:
    results: list[dict[str, Any]] = []
    memories: list[dict[str, Any]] = []
    first: dict[CopyKey, int] = {}  # an implicit result -> the row where it was first written
    for report in run.reports:
        memory = report.memory
        for index, result in enumerate(report.results):
            row = result.to_dict()
            if result.implicit:
                at = first.setdefault(copy_key(result), len(results))
                if at != len(results):
                    row["copy_of"] = at
            if memory.source is not None:
                pos = memory.anchor_position(index)
                row.update(
                    memory_file=memory.source,
                    memory_id=memory.id,
                    line=pos.line if pos else None,
                    column=pos.column if pos else None,
                )
            results.append(row)
        if memory.source is not None:
            memories.append(
                {
                    "memory_file": memory.source,
                    "memory_id": memory.id,
                    "line": memory.position.line if memory.position else None,
                    "text": memory.text,
                    "verdict": str(report.verdict),
                    "reason": report.reason,
                }
            )
    anchors = run.anchor_counts()
    by_memory = run.memory_counts()
    summary = {
        "anchors": {v.value: anchors[v] for v in Verdict},
        "memories": {v.value: by_memory[v] for v in Verdict},
        "armed_triggers": run.armed_triggers(),
        "armed_memories": run.armed_memories(),
        "files": len(run.files),
        "elapsed_seconds": round(run.elapsed, 4),
    }
    data: dict[str, Any] = {"results": results, "summary": summary}
    if memories:
        data["memories"] = memories
    return data


def render(run: Run, out: IO[str]) -> None:
    write_json(as_dict(run), out)


def write_json(data: dict[str, Any], out: IO[str]) -> None:
    """Indented UTF-8 JSON and a final newline: the layout of every JSON report format (DEL and C1
    controls escaped, `json_safe`: JSON escapes C0 itself)."""
    out.write(json_safe(json.dumps(data, indent=2, ensure_ascii=False)))
    out.write("\n")
