"""The contamination benchmark's core on its corpus: the targets of issue 7.

The safety targets (no false or trap fact VERIFIED, no true fact REFUTED,
silent facts never VERIFIED) hold at every drift commit whatever kinds are
loaded: a missing kind makes its anchors INCONCLUSIVE, never VERIFIED. The
detection target depends on the kinds the broken facts are anchored with
(`pkg:`, `import:`, `env:`, `sym:` come from other plugins): a drift step
whose broken facts carry no anchor of a loaded kind is skipped, naming the kinds it needs.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

from anchorcheck import Verdict
from anchorcheck.verify.loading import default_registry
from tests.conftest import REPO_ROOT, needs_git

pytestmark = needs_git


def _benchmark():
    spec = importlib.util.spec_from_file_location("contamination_benchmark", REPO_ROOT / "benchmarks" / "contamination.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


bench = _benchmark()
FACTS = bench.load_facts()
STEPS = bench.load_drift().STEP_NAMES


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    return bench.run_history(FACTS, tmp_path_factory.mktemp("contamination"), with_unscoped=False)


def test_corpus_shape():
    classes = [f.cls for f in FACTS]
    assert len(FACTS) >= 60
    assert {c: classes.count(c) for c in bench.CLASSES} == {"true": 36, "false": 18, "trap": 12, "silent": 11}
    for fact in FACTS:
        assert set(fact.becomes) <= set(STEPS[1:]), fact.memory.id
        if fact.cls == "trap":
            assert any(" in:" in a or a.startswith("sym:") for a in fact.memory.anchors), fact.memory.id


def test_every_drift_step_breaks_a_true_fact(runs):
    for previous, run in zip(runs, runs[1:]):
        assert bench.broken_by(previous, run), run.name


def test_safety_targets_at_every_commit(runs):
    assert [v for run in runs for v in bench.violations(run)] == []
    for run in runs:
        assert bench.wrongly_refuted(run) == 0.0


def test_watch_triggers_are_banked_at_the_base_commit(runs):
    assert runs[0].fired == set()


def test_base_commit_verdicts_are_exact_where_the_kinds_are_loaded(runs):
    """The corpus itself: at v1.0 each checkable true fact verifies and each false or trap fact is refuted."""
    loaded = set(default_registry().kinds)
    base = runs[0]
    for fact in FACTS:
        key = fact.memory.id
        if not _kinds(fact.memory.anchors) <= loaded:
            continue
        if fact.cls == "true":
            assert base.verdicts[key] is Verdict.VERIFIED, base.reasons[key]
        if fact.cls in ("false", "trap"):
            assert base.verdicts[key] is Verdict.REFUTED, base.reasons[key]


def test_strict_policy_stops_memory_first_adopting_false_facts(runs):
    for run in runs:
        assert bench.adoption(run, "memory-first", "raw")["false"] == 1.0
        assert bench.adoption(run, "memory-first", "strict")["false"] == 0.0
        assert bench.adoption(run, "memory-first", "strict")["silent"] == 0.0


def _texts(anchors) -> list[str]:
    return [a if isinstance(a, str) else str(a) for a in anchors]


def _kinds(anchors) -> set[str]:
    return {m.group(1) for a in _texts(anchors) if (m := re.match(r"!?([a-z]+):", a))}


@pytest.mark.parametrize("index", range(1, len(STEPS)), ids=STEPS[1:])
def test_each_drift_commit_is_detected(runs, index):
    previous, run = runs[index - 1], runs[index]
    broken = {f.memory.id: f for f in FACTS if f.memory.id in bench.broken_by(previous, run)}
    loaded = set(default_registry().kinds)
    needed = set().union(*(_kinds(f.memory.anchors) for f in broken.values()))
    if not any(_kinds(f.memory.anchors) & loaded for f in broken.values()):
        pytest.skip(f"{run.name}: the facts it breaks need kinds not loaded yet: {sorted(needed - loaded)}")
    assert bench.detected(previous, run), f"{run.name} broke {sorted(broken)} and none was caught"
    for key in broken:
        assert run.verdicts[key] is not Verdict.VERIFIED
