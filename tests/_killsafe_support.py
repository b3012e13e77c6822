"""Kill -9 trials of the commands that write more than one file (issue 25, item 6).

Shared by tests/test_killsafe.py (a few trials per command) and benchmarks/killsafe.py (hundreds).
A scenario builds a real git checkout where the command has work to do across several files:
the lock, Markdown memory files and native `*.memories.toml` files. A trial copies it, runs the
real CLI in a subprocess, kills its process group with SIGKILL after a delay, then lets the next
command (`check`, read-only) run on what is left, and asks:

- did the kill land inside the write (some file changed, or a journal left behind)?
- after the next command, is every file either as before or as an uninterrupted run leaves it
  (never a mix: a torn state)?
- how many span anchors written in the memory files lost their fingerprint ("not banked"
  where the state before had none unbanked)?
- does running the command again reach exactly what an uninterrupted run reaches?
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import tomlkit

from tests.conftest import git, init_repo, write_tree

BLOCKS = 60  # functions in src/app.py: one span each
RULES = 5  # .claude/rules/rN.md memory files beside CLAUDE.md
NATIVE = 2  # *.memories.toml files with their own citations
SHIFT = "# moved down\n# two lines\n"  # not a block's height: no moved span takes the text of another
EXCLUDED = (".git",)
TEMPORARY = re.compile(r"\..+\.tmp")
BANKED_AT = re.compile(rb'banked_at = "[^"]*"')


def code(edited: frozenset[int] = frozenset()) -> str:
    """src/app.py: BLOCKS two-line functions, blank-separated; the `edited` ones return something else."""
    return "".join(f"def f{n}():\n    return {n * 10 + (n in edited)}\n\n" for n in range(BLOCKS))


def span(n: int) -> str:
    """The span anchor of function n as written in src/app.py by `code()` (3 lines a block)."""
    return f"span:src/app.py#L{3 * n + 1}-L{3 * n + 2}"


def _memory_files(mention: Callable[[int], str]) -> dict[str, str]:
    """CLAUDE.md and RULES rule files sharing the BLOCKS functions, one bullet each."""
    files: dict[str, list[str]] = {}
    for n in range(BLOCKS):
        name = "CLAUDE.md" if n % (RULES + 1) == 0 else f".claude/rules/r{n % (RULES + 1)}.md"
        files.setdefault(name, []).append(f"- Function f{n} returns its number. {mention(n)}\n")
    return {name: "".join(lines) for name, lines in files.items()}


def _cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "anchorcheck", *args], cwd=root, capture_output=True, text=True, env=environment())


def environment() -> dict[str, str]:
    return dict(os.environ, NO_COLOR="1")


def _native(root: Path, name: str, numbers: list[int]) -> None:
    """A native memory file whose memories carry their own banked citations (not the lock's)."""
    from anchorcheck import bank

    doc = tomlkit.document()
    doc["version"] = 1
    memories = tomlkit.aot()
    for n in numbers:
        memory = tomlkit.table()
        memory["id"] = f"f{n}"
        memory["text"] = f"Function f{n} returns its number."
        memory["anchors"] = [span(n)]
        record = {"anchor": span(n), **bank(root, "src/app.py", 3 * n + 1, 3 * n + 2).to_dict()}
        memory["citation"] = tomlkit.aot()
        memory["citation"].append(record)
        memories.append(memory)
    doc["memory"] = memories
    write_tree(root, {name: tomlkit.dumps(doc)})


def _banked(root: Path) -> None:
    write_tree(root, {"src/app.py": code(), **_memory_files(lambda n: f"`{span(n)}`")})
    init_repo(root)
    assert _cli(root, "lock").returncode == 0


def _relocate(root: Path) -> list[str]:
    """Every span moved down intact: relocate rewrites the lock and every memory file."""
    _banked(root)
    write_tree(root, {"src/app.py": SHIFT + code()})
    return ["relocate"]


def _rebank(root: Path) -> list[str]:
    """Stale spans in the lock and in native files, and a fired trigger written in every memory file."""
    from anchorcheck import Verifier
    from anchorcheck_plugins.kinds.watch import bank_watch

    write_tree(root, {"src/app.py": code(), "uv.lock": "a\n"})
    init_repo(root)
    old = bank_watch(Verifier(root).repo, "uv.lock")
    write_tree(root, {name: text.replace("\n", f" `{old}`\n") for name, text in _memory_files(lambda n: f"`{span(n)}`").items()})
    assert _cli(root, "lock").returncode == 0
    stores = [f"team{k}.memories.toml" for k in range(NATIVE)]
    for k, name in enumerate(stores):
        _native(root, name, [n for n in range(BLOCKS) if n % NATIVE == k])
    edited = frozenset(range(0, BLOCKS, 4))
    write_tree(root, {"src/app.py": code(edited), "uv.lock": "b\n"})
    named = ["anchorcheck.lock", *stores, *_memory_files(str)]
    files = [arg for name in named for arg in ("--file", name)]
    return ["rebank", old, *sorted(span(n) for n in edited), *files]


def _lock(root: Path) -> list[str]:
    """Nothing banked yet: lock writes one file (the lock), atomic on its own."""
    write_tree(root, {"src/app.py": code(), **_memory_files(lambda n: f"`{span(n)}`")})
    init_repo(root)
    return ["lock"]


def _suggest(root: Path) -> list[str]:
    """Prose that cites lines: suggest --write adds span anchors to every memory file and banks them."""
    write_tree(root, {"src/app.py": code(), **_memory_files(lambda n: f"See `src/app.py#L{3 * n + 1}-L{3 * n + 2}`.")})
    init_repo(root)
    return ["suggest", "--write"]


SCENARIOS: dict[str, Callable[[Path], list[str]]] = {"relocate": _relocate, "rebank": _rebank, "lock": _lock, "suggest": _suggest}


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file of the checkout but git's own and the temporaries of atomic writes (a kill leaves
    those, the next write of the file removes them), by repo-relative path; the time a citation
    was banked left out (two runs bank the same lines a second apart)."""
    out = {}
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d not in EXCLUDED]
        for name in names:
            if not TEMPORARY.fullmatch(name):
                path = Path(folder, name)
                out[path.relative_to(root).as_posix()] = BANKED_AT.sub(b"banked_at", path.read_bytes())
    return out


def unbanked(root: Path) -> int:
    """Span anchors that `check` finds written in the memory files with no fingerprint (lock or own)."""
    done = _cli(root, "check", "--no-cache", "--format", "json")
    if done.returncode not in (0, 1):
        raise AssertionError(f"check failed after a kill: {done.stderr}")
    results = json.loads(done.stdout)["results"]
    return sum(1 for r in results if r["anchor"].startswith("span:") and "not banked" in r["reason"])


@dataclass(frozen=True)
class Outcome:
    delay: float
    landed: bool  # the kill found the write begun and not finished
    torn: bool  # after the next command: files neither all as before nor all as after
    lost: int  # span anchors that lost their fingerprint
    converged: bool  # a re-run of the command reached what an uninterrupted run reaches


class Trials:
    """One scenario, built once in `workdir`; each trial copies it and kills the command at a delay."""

    def __init__(self, name: str, workdir: Path) -> None:
        self.name = name
        self.workdir = workdir
        self.template = workdir / "template"
        self.argv = SCENARIOS[name](self.template)
        self.before = snapshot(self.template)
        self.unbanked_before = unbanked(self.copy())
        reference = self.copy()
        started = time.monotonic()
        done = _cli(reference, *self.argv)
        self.duration = time.monotonic() - started
        if done.returncode != 0:
            raise AssertionError(f"{name}: the uninterrupted run failed: {done.stdout}{done.stderr}")
        self.after = snapshot(reference)
        if self.after == self.before:
            raise AssertionError(f"{name}: the command changed nothing")
        self.touched = sorted(p for p in self.after.keys() | self.before.keys() if self.after.get(p) != self.before.get(p))

    def copy(self) -> Path:
        trial = self.workdir / "trial"
        shutil.rmtree(trial, ignore_errors=True)
        shutil.copytree(self.template, trial, symlinks=True)
        return trial

    def run(self, delay: float) -> Outcome:
        """The command killed (its process group, SIGKILL) `delay` seconds after it started."""
        root = self.copy()
        proc = subprocess.Popen(
            [sys.executable, "-m", "anchorcheck", *self.argv],
            cwd=root, env=environment(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
        try:
            proc.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        return self.judge(root, delay)

    def run_until_replace(self, k: int) -> Outcome:
        """The command killing itself (SIGKILL) as it is about to replace a file for the k-th time (from 0):
        every boundary between two file writes, deterministically."""
        root = self.copy()
        kill_at_replace(root, k, self.argv)
        return self.judge(root, float(k))

    def judge(self, root: Path, delay: float) -> Outcome:
        left = snapshot(root)
        if left in (self.before, self.after):  # the kill came before the first write or after the last
            return Outcome(delay, False, False, 0, True)
        lost = max(0, unbanked(root) - self.unbanked_before)  # the first command after the kill
        torn = snapshot(root) not in (self.before, self.after)
        _cli(root, *self.argv)
        return Outcome(delay, True, torn, lost, snapshot(root) == self.after)


def kill_at_replace(root: Path, k: int, argv: list[str]) -> None:
    """Run the command in `root`, killing itself (SIGKILL) as it is about to replace a file of the checkout for
    the k-th time (git's private configuration, replaced in a temporary folder, is not counted)."""
    subprocess.run([sys.executable, "-c", _KILL_AT_REPLACE, str(k), *argv], cwd=root, env=environment(), capture_output=True)


_KILL_AT_REPLACE = """
import os, signal, sys
real, left, here = os.replace, [int(sys.argv.pop(1))], os.getcwd() + os.sep
def replace(source, target, *args, **kwargs):
    if os.path.abspath(target).startswith(here):  # a file of the checkout: not git's private config
        if left[0] == 0:
            os.kill(os.getpid(), signal.SIGKILL)
        left[0] -= 1
    return real(source, target, *args, **kwargs)
os.replace = replace
from anchorcheck.cli import main
sys.exit(main(sys.argv[1:]))
"""
