"""Kill -9 trials of every command that writes more than one file (issue 25, item 6).

    python benchmarks/killsafe.py [--trials 200] [--only relocate,rebank,lock,suggest] [--seed 25]

For each command a real git checkout is built where it has work in several files (the lock,
Markdown memory files, native `*.memories.toml` files: tests/_killsafe_support.py). Each trial
copies it, runs the real CLI in a subprocess and kills its process group with SIGKILL at a
random delay, drawn from 30% to 105% of an uninterrupted run's time (the first third is the
interpreter starting, where a kill can only leave the old state); then the kill is also made
to land on every boundary between two file writes (the command killing itself as it is about
to replace its k-th file). After each kill the next command (`check`) runs, and the trial
counts:

- landed: the kill found the write begun and not finished (files changed or a journal left);
- torn: after that next command, the files are neither all as before nor all as after;
- lost: span anchors written in memory files left without their fingerprint ("not banked"),
  and hurt: the kills after which any was;
- not converged: a re-run of the command did not reach what an uninterrupted run reaches.

Targets: 0 torn, 0 lost, 0 not converged.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the scenarios live beside the tests

from tests._killsafe_support import SCENARIOS, Outcome, Trials  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200, help="random-delay kills per command")
    parser.add_argument("--only", default=",".join(SCENARIOS), help="commands, comma-separated")
    parser.add_argument("--seed", type=int, default=25)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print(f"{'command':<10} {'kills':<10} {'files':>5} {'run s':>6} {'trials':>6} {'landed':>6} {'torn':>5} {'lost':>5} {'hurt':>5} {'not conv.':>9}")
    failed = False
    for name in args.only.split(","):
        with tempfile.TemporaryDirectory(prefix=f"killsafe-{name}-") as folder:
            trials = Trials(name, Path(folder))
            random_kills = [trials.run(rng.uniform(0.3, 1.05) * trials.duration) for _ in range(args.trials)]
            failed |= _print(name, "random", trials, random_kills)
            failed |= _print(name, "each write", trials, [trials.run_until_replace(k) for k in range(len(trials.touched) + 2)])
    return 1 if failed else 0


def _print(name: str, how: str, trials: Trials, outcomes: list[Outcome]) -> bool:
    """One row: `hurt` is the number of kills after which some fingerprint was lost, `lost` their sum."""
    landed = sum(o.landed for o in outcomes)
    torn = sum(o.torn for o in outcomes)
    lost = sum(o.lost for o in outcomes)
    hurt = sum(1 for o in outcomes if o.lost)
    stuck = sum(not o.converged for o in outcomes)
    row = f"{name:<10} {how:<10} {len(trials.touched):>5} {trials.duration:>6.2f} {len(outcomes):>6} {landed:>6} {torn:>5} {lost:>5} {hurt:>5} {stuck:>9}"
    print(row, flush=True)
    return bool(torn or lost or stuck)


if __name__ == "__main__":
    sys.exit(main())
