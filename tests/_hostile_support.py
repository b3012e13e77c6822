"""Running the real CLI on hostile input: exit status (a signal shows as a negative code), output and peak memory.

Each run is a child process, so a segfault or a SIGBUS kills the child, not the test
session, and `os.wait4` gives that child's own peak resident memory. Time is bounded
by a generous kill timer: these inputs took minutes before they were fixed, and
seconds or less after.
"""

from __future__ import annotations

import base64
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
    cpu_seconds: float  # the child's user and system time: what a loaded machine's clock does not inflate

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
            usage.ru_utime + usage.ru_stime,
        )


# A 1,072-byte input the campaign generated on which tree-sitter-typescript's TSX parser never
# returns. It holds NUL bytes, so a file is made of it behind 8 KB of comments: git's binary
# heuristic (a NUL in the first 8,000 bytes) would otherwise rule the file out unparsed.
LOOPING_TSX = b"import os from 'os'\n" + b"// padding\n" * 800 + base64.b64decode(
    "RLLdFFvxYwLh0A5mwC/mP1uG3W2j5s+kfmqwy8sg7UZOmFD0liFNTgIsLGB8ZX/EYDrjrVNiv7+TEcrq3xL7JHpAlxVw9uy3R7zH"
    "iuJ94gFf9/uiEX9zWUKoXcFSFWbcnTAsxmcjy3sMtT3ni090djoAfCMWRNaXRQO09m7gQOayG6s8LFCORDATHcii3Aa7UuKWLCzN"
    "3H9xT5J9GwDCM4rKqJeMegV8zCZKrHUxFUjcKArXEWvNzveU+kWfRjvEBXMqoyD3LA+huyaKgbP/Q7q2WL2S3sNfxakZCUaVF+4v"
    "YGh+VbdEiuyip6WVBv4yQRkvBMCEp2rVn+gC4xoeM+kbgDkRZmc87RjSlboaT3wK0CmXm9y4w8uCr/gjpgCwoRWkD2eq/i0lTpQu"
    "AKwrz1Ni7Oh+y3okNAng7e7mrH6b6Rqmox8ZQwI43S3jIxCyp44HQ4DCWW/1FdY0yK4RlcUDL8qbekFOO41pVDEHqd0pOUaOHpd7"
    "aMlp2EL0MO8bx7XZy921vVxtwM99lCo8MF9OLPbPlgz8EOIbcoMpPJuEQn4RuNg5WCx4S7rNQa9+obLmbh5PMqA4V8DyNCsz5KPy"
    "qXzIThcz7fx1dcN/xKFenVas3Qsj0RBnt9wY51hDrbAKDKO/IxDf68yuV/JMF9Je4LUtP70NodCVw/gNi4D9Br4OelilES8KHi41"
    "h5BOXZb3+ipPx2xOZKWsjGckcNeRVI3S3f+no+MkSubWolEBGfHZIK2kOUcvQ5Fbk4iTa5KaOkuLyOobj7q18LYYaz0jmk4Domrc"
    "Y+cWcSQPPvePkhxEHUsomDT0bCUoIa3Vsbg523WIfXYV0kPBTaDJxowwQjRdUUxWjQR05D+82wP/Cwjf9BLFSuOiBjWZEBOu2rJ8"
    "w4NigbmPu+xs2H3Nc1JSASzzDUXx5SWSmR0mlgtp+3JCdD9saewVIPbnAPYpRwIGG4uUUB4ErcbunrNhWNdlVvbHwXeFTbljOEeE"
    "gYoC8Hb9wHaqGk6sqZZTzE/2fS+hz3XhUQYz2NW/nnDuwOMBmHU/fTg99S6n6FB9BgMndkywqghKdTHFxKF42709NExgcgI2AFE/"
    "EvonFlk0VgsqsptbRhukdjpvceepBX9lkckKJVOTds41/VpaUiuCt9hK6f/eFCTMY3R2MSoOcQWgmuUSTDG1yNN5f3jDENOstIMK"
    "rFHII/1MdTz12Ks4lNcQ8yGcJxki68zo6V6K56HKpNo4fLAOiu6RYU5fuk+/kFk97+AH84C8pAABIvXHHn4bSvB4RbneRQw7+gHf"
    "RGRqn3GXrx6K4C5Hw4vyQ5daXyKxjeEtAkJiYBwEKbue1y/7l2zYPlNeqfMPhSbSQN6HoSCcxkIMKSdwgt3bLzCNllmxKaRpCqz/"
    "UMT57/z/tslfYZiS/LfRinJSygpJNA=="
)
