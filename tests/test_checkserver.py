"""`anchorcheck serve`: a `check` answered by a process that stays says what a new process says.

Real processes throughout: the server is `anchorcheck serve` (detached, or in the foreground), each
check a new `python -m anchorcheck check`, and the reference a check that no server answers (another
cache directory: other surroundings, so another server's name, and none runs there).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from anchorcheck.serve import checkclient
from anchorcheck.cli import run_command
from anchorcheck.serve.checkserver import CheckServer
from tests.conftest import git, init_repo, needs_git, write_tree

pytestmark = [needs_git, pytest.mark.skipif(not hasattr(os, "getuid"), reason="Unix domain sockets only")]

FILES = {
    "src/app/main.py": "import json\nimport os\n\nMODE = os.environ.get('APP_MODE')\n",
    "pyproject.toml": '[project]\nname = "app"\nversion = "1.0"\ndependencies = ["requests>=2"]\n',
    "docs/index.md": "# Docs\n",
    "CLAUDE.md": (
        "# Notes\n\n"
        "- JSON goes through `import:json`; the mode is `env:APP_MODE`.\n"
        "- Caching is Redis: `import:redis`.\n"
        "- HTTP is `pkg:pypi/requests`; docs in `file:docs/index.md`.\n"
        "- The entry point is `src/app/main.py`.\n"
    ),
}
_ELAPSED = re.compile(r"in \d+\.\d+s\.|\"elapsed_seconds\": [0-9.e-]+")


def _run(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "anchorcheck", *args], cwd=root, env=env or dict(os.environ), capture_output=True, text=True, timeout=120)


def _served(root: Path) -> int:
    """How many checks the checkout's server answered; -1 when none runs."""
    where = checkclient.address(os.path.realpath(root))
    assert where is not None
    try:
        return int(checkclient.request(where, {"status": True}, timeout=30)["served"])
    except (OSError, ValueError):
        return -1


@pytest.fixture
def served_repo(tmp_path: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    """A repository with a detached server running for it, and the environment of a check no server answers."""
    root = init_repo(write_tree(tmp_path / "repo", FILES))
    started = _run(root, "serve", "--detach", "--idle", "120")
    assert started.returncode == 0, started.stderr
    reference = {**os.environ, "ANCHORCHECK_CACHE_DIR": str(tmp_path / "reference-cache")}
    try:
        yield root, reference
    finally:
        _run(root, "serve", "--stop")


def _same_answer(root: Path, reference: dict[str, str], *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    before = _served(root)
    answered, fresh = _run(cwd or root, "check", *args), _run(cwd or root, "check", *args, env=reference)
    assert _served(root) == before + 1, "the server did not answer"
    assert (answered.returncode, _ELAPSED.sub("", answered.stdout), answered.stderr) == (fresh.returncode, _ELAPSED.sub("", fresh.stdout), fresh.stderr)
    return answered


def test_a_server_answers_each_check_as_a_new_process_would(served_repo: tuple[Path, dict[str, str]]) -> None:
    root, reference = served_repo
    first = _same_answer(root, reference)
    assert first.returncode == 1 and "import:redis" in first.stdout
    assert json.loads(_same_answer(root, reference, "--format", "json").stdout)["summary"]["anchors"]["REFUTED"] == 1

    (root / "src/app/cache.py").write_text("import redis\n")  # a new file: the memory holds now
    assert _same_answer(root, reference).returncode == 0
    (root / "src/app/main.py").write_text("import json\n")  # an edit: the env read is gone
    assert "env:APP_MODE" in _same_answer(root, reference).stdout
    (root / "docs/index.md").unlink()  # a deletion
    assert "file:docs/index.md" in _same_answer(root, reference).stdout
    (root / "pyproject.toml").write_text('[project]\nname = "app"\nversion = "1.0"\ndependencies = []\n\n[tool.anchorcheck]\nfail-on = "inconclusive"\n')
    _same_answer(root, reference, "-v")  # the manifest and the configuration
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "edits")
    git(root, "checkout", "-q", "-b", "old", "HEAD~1")  # another branch: every file as it was
    assert _same_answer(root, reference).returncode == 1
    (root / "CLAUDE.md").write_text("# Notes\n\n- `import:json` only.\n")  # the memory file itself
    assert _same_answer(root, reference, "CLAUDE.md").returncode == 0
    usage = _same_answer(root, reference, "--format", "nonsense")  # argparse's own error, from the server
    assert usage.returncode == 2 and "invalid choice" in usage.stderr


def test_a_check_names_its_checkout_and_the_server_refuses_another(served_repo: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    root, reference = served_repo
    (root / "sub").mkdir()
    _same_answer(root, reference, cwd=root / "sub")  # from a folder inside: the same checkout, found as a new process finds it
    _same_answer(root, reference, "--root", str(root), cwd=tmp_path)
    other = init_repo(write_tree(tmp_path / "other", FILES))
    before = _served(root)
    assert _run(root, "check", "--ro", str(other)).returncode == 1  # argparse's abbreviation: the words guess wrong
    assert _served(root) == before  # the server saw another checkout and left it to a new process


def test_a_check_with_another_claude_config_dir_is_not_answered_for_the_servers(served_repo: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    """`--claude-memory` reads Claude Code's folder from CLAUDE_CONFIG_DIR: a client that sets it is not the server's."""
    root, reference = served_repo
    folder = tmp_path / "claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(root.resolve())) / "memory"
    write_tree(folder, {"notes.md": "- The old module. `file:src/app/gone.py`\n"})
    before = _served(root)
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    answered = _run(root, "check", "--claude-memory", env=env)
    fresh = _run(root, "check", "--claude-memory", env={**reference, "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")})
    assert answered.returncode == fresh.returncode == 1 and "file:src/app/gone.py" in answered.stdout
    assert _ELAPSED.sub("", answered.stdout) == _ELAPSED.sub("", fresh.stdout) and _served(root) == before


def test_a_checkout_deleted_and_cloned_again_is_answered_as_a_new_process_would(served_repo: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    """The server started in the checkout: its working directory goes with it."""
    root, reference = served_repo
    assert _same_answer(root, reference).returncode == 1
    shutil.rmtree(root)
    init_repo(write_tree(root, {**FILES, "src/app/cache.py": "import redis\n"}))
    assert _same_answer(root, reference).returncode == 0


def test_a_check_with_a_deadline_whose_workers_outlive_it_ends(served_repo: tuple[Path, dict[str, str]]) -> None:
    """A `--deadline` parses in worker processes forked during the answer, and kept: they held the connection
    open, and the client waited for an end that came only at its timeout."""
    root, reference = served_repo
    (root / "src/app/cache.py").write_text("import redis\n")  # a file to parse, under the deadline
    assert _same_answer(root, reference, "--deadline", "30").returncode == 0
    assert _same_answer(root, reference, "--deadline", "30").returncode == 0


def test_help_and_usage_are_laid_out_for_the_clients_terminal(served_repo: tuple[Path, dict[str, str]], monkeypatch: pytest.MonkeyPatch) -> None:
    root, reference = served_repo
    monkeypatch.setenv("COLUMNS", "150")  # as a terminal 150 columns wide: the server's own is 80
    wide = _same_answer(root, {**reference, "COLUMNS": "150"}, "--help")
    assert "[--fail-on {error,warning,refuted,inconclusive}] [-v]" in wide.stdout  # one line holds them
    usage = _same_answer(root, {**reference, "COLUMNS": "150"}, "--format", "nope").stderr.splitlines()
    assert max(len(line) for line in usage) > 80  # laid out for 150 columns, not the server's 80
    monkeypatch.delenv("COLUMNS")
    _same_answer(root, reference, "--help")  # and the server's own width is as it was


def test_a_receipts_file_a_check_creates_gets_the_clients_permissions(served_repo: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    root, reference = served_repo
    previous = os.umask(0o077)  # the server was started with the suite's own
    try:
        _same_answer(root, reference, "--receipts", str(tmp_path / "served.jsonl"))
        _run(root, "check", "--receipts", str(tmp_path / "fresh.jsonl"), env=reference)
    finally:
        os.umask(previous)
    assert (tmp_path / "served.jsonl").stat().st_mode & 0o777 == (tmp_path / "fresh.jsonl").stat().st_mode & 0o777 == 0o600


def test_a_file_each_process_has_its_own_of_is_not_named_to_the_server(served_repo: tuple[Path, dict[str, str]]) -> None:
    """`--receipts /dev/stdout` is the client's stdout (a pipe here), not the server's (/dev/null)."""
    root, reference = served_repo
    before = _served(root)
    for args in (["--receipts", "/dev/stdout"], ["--receipts=/dev/fd/1"]):
        answered, fresh = _run(root, "check", *args), _run(root, "check", *args, env=reference)
        assert (answered.returncode, answered.stderr) == (fresh.returncode, fresh.stderr) == (2, f"anchorcheck: error: {args[-1].partition('=')[2] or args[-1]}: cannot read: not a regular file (a FIFO)\n")
    assert _served(root) == before


def test_check_server_starts_one_that_answers_the_next_check(tmp_path: Path) -> None:
    root = init_repo(write_tree(tmp_path / "repo", FILES))
    try:
        first = _run(root, "check", "--server")
        assert first.returncode == 1 and "import:redis" in first.stdout
        deadline = time.monotonic() + 60
        while _served(root) < 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _served(root) == 0
        again = _run(root, "check", "--server")
        assert _served(root) == 1 and _ELAPSED.sub("", again.stdout) == _ELAPSED.sub("", first.stdout)
        status = _run(root, "serve", "--status")
        assert status.returncode == 0 and "1 check answered" in status.stdout
    finally:
        _run(root, "serve", "--stop")
    assert _run(root, "serve", "--status").returncode == 1


def test_an_idle_server_exits_and_takes_its_socket(tmp_path: Path) -> None:
    root = init_repo(write_tree(tmp_path / "repo", FILES))
    where = checkclient.address(str(root.resolve()))
    assert where is not None
    server = subprocess.Popen([sys.executable, "-m", "anchorcheck", "serve", "--idle", "0.5"], cwd=root, stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None and "serving" in server.stdout.readline()
    assert server.wait(timeout=60) == 0
    assert not os.path.exists(where)


def test_a_terminated_or_killed_server_costs_no_wrong_answer(tmp_path: Path) -> None:
    root = init_repo(write_tree(tmp_path / "repo", FILES))
    where = checkclient.address(str(root.resolve()))
    assert where is not None
    reference = _run(root, "check")
    for stop in (signal.SIGTERM, signal.SIGKILL):
        server = subprocess.Popen([sys.executable, "-m", "anchorcheck", "serve"], cwd=root, stdout=subprocess.PIPE, text=True)
        assert server.stdout is not None and "serving" in server.stdout.readline()
        assert _served(root) == 0
        server.send_signal(stop)
        server.wait(timeout=60)
        assert os.path.exists(where) == (stop == signal.SIGKILL)  # SIGTERM removes the socket; SIGKILL cannot
        again = _run(root, "check")
        assert (again.returncode, _ELAPSED.sub("", again.stdout)) == (reference.returncode, _ELAPSED.sub("", reference.stdout))
    assert _run(root, "serve", "--detach").returncode == 0  # the dead server's socket is replaced
    try:
        assert _served(root) == 0
    finally:
        _run(root, "serve", "--stop")


def test_a_client_talks_only_to_a_socket_of_its_own_user_in_a_private_folder(served_repo: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    root, _ = served_repo
    where = checkclient.address(str(root.resolve()))
    assert where is not None
    folder = os.path.dirname(where)
    os.chmod(folder, 0o755)  # others may enter: a socket there is not trusted
    try:
        assert _run(root, "check").returncode == 1
        with pytest.raises(FileNotFoundError):
            checkclient.connect(where, 5)
    finally:
        os.chmod(folder, 0o700)
    assert _served(root) == 0  # none of those checks reached it
    moved = f"{where}.moved"
    os.rename(where, moved)
    try:
        os.symlink(moved, where)  # a link to a socket is not the socket
        with pytest.raises(PermissionError):
            checkclient.connect(where, 5)
        assert _run(root, "check").returncode == 1
    finally:
        os.unlink(where)
        os.rename(moved, where)
    assert _served(root) == 0


def test_no_server_where_the_cache_falls_back_into_the_checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = init_repo(write_tree(tmp_path / "repo", FILES))
    monkeypatch.setenv("ANCHORCHECK_CACHE_DIR", str(root / ".anchorcheck"))
    assert checkclient.address(str(root.resolve())) is None
    refused = _run(root, "serve")
    assert refused.returncode == 2 and "no server can run here" in refused.stderr


def _thread_server(root: Path) -> tuple[CheckServer, threading.Thread]:
    server = CheckServer(str(root), idle=60, run=run_command)
    ready = threading.Event()
    thread = threading.Thread(target=server.serve, kwargs={"ready": ready.set}, daemon=True)
    thread.start()
    assert ready.wait(60)
    return server, thread


def _ask_in(root: Path, *argv: str) -> int | None:
    here = os.getcwd()
    os.chdir(root)
    try:
        return checkclient.ask(list(argv))
    finally:
        os.chdir(here)


def test_a_server_whose_code_changed_refuses_and_exits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = init_repo(write_tree(tmp_path / "repo", FILES))
    server, thread = _thread_server(root)
    assert _ask_in(root, "--format", "json") == 1  # answered
    assert json.loads(capsys.readouterr().out)["summary"]["anchors"]["REFUTED"] == 1
    server._code = (["another install"], "another signature")  # as if anchorcheck was upgraded under it
    assert _ask_in(root) is None  # refused: the caller checks in its own process
    thread.join(30)
    assert not thread.is_alive() and server.served == 1


def test_a_server_that_saw_a_warning_refuses_and_exits(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    root = init_repo(write_tree(tmp_path / "repo", FILES))
    server, thread = _thread_server(root)
    import anchorcheck.cli.check as check_command

    real = check_command.check_memories

    def warning_check(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - what a plugin's warning does to a run
        warnings.warn("plugin 'x' not loaded: broken", UserWarning, stacklevel=1)
        return real(*args, **kwargs)

    monkeypatch.setattr(check_command, "check_memories", warning_check)
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        assert _ask_in(root) is None  # a new process prints the warning at each run: this one cannot
    thread.join(30)
    assert not thread.is_alive() and server.served == 0


def test_the_request_of_another_user_or_garbage_costs_only_its_own_answer(served_repo: tuple[Path, dict[str, str]]) -> None:
    root, reference = served_repo
    where = checkclient.address(str(root.resolve()))
    assert where is not None
    for garbage in (b"", b"not json", b"[1, 2]", b'{"check": "words", "cwd": 3, "terminal": []}', b"{" * 100_000):
        assert _raw_request(where, garbage)["refused"].startswith("bad request: ")
    _same_answer(root, reference)


def _raw_request(where: str, data: bytes) -> dict[str, str]:
    with checkclient.connect(where, 30) as conn:
        conn.sendall(data)
        conn.shutdown(1)
        return json.loads(checkclient.receive(conn, 1 << 20))  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("umask", "1e400", "umask: not a whole number from 0 to 511"),
        ("umask", "-1", "umask: not a whole number from 0 to 511"),
        ("umask", '"18"', "umask: not a whole number from 0 to 511"),
        ("umask", "true", "umask: not a whole number from 0 to 511"),
        ("width", "1e400", "terminal width: not a whole number from 1 to 10000"),
        ("width", "-80", "terminal width: not a whole number from 1 to 10000"),
        ("width", "99999999999999999999999", "terminal width: not a whole number from 1 to 10000"),
        ("encoding", '"no-such-codec"', "terminal: no encoding 'no-such-codec'"),
        ("check", '["--format", 3]', "check: not a list of at most 4096 words"),
        ("cwd", '"/no/such/folder"', "cwd: No such file or directory"),
    ],
)
def test_a_request_out_of_bounds_is_refused_and_the_server_goes_on(served_repo: tuple[Path, dict[str, str]], field: str, value: str, said: str) -> None:
    root, reference = served_repo
    where = checkclient.address(str(root.resolve()))
    assert where is not None
    fields = {"check": "[]", "cwd": json.dumps(str(root)), "umask": "18", "width": "80", "encoding": '"utf-8"', field: value}
    request = (
        f'{{"check": {fields["check"]}, "cwd": {fields["cwd"]}, "umask": {fields["umask"]}, '
        f'"terminal": [false, {fields["encoding"]}, "utf-8", {fields["width"]}], "surroundings": {json.dumps(checkclient.surroundings(str(root.resolve())))}}}'
    )
    assert _raw_request(where, request.encode()) == {"refused": f"bad request: {said}"}
    assert _served(root) == 0
    _same_answer(root, reference)  # still serving, and answering as a new process would


def test_a_client_that_never_takes_its_answer_does_not_hold_up_the_next(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A client stopped (Ctrl-Z) after its request: the server's send of a large answer gives up on it."""
    import anchorcheck.serve.checkserver as checkserver

    monkeypatch.setattr(checkserver, "_REQUEST_TIMEOUT", 1.0)
    lines = "".join(f"- Gone. `pkg:pypi/gone-{n}`\n" for n in range(3000))  # an answer larger than the socket's buffers
    root = init_repo(write_tree(tmp_path / "repo", {**FILES, "CLAUDE.md": lines}))
    server, thread = _thread_server(root)
    where = checkclient.address(str(root.resolve()))
    assert where is not None
    message = {"check": [], "cwd": str(root), "terminal": checkclient.terminal(), "umask": checkclient.umask(), "surroundings": checkclient.surroundings(str(root.resolve()))}
    with checkclient.connect(where, 30) as stopped:
        stopped.sendall(json.dumps(message).encode())
        stopped.shutdown(1)  # and never reads
        answered: list[int | None] = []
        waiting = threading.Thread(target=lambda: answered.append(_ask_in(root)), daemon=True)
        waiting.start()
        waiting.join(60)
    assert answered == [1] and server.served == 2 and "gone-2999" in capsys.readouterr().out
    checkclient.request(where, {"stop": True})
    thread.join(30)


def test_a_check_interrupted_while_the_server_works_ends_as_a_new_process_would(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C: a check in its own process exits 130 and prints nothing; a client printed a traceback."""
    root = init_repo(write_tree(tmp_path / "repo", FILES))
    server, thread = _thread_server(root)
    assert _ask_in(root) == 1  # answered: the server's first check is done
    import anchorcheck.cli.check as check_command

    started, release = threading.Event(), threading.Event()
    real = check_command.check_memories

    def slow(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - a long check, under way when the client is interrupted
        started.set()
        release.wait(60)
        return real(*args, **kwargs)

    monkeypatch.setattr(check_command, "check_memories", slow)
    # Ctrl-C as a terminal delivers it: a suite started in the background (`cmd &` without job control)
    # inherits SIGINT ignored, and Python then installs no KeyboardInterrupt for it.
    client = subprocess.Popen(
        [sys.executable, "-m", "anchorcheck", "check"], cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert started.wait(60)
        client.send_signal(signal.SIGINT)
        out, err = client.communicate(timeout=60)
    finally:
        release.set()
    assert (client.returncode, out, err) == (130, "", ""), err
    where = checkclient.address(str(root.resolve()))
    assert where is not None
    checkclient.request(where, {"stop": True})
    thread.join(30)


def test_a_process_the_server_forked_keeps_no_lock_once_it_exits(tmp_path: Path) -> None:
    """Workers a check forks inherit the server's open files; one that outlived its server (seen wedged in
    its pool's exit) kept the lock, and every new server for the checkout found it held and exited."""
    root = init_repo(write_tree(tmp_path / "repo", FILES))
    server, thread = _thread_server(root)
    child = os.fork()
    if child == 0:  # a worker, forked while the server runs, that outlives it
        time.sleep(60)
        os._exit(0)
    try:
        checkclient.request(server.address, {"stop": True})
        thread.join(30)
        assert not thread.is_alive()
        assert CheckServer(str(root), idle=0.5, run=run_command).serve() is True  # it ran, then idled out: no other held the lock
    finally:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)


def test_a_server_that_exits_leaves_no_files_behind(tmp_path: Path) -> None:
    """The socket and its lock file go with the server: a lock file per checkout ever served piled up in the cache."""
    root = init_repo(write_tree(tmp_path / "repo", FILES))
    server, thread = _thread_server(root)
    folder = os.path.dirname(server.address)
    assert sorted(os.listdir(folder)) == sorted(os.path.basename(server.address) + end for end in ("", ".lock"))
    checkclient.request(server.address, {"stop": True})
    thread.join(30)
    assert not thread.is_alive()
    assert os.listdir(folder) == []


def test_a_lock_file_removed_under_a_starting_server_keeps_it_from_running(tmp_path: Path) -> None:
    """A server that opened the lock file just before the last one removed it as it exited locks a file no
    other server sees: it must not run, or the next one would lock a new file and two would answer."""
    root = init_repo(write_tree(tmp_path / "repo", FILES))
    server = CheckServer(str(root), idle=0.5, run=run_command)
    os.makedirs(os.path.dirname(server.address), mode=0o700, exist_ok=True)
    real_open = os.open

    def open_then_lose(path: str, *args: object) -> int:
        descriptor = real_open(path, *args)
        if path.endswith(".lock"):
            os.unlink(path)  # as the exiting server does, between this open and the lock
        return descriptor

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "open", open_then_lose)
        assert server.serve() is False
    assert not os.path.exists(server.address)
    assert CheckServer(str(root), idle=0.5, run=run_command).serve() is True  # the next start is not blocked


def test_detach_says_at_once_when_the_server_it_started_could_not_run(tmp_path: Path) -> None:
    """`serve --detach` waits for the server's first answer as long as it runs (a large checkout's first
    check takes a while); one that exited is said at once, not after a wait that ends in "did not answer"."""
    root = init_repo(write_tree(tmp_path / "repo", FILES))
    (tmp_path / "cache" / "servers").mkdir(parents=True)
    (tmp_path / "cache" / "servers").chmod(0o755)  # others may enter: no server may listen there
    started = _run(root, "serve", "--detach", env={**os.environ, "ANCHORCHECK_CACHE_DIR": str(tmp_path / "cache")})
    assert started.returncode == 2
    assert "exited with code 2 before answering (`anchorcheck serve` in the foreground says why)" in started.stderr


PRE_COMMIT = shutil.which("pre-commit", path=str(Path(sys.executable).parent)) or shutil.which("pre-commit")


@pytest.mark.skipif(PRE_COMMIT is None, reason="pre-commit is not installed (the test extra)")
def test_a_pre_commit_hook_with_server_starts_one_and_is_answered_by_it(tmp_path: Path) -> None:
    """The real pre-commit program running the repository hook with `args: [--server]`, installed as git's
    pre-commit hook: git runs it with its exec-path first on PATH (a second copy of git there, on Debian), and
    the server it starts is the one `anchorcheck serve` in a shell sees, and the other way round."""
    config = (
        "repos:\n  - repo: local\n    hooks:\n      - id: anchorcheck-repo\n        name: anchorcheck\n"
        "        entry: anchorcheck check\n        args: [--server]\n        language: system\n"
        "        always_run: true\n        pass_filenames: false\n        require_serial: true\n"
    )
    root = init_repo(write_tree(tmp_path / "repo", {**FILES, "CLAUDE.md": "# Notes\n\n- `import:json`, `env:APP_MODE`.\n", ".pre-commit-config.yaml": config}))
    env = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]), "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "NO_COLOR": "1"}
    subprocess.run([PRE_COMMIT, "install"], cwd=root, env=env, capture_output=True, check=True, timeout=120)
    identity = {"GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.com", "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.com"}

    def hook() -> subprocess.CompletedProcess[str]:
        git(root, "add", "-A")  # pre-commit stashes what is not staged
        return subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "step"], cwd=root, env={**env, **identity}, capture_output=True, text=True, timeout=300)

    def status() -> str:
        return _run(root, "serve", "--status", env=env).stdout

    try:
        assert hook().returncode == 0
        deadline = time.monotonic() + 60
        while "0 checks answered" not in status() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert hook().returncode == 0 and "1 check answered" in status()
        (root / "src/app/main.py").write_text("import json\n")  # the code drops the env read: the memory is stale
        failed = hook()
        assert failed.returncode == 1 and "env:APP_MODE" in failed.stdout + failed.stderr and "2 checks answered" in status()
    finally:
        _run(root, "serve", "--stop", env=env)


def test_sigterm_in_the_middle_of_a_check_stops_the_server_and_takes_its_socket(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = init_repo(write_tree(tmp_path / "repo", FILES))
    server, thread = _thread_server(root)
    import anchorcheck.cli.check as check_command

    def terminated(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - the signal arrives while the check runs
        server._terminate(signal.SIGTERM, None)

    monkeypatch.setattr(check_command, "check_memories", terminated)
    assert _ask_in(root) is None  # no answer: the caller checks in its own process
    thread.join(30)
    assert not thread.is_alive() and not os.path.exists(server.address)


def test_a_server_started_for_a_checkout_imports_nothing_from_it(tmp_path: Path) -> None:
    """`check --server` starts `python -m anchorcheck serve` in the checkout: without `-P` its root would head
    the module search path, and a `packaging/` there would run when the `pkg:` anchor needs packaging."""
    marker = tmp_path / "ran"
    hostile = {"packaging/__init__.py": f"open({str(marker)!r}, 'w').close()\n", "tree_sitter.py": f"open({str(marker)!r}, 'w').close()\n"}
    root = init_repo(write_tree(tmp_path / "repo", {**FILES, **hostile}))
    script = str(Path(sys.executable).with_name("anchorcheck"))  # not `python -m`: that would import from the checkout itself
    try:
        first = subprocess.run([script, "check", "--server"], cwd=root, capture_output=True, text=True, timeout=120)
        assert first.returncode == 1 and "pkg:pypi/requests" not in first.stdout  # verified: not among the failures
        deadline = time.monotonic() + 60
        while _served(root) < 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        again = subprocess.run([script, "check", "-v"], cwd=root, capture_output=True, text=True, timeout=120)
        assert _served(root) == 1 and "VERIFIED" in again.stdout and "pkg:pypi/requests" in again.stdout
        assert not marker.exists()
    finally:
        _run(root, "serve", "--stop")


def test_a_worker_a_check_forked_ends_on_sigterm_as_a_worker_does(tmp_path: Path) -> None:
    """Pool workers a check forks (a `--deadline`'s) inherit the server's SIGTERM handler: in them it must not
    raise into the worker's code, but end the process by the signal, as without the server."""
    root = init_repo(write_tree(tmp_path / "repo", FILES))
    server = CheckServer(str(root), idle=60, run=run_command)
    child = os.fork()
    if child == 0:  # pragma: no cover - the worker's side
        try:
            signal.signal(signal.SIGTERM, server._terminate)
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)
        finally:
            os._exit(3)
    _, status = os.waitpid(child, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM
