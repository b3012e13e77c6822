"""The just runner: recipes, aliases, parameters, imports, modules and fallback."""

from __future__ import annotations

from anchorcheck import Verdict
from tests._cmd_support import check, verdicts

V, R, I = Verdict.VERIFIED, Verdict.REFUTED, Verdict.INCONCLUSIVE

JUSTFILE = """\
set shell := ["bash", "-cu"]
version := "1.0"

_default:
  @just --list

alias r := ready
alias t := test

# run everything CI runs
ready: fmt lint
  echo ready

[unix]
fmt:
  cargo fmt

@lint *args:
  cargo clippy {{args}}

test filter="":
  cargo test {{filter}}

new-rule name plugin:
  cargo run -p rulegen {{name}} {{plugin}}

import 'just/release.just'
import? 'just/local.just'
mod docs
mod web 'frontend/tasks.just'
"""


def _tree(make_tree):
    return make_tree(
        {
            "justfile": JUSTFILE,
            "just/release.just": "release: ready\n  cargo publish\n",
            "just/local.just": "# a developer's own recipes\n",
            "docs/justfile": "build:\n  mdbook build\n",
            "frontend/tasks.just": "dev:\n  pnpm dev\n",
            "crates/core/src/lib.rs": "",
        }
    )


def test_recipes_aliases_and_arguments(make_tree) -> None:
    root = _tree(make_tree)
    got = verdicts(
        root, "just", "just ready", "just r", "just fmt lint", "just lint --all-targets", "just test", "just test my_filter",
        "just new-rule no-foo eslint", "just --list", "just -l", "cmd:just fmt in:crates/core/", "just release",
        "just nosuch", "just fmt nosuch", "just new-rule a b nosuch",
    )
    assert got == {
        "just": V, "just ready": V, "just r": V, "just fmt lint": V, "just lint --all-targets": V, "just test": V,
        "just test my_filter": V, "just new-rule no-foo eslint": V, "just --list": V, "just -l": V,
        "cmd:just fmt in:crates/core/": V,  # the nearest justfile above
        "just release": V,  # imported
        "just nosuch": R, "just fmt nosuch": R, "just new-rule a b nosuch": R,
    }
    [alias] = check(root, "just r")
    assert [(e.path, e.line) for e in alias.evidence] == [("justfile", 11)]


def test_modules(make_tree) -> None:
    root = _tree(make_tree)
    got = verdicts(root, "just docs::build", "just docs build", "just web::dev", "just docs::nosuch", "just nomod::build")
    assert got == {"just docs::build": V, "just docs build": V, "just web::dev": V, "just docs::nosuch": R, "just nomod::build": R}


def test_no_justfile_other_files_and_fallback(make_tree) -> None:
    root = make_tree({"Makefile": "all:\n"})
    [result] = check(root, "just build")
    assert result.verdict is R and "no justfile" in result.reason
    root = make_tree({"justfile": "top:\n  echo\n", "sub/.justfile": "set fallback\nlocal:\n  echo\n", "ci.just": "ci:\n  echo\n"})
    got = verdicts(root, "cd sub && just local", "cd sub && just top", "cd sub && just nosuch", "just -f ci.just ci", "just --justfile ci.just top")
    assert got == {
        "cd sub && just local": V, "cd sub && just top": V,  # `set fallback`: just looks further up
        "cd sub && just nosuch": R, "just -f ci.just ci": V, "just --justfile ci.just top": R,
    }


def test_an_unreadable_import_makes_absence_unknown(make_tree) -> None:
    root = make_tree({"justfile": "import 'gone.just'\nbuild:\n  echo\n"})
    assert verdicts(root, "just build", "just nosuch") == {"just build": V, "just nosuch": I}


def test_what_a_clone_or_the_folders_above_it_may_hold_makes_absence_unknown(make_tree) -> None:
    """An optional import that is not here (each developer's own `local.just`) and `set fallback` in the
    repository's top justfile (just goes on to the folders above it) may define any recipe."""
    for justfile, why in [
        ("import? 'local.just'\nbuild:\n  echo\n", "justfile:1 imports local.just where there is one, and it is not in the repository"),
        ("set fallback\nbuild:\n  echo\n", "`set fallback` lets just look for it in a justfile above the repository"),
    ]:
        root = make_tree({"justfile": justfile})
        [build, missing] = check(root, "just build", "just nosuch")
        assert (build.verdict, missing.verdict) == (V, I)
        assert missing.reason == f"no recipe nosuch in justfile (recipes: build); {why}"
