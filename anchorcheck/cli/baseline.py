"""`anchorcheck baseline [FILE|DIR|GLOB...]` — record today's findings so that `check --baseline` fails only on new ones.

A repository adopting anchorcheck has stale memories already; a baseline lets CI
pass on them while any new finding fails. A finding is named by the fingerprint
the SARIF output uses (memory file from the repository's top, the memory's text,
the anchor and its rule id: line numbers left out, so an edit above it keeps it
known); editing the memory's text or fixing the anchor makes it a new one.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace

from anchorcheck.cli.common import UsageError, add_memory_files, add_root
from anchorcheck.model.results import MemoryReport
from anchorcheck.report import Run
from anchorcheck.report.findings import Finding

BASELINE_NAME = "anchorcheck-baseline.json"
_VERSION = 1


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("baseline", help="record the current findings, so that check --baseline fails only on new ones")
    add_memory_files(parser, "the known memory files of the repository")
    add_root(parser)
    parser.add_argument("--output", metavar="FILE", default=BASELINE_NAME, help=f"where to write it (default: {BASELINE_NAME})")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from anchorcheck.cli.check import check_memories
    from anchorcheck.cli.common import make_verifier
    from anchorcheck.repo.gitdir import top_of

    for name, value in (("no_implicit", False), ("claude_memory", False), ("receipts", None), ("deadline", None), ("select", ()), ("ignore", ())):
        setattr(args, name, value)
    verifier = make_verifier(args)
    loaded, reports, _ = check_memories(args, verifier)
    found = Run(reports, files=[shown for shown, _ in loaded], root=str(top_of(verifier.root)), checkout=str(verifier.root))
    known = sorted({key for key, failing in _keys(found) if failing})
    try:
        with open(args.output, "w", encoding="utf-8") as handle:
            json.dump({"version": _VERSION, "findings": known}, handle, indent=1)
            handle.write("\n")
    except OSError as exc:
        raise UsageError(f"{args.output}: {exc.strerror or exc}") from None
    print(f"Wrote {args.output}: {len(known)} finding{'s' if len(known) != 1 else ''} recorded; `anchorcheck check --baseline {args.output}` now fails only on new ones.")
    return 0


def leave_out_known(run: Run, path: str) -> int:
    """Take the findings the baseline at `path` records out of the run (they neither show nor fail it); how many."""
    known = _read(path)
    left_out = 0
    for i, report in enumerate(run.reports):
        keep = [j for j, result in enumerate(report.results) if _key(run, report, j) not in known]
        if len(keep) != len(report.results):
            left_out += len(report.results) - len(keep)
            run.reports[i] = _only(report, keep)
    return left_out


def _keys(run: Run) -> list[tuple[str, bool]]:
    from anchorcheck.model.mistakes import MISTAKES
    from anchorcheck.model.results import Verdict

    return [
        (_key(run, report, j), result.verdict is not Verdict.VERIFIED or result.state in MISTAKES)
        for report in run.reports for j, result in enumerate(report.results)
    ]


def _key(run: Run, report: MemoryReport, index: int) -> str:
    memory = report.memory
    file = run.from_root(memory.source) if memory.source is not None else None
    return Finding(report.results[index], memory, file or memory.source, None, None).fingerprint()


def _only(report: MemoryReport, keep: list[int]) -> MemoryReport:
    """The report with only these results, its memory with only their anchors (anchors and places are parallel)."""
    memory = report.memory
    narrowed = replace(memory, anchors=[memory.anchors[j] for j in keep], anchor_positions=[memory.anchor_position(j) for j in keep])
    return MemoryReport(narrowed, [report.results[j] for j in keep], reason=report.reason if not keep else "")


def _read(path: str) -> frozenset[str]:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError as exc:
        raise UsageError(f"--baseline {path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise UsageError(f"--baseline {path}: not a baseline written by anchorcheck baseline ({exc})") from None
    findings = data.get("findings") if isinstance(data, dict) else None
    if not isinstance(findings, list) or not all(isinstance(f, str) for f in findings):
        raise UsageError(f"--baseline {path}: not a baseline written by anchorcheck baseline (no list of findings)")
    return frozenset(findings)
