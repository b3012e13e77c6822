"""`anchorcheck check --watch`: check the memories again whenever the checkout changes.

A long-lived Verifier polls the tree (`Verifier.refresh`: one stat per listed
file and directory, every `--interval` seconds) and, when something changed,
verifies every memory again from the per-file facts still true, printing only
the memories whose verdict changed, one line each (one JSON object each with
`--format json`). It runs until interrupted.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable

from anchorcheck.base.printable import json_safe, printable
from anchorcheck.cli.common import seconds
from anchorcheck.base.memo import Reads
from anchorcheck.model.results import MemoryReport, Verdict
from anchorcheck.verify.verifier import Verifier

MIN_INTERVAL = 0.1  # seconds: a poll is a stat per listed file, so a tighter loop only burns CPU


def add_watch(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--watch", action="store_true", help="keep running: check again when files change, print only changed verdicts")
    parser.add_argument("--interval", type=seconds("interval", MIN_INTERVAL), default=1.0, metavar="SECONDS", help="how often --watch looks for changes (default 1)")


def watch(
    args: argparse.Namespace, verifier: Verifier, reports: list[MemoryReport], reads: Reads, check: Callable[[], tuple[list[MemoryReport], Reads]]
) -> int:
    """Poll until interrupted; print each memory whose verdict changed since the previous check. A check
    that read what no snapshot watches (a memory file git ignores, Claude Code's auto-memory outside
    the checkout) is made again at every interval: nothing else says when that changed."""
    sys.stdout.flush()
    previous = _verdicts(reports)
    unwatched = _unwatched(verifier, reports, reads)
    while True:
        time.sleep(args.interval)
        if not verifier.refresh() and not unwatched:
            continue
        reports, reads = check()
        unwatched = _unwatched(verifier, reports, reads)
        current = _verdicts(reports)
        for key, (verdict, report) in current.items():
            was = previous.get(key, (None, None))[0]
            if was is not verdict:
                _print(args.format, key, was, verdict, report)
        for key in previous.keys() - current.keys():
            _print(args.format, key, previous[key][0], None, None)
        sys.stdout.flush()
        previous = current


def _unwatched(verifier: Verifier, reports: list[MemoryReport], reads: Reads) -> bool:
    """Whether the check read a path, or a memory file, that a change of would not make `refresh` say so."""
    paths = reads.paths | reads.probed
    for report in reports:
        source = report.memory.source
        if source is not None:
            try:
                paths.add(verifier.repo.relative(source))
            except ValueError:  # outside the checkout
                return True
    return bool(verifier.unwatched(paths))


def _verdicts(reports: list[MemoryReport]) -> dict[str, tuple[Verdict, MemoryReport]]:
    """Each memory's verdict by where it is written (file and line, or its id or text)."""
    found = {}
    for report in reports:
        memory = report.memory
        where = f"{memory.source or '-'}:{memory.position.line if memory.position else memory.id or memory.text[:60]}"
        found[where] = (report.verdict, report)
    return found


def _print(fmt: str, where: str, was: Verdict | None, now: Verdict | None, report: MemoryReport | None) -> None:
    failing = [r for r in report.results if r.verdict is not Verdict.VERIFIED] if report is not None else []
    reason = f"{failing[0].anchor}: {failing[0].reason}" if failing else ""
    if fmt == "json":
        record = {"memory": where, "was": was and was.value, "now": now and now.value, "reason": reason}
        print(json_safe(json.dumps(record, ensure_ascii=False)))
    else:
        print(printable(f"{where}: {was.value if was else 'new'} -> {now.value if now else 'gone'}" + (f" ({reason})" if reason else "")))
