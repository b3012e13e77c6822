"""Commands in prose with nothing here to run them (session 36, sweep A): a command whose configuration is missing
where it runs and above is stale only where history shows that configuration there and gone; one the repository
never had is another project's (inspect_ai's skill runs `pnpm test` "from the ts-mono root", a submodule). And a
usage line's `-t bug|feature|task` is no pipe into a program `task` (beads). Each through the CLI on a real git
repository, with the case that stays REFUTED beside it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import git, init_repo, needs_git, write_tree
from tests.test_history import by_anchor, check, commit
from tests.test_implicit_unheld import _anchor

pytestmark = needs_git


def _checked(root: Path, files: dict[str, str], agents: str, then: Callable[[], None] = lambda: None) -> dict[str, dict]:
    """The results by anchor of a check of `agents` (AGENTS.md, committed with `files`), after `then` changed the repository."""
    write_tree(root, {**files, "AGENTS.md": agents})
    init_repo(root)
    then()
    return by_anchor(check(root)[1])


def test_a_command_whose_configuration_never_was_here_is_not_stale(tmp_path: Path) -> None:
    text = "In the submodule, run `pnpm typecheck` from its root.\n\nBuild the module with `go build ./cmd/x`.\n"
    found = _checked(tmp_path, {"pyproject.toml": "[project]\nname = 'x'\n"}, text)
    for anchor, config in (("cmd:pnpm typecheck", "package.json"), ("cmd:go build ./cmd/x", "go.work")):
        result = found[anchor]
        assert result["verdict"] == "INCONCLUSIVE" and result["state"] == "never-existed" and result["severity"] == "warning"
        assert f"{config}: never in this repository's history" in result["reason"] and "not a stale one" in result["reason"]
    # a typed anchor is an explicit claim: REFUTED
    assert _anchor(tmp_path, "cmd:pnpm typecheck")["verdict"] == "REFUTED"


def test_a_command_whose_configuration_moved_away_stays_stale(tmp_path: Path) -> None:
    def move() -> None:
        (tmp_path / "web").mkdir()
        git(tmp_path, "mv", "package.json", "web/package.json")
        commit(tmp_path, "the app moves into web/")

    found = _checked(tmp_path, {"package.json": '{"name": "x", "scripts": {"typecheck": "tsc"}}\n'}, "Run `pnpm typecheck`.\n", move)
    result = found["cmd:pnpm typecheck"]  # web/package.json defines it now: history, not that, decides
    assert result["verdict"] == "REFUTED" and result["state"] == "gone" and result["severity"] == "error"
    assert "package.json moved to `web/package.json` in" in result["reason"] and "'the app moves into web/'" in result["reason"]


def test_a_bar_between_words_is_a_choice_of_values_not_a_pipe(tmp_path: Path) -> None:
    text = "```bash\nbd create \"Title\" -t bug|feature|task -p 0-4 --json\nnpm run lint | tee lint.log\n```\n"
    found = _checked(tmp_path, {"package.json": '{"name": "x", "scripts": {"lint": "eslint ."}}\n'}, text)
    assert not [a for a in found if a.startswith("cmd:task")]  # `task -p 0-4 --json` is no call: no Taskfile asked for
    assert found["cmd:npm run lint"]["verdict"] == "VERIFIED"  # a pipe written as one is still split


def test_go_in_a_folder_that_never_held_go_files_is_not_stale(tmp_path: Path) -> None:
    # toolhive: "Never run `go test`, `go build` directly" at a root that holds go.mod and no .go file, ever
    def move() -> None:
        (tmp_path / "cmd/app").mkdir(parents=True)
        git(tmp_path, "mv", "tool/main.go", "cmd/app/main.go")
        commit(tmp_path, "the tool becomes cmd/app")

    files = {"go.mod": "module example.com/x\n\ngo 1.22\n", "pkg/a/a.go": "package a\n", "tool/main.go": "package main\n", "tool/README.md": "x\n"}
    text = "Never run `go test` directly; the tests time out.\n\nBuild the tool with `cd tool && go build`.\n"
    found = _checked(tmp_path, files, text, move)
    bare = found["cmd:go test"]
    assert bare["verdict"] == "INCONCLUSIVE" and bare["state"] == "never-existed" and bare["severity"] == "warning"
    assert "the repository root never held a .go file in this repository's history" in bare["reason"]
    gone = found["cmd:cd tool && go build"]  # its package went: stale, with the commit
    assert gone["verdict"] == "REFUTED" and gone["state"] == "gone" and "'the tool becomes cmd/app'" in gone["reason"]


def test_every_runner_asks_history_of_the_configuration_it_found_missing(tmp_path: Path) -> None:
    # the same rule for a Makefile (in make's folder alone), a justfile, a Taskfile, a Cargo.toml, a compose file:
    # none ever here → a warning; one deleted since the text was written → stale, with the commit
    def delete() -> None:
        git(tmp_path, "rm", "-q", "justfile", "Cargo.toml")
        commit(tmp_path, "drop just and cargo")

    text = "Run `make lint`, `task build`, `docker compose up -d`, `just ready` and `cargo test`.\n"
    found = _checked(tmp_path, {"justfile": "ready:\n\techo\n", "Cargo.toml": "[package]\nname = 'x'\nversion = '0.1.0'\n", "src/lib.rs": ""}, text, delete)
    for anchor in ("cmd:make lint", "cmd:task build", "cmd:docker compose up -d"):
        result = found[anchor]
        assert (result["verdict"], result["state"], result["severity"]) == ("INCONCLUSIVE", "never-existed", "warning"), anchor
        assert "never in this repository's history" in result["reason"]
    for anchor, config in (("cmd:just ready", "justfile"), ("cmd:cargo test", "Cargo.toml")):
        result = found[anchor]
        assert (result["verdict"], result["state"], result["severity"]) == ("REFUTED", "gone", "error"), anchor
        assert config in result["reason"] and "'drop just and cargo'" in result["reason"]
