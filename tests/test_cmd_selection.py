"""A command sent into a folder, package or feature is checked there: never answered from the root instead."""

from __future__ import annotations

import json

from anchorcheck import Verdict
from tests._cmd_support import check, package, verdicts

V, R, I = Verdict.VERIFIED, Verdict.REFUTED, Verdict.INCONCLUSIVE

CRATE = '[package]\nname = "core"\nversion = "0.1.0"\n\n[features]\nfast = []\nsimd = ["dep:wide"]\n\n[dependencies]\nserde = { version = "1", optional = true }\nwide = { version = "0.7", optional = true }\n'


def test_a_folder_option_into_a_missing_folder_is_refuted(make_tree) -> None:
    root = make_tree(
        {
            "package.json": package("root", {"build": "tsc"}),
            "web/package.json": package("web", {"build": "vite build"}),
            "pyproject.toml": '[project]\nname = "x"\nversion = "0"\n',
            "py/pyproject.toml": '[project]\nname = "y"\nversion = "0"\n',
            ".gitignore": "dist/\n",
        }
    )
    got = verdicts(
        root,
        "pnpm -C web build", "pnpm -C gone build", "pnpm --dir=gone build", "npm --prefix gone run build",
        "npm --prefix web run build", "yarn --cwd gone build", "bun --cwd gone run build",
        "uv --directory py sync", "uv --directory gone sync", "npm --prefix dist run build",
    )
    assert got == {
        "pnpm -C web build": V, "pnpm -C gone build": R, "pnpm --dir=gone build": R, "npm --prefix gone run build": R,
        "npm --prefix web run build": V, "yarn --cwd gone build": R, "bun --cwd gone run build": R,
        "uv --directory py sync": V, "uv --directory gone sync": R,
        "npm --prefix dist run build": I,  # an ignored folder: a build output, absent from a fresh checkout
    }
    [gone] = check(root, "pnpm -C gone build")
    assert gone.reason == "pnpm is told to run in gone/, and there is no such folder in the repository"


def test_a_launched_binary_is_some_workspace_packages_bin(make_tree) -> None:
    root = make_tree(
        {
            "package.json": package("root", {}, workspaces=["tools/*"]),
            "tools/gen/package.json": json.dumps({"name": "@acme/gen", "bin": {"acme-gen": "cli.js"}}),
        }
    )
    got = verdicts(root, "npx acme-gen", "pnpm exec acme-gen", "yarn acme-gen", "yarn nosuch-bin")
    # `yarn BIN` with no script of the name: Yarn 2+ links another member's bin only where a package depends on it
    # (moon's root `yarn moon`), Yarn 1 hoists it: unsure while nothing at the root depends on the member
    assert got == {"npx acme-gen": V, "pnpm exec acme-gen": V, "yarn acme-gen": I, "yarn nosuch-bin": R}
    [found] = check(root, "pnpm exec acme-gen")
    assert "package @acme/gen (its bin)" in found.reason
    (root / "package.json").write_text(package("root", {}, workspaces=["tools/*"], devDependencies={"@acme/gen": "workspace:*"}))
    assert verdicts(root, "yarn acme-gen") == {"yarn acme-gen": V}


def test_cargo_features_are_the_crates_features(make_tree) -> None:
    root = make_tree({"Cargo.toml": '[workspace]\nmembers = ["core", "cli"]\n', "core/Cargo.toml": CRATE,
                      "cli/Cargo.toml": '[package]\nname = "cli"\nversion = "0.1.0"\n[features]\ntui = []\n'})
    got = verdicts(
        root,
        "cargo build -p core --features fast", "cargo build -p core -F fast,serde", "cargo build -p core --features=gone",
        "cargo build -p core --features wide", "cargo test -p core --features serde/std", "cargo build -p core --features tui",
        "cargo build --features tui", "cargo build --features nowhere",
    )
    assert got == {
        "cargo build -p core --features fast": V,
        "cargo build -p core -F fast,serde": V,  # an optional dependency is a feature
        "cargo build -p core --features=gone": R,
        "cargo build -p core --features wide": R,  # `dep:wide` hides the implicit feature
        "cargo test -p core --features serde/std": V,  # a dependency's feature: its own manifest would say
        "cargo build -p core --features tui": I,  # another member's feature, not selected here
        "cargo build --features tui": V, "cargo build --features nowhere": R,
    }
    [fast] = check(root, "cargo build -p core --features fast")
    assert ("core/Cargo.toml", 6) in [(e.path, e.line) for e in fast.evidence]


def test_a_module_proxy_query_needs_no_go_mod(make_tree) -> None:
    from anchorcheck.memory.references import runner_claims
    from anchorcheck.verify.loading import default_registry

    root = make_tree({"README.md": "x\n"})
    assert verdicts(root, "go list -m -versions github.com/spf13/pflag", "go list ./...") == {
        "go list -m -versions github.com/spf13/pflag": I, "go list ./...": R,
    }
    claims = runner_claims(default_registry())
    assert not claims(["go", "list", "-m", "-versions", "github.com/spf13/pflag"]) and claims(["go", "list", "./..."])
