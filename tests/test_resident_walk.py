"""Differential: after any change to the checkout, a long-lived Verifier answers exactly as a new one.

A seeded random walk (tests/_resident_walk.py) edits a small real project between recalls: sources
(imports, environment reads, symbols, syntax errors, size), files added, deleted, moved between
production and tests, directories made, files replaced by links inside and outside the root,
permissions, manifests and lockfiles, the memory files, the configuration, `.gitignore`, and git's
index, commits, branches and stash; often several edits within one clock tick, and rewrites of the
same size with the same mtime. After each step, long-lived Verifiers with inotify and with the stat
pass, with and without the disk cache (asked at random steps, so changes pile up between some of
their calls, and now and then first under a deadline that cuts a recall short), must give the JSON
of every memory file as `check` reads it and of a memory store's recall equal to a Verifier made
now, in git and outside it; and the MCP server's session Verifier its tools' answers.

The suite runs a few seeds in a bounded time. A local campaign: `ANCHORCHECK_WALK_SEEDS=200
ANCHORCHECK_WALK_STEPS=60 pytest tests/test_resident_walk.py` (seeds start at
`ANCHORCHECK_WALK_FIRST_SEED`, default 0).
"""

from __future__ import annotations

import difflib
import json
import os
import random

import pytest
from tests._resident_walk import McpResident, Resident, Walk, answers, mcp_truth, new_verifier
from tests.conftest import needs_git

_SEEDS = int(os.environ.get("ANCHORCHECK_WALK_SEEDS", "3"))
_FIRST = int(os.environ.get("ANCHORCHECK_WALK_FIRST_SEED", "0"))
_STEPS = int(os.environ.get("ANCHORCHECK_WALK_STEPS", "12"))
try:  # the MCP server's session Verifier is walked too where the `mcp` extra is installed
    import mcp  # noqa: F401

    _MCP = True
except ImportError:
    _MCP = False


def _differs(kept: object, new: object) -> str:
    """The first lines where two answers differ, as a unified diff of their JSON."""
    a = json.dumps(kept, indent=1, sort_keys=True).splitlines()
    b = json.dumps(new, indent=1, sort_keys=True).splitlines()
    return "\n".join(list(difflib.unified_diff(a, b, "long-lived", "new", n=4, lineterm=""))[:80])


def walk(tmp_path, seed: int, in_git: bool, steps: int, mcp: bool) -> None:
    root, outside, cache = tmp_path / "repo", tmp_path / "outside", tmp_path / "cache"
    root.mkdir()
    run = Walk(root, outside, seed, in_git)
    residents = [Resident(root, stat, cache if cached else None) for stat in (False, True) for cached in (False, True)]
    server = McpResident(root) if mcp else None
    asked = random.Random(seed + 1)
    done: list[str] = []
    for step in range(steps + 1):
        if step:
            done.append(f"{step}: " + "; ".join(run.step()))
        due = [r for r in residents if step == 0 or asked.random() < 0.7]
        if not due:
            continue
        fresh = new_verifier(root, None)
        truth = fresh if isinstance(fresh, str) else answers(fresh)
        for resident in due:
            kept = resident.answers(asked.choice((0.0005, 0.003, 0.02)) if asked.random() < 0.2 else None)
            if kept != truth:
                pytest.fail(
                    f"seed {seed} ({'git' if in_git else 'no git'}), after step {step}, {resident.name}: "
                    f"the long-lived Verifier differs from a new one\nsteps:\n  " + "\n  ".join(done) + "\n" + _differs(kept, truth)
                )
        if server is not None and asked.random() < 0.5:
            served, expected = server.answers(), mcp_truth(fresh)
            if served != expected:
                pytest.fail(f"seed {seed}, after step {step}, {server.name}: differs from a new Verifier\nsteps:\n  " + "\n  ".join(done) + "\n" + _differs(served, expected))
        warm = new_verifier(root, cache)  # a new Verifier reading the disk cache the others filled
        warmed = warm if isinstance(warm, str) else answers(warm)
        if warmed != truth:
            pytest.fail(f"seed {seed} ({'git' if in_git else 'no git'}), after step {step}: a new Verifier with the disk cache differs\nsteps:\n  " + "\n  ".join(done) + "\n" + _differs(warmed, truth))


@pytest.mark.parametrize("seed", range(_FIRST, _FIRST + _SEEDS))
@pytest.mark.parametrize("in_git", [pytest.param(True, marks=needs_git), False])
def test_a_long_lived_verifier_answers_as_a_new_one_after_any_change(tmp_path, seed, in_git):
    walk(tmp_path, seed, in_git, _STEPS, mcp=_MCP and seed % 2 == 0)
