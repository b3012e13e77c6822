"""Verdicts, evidence, results and memories: the vocabulary every plugin speaks.

These types are free of I/O and convert to and from JSON-safe dicts, so that a
memory store can persist a report and a plugin can return one without knowing
how it will be printed.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


class Verdict(str, enum.Enum):
    """The answer for one anchor or one memory."""

    VERIFIED = "VERIFIED"
    REFUTED = "REFUTED"
    INCONCLUSIVE = "INCONCLUSIVE"

    def __str__(self) -> str:
        return self.value

    def negated(self) -> Verdict:
        """`!anchor` swaps VERIFIED and REFUTED; silence stays silence."""
        if self is Verdict.VERIFIED:
            return Verdict.REFUTED
        if self is Verdict.REFUTED:
            return Verdict.VERIFIED
        return self


def combine(verdicts: list[Verdict]) -> Verdict:
    """One REFUTED anchor refutes the memory; only a fully verified memory is VERIFIED.

    An empty list is INCONCLUSIVE: a memory without anchors has no evidence.
    """
    if any(v is Verdict.REFUTED for v in verdicts):
        return Verdict.REFUTED
    if verdicts and all(v is Verdict.VERIFIED for v in verdicts):
        return Verdict.VERIFIED
    return Verdict.INCONCLUSIVE


@dataclass(frozen=True)
class Evidence:
    """Where the evidence is: a repo-relative path, a 1-based line (or None), and what it says."""

    path: str
    line: int | None = None
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "detail": self.detail}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Evidence:
        return cls(path=str(data["path"]), line=data.get("line"), detail=str(data.get("detail", "")))

    def location(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path


@dataclass
class AnchorResult:
    """The verdict on one anchor, the sentence that explains it and the evidence behind it.

    `state` is the kind-specific outcome (a span is fresh, relocated, stale or
    unverifiable); `details` holds other kind-specific, JSON-safe facts.
    `implicit` marks the result of a reference read from prose (a path in
    inline code, a command in a shell block) rather than a typed anchor.
    `severity` says how sure the finding is, for hooks and CI to block on:
    `error` where the evidence is certain (a closed-world source lacks it, history
    shows it gone), `warning` where it is likely (missing and never there,
    ambiguous), `note` otherwise. Left out, it follows from the verdict
    (`default_severity`); a verifier that knows better sets it.
    """

    anchor: str
    verdict: Verdict
    reason: str
    evidence: list[Evidence] = field(default_factory=list)
    state: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    plugin: str | None = None
    implicit: bool = False
    severity: str | None = None

    def __post_init__(self) -> None:
        if self.severity is None:
            self.severity = default_severity(self.verdict)

    def copy(self) -> AnchorResult:
        """A copy with lists of its own, for a caller to adorn (negation, implicit marks) while the
        original stays kept: every field as it is, without `dataclasses.replace`'s look at the fields
        and a second `__init__` (a kept answer is copied at every recall)."""
        twin = object.__new__(AnchorResult)
        twin.__dict__.update(self.__dict__)
        twin.evidence, twin.details = list(self.evidence), dict(self.details)
        return twin

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "anchor": self.anchor,
            "verdict": self.verdict.value,
            "reason": self.reason,
            "evidence": [e.to_dict() for e in self.evidence],
            "severity": self.severity,
        }
        if self.state is not None:
            data["state"] = self.state
        if self.details:
            data["details"] = self.details
        if self.plugin is not None:
            data["plugin"] = self.plugin
        if self.implicit:
            data["implicit"] = True
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AnchorResult:
        return cls(
            anchor=str(data["anchor"]),
            verdict=Verdict(data["verdict"]),
            reason=str(data.get("reason", "")),
            evidence=[Evidence.from_dict(e) for e in data.get("evidence", [])],
            state=data.get("state"),
            details=dict(data.get("details", {})),
            plugin=data.get("plugin"),
            implicit=bool(data.get("implicit", False)),
            severity=data.get("severity") if data.get("severity") in SEVERITIES else None,
        )


SEVERITIES = ("error", "warning", "note")  # most severe first


# The state of an INCONCLUSIVE command whose name the configuration it names (its first evidence) does not
# define, but something else (a dependency) may: the configuration's history can still show it removed.
NOT_IN_CONFIG = "not-in-config"

# The state of a command whose `cd` leaves the checkout from the folder it is read in (`cd ../..` read at the root):
# that reading cannot be where the text means it to run, so another reading of it (the memory file's folder) decides.
LEAVES_CHECKOUT = "leaves-checkout"


def default_severity(verdict: Verdict) -> str:
    """A REFUTED result is an error (a plugin refutes only from a closed world); anything else a note."""
    return "error" if verdict is Verdict.REFUTED else "note"


@dataclass(frozen=True)
class Position:
    """Where something sits in a memory file: 1-based line and column."""

    line: int
    column: int = 1

    def to_dict(self) -> dict[str, int]:
        return {"line": self.line, "column": self.column}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Position:
        return cls(line=int(data["line"]), column=int(data.get("column", 1)))


@dataclass
class Memory:
    """One remembered fact and the anchors that tie it to the code.

    `anchors` holds anchor strings, parsed `Anchor`s or `Citation`s. A memory
    read from a file also knows where it came from (`source`, `position`) and
    where each of its anchors was written (`anchor_positions`, parallel to
    `anchors`), so that reports can point at the line a person must edit.
    """

    text: str = ""
    anchors: list[Any] = field(default_factory=list)
    id: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    source: str | None = None
    position: Position | None = None
    anchor_positions: list[Position | None] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "text": self.text,
            "anchors": [anchor_to_json(a) for a in self.anchors],
            "metadata": self.metadata,
        }
        if self.source is not None:
            data["source"] = self.source
        if self.position is not None:
            data["position"] = self.position.to_dict()
        if any(p is not None for p in self.anchor_positions):
            data["anchor_positions"] = [p.to_dict() if p else None for p in self.anchor_positions]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Memory:
        position = data.get("position")
        return cls(
            id=data.get("id"),
            text=str(data.get("text", "")),
            anchors=[anchor_from_json(a) for a in data.get("anchors", [])],
            metadata=dict(data.get("metadata", {})),
            source=data.get("source"),
            position=Position.from_dict(position) if position else None,
            anchor_positions=[
                Position.from_dict(p) if p else None for p in data.get("anchor_positions", [])
            ],
        )

    def anchor_position(self, index: int) -> Position | None:
        if index < len(self.anchor_positions):
            return self.anchor_positions[index]
        return self.position


@dataclass
class MemoryReport:
    """The verdict on one memory: the combination of its anchors' verdicts."""

    memory: Memory
    results: list[AnchorResult]
    verdict: Verdict | None = None
    reason: str = ""

    def __post_init__(self) -> None:
        if self.verdict is None:
            self.verdict = combine([r.verdict for r in self.results])
        if not self.results and not self.reason:
            self.reason = "the memory has no anchors, so nothing can be checked"

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "memory": self.memory.to_dict(),
            "verdict": str(self.verdict),
            "results": [r.to_dict() for r in self.results],
        }
        if self.reason:
            data["reason"] = self.reason
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MemoryReport:
        return cls(
            memory=Memory.from_dict(data["memory"]),
            results=[AnchorResult.from_dict(r) for r in data.get("results", [])],
            verdict=Verdict(data["verdict"]),
            reason=str(data.get("reason", "")),
        )


HIGH = "high"  # read from an explicit code form: inline code, `path::Name`, `path:L10-L20`, a stated version
MEDIUM = "medium"  # read from words: a package or symbol named in prose, a negation cue


@dataclass
class Suggestion:
    """A typed anchor proposed for a memory: it verifies now, so later drift refutes it.

    `reason` says why it was proposed (what the text says and what the code
    shows), `evidence` where the code shows it, `confidence` the class of
    the reading (`high` for an explicit code form, `medium` for words);
    `mention` is the part of the text it was read from, and `citation` the
    banked record of a `span:` suggestion (what goes into `anchorcheck.lock`).
    """

    anchor: str
    reason: str
    evidence: list[Evidence] = field(default_factory=list)
    confidence: str = HIGH
    mention: str | None = None
    citation: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "anchor": self.anchor,
            "reason": self.reason,
            "evidence": [e.to_dict() for e in self.evidence],
            "confidence": self.confidence,
        }
        if self.mention is not None:
            data["mention"] = self.mention
        if self.citation is not None:
            data["citation"] = self.citation
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Suggestion:
        return cls(
            anchor=str(data["anchor"]),
            reason=str(data.get("reason", "")),
            evidence=[Evidence.from_dict(e) for e in data.get("evidence", [])],
            confidence=str(data.get("confidence", HIGH)),
            mention=data.get("mention"),
            citation=dict(data["citation"]) if data.get("citation") is not None else None,
        )


def anchor_to_json(anchor: Any) -> Any:
    """Anchors serialize as their text; structured ones (citations) as their dict."""
    from anchorcheck.model.anchors import anchor_text

    to_dict = getattr(anchor, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    return anchor_text(anchor)


def anchor_from_json(data: Any) -> Any:
    """Inverse of anchor_to_json. Strings stay strings until verified, so a malformed
    anchor in stored data is reported at check time instead of failing the load."""
    if isinstance(data, dict) and data.get("implicit"):
        from anchorcheck.model.reference import Reference

        return Reference.from_dict(data)
    if isinstance(data, dict):
        from anchorcheck.model.citation import Citation

        return Citation.from_dict(data)
    return str(data)
