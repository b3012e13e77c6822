"""History stays a bounded cost however many names a run asks about: what a user waits for on a big monorepo."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from anchorcheck.repo import gitcmd
from tests.conftest import init_repo, needs_git, write_tree
from tests.test_history import by_anchor, check, commit

pytestmark = needs_git

PACKAGES = 6  # package folders, each with a package.json that defines none of the scripts asked about
REVISIONS = 4  # commits that changed the root package.json
MISSING = 8  # scripts the text names that no package.json defines now or did


def _git_runs(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Every git run of the check, counted by its command (`log`, `ls-tree`, `cat-file`, ...)."""
    runs: Counter[str] = Counter()
    spawn = gitcmd._spawn

    def counted(argv: list[str], env: dict[str, str]):  # noqa: ANN202 - the patched function's own signature
        runs[argv[argv.index("-C") + 2]] += 1
        return spawn(argv, env)

    monkeypatch.setattr(gitcmd, "_spawn", counted)
    return runs


def _lock(step: int) -> str:
    """A pnpm lockfile that each commit changes (as a release's version bump does)."""
    return f"lockfileVersion: '9.0'\npackages:\n  left-pad@1.{step}.0:\n    resolution: {{integrity: sha512-x}}\n"


def _monorepo(root: Path) -> None:
    """A root package.json changed in REVISIONS commits (the last renames `old` to `new`) and PACKAGES packages."""
    scripts = {"build": "tsc", "old": "x"}
    write_tree(root, {f"packages/p{i}/package.json": json.dumps({"name": f"p{i}", "scripts": {"test": "t"}}) for i in range(PACKAGES)})
    write_tree(root, {"package.json": json.dumps({"name": "root", "scripts": scripts}, indent=2), "pnpm-lock.yaml": _lock(0)})
    init_repo(root)
    for step in range(1, REVISIONS):
        scripts = {**scripts, f"step{step}": "y"}
        if step == REVISIONS - 1:
            scripts = {("new" if name == "old" else name): value for name, value in scripts.items()}
        write_tree(root, {"package.json": json.dumps({"name": "root", "scripts": scripts}, indent=2), "pnpm-lock.yaml": _lock(step)})
        commit(root, f"step {step}")


def test_many_commands_missing_from_a_monorepo_s_configuration_read_its_history_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _monorepo(tmp_path)
    named = " ".join(f"`pnpm gone{i}`" for i in range(MISSING))
    write_tree(tmp_path, {"AGENTS.md": f"Run `pnpm old`, then {named}.\n"})
    runs = _git_runs(monkeypatch)
    found = by_anchor(check(tmp_path, "--no-cache")[1])
    old = found["cmd:pnpm old"]
    assert old["verdict"] == "REFUTED" and "renamed to `new` in" in old["reason"] and "'step 3'" in old["reason"]
    for i in range(MISSING):  # no revision of package.json ever held the name: never-existed, not stale
        gone = found[f"cmd:pnpm gone{i}"]
        assert (gone["verdict"], gone["state"]) == ("INCONCLUSIVE", "never-existed"), gone
        assert f"never defined in package.json (all {REVISIONS} revisions of it looked at)" in gone["reason"]
    # The root package.json's history is walked once for the names all nine commands ask about (the lines its
    # revisions added), the one name it held (`old`) asked of git's pickaxe, each past revision it then checks
    # listed and read once, its lockfile not at all (no lockfile makes a script defined), and the six other
    # packages, tried only for whether they define a command, have their histories left unread.
    assert runs["ls-tree"] <= REVISIONS
    assert runs["cat-file"] <= REVISIONS
    assert runs["log"] <= 3
    assert runs["rev-list"] <= 1
    assert sum(runs.values()) < 40
