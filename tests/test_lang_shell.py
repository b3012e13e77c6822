"""Shell scripts: the functions they define and the variables they read, on real git repositories; and LocalAI's
shape end to end: an instruction file naming a helper of a backend's shell library is VERIFIED, REFUTED with the
commit once a commit renames it, and a variable only a script reads is read, not "read by nothing"."""

from __future__ import annotations

from pathlib import Path

import pytest

from anchorcheck import Verdict
from tests._source_support import check, lines, write
from tests.conftest import init_repo, needs_git, write_tree
from tests.test_history import by_anchor, commit
from tests.test_history import check as check_cli

pytestmark = needs_git

LIB = """#!/bin/bash
set -e

function installRequirements() {
    pip install -r "${BACKEND_DIR:-.}/requirements.txt"
}

if ! command -v ensure_venv >/dev/null; then
    ensure_venv() { python -m venv "$VENV_PATH"; }
fi

token=$(printenv HF_TOKEN)
echo "$1 $@ $? $token"
"""

L = "backend/python/common/libbackend.sh"


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    return init_repo(write(tmp_path, {L: LIB}))


@pytest.mark.parametrize(
    ("anchor", "where"),
    [
        (f"sym:{L}::installRequirements", (L, 4)),
        (f"sym:{L}::ensure_venv", (L, 9)),  # defined inside an `if`: a fallback definition
        ("env:BACKEND_DIR", (L, 5)),
        ("env:VENV_PATH", (L, 9)),
        ("env:HF_TOKEN", (L, 12)),
    ],
)
def test_functions_and_environment_reads(tree: Path, anchor: str, where: tuple[str, int]) -> None:
    result = check(tree, anchor)
    assert result.verdict is Verdict.VERIFIED, result.reason
    assert lines(result)[0] == where


def test_what_no_script_defines_or_reads_is_refuted(tree: Path) -> None:
    assert check(tree, f"sym:{L}::installDeps").verdict is Verdict.REFUTED
    assert check(tree, "env:NEVER_READ").verdict is Verdict.REFUTED  # `$1`, `$@` and `$?` name no variable


@pytest.mark.parametrize("read", ['echo "${!name}"', 'eval "$cmd"', "env | sort", "printenv"])
def test_a_computed_name_or_the_whole_environment_makes_absence_unsure(tmp_path: Path, read: str) -> None:
    root = init_repo(write(tmp_path, {"scripts/run.sh": f"#!/bin/sh\nname=X\n{read}\n"}))
    assert check(root, "env:NEVER_READ").verdict is Verdict.INCONCLUSIVE


def test_a_renamed_shell_helper_named_in_prose_is_refuted_with_the_commit(tmp_path: Path) -> None:
    """LocalAI `.agents/vllm-backend.md`: "runs `installRequirements` for the base deps", after a commit renamed the
    function where the backends' library defines it."""
    write_tree(tmp_path, {L: LIB, "AGENTS.md": "The backend's `install.sh` runs `installRequirements` for the base deps; see `neverDefinedHere`.\n"})
    init_repo(tmp_path)
    code, results = check_cli(tmp_path)
    found = by_anchor(results)
    anchor = f"sym:{L}::installRequirements"
    assert code == 0 and found[anchor]["verdict"] == "VERIFIED", found
    assert not [a for a in found if "neverDefinedHere" in a]  # never defined here: not read
    write_tree(tmp_path, {L: LIB.replace("installRequirements", "installBaseRequirements")})
    commit(tmp_path, "rename installRequirements")
    code, results = check_cli(tmp_path)
    refuted = by_anchor(results)[anchor]
    assert code == 1 and refuted["verdict"] == "REFUTED", results
    assert "'rename installRequirements'" in refuted["reason"] and "now `installBaseRequirements`" in refuted["reason"], refuted


def test_a_variable_a_script_sets_or_tests_is_read_and_eval_or_a_name_reference_opens_the_world(tmp_path: Path) -> None:
    # review: `export NODE_OPTIONS=…`, `RUST_LOG=debug cargo run` and `[[ -v DEPLOY_TOKEN ]]` read no `$X`, and were
    # REFUTED "nothing reads or defines"; `declare -n` and `eval` read (and `eval` defines) what no text spells
    root = init_repo(write(tmp_path, {"run.sh": "#!/bin/bash\nexport NODE_OPTIONS=--max-old-space-size=4096\n"
                                                "RUST_LOG=debug cargo run\nif [[ -v DEPLOY_TOKEN ]]; then :; fi\n"}))
    for key in ("NODE_OPTIONS", "RUST_LOG", "DEPLOY_TOKEN"):
        assert check(root, f"env:{key}").verdict is Verdict.VERIFIED, key
    assert check(root, "import:requests").verdict is Verdict.INCONCLUSIVE  # a script has no imports: no witness
    for extra in ("declare -n ref=GITHUB_SHA\n", 'eval "do_${n}() { :; }"\n'):
        other = init_repo(write(tmp_path / str(len(extra)), {"a.sh": extra}))
        assert check(other, "env:NEVER_READ").verdict is Verdict.INCONCLUSIVE, extra
    assert check(other, "sym:a.sh::do_start").verdict is Verdict.INCONCLUSIVE
