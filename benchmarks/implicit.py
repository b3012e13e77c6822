"""Implicit references on the real instruction files of ../shared/corpora/instructions/: reads, verdicts, precision, time.

Lays each corpus out as its repository (every tracked path, the real
instruction files and runner configs), runs `anchorcheck check` on it with and
without implicit references (`--no-implicit` is the baseline of the same run:
discovery, reading and the typed anchors alone), and prints per corpus the
references read by kind, their verdicts, the precision against the
hand-reviewed rows of tests/data/implicit_corpus.tsv (a read counts as right
when that row, with that verdict, was judged right) and the time.

    python benchmarks/implicit.py            # the table
    python benchmarks/implicit.py --rows     # the rows as read now, to review against the data file
    python benchmarks/implicit.py --drift [--set dev|held-out|held-out-2|held-out-3|held-out-4|held-out-5|held-out-6|all] [--only OWNER/NAME] [--per-kind N] [--drifts K,K]
                                             # REFUTED precision at HEAD and recall of injected drifts
                                             # on real repositories (benchmarks/implicit_drift.py)
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from anchorcheck.cli import main  # noqa: E402
from tests._instructions_support import CORPUS_NAMES, INSTRUCTIONS, build_tree, expected_rows, implicit_rows  # noqa: E402

RUNS = 3


def check(root: Path, *args: str) -> tuple[dict, float]:
    """The JSON report of `check` in `root`, and the best wall time of RUNS runs."""
    best, report = float("inf"), {}
    cwd = os.getcwd()
    os.chdir(root)
    try:
        for _ in range(RUNS):
            out = io.StringIO()
            start = time.perf_counter()
            with contextlib.redirect_stdout(out):
                main(["check", "--no-cache", "--format", "json", "-v", *args])
            best = min(best, time.perf_counter() - start)
            report = json.loads(out.getvalue())
    finally:
        os.chdir(cwd)
    return report, best


def main_() -> int:
    if "--drift" in sys.argv:
        import implicit_drift  # noqa: PLC0415 - the drift mode's machinery, needed only in that mode

        return implicit_drift.main(sys.argv[1:])
    if INSTRUCTIONS is None:
        print("shared/corpora/instructions is not beside the checkout", file=sys.stderr)
        return 2
    expected = expected_rows()
    rows_only = "--rows" in sys.argv
    totals: Counter[str] = Counter()
    header = f"{'corpus':<18} {'files':>5} {'read':>5} {'file':>5} {'cmd':>4} {'pkg':>4} {'VER':>5} {'REF':>4} {'INC':>4} {'right':>6} {'precision':>9} {'time s':>7} {'base s':>7} {'ratio':>6}"
    if not rows_only:
        print(header)
    with tempfile.TemporaryDirectory() as tmp:
        for name in CORPUS_NAMES:
            root = build_tree(INSTRUCTIONS / name, Path(tmp) / name)
            report, took = check(root)
            rows = implicit_rows(report)
            if rows_only:
                for row in rows:
                    print("\t".join([name, *row]))
                continue
            _, base = check(root, "--no-implicit")
            kinds = Counter(anchor.split(":", 1)[0] for _, _, anchor, _ in rows)
            verdicts = Counter(verdict for *_, verdict in rows)
            right = len(set(rows) & set(expected[name]))
            precision = right / len(rows) if rows else 1.0
            print(
                f"{name:<18} {report['summary']['files']:>5} {len(rows):>5} {kinds['file']:>5} {kinds['cmd']:>4} {kinds['pkg']:>4} "
                f"{verdicts['VERIFIED']:>5} {verdicts['REFUTED']:>4} {verdicts['INCONCLUSIVE']:>4} {right:>6} {precision:>9.3f} "
                f"{took:>7.2f} {base:>7.2f} {took / base:>6.2f}"
            )
            totals.update(read=len(rows), right=right, files=report["summary"]["files"], **kinds, **verdicts)
            totals["time"] += int(took * 1000)
            totals["base"] += int(base * 1000)
    if not rows_only:
        precision = totals["right"] / totals["read"] if totals["read"] else 1.0
        print(
            f"{'total':<18} {totals['files']:>5} {totals['read']:>5} {totals['file']:>5} {totals['cmd']:>4} {totals['pkg']:>4} "
            f"{totals['VERIFIED']:>5} {totals['REFUTED']:>4} {totals['INCONCLUSIVE']:>4} {totals['right']:>6} {precision:>9.3f} "
            f"{totals['time'] / 1000:>7.2f} {totals['base'] / 1000:>7.2f} {totals['time'] / max(totals['base'], 1):>6.2f}"
        )
        print(f"best of {RUNS} runs each, --no-cache; base = the same check with --no-implicit")
    return 0


if __name__ == "__main__":
    raise SystemExit(main_())
