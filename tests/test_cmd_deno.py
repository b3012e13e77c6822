"""The deno runner: `deno task NAME` against deno.json / deno.jsonc tasks and package.json scripts."""

from __future__ import annotations

import json
from pathlib import Path

from anchorcheck import Verdict
from tests._cmd_support import package, verdicts
from tests.conftest import git, init_repo, write_tree
from tests.test_implicit_check import results

V, R, I = Verdict.VERIFIED, Verdict.REFUTED, Verdict.INCONCLUSIVE


def test_deno_tasks_of_the_nearest_configuration_its_workspace_root_and_package_json(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "deno.json": json.dumps({"workspace": ["./packages/a"], "tasks": {"test": "deno test -A", "ok": {"command": "deno lint"}}}),
            "packages/a/deno.jsonc": '{\n  // the member\n  "tasks": {"build": "deno run -A build.ts",},\n}\n',
            "web/package.json": package("web", {"dev": "vite"}),
            "web/deno.json": json.dumps({"tasks": {"serve": "deno serve"}}),
            "tools/x.ts": "",
            "node/package.json": package("node", {"dev": "node server.js"}),  # no deno.json: its scripts are the tasks
        },
    )
    got = verdicts(
        root,
        "deno task test", "deno task ok", "deno task", "cmd:deno task build in:packages/a/", "cmd:deno task test in:packages/a/",
        "cmd:deno task dev in:web/", "cmd:deno task serve in:web/", "deno task nosuch", "cmd:deno task test in:web/",
        "deno task -r build", "deno task 'build-*'", "deno task --cwd tools test", "deno task --cwd web serve", "deno task test --watch",
        "cmd:deno task dev in:node/", "deno task --cwd web test", "deno fmt", "deno import:x",
    )
    assert got == {
        "deno task test": V, "deno task ok": V, "deno task": V, "cmd:deno task build in:packages/a/": V,
        "cmd:deno task test in:packages/a/": V,  # a member runs the workspace root's tasks too
        "cmd:deno task dev in:web/": V, "cmd:deno task serve in:web/": V, "deno task nosuch": R,
        "cmd:deno task test in:web/": R,  # web/ is no member: the root's tasks are not its own
        "deno task -r build": I, "deno task 'build-*'": I, "deno task --cwd tools test": V,
        "deno task --cwd web serve": V,  # looked up from the folder it runs in
        "deno task test --watch": V, "cmd:deno task dev in:node/": V, "deno task --cwd web test": R,
        "deno fmt": I, "deno import:x": I,  # not read in prose; asked directly, nothing to say
    }
    # review: `--cwd` into a folder that is not here, or out of the checkout, was answered from the folder written in
    assert verdicts(root, "deno task --cwd gone test", "deno task --cwd ../x test") == {"deno task --cwd gone test": R, "deno task --cwd ../x test": I}


def test_a_deno_task_renamed_after_the_text_named_it_is_stale_and_other_deno_commands_are_not_read(tmp_path: Path) -> None:
    """denoland/std's AGENTS.md runs `deno task ok`, `deno task lint`, `deno task test`: unread before this runner, so
    renaming a task in deno.json changed nothing."""
    write_tree(
        tmp_path,
        {
            "AGENTS.md": "# Std\n\nRun `deno task ok` before submitting, and `deno fmt --check`.\n",
            "deno.json": json.dumps({"tasks": {"ok": "deno task lint && deno task test", "lint": "deno lint", "test": "deno test"}}),
        },
    )
    init_repo(tmp_path)
    got = {r["details"]["written"]: (r["verdict"], r["reason"]) for r in results(tmp_path) if r.get("implicit")}
    assert got["deno task ok"][0] == "VERIFIED" and "deno fmt --check" not in got
    (tmp_path / "deno.json").write_text(json.dumps({"tasks": {"check": "deno task lint && deno task test", "lint": "deno lint", "test": "x"}}))
    git(tmp_path, "commit", "-qam", "rename ok to check")
    verdict, reason = {r["details"]["written"]: (r["verdict"], r["reason"]) for r in results(tmp_path) if r.get("implicit")}["deno task ok"]
    assert verdict == "REFUTED" and "rename ok to check" in reason
