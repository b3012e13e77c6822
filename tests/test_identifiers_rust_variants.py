"""A name from prose that is both a top-level Rust type and a variant of another enum (rustfs's `enum AdminAction`
and `Action::AdminAction(AdminAction)`): the bare name is the type, now and in history; and a derive
(`#[derive(Serialize)]`, a trait with no source here) never gives an enum a variant it does not declare.
Real git repositories, checked through the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import init_repo, needs_git, write_tree
from tests.test_history import by_anchor, check, commit

pytestmark = needs_git

CARGO = '[package]\nname = "policy"\nversion = "0.1.0"\n\n[dependencies]\nserde = "1"\n'
ACTION = """use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Clone, Debug)]
pub enum Action {
    S3Action(S3Action),
    AdminAction(AdminAction),
}

#[derive(Serialize, Deserialize, Clone, Debug)]
pub enum S3Action {
    GetObject,
}

pub fn admin(action: AdminAction) -> Action {
    Action::AdminAction(action)
}
"""
ADMIN = """use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Clone, Debug)]
pub enum AdminAction {
    ServerInfo,
}
"""
TEXT = "The handler and the policy must agree on the exact `AdminAction`; `ServerInfo` is the one every admin needs.\n"


def _crate(root: Path, admin_in_action: bool) -> Path:
    files = {"Cargo.toml": CARGO, "src/lib.rs": "pub mod action;\n"}
    if admin_in_action:  # one file, the variant declared before the type, as in rustfs's action.rs
        files["src/action.rs"] = ACTION + "\n" + ADMIN.split("\n", 2)[2]
    else:
        files |= {"src/action.rs": "use crate::admin::AdminAction;\n" + ACTION, "src/admin.rs": ADMIN}
        files["src/lib.rs"] += "pub mod admin;\n"
    write_tree(root, files)
    return init_repo(root)


@pytest.fixture(params=[True, False], ids=["one-file", "two-files"])
def crate(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, str]:
    """The crate committed, and the file that defines the enum AdminAction."""
    root = _crate(tmp_path, request.param)
    return root, "src/action.rs" if request.param else "src/admin.rs"


def test_the_bare_name_is_the_top_level_type_not_the_variant_sharing_it(crate: tuple[Path, str]) -> None:
    root, defining = crate
    write_tree(root, {"AGENTS.md": TEXT})
    code, results = check(root)
    found = by_anchor(results)
    assert code == 0 and found[f"sym:{defining}::AdminAction"]["verdict"] == "VERIFIED", found
    assert "sym:src/action.rs::Action.AdminAction" not in found
    # a name that is only a member stays the member
    assert found[f"sym:{defining}::AdminAction.ServerInfo"]["verdict"] == "VERIFIED"


def test_the_top_level_type_renamed_everywhere_is_refuted_with_the_commit(crate: tuple[Path, str]) -> None:
    root, defining = crate
    for path in ("src/action.rs", "src/admin.rs"):
        if (root / path).exists():
            write_tree(root, {path: (root / path).read_text().replace("AdminAction", "AdminOperation")})
    commit(root, "rename AdminAction")
    write_tree(root, {"AGENTS.md": TEXT})
    code, results = check(root)
    found = by_anchor(results)[f"sym:{defining}::AdminAction"]
    assert code == 1 and found["verdict"] == "REFUTED" and found["state"] == "gone" and found["severity"] == "error", found
    assert "'rename AdminAction'" in found["reason"] and "now `AdminOperation`" in found["reason"], found["reason"]


def test_a_variant_a_derived_enum_does_not_declare_is_refuted(tmp_path: Path) -> None:
    root = _crate(tmp_path, True)
    write_tree(root, {"AGENTS.md": "Put: `sym:src/action.rs::S3Action.PutObject`, `sym:src/action.rs::S3Action.to_policy`.\n"})
    code, results = check(root)
    found = by_anchor(results)
    variant, method = found["sym:src/action.rs::S3Action.PutObject"], found["sym:src/action.rs::S3Action.to_policy"]
    assert code == 1 and variant["verdict"] == "REFUTED" and "does not define S3Action.PutObject" in variant["reason"], variant
    # a method may come from the derived trait (serde's, no source here): that doubt stays
    assert method["verdict"] == "INCONCLUSIVE" and method["state"] == "unfollowed" and "Serialize" in method["reason"], method
