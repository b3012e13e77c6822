"""Verdict combination and the dict round trip of every model type."""

from __future__ import annotations

from anchorcheck import AnchorResult, Evidence, Memory, MemoryReport, Position, Verdict, combine


def test_combination_rule() -> None:
    V, R, I = Verdict.VERIFIED, Verdict.REFUTED, Verdict.INCONCLUSIVE
    assert combine([V, V]) is V
    assert combine([V, I]) is I
    assert combine([V, I, R]) is R
    assert combine([]) is I, "a memory without anchors is never VERIFIED"


def test_negation_swaps_only_decisive_verdicts() -> None:
    assert Verdict.VERIFIED.negated() is Verdict.REFUTED
    assert Verdict.REFUTED.negated() is Verdict.VERIFIED
    assert Verdict.INCONCLUSIVE.negated() is Verdict.INCONCLUSIVE


def test_verdict_is_a_str_enum() -> None:
    assert Verdict.VERIFIED == "VERIFIED" and str(Verdict.REFUTED) == "REFUTED"


def test_memory_without_anchors_explains_itself() -> None:
    report = MemoryReport(Memory(text="we deploy on Fridays"), [])
    assert report.verdict is Verdict.INCONCLUSIVE
    assert "no anchors" in report.reason


def test_every_model_type_round_trips_through_dicts() -> None:
    result = AnchorResult(
        "pkg:pypi/redis",
        Verdict.VERIFIED,
        "declared",
        [Evidence("pyproject.toml", 9, "direct")],
        state="declared",
        details={"specifier": ">=5"},
        plugin="pkg",
    )
    memory = Memory(
        text="we use redis",
        anchors=["pkg:pypi/redis"],
        id="m1",
        metadata={"status": "active"},
        source="CLAUDE.md",
        position=Position(3, 1),
        anchor_positions=[Position(3, 15)],
    )
    report = MemoryReport(memory, [result])
    again = MemoryReport.from_dict(report.to_dict())
    assert again.to_dict() == report.to_dict()
    assert again.verdict is Verdict.VERIFIED
    assert AnchorResult.from_dict(result.to_dict()) == result
    assert Memory.from_dict(memory.to_dict()) == memory
