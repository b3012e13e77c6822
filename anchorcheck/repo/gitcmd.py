"""Running git on a checkout nobody vetted: read-only plumbing that can start no other program.

anchorcheck promises that nothing is executed. Git itself, though, starts
programs when a repository asks it to: `core.fsmonitor`, filter drivers
named in `.gitattributes` (run whenever git hashes a work-tree file, even in
`git diff-files`), textconv and external diff drivers, hooks such as
`post-index-change`, ssh and credential helpers for the lazy fetch of a
partial clone, a pager. And a caller's environment can redirect it
(`GIT_DIR`, `GIT_EXTERNAL_DIFF`, `GIT_CONFIG_PARAMETERS`, ...). So every git
run here:

- starts from the caller's environment with every `GIT_*` variable removed;
- passes `-c` settings (the command line overrides every configuration
  file, included ones too) that turn each of those programs off, and empties
  the filter drivers the configuration defines (`driver_overrides`);
- never writes: no optional locks, so no index refresh and no hook after it;
- is bounded by a timeout, then killed and reaped, and any run still going
  when Python exits is killed as well. It stays in the caller's process
  group, so that a signal to the group (Ctrl-C, a CI job cancelled) reaches
  it too; with every program above switched off, git starts no child of its
  own that could outlive it.

Git is pointed at a private git directory (`anchorcheck.repo.gitview`), so it
never opens the repository's own configuration files. The user's own global
and system configuration are still read (no repository can write them), and
nothing in them can start a program past the overrides. With `GIT_DIR` given,
git does not ask `safe.directory` (a checkout owned by another user, as in
many CI containers, still works). See docs/security.md.
"""

from __future__ import annotations

import atexit
import codecs
import os
import re
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

GIT_TIMEOUT = 60.0
_PIECE = 1 << 16  # bytes of a streamed run's output handed to its reader at a time
# Past this, a slow run is asked whether it is blocked on something it will never finish reading (a FIFO).
STALL_CHECK_AFTER = 1.0

_SETTINGS = (
    "core.fsmonitor=false",
    f"core.hooksPath={os.devnull}",
    "core.untrackedCache=false",
    "core.pager=cat",
    "core.sshCommand=false",
    "core.askPass=false",
    "credential.helper=",
    "protocol.allow=never",  # no transport at all: a partial clone cannot lazily fetch (ssh, helpers)
    "diff.external=",
    "safe.bareRepository=explicit",  # a bare repository committed inside the tree is never picked up
    "gc.auto=0",
    "maintenance.auto=false",
    "log.showSignature=false",  # `git log` would run gpg on every signed commit
)
HARDENING: tuple[str, ...] = tuple(arg for setting in _SETTINGS for arg in ("-c", setting))
_DRIVER_KEYS = ("clean", "smudge", "process")
_DRIVER = re.compile(r"^filter\.(.+)\.(clean|smudge|process|required)$", re.DOTALL)
# What the caller's environment may not pass on to git besides every GIT_* variable.
_DROPPED = frozenset({"PAGER", "EDITOR", "VISUAL", "SSH_ASKPASS"})


def environment(view: Mapping[str, str]) -> dict[str, str]:
    """The caller's environment without GIT_* variables, plus the variables of a checkout's private
    git directory (`view`) and the settings that keep git read-only."""
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("GIT_") and k.upper() not in _DROPPED}
    env.update(view)
    env.update(
        GIT_OPTIONAL_LOCKS="0",  # never refresh and write the index (and so no post-index-change hook)
        GIT_TERMINAL_PROMPT="0",
        GIT_PAGER="cat",
        GIT_NO_REPLACE_OBJECTS="1",  # blob ids name the bytes stored, not a replacement
        GIT_NO_LAZY_FETCH="1",  # git >= 2.44; older ones are stopped by protocol.allow=never
        LC_ALL="C",
        GIT_FLUSH="0",  # whole blocks into the pipe, not one write per commit of a `git log`
    )
    return env


def driver_overrides(config_names: str) -> tuple[str, ...] | None:
    """`-c` arguments emptying every filter driver in `git config --null --name-only --list` output.

    Git offers no switch to ignore `.gitattributes`, so the drivers it could
    start are disarmed by name: an empty `process` and `clean`/`smudge` make
    git use the content as it is, and `required=false` keeps it from failing.
    None when a driver's name cannot be written in a `-c` argument (an `=`
    in it): then git must not be run on this checkout at all.
    """
    names = set()
    for entry in config_names.split("\0"):
        match = _DRIVER.match(entry)
        if match:
            names.add(match.group(1))
    overrides: list[str] = []
    for name in sorted(names):
        if "=" in name:
            return None
        for key in _DRIVER_KEYS:
            overrides += ["-c", f"filter.{name}.{key}="]
        overrides += ["-c", f"filter.{name}.required=false"]
    return tuple(overrides)


def run(
    root: Path,
    commands: Sequence[Sequence[str]],
    config: Sequence[str] = (),
    *,
    view: Mapping[str, str],
    timeout: float = GIT_TIMEOUT,
    stalled: Callable[[], str | None] | None = None,
    each: Callable[[int, str | None], None] | None = None,
) -> list[str | None]:
    """Run git commands side by side in `root`; each one's stdout, or None when it failed or was stopped.
    `each(i, output)` hears of the i-th command's output as soon as it is read, before the later ones.

    `view` is the variables naming the checkout's private git directory
    (`anchorcheck.repo.gitview`): no git runs without one. `config` is more `-c`
    arguments (the filter overrides). When a run takes
    longer than STALL_CHECK_AFTER seconds, `stalled()` may name a reason it
    will never finish (a FIFO where git reads a file): then every run is
    stopped at once instead of at the timeout. GitStopped says that runs were
    stopped (killed and reaped): git is not worth asking again on this checkout.
    """
    env = environment(view)
    started: list[subprocess.Popen[bytes] | None] = []
    try:
        for args in commands:
            started.append(_spawn(["git", "--no-pager", *HARDENING, *config, "-C", str(root), *args], env))
        watch = _Watch(timeout, stalled)
        results: list[str | None] = []
        for at, proc in enumerate(started):
            results.append(None if proc is None else _output(proc, watch))
            if each is not None and not watch.stopped:
                each(at, results[-1])
        if watch.stopped:
            raise GitStopped(watch.stopped)
        return results
    finally:
        for proc in started:
            if proc is not None:
                _stop(proc)


class Stream:
    """One git run read as git writes it: a walk of history that the reader stops as soon as it has its
    answers. The run is stopped (killed and reaped) when the reader closes it, or `seconds` after it began;
    then `cut` is True. `failed`: git did not run, or ended in an error (known once it was read whole)."""

    def __init__(self, root: Path, args: Sequence[str], config: Sequence[str] = (), *, view: Mapping[str, str], seconds: float) -> None:
        self.cut = False
        self._proc = _spawn(["git", "--no-pager", *HARDENING, *config, "-C", str(root), *args], environment(view))
        self.failed = self._proc is None
        self._timer = threading.Timer(max(0.0, seconds), self._expire)
        self._timer.daemon = True
        if self._proc is not None:
            self._timer.start()

    def _expire(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self.cut = True
            self._proc.kill()  # the reader sees the end of the output; `close` reaps it

    def __iter__(self) -> Iterator[str]:
        """The output in pieces as git writes them (UTF-8, undecodable bytes kept as surrogates)."""
        if self._proc is None or self._proc.stdout is None:
            return
        decoder = codecs.getincrementaldecoder("utf-8")(errors="surrogateescape")
        while chunk := self._proc.stdout.read(_PIECE):
            yield decoder.decode(chunk)
        yield decoder.decode(b"", final=True)
        self.failed = self._proc.wait() != 0 and not self.cut

    def close(self) -> None:
        self._timer.cancel()
        if self._proc is not None:
            _stop(self._proc)

    def __enter__(self) -> Stream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class GitStopped(Exception):
    """Git runs were stopped: past the timeout, or blocked on a file they would never finish reading."""


class _Watch:
    """The time left to a set of runs, and the one early look at whether they are stuck."""

    def __init__(self, timeout: float, stalled: Callable[[], str | None] | None) -> None:
        now = time.monotonic()
        self.stopped = ""
        self.end = now + timeout
        self.stalled = stalled
        self.check_at = now + STALL_CHECK_AFTER if stalled is not None else None

    def next_wait(self) -> float:
        target = self.end if self.check_at is None else min(self.end, self.check_at)
        return max(0.0, target - time.monotonic())

    def keep_waiting(self) -> bool:
        """False past the timeout, or once `stalled` names a reason (then every later run is stopped too)."""
        if self.check_at is None or self.stalled is None or time.monotonic() >= self.end:
            return False
        self.check_at = None
        blocking = self.stalled()
        if blocking:
            self.stopped = f"git stopped: it would wait forever on {blocking}, which is no regular file"
            self.end = time.monotonic()
            return False
        return True


def _output(proc: subprocess.Popen[bytes], watch: _Watch) -> str | None:
    while True:
        try:
            out, _ = proc.communicate(timeout=watch.next_wait())
        except subprocess.TimeoutExpired:
            if watch.keep_waiting():
                continue
            _stop(proc)
            watch.stopped = watch.stopped or f"git stopped after {GIT_TIMEOUT:.0f} s"
            return None
        return out.decode("utf-8", errors="surrogateescape") if proc.returncode == 0 else None


_live: set[subprocess.Popen[bytes]] = set()
_live_lock = threading.Lock()


def _spawn(argv: list[str], env: dict[str, str]) -> subprocess.Popen[bytes] | None:
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
    except OSError:
        return None
    with _live_lock:
        _live.add(proc)
    return proc


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Kill a run unless it has ended, then reap it."""
    if proc.returncode is None and proc.poll() is None:
        proc.kill()
        try:
            proc.communicate(timeout=5)
        except (subprocess.SubprocessError, ValueError, OSError):  # at exit, a reader thread may hold its pipes
            proc.wait()
    with _live_lock:
        _live.discard(proc)


@atexit.register
def _stop_all() -> None:
    """A run still going when Python exits (a background listing never joined) is not left behind."""
    with _live_lock:
        running = list(_live)
    for proc in running:
        _stop(proc)

