"""Running the real CLI on hostile input: exit status (a signal shows as a negative code), output and peak memory.

Each run is a child process, so a segfault or a SIGBUS kills the child, not the test
session, and `os.wait4` gives that child's own peak resident memory. Time is bounded
by a generous kill timer: these inputs took minutes before they were fixed, and
seconds or less after.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

TIMEOUT = 30.0  # seconds; every input here took over 60 before its fix, and a few at most after
MEMORY_MIB = 256  # the ceiling for what one parse may build


@dataclass
class Run:
    returncode: int  # negative: killed by that signal (-11 SIGSEGV, -7 SIGBUS, -9 our timeout)
    stdout: str
    stderr: str
    peak_mib: float
    timed_out: bool

    def assert_clean(self) -> None:
        """No signal, no timeout, no traceback, output of bounded size, memory under the ceiling."""
        assert not self.timed_out, f"still running after {TIMEOUT} s"
        assert self.returncode >= 0, f"killed by signal {-self.returncode}"
        assert "Traceback" not in self.stderr, self.stderr[-2000:]
        assert len(self.stdout) + len(self.stderr) < 20_000, "output is not bounded"
        assert self.peak_mib < MEMORY_MIB, f"peak memory {self.peak_mib:.0f} MiB"


def run_cli(root: Path, *args: str, timeout: float = TIMEOUT) -> Run:
    """`python -m anchorcheck ARGS` in `root`, its output kept in files (no pipe to fill up)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        child = subprocess.Popen([sys.executable, "-m", "anchorcheck", *args], cwd=root, stdout=out, stderr=err)
        fired = threading.Event()

        def kill() -> None:
            fired.set()
            child.send_signal(signal.SIGKILL)

        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            _, status, usage = os.wait4(child.pid, 0)
        finally:
            timer.cancel()
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0), err.seek(0)
        return Run(
            child.returncode,
            out.read().decode("utf-8", "replace"),
            err.read().decode("utf-8", "replace"),
            usage.ru_maxrss / 1024,  # KiB on Linux
            fired.is_set(),
        )
