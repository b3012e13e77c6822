"""The contamination benchmark: do stale and false memories reach an agent, with and without anchorcheck?

Builds corpora/contamination (drift.py) in a temporary directory and, at each
commit of its drift history, verifies every labelled fact of
facts.memories.toml. Then three deterministic proxy agents answer "is this
fact true?" for every fact:

- no-memory:    from the code alone: supported -> true, contradicted -> false, silent -> unknown;
- code-first:   the same, but where the code is silent the memory decides;
- memory-first: whatever memory says, without looking further (the code only when no memory is offered).

The code reading is the ground truth of the fact's class at that commit (a
careful reader, who is not fooled by a present trap); a memory always asserts
its fact. Each agent runs with raw memory and with anchorcheck in front of it
under two policies: `filter` drops REFUTED memories (INCONCLUSIVE ones stay,
marked), `strict` offers only VERIFIED ones. An ablation verifies the same
anchors with their `in:` scopes removed, which is what the present traps exploit.

Printed per commit: the verdict matrix per fact class, the false-fact
adoption rate (false and trap facts answered true) per agent, the rate of
true facts wrongly REFUTED, and whether the commit was detected by the
memories it breaks. Targets: no false fact VERIFIED (traps included), no true
fact REFUTED, silent never VERIFIED, every drift commit detected.

    python benchmarks/contamination.py
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from anchorcheck import Memory, Verdict, Verifier
from anchorcheck.model.anchors import AnchorSyntaxError, format_anchor
from anchorcheck.memory.lockfile import Lock, attach
from anchorcheck.verify.loading import default_registry
from anchorcheck_plugins.formats.native import read_native
from anchorcheck_plugins.kinds.watch import bank_watch

CORPUS = Path(__file__).resolve().parent.parent / "corpora" / "contamination"
CLASSES = ("true", "false", "trap", "silent")
VERDICTS = (Verdict.VERIFIED, Verdict.REFUTED, Verdict.INCONCLUSIVE)
# Time is part of the input: fixed, so that expires/resolve_after give the same figures every run.
NOW = dt.datetime(2026, 12, 1, tzinfo=dt.timezone.utc)


def load_drift() -> ModuleType:
    """corpora/contamination/drift.py, which is a script and not a package."""
    spec = importlib.util.spec_from_file_location("contamination_drift", CORPUS / "drift.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@dataclass
class Fact:
    """A memory and its label: `cls` at the base commit, `becomes` from a drift step on."""

    memory: Memory
    cls: str
    becomes: dict[str, str] = field(default_factory=dict)

    def label(self, steps: list[str], index: int) -> str:
        current = self.cls
        for name in steps[1 : index + 1]:
            current = self.becomes.get(name, current)
        return current


def load_facts(path: Path = CORPUS / "facts.memories.toml") -> list[Fact]:
    """The labelled facts, read by the native memory-file reader; labels come from each memory's metadata."""
    memories = read_native(path.name, path.read_text(encoding="utf-8"))
    attach(memories, Lock(path.with_name("anchorcheck.lock")), default_registry().kinds)
    facts = []
    for memory in memories:
        label = memory.metadata.pop("class")
        becomes = memory.metadata.pop("becomes", {})
        facts.append(Fact(memory, label, dict(becomes)))
    return facts


def unscoped(memory: Memory, verifier: Verifier) -> Memory:
    """The same memory with every `in:` scope removed: what a naive agent would anchor."""
    anchors = []
    for text in memory.anchors:
        try:
            anchor = verifier.parse(text) if isinstance(text, str) else None
        except AnchorSyntaxError:
            anchor = None
        if anchor is None or anchor.scope is None:
            anchors.append(text)  # banked spans and unscoped anchors stay as they are
            continue
        anchors.append(format_anchor(type(anchor)(anchor.kind, anchor.value, anchor.negated, None)))
    return Memory(text=memory.text, anchors=anchors, id=memory.id, metadata=memory.metadata, source=memory.source)


@dataclass
class StepRun:
    """Everything measured at one commit."""

    name: str
    summary: str
    labels: dict[str, str]
    verdicts: dict[str, Verdict]
    unscoped: dict[str, Verdict]
    fired: set[str]  # facts with a trigger that fired at this commit
    reasons: dict[str, str]
    seconds: float


def run_history(facts: list[Fact], workdir: Path, *, with_unscoped: bool = True) -> list[StepRun]:
    """Build the corpus repository in `workdir` and verify every fact at every commit."""
    drift = load_drift()
    repo = workdir / "ordersvc"
    steps = drift.build(repo)
    names = [s.name for s in steps]
    memories = {f.memory.id: f.memory for f in facts}
    runs = []
    for index, step in enumerate(steps):
        drift.checkout(repo, step)
        labels = {f.memory.id: f.label(names, index) for f in facts}
        start = time.perf_counter()
        verifier = Verifier(repo)
        verdicts, fired, reasons = {}, set(), {}
        for key, memory in memories.items():
            report = verifier.verify(memory, now=NOW)
            verdicts[key] = report.verdict
            reasons[key] = report.reason or "; ".join(f"{r.anchor}: {r.verdict} {r.reason}" for r in report.results)
            if any(r.details.get("trigger") == "fired" for r in report.results):
                fired.add(key)
        seconds = time.perf_counter() - start
        loose = {}
        if with_unscoped:
            plain = Verifier(repo)
            loose = {k: plain.verify(unscoped(m, plain), now=NOW).verdict for k, m in memories.items()}
        runs.append(StepRun(step.name, step.summary, labels, verdicts, loose, fired, reasons, seconds))
        for key in fired:
            if labels[key] not in ("false", "trap"):
                memories[key] = rebanked(memories[key], verifier)
    return runs


def rebanked(memory: Memory, verifier: Verifier) -> Memory:
    """The agent's answer to "trigger fired: re-check": the fact still holds, so bank its triggers anew."""
    anchors = []
    for text in memory.anchors:
        anchor = verifier.parse(text) if isinstance(text, str) and text.startswith("watch:") else None
        anchors.append(bank_watch(verifier.repo, anchor.detail.glob) if anchor is not None else text)
    return Memory(text=memory.text, anchors=anchors, id=memory.id, metadata=memory.metadata, source=memory.source)


# -- the proxy agents ------------------------------------------------------------

AGENTS = ("no-memory", "code-first", "memory-first")
POLICIES = ("raw", "filter", "strict")


def code_reading(label: str) -> bool | None:
    """What a careful reader of the code concludes: supported, contradicted, or silent (None)."""
    if label == "true":
        return True
    if label in ("false", "trap"):
        return False
    return None


def offered(verdict: Verdict, policy: str) -> bool:
    """Whether a memory reaches the agent: raw always; filter drops REFUTED; strict keeps VERIFIED only."""
    if policy == "raw":
        return True
    if policy == "filter":
        return verdict is not Verdict.REFUTED
    return verdict is Verdict.VERIFIED


def answer(agent: str, label: str, memory_offered: bool) -> bool | None:
    code = code_reading(label)
    if agent == "no-memory":
        return code
    if agent == "code-first":
        return code if code is not None else (True if memory_offered else None)
    return True if memory_offered else code


def adoption(run: StepRun, agent: str, policy: str, verdicts: dict[str, Verdict] | None = None) -> dict[str, float]:
    """Rates for one agent at one commit: false (and trap) facts adopted, silent facts adopted."""
    verdicts = verdicts if verdicts is not None else run.verdicts
    adopted: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for key, label in run.labels.items():
        group = "false" if label in ("false", "trap") else label
        total[group] += 1
        if answer(agent, label, offered(verdicts[key], policy)) is True:
            adopted[group] += 1
    return {g: adopted[g] / total[g] if total[g] else 0.0 for g in ("false", "silent")}


def true_offered(run: StepRun, policy: str) -> float:
    """The share of true memories that still reach the agent under a policy: what filtering costs."""
    true = [k for k, label in run.labels.items() if label == "true"]
    return sum(offered(run.verdicts[k], policy) for k in true) / len(true) if true else 0.0


# -- targets -----------------------------------------------------------------------


def matrix(run: StepRun, verdicts: dict[str, Verdict] | None = None) -> dict[str, Counter[Verdict]]:
    verdicts = verdicts if verdicts is not None else run.verdicts
    table: dict[str, Counter[Verdict]] = {c: Counter() for c in CLASSES}
    for key, label in run.labels.items():
        table[label][verdicts[key]] += 1
    return table


def violations(run: StepRun) -> list[str]:
    """Facts that break a target at this commit, with the reason anchorcheck gave."""
    bad = []
    for key, label in run.labels.items():
        verdict = run.verdicts[key]
        if label in ("false", "trap") and verdict is Verdict.VERIFIED:
            bad.append(f"{run.name}: {label} fact {key} VERIFIED: {run.reasons[key]}")
        if label == "true" and verdict is Verdict.REFUTED:
            bad.append(f"{run.name}: true fact {key} REFUTED: {run.reasons[key]}")
        if label == "silent" and verdict is Verdict.VERIFIED:
            bad.append(f"{run.name}: silent fact {key} VERIFIED: {run.reasons[key]}")
    return bad


def broken_by(previous: StepRun, run: StepRun) -> list[str]:
    """Facts that were true before this commit and are not after it."""
    return [k for k, label in run.labels.items() if previous.labels[k] == "true" and label != "true"]


def detected(previous: StepRun, run: StepRun) -> list[str]:
    """The broken facts that this commit newly REFUTED, or whose trigger it fired."""
    return [
        k
        for k in broken_by(previous, run)
        if (run.verdicts[k] is Verdict.REFUTED and previous.verdicts[k] is not Verdict.REFUTED)
        or (k in run.fired and k not in previous.fired)
    ]


def wrongly_refuted(run: StepRun) -> float:
    true = [k for k, label in run.labels.items() if label == "true"]
    return sum(run.verdicts[k] is Verdict.REFUTED for k in true) / len(true) if true else 0.0


# -- printing ------------------------------------------------------------------------


def _pct(x: float) -> str:
    return f"{100 * x:5.1f}%"


def render(runs: list[StepRun]) -> str:
    lines: list[str] = []
    for index, run in enumerate(runs):
        lines.append(f"## {run.name}: {run.summary}  ({len(run.labels)} facts, verified in {run.seconds:.2f}s)")
        lines.append("")
        lines.append("| class | n | VERIFIED | REFUTED | INCONCLUSIVE | unscoped anchors: VERIFIED |")
        lines.append("|---|---|---|---|---|---|")
        loose = matrix(run, run.unscoped) if run.unscoped else None
        for cls, counts in matrix(run).items():
            n = sum(counts.values())
            extra = str(loose[cls][Verdict.VERIFIED]) if loose else "-"
            lines.append(f"| {cls} | {n} | {counts[Verdict.VERIFIED]} | {counts[Verdict.REFUTED]} | {counts[Verdict.INCONCLUSIVE]} | {extra} |")
        lines.append("")
        lines.append("| agent | false adopted: raw | filter | strict | unscoped anchors + filter | silent adopted: raw / filter / strict |")
        lines.append("|---|---|---|---|---|---|")
        for agent in AGENTS:
            rates = {p: adoption(run, agent, p) for p in POLICIES}
            loose_rate = adoption(run, agent, "filter", run.unscoped)["false"] if run.unscoped else 0.0
            silent = " / ".join(_pct(rates[p]["silent"]).strip() for p in POLICIES)
            lines.append(
                f"| {agent} | {_pct(rates['raw']['false'])} | {_pct(rates['filter']['false'])} | {_pct(rates['strict']['false'])} "
                f"| {_pct(loose_rate)} | {silent} |"
            )
        lines.append("")
        offered_line = " / ".join(_pct(true_offered(run, p)).strip() for p in POLICIES)
        lines.append(f"true memories offered (raw / filter / strict): {offered_line}")
        lines.append(f"true facts wrongly REFUTED: {_pct(wrongly_refuted(run)).strip()}; triggers fired: {len(run.fired)}")
        if index:
            broken, caught = broken_by(runs[index - 1], run), detected(runs[index - 1], run)
            status = "DETECTED" if caught else "NOT DETECTED"
            lines.append(f"drift: {status}: broke {', '.join(broken) or 'nothing'}; caught {', '.join(caught) or 'none'}")
        for problem in violations(run):
            lines.append(f"TARGET MISSED: {problem}")
        lines.append("")
    lines.extend(summary(runs))
    return "\n".join(lines)


def summary(runs: list[StepRun]) -> list[str]:
    """One row per commit: the figures the targets are about, and the unscoped-anchor ablation."""
    lines = [
        "## summary",
        "",
        "| commit | false+trap VERIFIED | trap VERIFIED, unscoped | true REFUTED | silent VERIFIED | memory-first adopts false: raw / filter / strict / unscoped+filter | true memories offered: filter / strict | detected by |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for index, run in enumerate(runs):
        table = matrix(run)
        loose = matrix(run, run.unscoped) if run.unscoped else None
        rates = [adoption(run, "memory-first", p)["false"] for p in POLICIES]
        rates.append(adoption(run, "memory-first", "filter", run.unscoped)["false"] if run.unscoped else 0.0)
        caught = ", ".join(detected(runs[index - 1], run)) if index else "-"
        lines.append(
            f"| {run.name} | {table['false'][Verdict.VERIFIED] + table['trap'][Verdict.VERIFIED]} "
            f"| {loose['trap'][Verdict.VERIFIED] if loose else '-'} of {sum(table['trap'].values())} "
            f"| {table['true'][Verdict.REFUTED]} | {table['silent'][Verdict.VERIFIED]} "
            f"| {' / '.join(_pct(r).strip() for r in rates)} "
            f"| {_pct(true_offered(run, 'filter')).strip()} / {_pct(true_offered(run, 'strict')).strip()} | {caught or 'NOT DETECTED'} |"
        )
    lines.append("")
    return lines


def main() -> int:
    facts = load_facts()
    with tempfile.TemporaryDirectory(prefix="anchorcheck-contamination-") as tmp:
        runs = run_history(facts, Path(tmp))
    print(render(runs))
    missed = [v for r in runs for v in violations(r)]
    undetected = [r.name for p, r in zip(runs, runs[1:]) if not detected(p, r)]
    print(f"targets: {len(missed)} violations; drift commits undetected: {', '.join(undetected) or 'none'}")
    return 1 if missed or undetected else 0


if __name__ == "__main__":
    sys.exit(main())
