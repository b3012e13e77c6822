"""The cargo runner: built-ins, config aliases, packages of the workspace, and bin/example/test targets."""

from __future__ import annotations

from anchorcheck import Verdict
from tests._cmd_support import check, verdicts

V, R, I = Verdict.VERIFIED, Verdict.REFUTED, Verdict.INCONCLUSIVE

WORKSPACE = {
    "Cargo.toml": '[workspace]\nmembers = ["crates/*", "xtask"]\nexclude = ["crates/old"]\n',
    "crates/core/Cargo.toml": '[package]\nname = "acme_core"\n\n[[example]]\nname = "tour"\npath = "demo/tour.rs"\n',
    "crates/core/src/lib.rs": "",
    "crates/core/tests/parse.rs": "",
    "crates/cli/Cargo.toml": '[package]\nname = "acme"\n',
    "crates/cli/src/main.rs": "",
    "crates/cli/src/bin/gen.rs": "",
    "crates/cli/examples/hello/main.rs": "",
    "crates/old/Cargo.toml": '[package]\nname = "acme_old"\n',
    "xtask/Cargo.toml": '[package]\nname = "xtask"\n',
    "xtask/src/main.rs": "",
    ".cargo/config.toml": '[alias]\nxtask = "run -p xtask --"\nck = ["check", "--all-targets"]\ngone = "run -p acme_gone"\ncov = "llvm-cov --workspace"\n',
}


def test_builtins_packages_and_targets(make_tree) -> None:
    root = make_tree(WORKSPACE)
    got = verdicts(
        root,
        "cargo build", "cargo +nightly test --all-features", "cargo t -p acme_core", "cargo test --package=acme",
        "cargo run -p acme --bin gen", "cargo run -p acme --bin acme", "cargo run -p acme --example hello",
        "cargo run -p acme_core --example tour", "cargo test -p acme_core --test parse", "cargo fmt --all -- --check",
        "cargo test -p acme_old", "cargo test -p nosuch", "cargo run -p acme --bin nosuch", "cargo run -p acme --example nosuch",
        "cargo insta review", "cargo install ripgrep", "cd crates/cli && cargo run --bin gen",
    )
    assert got == {
        "cargo build": V, "cargo +nightly test --all-features": V, "cargo t -p acme_core": V, "cargo test --package=acme": V,
        "cargo run -p acme --bin gen": V, "cargo run -p acme --bin acme": V, "cargo run -p acme --example hello": V,
        "cargo run -p acme_core --example tour": V, "cargo test -p acme_core --test parse": V, "cargo fmt --all -- --check": V,
        "cargo test -p acme_old": R,  # excluded from the workspace
        "cargo test -p nosuch": R, "cargo run -p acme --bin nosuch": R, "cargo run -p acme --example nosuch": R,
        "cargo insta review": I,  # an external cargo-insta
        "cargo install ripgrep": I,
        "cd crates/cli && cargo run --bin gen": V,
    }
    [found, declared] = check(root, "cargo run -p acme --bin gen", "cargo run -p acme_core --example tour")
    assert found.reason == (
        "`cargo run` is built in; Cargo.toml is the workspace; package acme is declared in crates/cli/Cargo.toml; "
        "bin target gen is the file crates/cli/src/bin/gen.rs"
    )
    assert declared.reason.endswith("; example target tour is declared in crates/core/Cargo.toml:4"), declared.reason


def test_each_declared_target_is_cited_at_its_own_table(make_tree) -> None:
    """Every `[[bin]]` was cited at the first one's line, and a blank line above it was counted as its line."""
    manifest = '[package]\nname = "app"\n\n[[bin]]\nname = "one"\npath = "a.rs"\n\n# tools\n[[bin]]\nname = "two"\npath = "b.rs"\n'
    root = make_tree({"Cargo.toml": manifest, "a.rs": "", "b.rs": ""})
    [one, two] = check(root, "cargo run --bin one", "cargo run --bin two")
    assert [(e.path, e.line) for e in one.evidence][-1] == ("Cargo.toml", 4)
    assert [(e.path, e.line) for e in two.evidence][-1] == ("Cargo.toml", 9)


def test_aliases_are_expanded(make_tree) -> None:
    root = make_tree(WORKSPACE)
    [xtask, ck, gone, cov] = check(root, "cargo xtask dist", "cargo ck", "cargo gone", "cargo cov")
    assert xtask.verdict is V and (xtask.evidence[0].path, xtask.evidence[0].line) == (".cargo/config.toml", 2)
    assert "alias xtask" in xtask.reason and "package xtask is declared in xtask/Cargo.toml" in xtask.reason
    assert ck.verdict is V
    assert gone.verdict is R and "no package acme_gone" in gone.reason
    assert cov.verdict is I  # the alias runs an external subcommand


def test_no_cargo_toml(make_tree) -> None:
    root = make_tree({"package.json": "{}"})
    [result] = check(root, "cargo test")
    assert result.verdict is R and "needs a Cargo.toml" in result.reason


def test_unreadable_config(make_tree) -> None:
    root = make_tree({"Cargo.toml": '[package]\nname = "a"\n', ".cargo/config.toml": "[alias\nx = 1\n"})
    [result] = check(root, "cargo x")
    assert result.verdict is I and ".cargo/config.toml:1" in result.reason and "invalid TOML" in result.reason


def test_an_alias_of_an_alias_is_followed_to_the_subcommand_it_runs(make_tree) -> None:
    aliases = (
        '[alias]\nxt = "xtask"\nxtask = "run -p xtask --"\nbad = "gone"\ngone = "run -p acme_gone"\n'
        'loop = "round"\nround = ["trip", "--all"]\ntrip = "loop"\nself = "self --x"\nshadow = "build"\nbuild = "gone"\n'
    )
    root = make_tree({**WORKSPACE, ".cargo/config.toml": aliases})
    [xt, bad, loop, self_, shadow] = check(root, "cargo xt dist", "cargo bad", "cargo loop", "cargo self", "cargo shadow")
    assert xt.verdict is V and "alias xt" in xt.reason and "alias xtask" in xt.reason and "package xtask is declared in xtask/Cargo.toml" in xt.reason
    assert [(e.path, e.line) for e in xt.evidence[:2]] == [(".cargo/config.toml", 2), (".cargo/config.toml", 3)]
    assert bad.verdict is R and "no package acme_gone" in bad.reason  # refuted by what the last alias runs
    assert loop.verdict is I and "loop → round → trip → loop never reach a subcommand" in loop.reason
    assert self_.verdict is I and "self → self" in self_.reason
    assert shadow.verdict is V and "`cargo build` is built in" in shadow.reason  # an alias never shadows a built-in


def test_a_target_option_at_a_virtual_root_picks_from_the_default_members(make_tree) -> None:
    """`cargo run --bin gen` at the root of a virtual workspace runs the bin of a member (cargo selects the
    default members, or every member when none are declared): it was REFUTED because the root has no targets."""
    root = make_tree(WORKSPACE)
    got = verdicts(root, "cargo run --bin gen", "cargo run --example tour", "cargo test --test parse", "cargo run --bin nosuch")
    assert got == {"cargo run --bin gen": V, "cargo run --example tour": V, "cargo test --test parse": V, "cargo run --bin nosuch": R}
    [gen] = check(root, "cargo run --bin gen")
    assert "bin target gen is the file crates/cli/src/bin/gen.rs" in gen.reason
    defaults = {**WORKSPACE, "Cargo.toml": '[workspace]\nmembers = ["crates/*", "xtask"]\nexclude = ["crates/old"]\ndefault-members = ["crates/core"]\n'}
    root = make_tree(defaults)
    [tour, gen, gone] = check(root, "cargo run --example tour", "cargo run --bin gen", "cargo run --bin nosuch")
    assert tour.verdict is V
    # a member that is not a default one holds it: cargo wants `-p acme`, which the memory may have left out on purpose
    assert gen.verdict is I and "crates/cli/Cargo.toml" in gen.reason and "-p acme" in gen.reason
    assert gone.verdict is R and "no bin target nosuch in the workspace" in gone.reason


def test_a_target_option_at_a_package_root_of_a_workspace_picks_from_that_package(make_tree) -> None:
    tree = {**WORKSPACE, "Cargo.toml": '[package]\nname = "top"\n\n[workspace]\nmembers = ["crates/*"]\nexclude = ["crates/old"]\n', "src/main.rs": ""}
    root = make_tree(tree)
    [top, gen] = check(root, "cargo run --bin top", "cargo run --bin gen")
    assert top.verdict is V
    assert gen.verdict is I and "-p acme" in gen.reason
