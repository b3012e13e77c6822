"""`anchorcheck serve`: one checkout's `check`, answered by a process that stays.

The server listens on the socket `anchorcheck.serve.checkclient.address` names for
the checkout, in a folder of the user's cache directory only the user may
enter, and answers one `check` at a time with the same code path as the
command (`anchorcheck.cli.run_command`): the words, working directory and
terminal are the client's, the output is kept and sent back whole. What
stays between answers is a resident Verifier per set of options: its first
look watched the checkout, and before each answer it revalidates what it
cached (`Verifier.refresh`): edits, new and deleted files, a new commit or
branch, a changed configuration are seen, and only what changed is read
again. The memory files and the lock are read anew for each answer, as
a new process reads them.

It refuses, and the client checks in its own process, where its answer
could differ from a new process's: the code on disk changed since it
started (an upgrade, an edited source of an editable install; the server
then exits), a plugin warned (a new process prints the warning at each
run), or the words name another checkout. It never stores a report for a
replay (its Verifier's listing is of an earlier state). It exits after
`idle` seconds without a request, when told to (`anchorcheck serve --stop`),
or on SIGTERM, removing its socket; a second server for the same socket
finds the first one's lock held and exits at once.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import socket
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from typing import Any

from anchorcheck.serve.checkrequest import BadRequest, CheckRequest
from anchorcheck.serve.checkclient import DEFAULT_IDLE, NO_SERVER, peer_uid, private_folder, receive, servers_folder, socket_at, surroundings, umask
from anchorcheck.base.codesig import ANCHORCHECK, fingerprint, plugin_sources, signature_now
from anchorcheck.base.entrypoints import entry_points
from anchorcheck.verify.loading import ENTRY_POINT_GROUP
from anchorcheck.verify.verifier import Verifier

_MAX_REQUEST = 1024 * 1024  # bytes: words, a working directory and a terminal
_REQUEST_TIMEOUT = 10.0  # seconds a client has to send its request, and to take its answer (a stopped one blocks no other)


class ServerError(Exception):
    """Why no server can run here (printed as one line by `anchorcheck serve`)."""


class _Captured(io.TextIOBase):
    """A stream that keeps what is written to it, in order with the other stream, and reports the
    client's terminal: a check colours its report only where the client's stdout is a terminal."""

    def __init__(self, name: str, events: list[list[str]], tty: bool, encoding: str | None) -> None:
        self._name, self._events, self._tty, self._encoding = name, events, tty, encoding

    def write(self, text: str) -> int:
        self._events.append([self._name, text])
        return len(text)

    def isatty(self) -> bool:
        return self._tty

    @property
    def encoding(self) -> str | None:  # type: ignore[override]
        return self._encoding


class CheckServer:
    """The server of one checkout (see the module's docstring)."""

    def __init__(self, root: str, idle: float = DEFAULT_IDLE, *, run: Callable[..., int]) -> None:
        """`run(argv, verifiers=...)` runs one command as the CLI does (`anchorcheck.cli.run_command`): the
        layer above hands it in, so serving imports no command line."""
        self.root = os.path.realpath(root)
        self._run = run
        folder = servers_folder(self.root)
        self._surroundings = json.loads(json.dumps(surroundings(self.root)))  # as a client's arrives: lists, not tuples
        where = None if folder is None else socket_at(folder, self._surroundings)
        if where is None:
            raise ServerError(f"{self.root}: {NO_SERVER}")
        self.address = where
        self.idle = idle
        self.served = 0
        self.started = time.time()
        self._verifiers: dict[tuple[bool], Verifier] = {}
        # The code that answers as it is on disk now, before any of it is imported: anchorcheck's and every
        # installed plugin's, whichever a configuration chooses (in this directory: a relative entry of
        # `sys.path` is relative to it, and a check runs in its client's).
        modules = [entry.value for entry in entry_points(ENTRY_POINT_GROUP).get(ENTRY_POINT_GROUP, [])]
        self._places = [ANCHORCHECK, *(plugin_sources(modules) or [])]
        self._code = self._code_now()
        self._warned = False
        self._stopping = False
        self._pid = os.getpid()  # the server's own process, not a worker a check forks

    def serve(self, ready: Any = None) -> bool:
        """Listen until idle, stopped or terminated; False at once when another server holds the socket.
        `ready` is called once the socket accepts connections."""
        import fcntl

        folder = os.path.dirname(self.address)
        os.makedirs(folder, mode=0o700, exist_ok=True)
        if not private_folder(folder):
            raise ServerError(f"{folder}: not a folder only this user may enter")
        path = f"{self.address}.lock"
        lock = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            try:
                # A POSIX lock, the process's own: a worker a check forks (a `--deadline`'s pool) does not
                # inherit it, as it would an flock, and one outliving the server cannot keep the next from starting.
                fcntl.lockf(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return False  # another server answers for this checkout
            if not _same_file(lock, path):
                return False  # a server removed this lock file as it exited: the next check starts one anew
            try:
                with contextlib.suppress(_Terminated), self._listening() as listener:
                    if ready is not None:
                        ready()
                    self._loop(listener)
            finally:
                # Removed while still held, so lock files do not pile up, one per checkout ever served; a
                # server that opened it meanwhile sees it is gone (`_same_file`) and does not run.
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path)
            return True
        finally:
            os.close(lock)

    @contextlib.contextmanager
    def _listening(self) -> Iterator[socket.socket]:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.address)  # a socket left by a server that was killed: the lock says none runs
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        previous = signal.signal(signal.SIGTERM, self._terminate) if _main_thread() else None
        try:
            mask = os.umask(0o177)
            try:
                listener.bind(self.address)
            finally:
                os.umask(mask)
            listener.listen(16)
            yield listener
        finally:
            listener.close()
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.address)
            if previous is not None:
                signal.signal(signal.SIGTERM, previous)

    def _terminate(self, signum: int, frame: Any) -> None:
        if os.getpid() != self._pid:  # a worker a check forked inherited this handler: it ends as a worker ends
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        raise _Terminated  # through `_listening`'s cleanup, past a check's own handlers: the socket goes with the process

    def _loop(self, listener: socket.socket) -> None:
        listener.settimeout(self.idle)
        shown = warnings.showwarning
        warnings.showwarning = self._warning(shown)
        try:
            # A first check while no one waits (clients queue meanwhile): the plugins, grammars and facts
            # this checkout's memories need are loaded before the first answer is asked for.
            self._check(CheckRequest([], self.root, umask(), 80, False, "utf-8", "utf-8"), self._surroundings)
            self.served = 0
            while not self._stopping:
                try:
                    conn, _ = listener.accept()
                except socket.timeout:
                    return  # idle: the next check starts a new process or server
                with conn:
                    try:
                        self._answer(conn)
                    except (OSError, ValueError, KeyError, TypeError, IndexError, RecursionError):
                        continue  # a client that went away or sent garbage costs only its own answer
        finally:
            warnings.showwarning = shown

    def _warning(self, show: Any) -> Any:
        def shown(*args: Any, **kwargs: Any) -> None:
            self._warned = True
            show(*args, **kwargs)

        return shown

    def _answer(self, conn: socket.socket) -> None:
        if peer_uid(conn) not in (None, os.getuid()):
            return
        conn.settimeout(_REQUEST_TIMEOUT)
        try:
            message = json.loads(receive(conn, _MAX_REQUEST))
            if not isinstance(message, dict):
                raise BadRequest("not a JSON object")
            if message.get("stop"):
                self._stopping = True
                reply: dict[str, Any] = {"stopped": os.getpid()}
            elif "status" in message:
                reply = self.status()
            else:
                reply = self._check(CheckRequest.read(message), message.get("surroundings"))
        except (BadRequest, ValueError, RecursionError) as exc:  # not JSON, too deep, too large, of the wrong shape
            reply = {"refused": f"bad request: {exc}"}
        conn.sendall(json.dumps(reply).encode("utf-8", "surrogateescape"))
        # The end of the answer, whoever else holds the connection: worker processes forked during the check
        # (a `--deadline`'s pool, kept by the resident Verifier) inherited it, and closing it here alone
        # left the client waiting for the end.
        conn.shutdown(socket.SHUT_RDWR)

    def status(self) -> dict[str, Any]:
        return {"pid": os.getpid(), "root": self.root, "served": self.served, "up": round(time.time() - self.started, 1), "idle": self.idle}

    def _check(self, request: CheckRequest, around: object) -> dict[str, Any]:
        if around != self._surroundings:
            return {"refused": "another interpreter, environment or checkout"}
        if self._code != self._code_now():
            self._stopping = True
            return {"refused": "the code changed since the server started"}
        events: list[list[str]] = []
        argv, cwd, mask, width = request.argv, request.cwd, request.umask, request.width
        tty, out_encoding, err_encoding = request.tty, request.out_encoding, request.err_encoding
        streams, here = (sys.stdout, sys.stderr), _working_directory()
        sys.stdout = _Captured("out", events, tty, out_encoding)  # type: ignore[assignment]
        sys.stderr = _Captured("err", events, False, err_encoding)  # type: ignore[assignment]
        try:
            try:
                os.chdir(cwd)
            except OSError as exc:
                return {"refused": f"bad request: cwd: {exc.strerror}"}
            try:
                with _as_client(width, mask):
                    code = self._run(["check", *argv], verifiers=self._verifier)
            except SystemExit as exit:  # argparse: a usage error or --help, printed to the captured streams
                code = exit.code if isinstance(exit.code, int) else 2
            except _Refusal as refusal:
                return {"refused": str(refusal)}
            except Exception as exc:  # noqa: BLE001 - a new process shows the traceback; this one may be amiss
                self._stopping = True
                return {"refused": f"the server failed: {type(exc).__name__}: {exc}"}
        finally:
            sys.stdout, sys.stderr = streams
            os.chdir(here)
            if self._warned:  # the warning is a new process's to print, at every run: this one stops
                self._stopping = True
        if self._warned:
            return {"refused": "a plugin warned: a new process prints the warning at each run"}
        self.served += 1
        return {"out": events, "exit": code}

    def _verifier(self, root: str, cache: bool) -> Verifier:
        """The resident Verifier for this checkout and these options, brought up to date with the disk."""
        if os.path.realpath(root) != self.root:
            raise _Refusal(f"{root} is not the checkout this server answers for ({self.root})")
        key = (cache,)
        verifier = self._verifiers.get(key)
        if verifier is None:
            verifier = Verifier(self.root, options={"cache": cache, "resident": True})
            self._verifiers[key] = verifier
        verifier.refresh()
        return verifier

    def _code_now(self) -> tuple[list[str], str]:
        """The installed distributions and the sources of anchorcheck and its plugins, as they are on disk
        now (not memoized, unlike `codesig.code_signature`: the code can change under a server)."""
        return fingerprint(), signature_now((), self._places)


class _Refusal(Exception):
    """A request this server must leave to a new process."""


@contextlib.contextmanager
def _as_client(width: int, mask: int) -> Iterator[None]:
    """The client's terminal width and umask while its check runs: help and usage text are laid out for the
    client's terminal (COLUMNS, `anchorcheck.base.width`), and a file it creates (`--receipts`) gets the
    permissions the client's own process would give it, not this one's."""
    before, mask = os.environ.get("COLUMNS"), os.umask(mask)
    os.environ["COLUMNS"] = str(width)
    try:
        yield
    finally:
        os.umask(mask)
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before


def _working_directory() -> str:
    """Where this process works, to come back to after an answer; the root folder when that is gone (the
    checkout it started in, deleted and cloned again: every answer after failed)."""
    try:
        return os.getcwd()
    except OSError:
        return os.sep


class _Terminated(BaseException):
    """SIGTERM: raised where the server is, even inside a check (whose handlers catch `SystemExit` and
    `Exception`), and caught only by `serve`."""


def _same_file(descriptor: int, path: str) -> bool:
    """Whether the open file is still the one at `path` (not unlinked or replaced since it was opened)."""
    try:
        found = os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    held = os.fstat(descriptor)
    return (found.st_dev, found.st_ino) == (held.st_dev, held.st_ino)


def _main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()
