"""Cargo targets in commands (issue 27, held-out-6's reth `cargo bench --bench bench_name`): a `--bench`, `--bin`,
`--example` or `--test` NAME the workspace lacks follows the fate ladder of every runner's names. It existed when a
revision of a Cargo.toml declared it, or a file cargo finds as that target (`benches/NAME.rs`, `src/bin/NAME/main.rs`)
was there: gone → REFUTED with the commit (and the new name of a rename); never → INCONCLUSIVE `never-existed`, a
warning; a history not read whole (a shallow clone) → not concluded. Each on a real git repository, through the CLI."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.conftest import git, init_repo, needs_git, write_tree
from tests.test_history import check, commit

pytestmark = needs_git

WORKSPACE = '[workspace]\nmembers = ["crates/*"]\n'
CORE = '[package]\nname = "core"\nversion = "0.1.0"\n\n[[bench]]\nname = "decode"\nharness = false\n'
BLOCK = "Benchmarks:\n\n```sh\ncargo bench --bench {0}\n```\n"


def _workspace(tmp_path: Path) -> None:
    write_tree(tmp_path, {"Cargo.toml": WORKSPACE, "crates/core/Cargo.toml": CORE, "crates/core/src/lib.rs": "",
                          "crates/core/benches/decode.rs": "fn main() {}\n", "crates/core/benches/encode.rs": "fn main() {}\n",
                          "crates/cli/Cargo.toml": '[package]\nname = "cli"\nversion = "0.1.0"\n', "crates/cli/src/main.rs": ""})
    init_repo(tmp_path)


def _command(tmp_path: Path, name: str) -> dict:
    write_tree(tmp_path, {"AGENTS.md": BLOCK.format(name)})
    return next(r for r in check(tmp_path, "--no-cache")[1] if r["anchor"] == f"cmd:cargo bench --bench {name}")


def test_a_target_no_revision_ever_had_is_an_example_not_a_stale_one(tmp_path: Path) -> None:
    _workspace(tmp_path)
    found = _command(tmp_path, "bench_name")
    assert found["verdict"] == "INCONCLUSIVE" and found["state"] == "never-existed" and found["severity"] == "warning"
    assert "never defined in any of 2 Cargo.toml files" in found["reason"]
    assert _command(tmp_path, "encode")["verdict"] == "VERIFIED" and _command(tmp_path, "decode")["verdict"] == "VERIFIED"


def test_a_target_file_renamed_is_refuted_with_the_commit_and_its_new_name(tmp_path: Path) -> None:
    _workspace(tmp_path)
    git(tmp_path, "mv", "crates/core/benches/encode.rs", "crates/core/benches/serialize.rs")
    commit(tmp_path, "rename the encode bench")
    found = _command(tmp_path, "encode")
    assert found["verdict"] == "REFUTED" and found["state"] == "gone" and found["severity"] == "error"
    assert "renamed to `serialize` in" in found["reason"] and "'rename the encode bench'" in found["reason"]


def test_a_target_declared_and_removed_from_a_members_cargo_toml_is_refuted(tmp_path: Path) -> None:
    # `[[bench]] name = "decode"` with its file elsewhere: only the Cargo.toml's history says it was a target
    write_tree(tmp_path, {"Cargo.toml": WORKSPACE, "crates/core/Cargo.toml": CORE.replace("harness", 'path = "perf/d.rs"\nharness'),
                          "crates/core/src/lib.rs": "", "crates/core/perf/d.rs": ""})
    init_repo(tmp_path)
    write_tree(tmp_path, {"crates/core/Cargo.toml": '[package]\nname = "core"\nversion = "0.1.0"\n'})
    commit(tmp_path, "drop the decode bench")
    found = _command(tmp_path, "decode")
    assert found["verdict"] == "REFUTED" and found["state"] == "gone" and "'drop the decode bench'" in found["reason"]


def test_a_shallow_clone_concludes_nothing_of_a_target_it_cannot_see(tmp_path: Path) -> None:
    origin = tmp_path / "origin"
    _workspace(origin)
    git(origin, "rm", "-q", "crates/core/benches/encode.rs")
    commit(origin, "drop the encode bench")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{origin}", str(clone)], check=True, capture_output=True)
    found = _command(clone, "encode")
    assert found["verdict"] == "INCONCLUSIVE" and found["state"] != "never-existed" and "shallow clone" in found["reason"]


def test_an_empty_bin_file_deleted_is_a_bin_that_was_there(tmp_path: Path) -> None:
    # `src/bin/tool.rs` made a bin `tool`; an empty file's diff has no `+++` line, its `diff --git` header says it
    _workspace(tmp_path)
    write_tree(tmp_path, {"crates/cli/src/bin/tool.rs": ""})
    commit(tmp_path, "add a tool")
    git(tmp_path, "rm", "-q", "crates/cli/src/bin/tool.rs")
    commit(tmp_path, "drop the tool")
    write_tree(tmp_path, {"AGENTS.md": "Run `cargo run --bin tool` or `cargo run --bin gadget`.\n"})
    found = {r["anchor"]: r for r in check(tmp_path, "--no-cache")[1]}
    assert found["cmd:cargo run --bin tool"]["verdict"] == "REFUTED" and "'drop the tool'" in found["cmd:cargo run --bin tool"]["reason"]
    assert found["cmd:cargo run --bin gadget"]["state"] == "never-existed"


def test_a_package_option_follows_the_same_ladder(tmp_path: Path) -> None:
    # held-out-8's gitbutler: "for specific crates `cargo test -p CRATE_NAME`" — a placeholder no Cargo.toml ever
    # named is no stale command; a package renamed after the text named it is
    _workspace(tmp_path)
    write_tree(tmp_path, {"AGENTS.md": "For one crate, `cargo test -p CRATE_NAME`; the CLI's with `cargo test -p cli`.\n"})
    commit(tmp_path, "notes")
    write_tree(tmp_path, {"crates/cli/Cargo.toml": '[package]\nname = "app-cli"\nversion = "0.1.0"\n'})
    commit(tmp_path, "cli: the package is app-cli")
    found = {r["anchor"]: r for r in check(tmp_path, "--no-cache")[1]}
    placeholder, renamed = found["cmd:cargo test -p CRATE_NAME"], found["cmd:cargo test -p cli"]
    assert placeholder["verdict"] == "INCONCLUSIVE" and placeholder["state"] == "never-existed" and placeholder["severity"] == "warning"
    assert renamed["verdict"] == "REFUTED" and renamed["severity"] == "error" and "renamed to `app-cli`" in renamed["reason"]
