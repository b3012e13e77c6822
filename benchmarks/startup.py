"""Benchmark: start-up of the CLI on a small repository, whole processes, as ratios to `python -c pass`.

    python benchmarks/startup.py [--rounds N] [--work DIR]

A small git repository is made in a temp dir: a CLAUDE.md with typed anchors
(`file:`, `import:`, `env:`, `pkg:`, `cmd:`) and implicit references (a path
in inline code, a Markdown link, `npm run build` in inline code), beside the
code and manifests they name. Each round runs every command once, in turn
(interleaved, so load on a shared machine hits them alike); the medians are
printed with their ratio to `python -c pass` measured in the same rounds, for
the wall clock and for the CPU time of the process (what load on a shared
machine disturbs least):

- `anchorcheck --version` (target <= 2x);
- `anchorcheck check` with no arguments, as the `anchorcheck-repo` pre-commit
  hook runs it (disk cache on; target <= 4x), and with `--no-cache`; run again
  with nothing changed, it prints its stored report (`anchorcheck.serve.replay`);
- `anchorcheck check` after an edit: one file of another copy of the
  repository is changed before each run, so no stored report matches and the
  full check runs, from the stored verdicts of the files it did not touch (what
  a pre-commit hook sees on most commits);
- `anchorcheck check CLAUDE.md`, as the `anchorcheck` hook runs it on a staged
  memory file;
- `anchorcheck check` of a memory file that names files only (no grammar,
  manifest reader or runner is needed);
- `anchorcheck check` answered by a server (`anchorcheck serve --detach`, started on
  another copy before the rounds): after an edit, and with nothing changed; the server's own
  CPU time per answer is printed apart (from /proc), as it is not the timed process's;
- `anchorcheck mcp` from start to its answer of `initialize` and `tools/list`, ended by the
  end of its input (when the `mcp` extra is installed);
- two floors of a check after an edit: importing the stdlib and third-party modules
  it imports, and importing every module it imports, anchorcheck's too (no check);
- `ruff check` and `deptry .` on the same repository, when they are on PATH;
- `pre-commit run --all-files` with the anchorcheck hook as a local hook,
  against the same run with no hook at all, when pre-commit is installed.

Run it from a regular install (`python3 -m venv /tmp/b && /tmp/b/bin/pip install . &&
/tmp/b/bin/python benchmarks/startup.py`), as users have: in an editable install
(`pip install -e`) the interpreter imports the editable finder (pathlib, importlib.util, ...)
at start-up, so `python -c pass` costs about 15 ms more and every ratio looks about half as
large as a user's; the script says so when it sees one.

Bytecode is written once before timing (PYTHONDONTWRITEBYTECODE is dropped for
the children), so every figure is a start from compiled modules, as after
`pip install`.

`--against EXE` times another version in the same rounds: EXE is the `anchorcheck`
executable of another installation (a second venv with an older checkout
installed, on the same interpreter); each anchorcheck command gets a twin run
with it right after it in each round (its own cache directory, its own copy of
the edited repository, its own server for the served rows), in rows marked `[against]`.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

GIT_ENV = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@e", "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@e"}

FILES = {
    "CLAUDE.md": (
        "# Notes\n\n"
        "- The entry point is `src/app/main.py`; JSON is parsed there: `import:json`.\n"
        "- The mode is read from `env:APP_MODE`.\n"
        "- HTTP goes through `pkg:pypi/requests`.\n"
        "- Build the front end with `npm run build`; test with `cmd:npm test`.\n"
        "- Release notes: see [the changelog](CHANGELOG.md).\n"
        "- The docs live in `file:docs/index.md`.\n"
    ),
    "src/app/__init__.py": "",
    "src/app/main.py": "import json\nimport os\n\nimport requests\n\n\ndef main():\n    return json.dumps(os.environ.get('APP_MODE'))\n",
    "pyproject.toml": '[project]\nname = "app"\nversion = "1.0"\ndependencies = ["requests>=2"]\n',
    "package.json": '{"name": "web", "scripts": {"build": "vite build", "test": "vitest"}}\n',
    "CHANGELOG.md": "# Changelog\n",
    "docs/index.md": "# Docs\n",
}


# What an agent's client sends an MCP server it starts: the handshake and the list of tools, then the end of input.
MCP_SESSION = (
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},'
    b'"clientInfo":{"name":"startup","version":"1"}}}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
    b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n'
)

# The same repository with a memory file that names files only: what a check costs when no
# grammar, manifest reader or command runner is needed.
FILES_ONLY = {**FILES, "CLAUDE.md": "# Notes\n\n- The entry point is `src/app/main.py`.\n- Docs: `file:docs/index.md`, [changelog](CHANGELOG.md).\n"}


def small_repository(root: Path, files: dict[str, str] = FILES) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    env = {**os.environ, **GIT_ENV}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "small"]):
        subprocess.run(["git", "-C", str(root), *args], check=True, env=env, capture_output=True)
    return root


def with_precommit(root: Path, exe: str) -> tuple[Path, Path] | None:
    """Two copies of the repository for `pre-commit run`: one with the anchorcheck hook, one with none."""
    precommit = shutil.which("pre-commit") or str(Path(sys.executable).with_name("pre-commit"))
    if not Path(precommit).exists():
        return None
    hooked, bare = root.parent / "hooked", root.parent / "bare"
    hook = f"repos:\n- repo: local\n  hooks:\n  - id: anchorcheck\n    name: anchorcheck\n    entry: {exe} check\n    language: system\n    pass_filenames: false\n    always_run: true\n"
    for copy, config in ((hooked, hook), (bare, "repos: []\n")):
        if copy.exists():
            continue
        shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".git"))
        (copy / ".pre-commit-config.yaml").write_text(config)
        small_repository(copy)
    return hooked, bare


def rounds(
    commands: dict[str, tuple[list[str], Path]],
    count: int,
    env: dict[str, str],
    prepare: dict[str, Callable[[], None]] | None = None,
    envs: dict[str, dict[str, str]] | None = None,
    inputs: dict[str, bytes] | None = None,
) -> dict[str, list[tuple[float, float]]]:
    """(wall, CPU) seconds of each command per round, each after its `prepare` step if it has one (not timed),
    in `envs[name]` if given, else in `env`; one with `inputs[name]` is a conversation (`converse`), the others
    read no input. CPU time (user + system of the child) is what load on a shared machine disturbs least: the
    wall clock also counts the time the child waited for a core."""
    prepare, envs, inputs = prepare or {}, envs or {}, inputs or {}

    def run(name: str, args: list[str], cwd: Path) -> None:
        if name in inputs:
            converse(args, cwd, envs.get(name, env), inputs[name])
        else:
            subprocess.run(args, cwd=cwd, env=envs.get(name, env), stdin=subprocess.DEVNULL, capture_output=True, check=False)

    for name, (args, cwd) in commands.items():  # warm-up: bytecode, the disk cache, the OS's file cache
        run(name, args, cwd)
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(count):
        for name, (args, cwd) in commands.items():
            if name in prepare:
                prepare[name]()
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            run(name, args, cwd)
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            times[name].append((wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime))
    return times


def measure(work: Path, count: int = 15, against: str | None = None) -> None:
    """Make the repository under `work` (once) and print the medians and ratios; with `against`, the
    anchorcheck commands of that code too, interleaved (see the module's docstring)."""
    root, plain, edited, edited_against = work / "small", work / "files-only", work / "edited", work / "edited-against"
    for where, files in ((root, FILES), (plain, FILES_ONLY), (edited, FILES), (edited_against, FILES)):
        if not where.exists():
            where.mkdir(parents=True)
            small_repository(where, files)
    exe = str(Path(sys.executable).with_name("anchorcheck"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["ANCHORCHECK_CACHE_DIR"] = str(work / "cache")
    commands = {
        "python -c pass": ([sys.executable, "-c", "pass"], root),
        "anchorcheck --version": ([exe, "--version"], root),
        "anchorcheck check (repo hook, disk cache)": ([exe, "check"], root),
        "anchorcheck check --no-cache": ([exe, "check", "--no-cache"], root),
        "anchorcheck check CLAUDE.md (file hook)": ([exe, "check", "CLAUDE.md"], root),
        "anchorcheck check (file: anchors and links only)": ([exe, "check"], plain),
        "anchorcheck check after an edit (no replay)": ([exe, "check"], edited),
    }
    edits = iter(range(1, 1 << 30))

    def edit(where: Path = edited) -> None:  # an unstaged change git reports: another tree state each run
        (where / "CHANGELOG.md").write_text(f"# Changelog\n\nedit {next(edits)}\n")

    edit()
    imported = imported_by_check(edited, env)
    outside = [name for name in imported if name.partition(".")[0] not in ("anchorcheck", "anchorcheck_plugins")]
    commands["floor: import the stdlib and third-party modules of a full check"] = ([sys.executable, "-c", _importing(outside)], root)
    commands["floor: import every module of a full check (anchorcheck's too)"] = ([sys.executable, "-c", _importing(imported)], root)

    prepare = {"anchorcheck check after an edit (no replay)": edit}
    envs: dict[str, dict[str, str]] = {}
    other = {**env, "ANCHORCHECK_CACHE_DIR": str(work / "cache-against")}  # the other installation's environment
    if against is not None:  # each anchorcheck command twice per round: this installation, then the other
        paired: dict[str, tuple[list[str], Path]] = {}
        for name, (args, cwd) in commands.items():
            paired[name] = (args, cwd)
            if name.startswith("anchorcheck"):
                twin = f"{name} [against]"
                paired[twin], envs[twin] = ([against, *args[1:]], edited_against if cwd == edited else cwd), other
        commands = paired
        prepare["anchorcheck check after an edit (no replay) [against]"] = lambda: edit(edited_against)
    servers = {"": (exe, work / "served", env)}
    if against is not None:
        servers[" [against]"] = (against, work / "served-against", other)
    running: dict[str, tuple[str, Path, dict[str, str], int]] = {}
    for tag, (server_exe, served, server_env) in servers.items():
        if not served.exists():
            served.mkdir(parents=True)
            small_repository(served, FILES)
        started = subprocess.run([server_exe, "serve", "--detach", "--idle", "600"], cwd=served, env=server_env, capture_output=True, text=True)
        server = _server_pid(server_exe, served, server_env) if started.returncode == 0 else None
        if server is None:
            print(f"(no server{tag} could start: {started.stderr.strip() or started.stdout.strip()}; its rows left out)")
            continue
        running[tag] = (server_exe, served, server_env, server)
        for row in ("anchorcheck check after an edit, answered by a server", "anchorcheck check, nothing changed, answered by a server"):
            commands[row + tag], envs[row + tag] = ([server_exe, "check"], served), server_env
        prepare["anchorcheck check after an edit, answered by a server" + tag] = lambda where=served: edit(where)
    inputs: dict[str, bytes] = {}
    for tag, (mcp_exe, mcp_env) in {"": (exe, env), **({" [against]": (against, other)} if against else {})}.items():
        if converse([mcp_exe, "mcp"], root, mcp_env, MCP_SESSION):
            row = "anchorcheck mcp: initialize, tools/list, end of input" + tag
            commands[row], envs[row], inputs[row] = ([mcp_exe, "mcp"], root), mcp_env, MCP_SESSION
        else:
            print(f"(anchorcheck mcp{tag} did not answer (no `mcp` extra?): its row left out)")
    for tool, tool_args in (("ruff", ["check", "--no-cache", "."]), ("deptry", ["."])):
        beside = Path(sys.executable).with_name(tool)
        found = shutil.which(tool) or (str(beside) if beside.exists() else None)
        if found:
            commands[f"{tool} {' '.join(tool_args)}"] = ([found, *tool_args], root)
        else:
            print(f"({tool} is not installed: left out)")
    copies = with_precommit(root, exe)
    if copies:
        precommit = shutil.which("pre-commit") or str(Path(sys.executable).with_name("pre-commit"))
        commands["pre-commit run (anchorcheck hook)"] = ([precommit, "run", "--all-files"], copies[0])
        commands["pre-commit run (no hook)"] = ([precommit, "run", "--all-files"], copies[1])
    else:
        print("(pre-commit is not installed: left out)")
    probe = "import sys; print(any(name.startswith('__editable__') for name in sys.modules))"
    if subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True).stdout.strip() == "True":
        print("WARNING: an editable install: `python -c pass` imports its finder, and the ratios below flatter (see the docstring)")
    check = subprocess.run([exe, "check"], cwd=root, env=env, capture_output=True, text=True)
    print(f"repository: {root}\n  {check.stdout.strip().splitlines()[-1] if check.stdout.strip() else check.stderr.strip()}")
    server_cpu = {tag: _cpu_of(pid) for tag, (_, _, _, pid) in running.items()}
    try:
        times = rounds(commands, count, env, prepare, envs, inputs)
    finally:
        for tag, (server_exe, served, server_env, pid) in running.items():
            server_cpu[tag] = _cpu_of(pid) - server_cpu[tag]
            subprocess.run([server_exe, "serve", "--stop"], cwd=served, env=server_env, capture_output=True, check=False)
    wall = {name: statistics.median(w for w, _ in values) for name, values in times.items()}
    cpu = {name: statistics.median(c for _, c in values) for name, values in times.items()}
    base, base_cpu = wall["python -c pass"], cpu["python -c pass"]
    print(f"start-up, medians of {count} interleaved rounds, whole processes (wall clock; CPU time of the process):")
    for name in times:
        print(f"  {name:60s} {wall[name] * 1000:7.1f} ms {wall[name] / base:6.2f}x   cpu {cpu[name] * 1000:7.1f} ms {cpu[name] / base_cpu:6.2f}x")
    if copies:
        hook = wall["pre-commit run (anchorcheck hook)"] - wall["pre-commit run (no hook)"]
        print(f"  the hook's own share of a pre-commit run: {hook * 1000:.1f} ms ({hook / base:.2f}x python -c pass)")
    for tag, cpu_used in server_cpu.items():  # the two served rows ran once more each in the warm-up
        answers = 2 * (count + 1)
        print(f"  the server's{tag} own CPU time per answer: {cpu_used / answers * 1000:.1f} ms over {answers} answers (not in the rows above)")
    print("  targets: --version <= 2x, check on a small repository <= 4x")


def converse(args: list[str], cwd: Path, env: dict[str, str], session: bytes) -> bool:
    """Send `session` to the command's stdin, read its answers until the last request's (`"id":2`), then end
    its input and wait for it to exit: an input closed at once may end a server before it answered. Whether
    it answered."""
    child = subprocess.Popen(args, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert child.stdin is not None and child.stdout is not None
    child.stdin.write(session)
    child.stdin.flush()
    answered = any(b'"id":2' in line for line in iter(child.stdout.readline, b""))  # stops at the answer
    child.stdin.close()
    child.stdout.read()
    child.wait()
    return answered


def imported_by_check(root: Path, env: dict[str, str]) -> list[str]:
    """The modules a full check (of the copy just edited: no stored report) imports beyond what `python -c pass` does,
    as the console script runs it: what no check after an edit can avoid importing as the code stands."""
    probe = (
        "import sys, json\nbare = set(sys.modules)\nimport re\nsys.argv = ['anchorcheck', 'check']\n"
        "from anchorcheck.cli import console\ntry:\n    console()\nexcept SystemExit:\n    pass\n"
        "sys.stderr.write('MODULES ' + json.dumps(sorted(set(sys.modules) - bare - {'__main__'})) + '\\n')\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=root, env=env, capture_output=True, text=True, check=False)
    line = next(line for line in done.stderr.splitlines() if line.startswith("MODULES "))
    return json.loads(line[len("MODULES ") :])


def _importing(modules: list[str]) -> str:
    """A `python -c` program that imports these modules, in this order, and does nothing else."""
    return f"import importlib\nfor name in {modules!r}:\n    importlib.import_module(name)\n"


def _server_pid(exe: str, served: Path, env: dict[str, str]) -> int | None:
    status = subprocess.run([exe, "serve", "--status"], cwd=served, env=env, capture_output=True, text=True)
    words = status.stdout.split()
    return int(words[words.index("pid") + 1].rstrip(",")) if status.returncode == 0 and "pid" in words else None


def _cpu_of(pid: int | None) -> float:
    """CPU seconds (user + system) a running process has used so far, from /proc (Linux); 0 elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--work", type=Path, help="where the repository is made (default: a temp dir)")
    parser.add_argument("--against", metavar="EXE", help="another installation's anchorcheck executable, timed in the same rounds")
    args = parser.parse_args()
    measure(args.work or Path(tempfile.mkdtemp(prefix="anchorcheck-startup-")), args.rounds, args.against)


if __name__ == "__main__":
    main()
