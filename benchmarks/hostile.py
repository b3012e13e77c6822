"""A fuzzing campaign against every parser anchorcheck runs on a repository's files (issue 17).

    python benchmarks/hostile.py [--inputs 20000] [--only lang:,runner:] [--skip ...] [--jobs 2] [--timeout 10] [--out DIR]

For each target of tests/_fuzz_targets.py (memory formats, anchor grammar, lock, config,
every manifest and lockfile reader, the env-config readers, tree-sitter fact extraction
per language, every command runner) it runs `--inputs` inputs: a quarter generated from nothing,
the rest real files (../shared/corpora and the project's corpora/) mutated. The `shape:` targets
(issue 25: make, Taskfile, cargo, npm, just, tox and nox configurations through `cmd:` anchors,
and Markdown read with its implicit references) generate every input from
tests/_hostile_shapes.py: pattern-rule chains, self-includes, wildcards, alias bombs, alias
chains, brace expansions, lines of code spans, tables of pipes; one in four damaged. Inputs run one at a time in
a worker process with an address-space cap, so a crash is a signal the parent sees, a
hang is an input the worker has not finished after `--timeout` seconds (the worker is
killed and a new one goes on with the next input), and an uncaught exception is any
error but the parser's documented one. Each failing input is saved under `--out`.

Printed per target: inputs run, crashes (signals), hangs, uncaught exceptions, and the
peak resident memory of its workers (the interpreter with every plugin loaded is about
60 MiB of that). Targets: 0 crashes, 0 hangs, peak <= 256 MiB.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import select
import subprocess
import sys
import tempfile
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the target table lives beside the tests

from tests._fuzz_targets import Target, exercise, mutate, targets  # noqa: E402

STARTUP = 300.0  # seconds a worker may take to import everything on a loaded machine: not an input's time
ADDRESS_SPACE = 4 << 30  # a worker past this gets MemoryError (reported), not the machine's swap


def input_for(target: Target, seed: int, index: int) -> bytes:
    """Input `index` of a target: the same bytes in every run with the same seed, so any failure replays."""
    rng = random.Random(f"{seed}:{target.name}:{index}")
    if index % 4 == 0 or not target.seeds:
        return target.generate(rng)
    return mutate(rng, rng.choice(target.seeds))


# -- the worker: runs inputs START..END of one target, reporting each on stdout --------------------------------


def work(name: str, start: int, end: int, seed: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
    target = next(t for t in targets() if t.name == name)
    out = sys.stdout
    out.write("R\n")  # ready: imports done and seeds read, the per-input clock starts now
    out.flush()
    memory = Path("/dev/shm")  # a RAM file system where there is one: each input is a file write and a read
    with tempfile.TemporaryDirectory(dir=memory if memory.is_dir() else None) as scratch:
        root = Path(scratch)
        for index in range(start, end):
            data = input_for(target, seed, index)
            out.write(f"S {index}\n")
            out.flush()
            try:
                exercise(target, root, data)
            except BaseException as exc:  # noqa: BLE001 - anything but the documented error is the finding
                where = traceback.extract_tb(exc.__traceback__)[-1]
                out.write(f"E {index} {type(exc).__name__} {Path(where.filename).name}:{where.lineno} {str(exc)[:100]!r}\n")
            out.write(f"D {index}\n")
            out.flush()


# -- the parent ---------------------------------------------------------------------------------------------


@dataclass
class Tally:
    target: str
    inputs: int = 0
    crashes: list[str] = field(default_factory=list)
    hangs: list[str] = field(default_factory=list)
    exceptions: dict[str, int] = field(default_factory=dict)
    peak_kib: int = 0
    seconds: float = 0.0


def campaign(target: Target, count: int, seed: int, timeout: float, out: Path) -> Tally:
    """Run inputs 0..count of one target, a new worker after each crash or hang."""
    tally = Tally(target.name)
    started, index = time.monotonic(), 0
    while index < count:
        worker = subprocess.Popen(
            [sys.executable, __file__, "--worker", target.name, str(index), str(count), str(seed)],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )
        assert worker.stdout is not None
        current, hung, ready = index, False, False  # the input being run (or next to run)
        while True:
            if not select.select([worker.stdout], [], [], timeout if ready else STARTUP)[0]:
                worker.kill()
                hung = True
                break
            line = worker.stdout.readline()
            if not line:
                break  # the worker ended: done, or killed by a signal
            kind, _, rest = line.rstrip("\n").partition(" ")
            ready = True
            if kind == "S":
                current = int(rest)
            elif kind == "D":
                tally.inputs += 1
                current = int(rest) + 1
            elif kind == "E":
                number, _, what = rest.partition(" ")
                key = " ".join(what.split(" ")[:2])
                tally.exceptions[key] = tally.exceptions.get(key, 0) + 1
                if tally.exceptions[key] == 1:
                    _save(out, target, seed, int(number))
        _, status, usage = os.wait4(worker.pid, 0)
        tally.peak_kib = max(tally.peak_kib, usage.ru_maxrss)
        code = os.waitstatus_to_exitcode(status)
        if hung:
            tally.hangs.append(_save(out, target, seed, current))
        elif code != 0:
            if current == index and tally.inputs == 0 and code > 0:
                raise RuntimeError(f"the worker for {target.name} fails to start (exit {code})")
            tally.crashes.append(f"{'signal ' + str(-code) if code < 0 else 'exit ' + str(code)}: " + _save(out, target, seed, current))
        else:
            break
        tally.inputs += 1  # the input that crashed or hung was run too
        index = current + 1
    tally.seconds = time.monotonic() - started
    return tally


def _save(out: Path, target: Target, seed: int, index: int) -> str:
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{target.name.replace(':', '_').replace('/', '_')}-{seed}-{index}"
    path.write_bytes(input_for(target, seed, index))
    return str(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=20_000, help="inputs per target")
    parser.add_argument("--only", default="", help="run only targets whose name starts with one of these (comma-separated)")
    parser.add_argument("--skip", default="", help="leave out targets whose name starts with one of these (comma-separated)")
    parser.add_argument("--jobs", type=int, default=2, help="targets fuzzed at once")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds one input may take")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "anchorcheck-hostile")
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        name, start, end, seed = args.worker
        work(name, int(start), int(end), int(seed))
        return
    only, skip = tuple(args.only.split(",")), tuple(p for p in args.skip.split(",") if p)
    chosen = [t for t in targets() if t.name.startswith(only) and not (skip and t.name.startswith(skip))]
    print(f"{len(chosen)} targets, {args.inputs} inputs each, seed {args.seed}, timeout {args.timeout:g} s, failing inputs in {args.out}")
    print(f"{'target':28} {'inputs':>7} {'crashes':>7} {'hangs':>5} {'uncaught':>8} {'peak MiB':>8} {'seconds':>7}")
    totals = [0, 0, 0, 0]
    with ThreadPoolExecutor(args.jobs) as pool:
        for tally in pool.map(lambda t: campaign(t, args.inputs, args.seed, args.timeout, args.out), chosen):
            uncaught = sum(tally.exceptions.values())
            print(
                f"{tally.target:28} {tally.inputs:7} {len(tally.crashes):7} {len(tally.hangs):5} {uncaught:8} "
                f"{tally.peak_kib / 1024:8.0f} {tally.seconds:7.0f}",
                flush=True,
            )
            for problem in [*tally.crashes, *(f"hang: {h}" for h in tally.hangs), *(f"{n}x {k}" for k, n in tally.exceptions.items())][:5]:
                print(f"    {problem}")
            totals = [totals[0] + tally.inputs, totals[1] + len(tally.crashes), totals[2] + len(tally.hangs), totals[3] + uncaught]
    print(f"{'total':28} {totals[0]:7} {totals[1]:7} {totals[2]:5} {totals[3]:8}")


if __name__ == "__main__":
    main()
