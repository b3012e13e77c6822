"""`anchorcheck check` answered by the checkout's running server, importing no core.

A full check in a new process is mostly the interpreter importing anchorcheck,
its plugins and their libraries (docs/benchmarks.md, "A check after an
edit"). A server (`anchorcheck serve`, `anchorcheck.serve.checkserver`) keeps them
imported, with a resident Verifier per checkout that revalidates what it
cached before each answer. When one runs for the checkout a `check` names,
the command sends it its words, working directory and terminal, prints the
output it gets back and exits with its code; when none runs, or it cannot
answer (the code changed under it, a plugin warned), the check runs in
this process as always.

A server is found by a name that holds everything an answer depends on
outside the checkout: the checkout, the interpreter, and the environment a
check reads (`SURROUNDINGS`: the cache directory, the plugins allowed, the
programs git is found among, `NO_COLOR`). Its socket lives in a folder of
the user's cache directory that only the user may enter; a client talks to
no socket elsewhere (a cache folder inside the checkout, a folder
others can write, a socket not owned by the user: the check runs here),
and on Linux each side checks the other's user id.
"""

from __future__ import annotations

import os
import stat
import sys

TYPE_CHECKING = False  # not `typing`'s: a check answered here imports nothing it can avoid
if TYPE_CHECKING:
    import socket
    import subprocess
    from typing import Any

VERSION = "1"
FOLDER = "servers"
# What a check's answer reads of the environment, besides the checkout: the cache directory (and where
# the default one is), the plugins allowed, git's own configuration, the colour, where the code is
# imported from, where `--claude-memory` finds Claude Code's auto-memory; and which `git` the search
# path finds (not the path itself, which tools such as pre-commit and pyenv prepend to).
SURROUNDINGS = ("ANCHORCHECK_CACHE_DIR", "ANCHORCHECK_PLUGINS", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "HOME", "NO_COLOR", "PYTHONPATH", "CLAUDE_CONFIG_DIR")
MAX_MESSAGE = 64 * 1024 * 1024  # bytes of an answer read back (the replay keeps reports up to 4 M characters)
DEFAULT_IDLE = 600.0  # seconds without a request before a server exits
ANSWER_TIMEOUT = 600.0  # seconds without a byte from the server before the check runs here instead
_PER_PROCESS = ("/dev/", "/proc/")  # where /dev/stdout, /dev/fd/N and /proc/self lead
NO_SERVER = "no server can run here (no Unix sockets, the cache directory inside the checkout, or its path too long)"
_SUN_PATH = 100  # bytes: AF_UNIX addresses are limited to 104-108 by the platform


def ask(argv: list[str]) -> int | None:
    """Print a running server's answer to `anchorcheck check <argv>` and return its exit code; None when
    no server runs for this checkout or it did not answer (the check then runs in this process)."""
    if "--watch" in argv or any(word.startswith("--output") for word in argv):
        return None  # a watch keeps its own resident Verifier; a report to a file is written by the process asked for it
    try:
        root = checkout(argv)
        folder = servers_folder(root) if root is not None else None
        if root is None or folder is None or not any(name.endswith(".sock") for name in os.listdir(folder)) or not private_folder(folder):
            return None  # no server runs at all (a server removes its socket when it exits): nothing to import
        around = surroundings(root)
        where = socket_at(folder, around)
        if where is None or any(os.path.realpath(word.partition("=")[2] or word).startswith(_PER_PROCESS) for word in argv):
            return None  # or `--receipts /dev/stdout`: a file each process has its own of, the server's not this one's
        answer = request(where, {"check": argv, "cwd": os.getcwd(), "terminal": terminal(), "umask": umask(), "surroundings": around})
        events, code = answer["out"], int(answer["exit"])
        texts = [(str(stream), str(text)) for stream, text in events]
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None
    except KeyboardInterrupt:  # Ctrl-C while the server works: as a check in this process ends (anchorcheck.cli)
        return 130
    from anchorcheck.base.printable import printable

    try:
        for stream, text in texts:  # rendered by this user's own server, colours and all
            (sys.stderr if stream == "err" else sys.stdout).write(printable(text, colours=True))
        sys.stdout.flush()
    except OSError as exc:  # a closed pipe: as the check in this process reports it (anchorcheck.cli)
        print(f"anchorcheck: error: {exc}", file=sys.stderr)
        return 2
    return code


def checkout(argv: list[str]) -> str | None:
    """The checkout these words name with `--root`, or the one around the working directory, resolved;
    None when `--root` names no directory (the full check reports that)."""
    from anchorcheck.repo.nearest import nearest_checkout
    from anchorcheck.serve.replay import named_root  # the same look at the words the replay takes

    named = named_root(argv)
    if named is not None:
        return os.path.realpath(named) if os.path.isdir(named) else None
    return nearest_checkout(os.getcwd())


def terminal() -> list[Any]:
    """What the output reads of the terminal: whether stdout is one (colour), the streams' encodings, and
    its width (help and usage text)."""
    from anchorcheck.base.width import columns

    return [sys.stdout.isatty(), sys.stdout.encoding, sys.stderr.encoding, columns()]


def umask() -> int:
    """This process's umask (a file a check creates, `--receipts`, gets its permissions from it)."""
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def surroundings(root: str) -> list[Any]:
    """What a server's answers for `root` depend on outside the checkout: the server compares a client's
    with its own and refuses to answer for other surroundings."""
    interpreter = [os.path.realpath(sys.executable), sys.prefix, sys.version]  # `python` or `python3`: one interpreter
    return [VERSION, root, interpreter, program("git"), {name: os.environ.get(name) for name in SURROUNDINGS}]


def servers_folder(root: str) -> str | None:
    """Where the sockets of servers for `root` live: a folder of the cache folder; None where no server
    may be: no cache folder of this user's own, one inside the checkout, or no Unix sockets."""
    from anchorcheck.repo.cachedir import cache_folder

    if not hasattr(os, "getuid"):
        return None  # no Unix domain sockets to own (Windows): every check runs in its process
    cache = cache_folder()
    if cache is None:
        return None
    cache = os.path.realpath(cache)
    if cache == root or cache.startswith(root.rstrip(os.sep) + os.sep):
        return None  # a socket inside the checkout would be the repository's to place
    return os.path.join(cache, FOLDER)


def address(root: str) -> str | None:
    """The socket of the server for `root` in these surroundings; None where none may be (`servers_folder`),
    or where the address would be too long for a Unix socket."""
    folder = servers_folder(root)
    return None if folder is None else socket_at(folder, surroundings(root))


def socket_at(folder: str, around: list[Any]) -> str | None:
    """The socket in `folder` of the server for these surroundings (`surroundings`); None where the address
    would be too long for a Unix socket."""
    import json
    import zlib

    key = json.dumps(around).encode("utf-8", "surrogateescape")
    name = f"{zlib.crc32(key):08x}{zlib.adler32(key):08x}"  # a name: the server compares the whole surroundings
    where = os.path.join(folder, f"{name}.sock")
    return where if len(os.fsencode(where)) <= _SUN_PATH else None


def program(name: str) -> list[int] | None:
    """The file the search path finds for `name`, as a command run by name would (`shutil.which`'s rule on
    POSIX, without importing shutil), by its size and time rather than its path: git runs a hook with its
    exec-path first on PATH, and on Debian that folder holds a copy of git itself (`/usr/lib/git-core/git`
    beside `/usr/bin/git`): a check in a hook is answered by the server a shell started, and the other way round."""
    for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
        candidate = os.path.join(folder or ".", name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            info = os.stat(candidate)
            return [info.st_size, info.st_mtime_ns]
    return None


def private_folder(path: str) -> bool:
    """Whether `path` is a folder (not a link) of this user that no one else may enter or write; one that is
    there and is not is named in a warning (`anchorcheck.repo.cachedir.usable_folder`)."""
    from anchorcheck.repo.cachedir import usable_folder

    return usable_folder(path, private=True)


def connect(where: str, timeout: float) -> socket.socket:
    """A connection to the server at `where`, after checking that the folder, the socket and the process
    answering are this user's. OSError when there is none (or one not to trust)."""
    if not private_folder(os.path.dirname(where)):
        raise FileNotFoundError(where)
    info = os.lstat(where)  # before `socket` is imported: most checks find no server
    if not stat.S_ISSOCK(info.st_mode) or info.st_uid != os.getuid():
        raise PermissionError(f"{where}: not this user's socket")
    import socket

    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.settimeout(timeout)
        conn.connect(where)
        if peer_uid(conn) not in (None, os.getuid()):
            raise PermissionError(f"{where}: served by another user")
    except BaseException:
        conn.close()
        raise
    return conn


def peer_uid(conn: socket.socket) -> int | None:
    """The user id of the process at the other end (Linux's SO_PEERCRED); None where it cannot be asked."""
    import socket
    import struct

    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return None
    _, uid, _ = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i")))
    return int(uid)


def request(where: str, message: dict[str, Any], timeout: float = ANSWER_TIMEOUT) -> dict[str, Any]:
    """Send one message to the server at `where` and return its answer. ValueError when it refused."""
    import json

    with connect(where, timeout) as conn:
        conn.sendall(json.dumps(message).encode("utf-8", "surrogateescape"))
        conn.shutdown(1)  # SHUT_WR: the message ends here
        answer = json.loads(receive(conn, MAX_MESSAGE))
    if not isinstance(answer, dict) or "refused" in answer:
        raise ValueError(f"the server did not answer: {answer.get('refused') if isinstance(answer, dict) else answer!r}")
    return answer


def receive(conn: socket.socket, limit: int) -> bytes:
    """Everything the other end sends until it stops, at most `limit` bytes (ValueError past it)."""
    chunks, size = [], 0
    while True:
        chunk = conn.recv(1 << 16)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > limit:
            raise ValueError("message too large")
        chunks.append(chunk)


def spawn(root: str, idle: float) -> subprocess.Popen[bytes]:
    """Start a server for `root` in the background, detached from this process and its terminal.
    A server already running keeps the socket: the new one finds its lock held and exits."""
    import subprocess

    # -P: the working directory is not put on the module search path (`-m` would put the checkout's root
    # there, and a module a check imports later, such as a `packaging/` folder in it, would be the checkout's).
    command = [sys.executable, "-P", "-m", "anchorcheck", "serve", "--root", root, "--idle", repr(idle)]
    process = subprocess.Popen(  # noqa: S603 - this interpreter running anchorcheck itself, no shell
        command, cwd=root, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True
    )
    return process
