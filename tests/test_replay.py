"""A warm `anchorcheck check` of an unchanged checkout prints its last report again (anchorcheck.serve.replay).

Real git repositories in temp dirs and the real CLI in a subprocess: a replay
prints what the full run printed (every byte but the elapsed time, which is
the replay's own) with the same exit code and imports none of the core; any
change to what the report depends on makes the next run a full one, which
prints the new truth.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import git, needs_git, write_tree

pytestmark = needs_git

# The real entry point, and afterwards which of the core's heavy modules the process imported.
_RUN = """\
import json, sys
from anchorcheck.cli import main
code = main(sys.argv[2:])
heavy = ("anchorcheck.verify.verifier", "anchorcheck.model.registry", "anchorcheck.verify.loading", "anchorcheck.model.results", "anchorcheck.evidence.cache",
         "anchorcheck.evidence.index", "anchorcheck_plugins", "pluggy", "tree_sitter", "sqlite3", "argparse", "dataclasses", "typing")
with open(sys.argv[1], "w") as marker:
    json.dump([name for name in heavy if name in sys.modules], marker)
sys.exit(code)
"""
_ELAPSED = re.compile(r"in \d+\.\d\ds\.|\"elapsed_seconds\": [0-9.e-]+")

MEMORY = (
    "# Notes\n\n"
    "- The mode comes from `env:APP_MODE`.\n"
    "- HTTP goes through `import:requests`; no `import:redis` yet.\n"
    "- Docs: `file:docs/index.md`; the FAQ is not written: `file:docs/faq.md`.\n"
    "- The entry point is `src/app/main.py`.\n"
)
FILES = {
    "CLAUDE.md": MEMORY,
    "src/app/__init__.py": "",
    "src/app/main.py": "import os\n\nimport requests\n\nMODE = os.environ.get('APP_MODE')\n",
    "docs/index.md": "# Docs\n",
    ".gitignore": "docs/faq.md\n.anchorcheck.toml\nlog.jsonl\n",
}


@dataclass
class Outcome:
    out: str
    err: str
    code: int
    heavy: list[str]

    @property
    def replayed(self) -> bool:
        return not self.heavy

    @property
    def shown(self) -> tuple[str, str, int]:
        """The output with the elapsed time (the one figure a replay changes) taken out."""
        return _ELAPSED.sub("in ?", self.out), self.err, self.code


def check(root: Path, *args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> Outcome:
    marker = root.parent / "marker.json"
    done = subprocess.run(
        [sys.executable, "-c", _RUN, str(marker), "check", *args],
        cwd=cwd or root,
        env={**os.environ, **(env or {})},
        capture_output=True,
        check=False,
    )
    return Outcome(done.stdout.decode(), done.stderr.decode(), done.returncode, json.loads(marker.read_text()))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = write_tree(tmp_path / "repo", FILES)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    return root


def warm(root: Path, *args: str, **how: object) -> Outcome:
    """A full run, then its replay: the same bytes and exit code, without importing the core."""
    first = check(root, *args, **how)  # type: ignore[arg-type]
    assert not first.replayed
    again = check(root, *args, **how)  # type: ignore[arg-type]
    assert again.replayed, again.heavy
    assert again.shown == first.shown
    return first


def test_a_replay_prints_the_same_report_and_exit_code_and_imports_no_core(repo: Path) -> None:
    first = warm(repo)
    assert first.code == 1 and "REFUTED" in first.out and "import:redis" in first.out
    assert warm(repo, "--format", "json").shown != first.shown  # another format is another entry
    assert json.loads(check(repo, "--format", "json").out)["summary"]


def test_stderr_is_replayed_in_its_place(repo: Path) -> None:
    (repo / "CLAUDE.md").unlink()
    git(repo, "commit", "-qam", "no memory")
    first = warm(repo)
    assert "no memory files found" in first.err and first.code == 0


def _edit(path: str, old: str, new: str) -> Callable[[Path], None]:
    def change(root: Path) -> None:
        target = root / path
        target.write_text(target.read_text().replace(old, new))

    return change


def _write(path: str, text: str) -> Callable[[Path], None]:
    return lambda root: write_tree(root, {path: text}) and None


# What changes, what the full run then shows, and whether that run is replayed in turn (None: it may be
# or not; an ignored file a result reads is named by its bytes once it is older than the run by a margin).
# A tracked path gone from the checkout asks git's history where it was renamed to: that run is stored too,
# named by the commit checked out.
CHANGES = {
    "a memory file edited": (_edit("CLAUDE.md", "`file:docs/index.md`", "`file:docs/gone.md`"), "file:docs/gone.md", True),
    "code an anchor reads edited": (_edit("src/app/main.py", "APP_MODE", "APP_STAGE"), "REFUTED env:APP_MODE", True),
    "an untracked file added": (_write("src/app/cache.py", "import redis\n"), "VERIFIED import:redis", True),
    "a file deleted": (lambda root: (root / "docs" / "index.md").unlink(), "REFUTED file:docs/index.md", True),
    "an ignored file made where a result found none": (_write("docs/faq.md", "# FAQ\n"), None, None),
    "a configuration git does not list": (_write(".anchorcheck.toml", "implicit = false\n"), None, True),
}


@pytest.mark.parametrize("change", CHANGES, ids=list(CHANGES))
def test_a_change_makes_the_next_run_a_full_one_with_the_new_truth(repo: Path, change: str) -> None:
    make, shows, stored = CHANGES[change]
    before = warm(repo, "-v")
    make(repo)
    after = check(repo, "-v")
    assert not after.replayed
    truth = check(repo, "-v", "--no-cache")
    assert after.shown == truth.shown and after.shown != before.shown
    if shows:
        assert shows in after.out and shows not in before.out
    if stored is not None:
        assert check(repo, "-v").replayed is stored  # the new truth is what is replayed from now on


def test_another_working_directory_is_another_entry(repo: Path) -> None:
    warm(repo)
    inside = check(repo, cwd=repo / "src")
    assert not inside.replayed and inside.shown == check(repo, "--no-cache", cwd=repo / "src").shown
    assert check(repo, cwd=repo / "src").replayed


@pytest.mark.parametrize("variable", ["NO_COLOR", "ANCHORCHECK_PLUGINS"])
def test_an_environment_variable_the_output_reads_makes_a_full_run(repo: Path, variable: str) -> None:
    warm(repo)
    value = {"NO_COLOR": "1", "ANCHORCHECK_PLUGINS": "file,env"}[variable]
    changed = check(repo, env={variable: value})
    assert not changed.replayed
    assert changed.shown == check(repo, "--no-cache", env={variable: value}).shown


def test_the_receipts_log_is_part_of_the_key(repo: Path) -> None:
    log = repo / "log.jsonl"
    assert not check(repo, "--receipts", str(log)).replayed  # appends the first receipts: not stored
    written = log.read_bytes()
    warm(repo, "--receipts", str(log))  # appends nothing, so it is stored and replayed
    assert log.read_bytes() == written
    log.write_bytes(b"")
    assert not check(repo, "--receipts", str(log)).replayed
    assert log.read_bytes().count(b"\n") == written.count(b"\n")  # the full run wrote every receipt again


def test_a_run_whose_result_read_git_is_not_replayed(repo: Path) -> None:
    banked = subprocess.run(
        [sys.executable, "-m", "anchorcheck", "bank", "src/app/main.py:1-3"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout
    (repo / "anchorcheck.lock").write_text("version = 1\n\n" + banked)
    (repo / "CLAUDE.md").write_text(MEMORY + "- The imports: `span:src/app/main.py#L1-L3`.\n")
    first = check(repo, "-v")
    assert "VERIFIED span:src/app/main.py#L1-L3" in first.out
    assert not check(repo, "-v").replayed  # a span checks which repository it is in: git's history
    assert not check(repo, "-v").replayed


def _amend(root: Path) -> None:
    git(root, "commit", "-q", "--amend", "-m", "take the old page out")


def _squash_to_a_root(root: Path) -> None:
    top = git(root, "commit-tree", "HEAD^{tree}", "-m", "one commit for all").strip()
    git(root, "reset", "-q", "--soft", top)


@pytest.mark.parametrize("rewrite", [_amend, _squash_to_a_root], ids=["amended", "squashed to a new root"])
def test_a_new_head_with_the_same_tree_is_no_replay_of_what_history_said(repo: Path, rewrite: Callable[[Path], None]) -> None:
    # The tree, the index and every file are as they were: only HEAD, and so what history says, changed.
    write_tree(repo, {"docs/old.md": "# Old\n", "CLAUDE.md": MEMORY + "- The old page: `file:docs/old.md`.\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "an old page")
    git(repo, "rm", "-q", "docs/old.md")
    git(repo, "commit", "-qm", "drop the old page")
    first = check(repo, "-v")
    assert "'drop the old page'" in first.out and first.code == 1
    listing = [git(repo, *command) for command in (["ls-files", "-s"], ["status", "--porcelain"])]
    rewrite(repo)
    assert [git(repo, *command) for command in (["ls-files", "-s"], ["status", "--porcelain"])] == listing
    after = check(repo, "-v")
    assert not after.replayed and after.shown == check(repo, "-v", "--no-cache").shown
    assert "'drop the old page'" not in after.out
    assert ("'take the old page out'" if rewrite is _amend else "never in this repository's history") in after.out
    again = check(repo, "-v")  # what history said is named by the commit checked out: the same one, replayed
    assert again.replayed and again.shown == after.shown


@pytest.mark.parametrize("how", ["loose ref", "packed refs", "detached"])
def test_what_history_said_is_replayed_while_the_same_commit_is_checked_out(repo: Path, how: str) -> None:
    write_tree(repo, {"docs/old.md": "# Old\n", "CLAUDE.md": MEMORY + "- The old page: `file:docs/old.md`, never `docs/nope.md`.\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "an old page")
    git(repo, "rm", "-q", "docs/old.md")
    git(repo, "commit", "-qm", "drop the old page")
    if how == "packed refs":
        git(repo, "pack-refs", "--all")
    elif how == "detached":
        git(repo, "checkout", "-q", "--detach")
    first = warm(repo, "-v")  # read from git's files, HEAD is the commit the walk was made at
    assert "'drop the old page'" in first.out
    git(repo, "commit", "-q", "--allow-empty", "-m", "a later commit")  # the same tree, another HEAD
    after = check(repo, "-v")
    assert not after.replayed and after.shown == first.shown


def test_no_cache_neither_replays_nor_stores(repo: Path) -> None:
    check(repo, "--no-cache")
    assert not check(repo, "--no-cache").replayed


@pytest.mark.parametrize("damage", [b"", b"{not json", b'{"version": "1"}', b"[1, 2]"])
def test_a_damaged_entry_means_a_full_run(repo: Path, damage: bytes) -> None:
    first = warm(repo)
    for entry in (Path(os.environ["ANCHORCHECK_CACHE_DIR"]) / "replay").iterdir():
        entry.write_bytes(damage)
    again = check(repo)
    assert not again.replayed and again.shown == first.shown


def test_an_entry_that_is_a_fifo_is_not_waited_on(repo: Path) -> None:
    first = warm(repo)
    for entry in (Path(os.environ["ANCHORCHECK_CACHE_DIR"]) / "replay").iterdir():
        entry.unlink()
        os.mkfifo(entry)
    again = check(repo)  # subprocess.run would hang here if the lookup opened the FIFO for reading
    assert not again.replayed and again.shown[::2] == first.shown[::2]
    warning, _, rest = again.err.partition("\n")
    assert warning.endswith(" is not a regular file: not used") and rest == first.err


def _on_a_terminal(root: Path) -> tuple[bytes, bool]:
    """`check` with stdout on a pseudo-terminal (colours on): what it printed, and whether it replayed."""
    pty = pytest.importorskip("pty")
    marker = root.parent / "marker.json"
    master, slave = pty.openpty()
    process = subprocess.Popen([sys.executable, "-c", _RUN, str(marker), "check"], cwd=root, stdout=slave, stderr=subprocess.DEVNULL)
    os.close(slave)
    printed = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the other end closed
            break
        if not chunk:
            break
        printed += chunk
    process.wait()
    os.close(master)
    return printed, not json.loads(marker.read_text())


def test_a_report_on_a_terminal_is_replayed_there_in_colour_and_not_into_a_pipe(repo: Path) -> None:
    first, replayed = _on_a_terminal(repo)
    assert not replayed and b"\x1b[" in first
    again, replayed = _on_a_terminal(repo)
    assert replayed and _ELAPSED.sub("in ?", again.decode()) == _ELAPSED.sub("in ?", first.decode())
    piped = check(repo)  # stdout no terminal: another key, no colour
    assert not piped.replayed and "\x1b[" not in piped.out


def _same_size_same_time(root: Path) -> None:
    """An edit that keeps the file's size and modification time: only git's look at the inode and ctime,
    or the bytes, can tell."""
    target = root / "src" / "app" / "main.py"
    before = target.stat()
    target.write_text(target.read_text().replace("APP_MODE", "APP_XODE"))
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert target.stat().st_size == before.st_size


def _untracked_edited(root: Path) -> None:
    (root / "src" / "app" / "cache.py").write_text("import os\n")


@pytest.mark.parametrize("change", [_same_size_same_time, _untracked_edited], ids=["same size and time", "untracked edited"])
def test_an_edit_git_does_not_report_by_name_is_seen(repo: Path, change: Callable[[Path], None]) -> None:
    (repo / "src" / "app" / "cache.py").write_text("import redis\n")  # untracked: named by its bytes
    before = warm(repo, "-v")
    change(repo)
    after = check(repo, "-v")
    assert not after.replayed
    assert after.shown == check(repo, "-v", "--no-cache").shown != before.shown


def test_a_touched_file_changes_no_output(repo: Path) -> None:
    before = warm(repo, "-v")
    os.utime(repo / "src" / "app" / "main.py")  # git's stat data no longer matches, the bytes do
    assert check(repo, "-v").shown == before.shown
    assert check(repo, "-v").replayed


def test_a_memory_file_git_ignores_is_named_by_its_bytes(repo: Path) -> None:
    local = repo / "CLAUDE.local.md"
    (repo / ".gitignore").write_text(FILES[".gitignore"] + "CLAUDE.local.md\n")
    local.write_text("# Mine\n\n- My notes are in `file:docs/index.md`.\n")
    git(repo, "commit", "-qam", "ignore the local memory")
    time.sleep(2.1)  # older than a file system's coarse clock could blur with the run's start
    first = warm(repo, "-v")
    assert "CLAUDE.local.md" in first.out and "VERIFIED file:docs/index.md" in first.out
    local.write_text("# Mine\n\n- My notes are in `file:docs/mine.md`.\n")
    after = check(repo, "-v")
    assert not after.replayed and "REFUTED file:docs/mine.md" in after.out
    assert after.shown == check(repo, "-v", "--no-cache").shown
    local.unlink()
    assert not check(repo, "-v").replayed


def _listings(root: Path, *args: str) -> tuple[Outcome, int]:
    """`check` with git behind a wrapper that logs each run: the outcome, and how often git listed the
    untracked files (the listing's longest command)."""
    log = root.parent / "git.log"
    log.write_text("")
    wrapper = root.parent / "bin" / "git"
    wrapper.parent.mkdir(exist_ok=True)
    wrapper.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{log}"\nexec "{shutil.which("git")}" "$@"\n')
    wrapper.chmod(0o755)
    done = check(root, *args, env={"PATH": f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}"})
    return done, sum("--others" in line for line in log.read_text().splitlines())


def test_a_check_that_replays_nothing_lists_the_checkout_once(repo: Path) -> None:
    first, listed = _listings(repo)
    assert not first.replayed and listed == 1
    replayed, listed = _listings(repo)
    assert replayed.replayed and listed == 1
    (repo / "docs" / "index.md").write_text("# Docs, edited\n")  # the usual pre-commit run: no report matches
    missed, listed = _listings(repo)
    assert not missed.replayed and listed == 1
    assert missed.shown == check(repo, "--no-cache").shown


def test_a_tracked_link_is_named_by_what_it_points_to(repo: Path) -> None:
    (repo / "docs" / "link.md").symlink_to("index.md")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "a link")
    (repo / "CLAUDE.md").write_text(MEMORY + "- The docs again: `file:docs/link.md`.\n")
    before = warm(repo, "-v")  # replayed although git's blob of the link is its text, not the bytes it reads
    assert "VERIFIED file:docs/link.md" in before.out
    (repo / "docs" / "index.md").unlink()
    after = check(repo, "-v")
    assert not after.replayed and "REFUTED file:docs/link.md" in after.out
    assert after.shown == check(repo, "-v", "--no-cache").shown


def test_a_later_command_in_the_same_process_lists_the_checkout_anew(repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from anchorcheck.cli import main

    monkeypatch.chdir(repo)
    main(["check", "-v"])
    main(["check", "-v"])  # replayed: its lookup listed the checkout, and nothing takes that listing over
    (repo / "src" / "app" / "cache.py").write_text("import redis\n")
    capsys.readouterr()
    main(["check", "-v", "--no-cache"])
    assert "VERIFIED import:redis" in capsys.readouterr().out


def _link_and_submodule(root: Path) -> None:
    """The shapes of two of three real repositories tried: a tracked link to a folder, and a submodule
    that was never checked out (git's index holds it; its folder is empty)."""
    write_tree(root, {"lib/real/f": "x\n", "lib/other/g": "y\n"})
    (root / "lib" / "linked").symlink_to("real")
    (root / "vendor" / "sub").mkdir(parents=True)
    git(root, "add", "-A")
    git(root, "update-index", "--add", "--cacheinfo", f"160000,{'5' * 40},vendor/sub")
    git(root, "commit", "-qm", "a link to a folder, a submodule not checked out")


def test_a_link_to_a_folder_and_a_submodule_not_checked_out_do_not_block_a_replay(repo: Path) -> None:
    _link_and_submodule(repo)
    assert "VERIFIED import:requests" in warm(repo, "-v").out
    cache = Path(os.environ["ANCHORCHECK_CACHE_DIR"])
    assert any((cache / "replay").iterdir())


def test_the_issue_repro_replays(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "r", {"src/a.py": "import json\n", "lib/real/f": "x\n", "MEMORY.md": "- `import:json`\n"})
    (root / "lib" / "linked").symlink_to("real")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "x")
    assert "1 verified" in warm(root, "MEMORY.md").out


def _retarget(root: Path) -> None:
    (root / "lib" / "linked").unlink()
    (root / "lib" / "linked").symlink_to("other")


# A memory that names what the link or the submodule's folder holds, what changes there, and what shows.
THROUGH = {
    "the link pointed elsewhere": ("`file:lib/linked/f`", _retarget, "REFUTED file:lib/linked/f"),
    "the submodule's folder removed": ("`file:vendor/sub`", lambda root: (root / "vendor" / "sub").rmdir(), None),
}


@pytest.mark.parametrize("case", THROUGH, ids=list(THROUGH))
def test_what_a_memory_reads_through_a_link_or_a_submodule_still_keys_the_replay(repo: Path, case: str) -> None:
    anchor, change, shows = THROUGH[case]
    _link_and_submodule(repo)
    (repo / "CLAUDE.md").write_text(MEMORY + f"- Also {anchor}.\n")
    before = warm(repo, "-v")
    change(repo)
    after = check(repo, "-v")
    assert not after.replayed
    assert after.shown == check(repo, "-v", "--no-cache").shown
    if shows:
        assert shows in after.out and shows not in before.out


def test_a_changed_sparse_view_is_a_new_tree_state(repo: Path) -> None:
    """What a sparse checkout leaves out is marked skip-worktree in git's index, which no listing command
    shows and `git diff-files` never reports: `git sparse-checkout disable` (or `set`) left the listing as it
    was, and the next check replayed, or answered from stored verdicts, what it said of the old view."""
    git(repo, "sparse-checkout", "set", "--no-cone", "/*", "!/docs/")
    sparse = warm(repo, "-v")  # a sparse view is replayed like any other
    left_out = "INCONCLUSIVE file:docs/index.md — docs/index.md is tracked by git but not checked out here (a sparse checkout)"
    assert left_out in sparse.out
    git(repo, "sparse-checkout", "disable")
    whole = check(repo, "-v")
    assert not whole.replayed
    assert "VERIFIED file:docs/index.md" in whole.out and whole.shown == check(repo, "-v", "--no-cache").shown
    git(repo, "sparse-checkout", "set", "--no-cone", "/*", "!/docs/")
    again = check(repo, "-v")
    assert not again.replayed and left_out in again.out and again.shown == sparse.shown


def _link_into_node_modules(root: Path) -> None:
    """biome's shape: a fixture's `node_modules/` of tracked files, and a tracked link to it from another
    fixture. The listing skips `node_modules/`, and vetting the link resolves it to that folder."""
    write_tree(root, {"fixtures/a/node_modules/pkg/index.js": "x\n", "fixtures/b/package.json": "{}\n"})
    (root / "fixtures" / "b" / "node_modules").symlink_to("../a/node_modules")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "a link to a tracked node_modules folder")


def test_a_link_to_a_tracked_folder_the_listing_skips_does_not_block_a_replay(repo: Path) -> None:
    _link_into_node_modules(repo)
    assert "VERIFIED import:requests" in warm(repo, "-v").out
    shutil.rmtree(repo / "fixtures" / "a" / "node_modules")  # the folder the link reached is gone
    after = check(repo, "-v")
    assert not after.replayed and after.shown == check(repo, "-v", "--no-cache").shown


def test_a_check_whose_memories_went_to_worker_processes_is_replayed_by_what_they_read(repo: Path) -> None:
    """A large check goes to a pool of processes (PARALLEL_THRESHOLD memories with anchors); its workers send back
    what they read, so a warm run replays it (penpot's warm check: 5 s of CPU, 0.2 s replayed), and a file only the
    workers looked for (an ignored module, absent) appearing makes the next run a full one with the new truth."""
    from anchorcheck.verify.verifier import PARALLEL_THRESHOLD

    lines = "".join(f"- `m{i}` lives in `file:src/app/m{i}.py`.\n" for i in range(PARALLEL_THRESHOLD))
    write_tree(repo, {f"src/app/m{i}.py": f"X = {i}\n" for i in range(PARALLEL_THRESHOLD)})
    write_tree(repo, {"CLAUDE.md": MEMORY + lines + "- Local helper: `sym:notes/local.py::helper`.\n", ".gitignore": FILES[".gitignore"] + "notes/\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "many modules")
    first = warm(repo, "-v")
    assert "REFUTED sym:notes/local.py::helper" in first.out
    write_tree(repo, {"notes/local.py": "def helper():\n    pass\n"})
    after = check(repo, "-v")
    assert not after.replayed and "VERIFIED sym:notes/local.py::helper" in after.out
    assert after.shown == check(repo, "-v", "--no-cache").shown
