"""Receipts: one record per verdict change of a memory, so a store can show when and why it went stale.

A receipt says which memory, its previous and new verdict, the anchor
results that decided the new one, the revision checked and when. The
library computes them from reports and the last verdicts a store knows
(`receipts_for`); `ReceiptLog` keeps them in a JSONL file, one receipt a
line, which is what `anchorcheck check --receipts FILE` appends to. A memory
seen for the first time gets a receipt with `previous = null`: its baseline.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anchorcheck.repo.atomic import write_atomic
from anchorcheck.base.bounded import json_loads
from anchorcheck.model.results import AnchorResult, Memory, MemoryReport, Verdict
from anchorcheck.repo.safe_read import read_capped

MAX_LOG_BYTES = 32 * 1024 * 1024  # about 60,000 receipts; a log past this is rotated, not read whole


class ReceiptLogError(ValueError):
    """A receipt log that cannot be read: names the file and line."""

    def __init__(self, path: str, line: int | None, message: str) -> None:
        self.path, self.line, self.message = path, line, message
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True)
class Receipt:
    """A memory's verdict changed from `previous` (None: first seen) to `verdict`."""

    memory: str
    previous: Verdict | None
    verdict: Verdict
    reason: str
    evidence: list[AnchorResult] = field(default_factory=list)
    revision: str | None = None
    time: str = ""
    source: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "memory": self.memory,
            "previous": None if self.previous is None else self.previous.value,
            "verdict": self.verdict.value,
            "reason": self.reason,
            "evidence": [r.to_dict() for r in self.evidence],
            "revision": self.revision,
            "time": self.time,
            "source": self.source,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Receipt:
        previous = data.get("previous")
        return cls(
            memory=str(data["memory"]),
            previous=None if previous is None else Verdict(previous),
            verdict=Verdict(data["verdict"]),
            reason=str(data.get("reason", "")),
            evidence=[AnchorResult.from_dict(r) for r in data.get("evidence", [])],
            revision=data.get("revision"),
            time=str(data.get("time", "")),
            source=data.get("source"),
        )


def memory_key(memory: Memory) -> str:
    """The stable name receipts use: the memory's id, else a hash of its source and text."""
    if memory.id:
        return memory.id
    digest = hashlib.sha256(f"{memory.source or ''}\0{memory.text}".encode()).hexdigest()
    return f"sha256:{digest[:16]}"


def receipts_for(
    reports: Iterable[MemoryReport],
    previous: Mapping[str, Verdict],
    *,
    revision: str | None = None,
    now: dt.datetime | None = None,
) -> list[Receipt]:
    """A receipt for each report whose verdict differs from the one `previous` remembers."""
    stamp = (now or dt.datetime.now(dt.timezone.utc)).astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    out = []
    for report in reports:
        key = memory_key(report.memory)
        before = previous.get(key)
        verdict = report.verdict or Verdict.INCONCLUSIVE
        if before is verdict:
            continue
        deciding = [r for r in report.results if r.verdict is verdict] or list(report.results)
        reason = report.reason or "; ".join(f"{r.anchor}: {r.reason}" for r in deciding)
        out.append(Receipt(key, before, verdict, reason, deciding, revision, stamp, report.memory.source))
    return out


class ReceiptLog:
    """A JSONL file of receipts; the last receipt of a memory holds its current verdict."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def read(self) -> list[Receipt]:
        try:
            lines = self._bytes().decode("utf-8").splitlines()
        except UnicodeDecodeError as exc:
            raise ReceiptLogError(str(self.path), None, f"cannot read: {exc}") from None
        receipts = []
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                receipts.append(Receipt.from_dict(json_loads(line)))  # LimitError is a ValueError
            except (ValueError, KeyError, TypeError) as exc:
                raise ReceiptLogError(str(self.path), number, f"not a receipt: {exc}") from None
        return receipts

    def last_verdicts(self) -> dict[str, Verdict]:
        return {r.memory: r.verdict for r in self.read()}

    def append(self, receipts: Iterable[Receipt]) -> None:
        """Add receipts at the end, rewriting the file atomically so a crash never truncates the log."""
        new = "".join(json.dumps(r.to_dict(), sort_keys=True) + "\n" for r in receipts)
        if not new:
            return
        old = self._bytes()
        if old and not old.endswith(b"\n"):
            old += b"\n"
        write_atomic(self.path, old + new.encode("utf-8"))

    def _bytes(self) -> bytes:
        """The log as it is: empty when there is none yet; a FIFO, a device or a log past MAX_LOG_BYTES is
        an error naming the file, never a blocked or unbounded read."""
        if not os.path.lexists(self.path):
            return b""
        try:
            return read_capped(self.path, MAX_LOG_BYTES)
        except OSError as exc:
            raise ReceiptLogError(str(self.path), None, f"cannot read: {exc.strerror or exc}") from None

    def record(self, reports: Iterable[MemoryReport], *, revision: str | None = None, now: dt.datetime | None = None) -> list[Receipt]:
        """Compare reports with the log, append the changes, and return them."""
        receipts = receipts_for(reports, self.last_verdicts(), revision=revision, now=now)
        self.append(receipts)
        return receipts
