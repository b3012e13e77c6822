"""`anchorcheck serve` — answer this checkout's `anchorcheck check` from a process that stays.

A check answered by the server skips the start-up of a new process (the
imports are most of a check: docs/benchmarks.md) and reads only what changed
since its last answer; its output and exit code are a new process's
(`anchorcheck.serve.checkserver`). `anchorcheck check` uses a running server by
itself; `check --server` starts one in the background when none runs. The
server exits after `--idle` seconds without a check.
"""

from __future__ import annotations

import argparse
import sys
import time

from anchorcheck.serve.checkclient import ANSWER_TIMEOUT, DEFAULT_IDLE, NO_SERVER, address, request, spawn
from anchorcheck.cli import run_command
from anchorcheck.serve.checkserver import CheckServer, ServerError
from anchorcheck.cli.common import UsageError, add_root, root_of, seconds

_READY_WAIT = 30.0  # seconds one status request waits for its answer


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("serve", help="answer this checkout's `check` from a process that stays (faster hooks)")
    add_root(parser)
    parser.add_argument("--idle", type=seconds("idle time"), default=DEFAULT_IDLE, metavar="SECONDS", help=f"exit after this long without a check (default {DEFAULT_IDLE:g})")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--detach", action="store_true", help="run in the background; return once it answers")
    what.add_argument("--stop", action="store_true", help="stop the checkout's server")
    what.add_argument("--status", action="store_true", help="say whether a server runs for the checkout (exit 1 if not)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import os

    root = os.path.realpath(root_of(args))
    where = address(root)
    if where is None:
        raise UsageError(f"{root}: {NO_SERVER}")
    status = _status(where)
    if args.status:
        if status is None:
            print(f"anchorcheck: no server runs for {root}")
            return 1
        print(f"anchorcheck: serving {root}: pid {status['pid']}, {status['served']} check{'' if status['served'] == 1 else 's'} answered, up {status['up']:g} s, exits after {status['idle']:g} s idle")
        return 0
    if args.stop:
        if status is None:
            print(f"anchorcheck: no server runs for {root}")
            return 0
        request(where, {"stop": True})
        print(f"anchorcheck: stopped the server of {root} (pid {status['pid']})")
        return 0
    if status is not None:
        print(f"anchorcheck: a server already runs for {root} (pid {status['pid']})", file=sys.stderr)
        return 0
    if args.detach:
        return _detach(root, where, args.idle)
    try:
        served = CheckServer(root, args.idle, run=run_command).serve(ready=lambda: print(f"anchorcheck: serving {root} (pid {os.getpid()}); exits after {args.idle:g} s idle", flush=True))
    except ServerError as exc:
        raise UsageError(str(exc)) from None
    if not served:
        print(f"anchorcheck: a server already runs for {root}", file=sys.stderr)
    return 0


def _status(where: str, timeout: float = _READY_WAIT) -> dict[str, object] | None:
    try:
        return request(where, {"status": True}, timeout=timeout)
    except (OSError, ValueError):
        return None


def _detach(root: str, where: str, idle: float) -> int:
    """Start a server and wait for its first answer, which comes once it has checked the checkout's
    memories (clients queue meanwhile): as long as that takes on a large checkout, while it runs."""
    process = spawn(root, idle)
    deadline = time.monotonic() + ANSWER_TIMEOUT
    while (left := deadline - time.monotonic()) > 0:
        status = _status(where, min(left, _READY_WAIT))
        if status is None and process.poll() is not None:
            status = _status(where)  # it found another server's lock held: that one answers
            if status is None:
                raise UsageError(
                    f"the server started for {root} exited with code {process.returncode} before answering "
                    "(`anchorcheck serve` in the foreground says why)"
                )
        if status is not None:
            print(f"anchorcheck: serving {root} (pid {status['pid']}); exits after {idle:g} s idle")
            return 0
        time.sleep(0.05)
    raise UsageError(f"the server started for {root} (pid {process.pid}) did not answer within {ANSWER_TIMEOUT:g} s")
