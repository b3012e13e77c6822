"""History decides staleness: a missing path that was deleted or moved is REFUTED with the commit and its
new place; one that never existed is not stale. Real git repositories with real histories."""

from __future__ import annotations

import io
import json
import os
import subprocess
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from anchorcheck import Memory, Verdict, Verifier
from anchorcheck.cli import main
from anchorcheck.evidence.history import history_of
from tests.conftest import git, init_repo, needs_git, write_tree

pytestmark = needs_git


def check(root: Path, *args: str) -> tuple[int, list[dict]]:
    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(root)
    try:
        with redirect_stdout(out):
            code = main(["check", "--format", "json", "-v", *args])
    finally:
        os.chdir(cwd)
    return code, json.loads(out.getvalue())["results"]


def commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


@pytest.fixture
def moved(tmp_path: Path) -> Path:
    """src/ moved into packages/core/src/, a doc deleted, then util.ts renamed twice."""
    write_tree(tmp_path, {"src/client/index.ts": "x\n", "src/util.ts": "y\n", "docs/old.md": "o\n", "docs/index.md": "i\n"})
    init_repo(tmp_path)
    (tmp_path / "packages/core").mkdir(parents=True)
    git(tmp_path, "mv", "src", "packages/core/src")
    git(tmp_path, "rm", "-q", "docs/old.md")
    commit(tmp_path, "split into packages")
    git(tmp_path, "mv", "packages/core/src/util.ts", "packages/core/src/helpers.ts")
    commit(tmp_path, "util: a better name")
    git(tmp_path, "mv", "packages/core/src/helpers.ts", "packages/core/src/helper.ts")
    commit(tmp_path, "helpers: singular")
    return tmp_path


def by_anchor(results: list[dict]) -> dict[str, dict]:
    return {r["anchor"]: r for r in results}


def test_a_path_whose_folder_moved_is_refuted_with_its_new_place(moved: Path) -> None:
    # `src/client/index.ts` is also the one tracked path ending so: history wins over that reading.
    write_tree(moved, {"AGENTS.md": "The client is `src/client/index.ts`.\n"})
    code, results = check(moved)
    found = by_anchor(results)["file:src/client/index.ts"]
    assert code == 1 and found["verdict"] == "REFUTED" and found["severity"] == "error" and found["state"] == "gone"
    assert "moved to `packages/core/src/client/index.ts`" in found["reason"] and "'split into packages'" in found["reason"]
    assert found["details"]["fix"] == {"from": "src/client/index.ts", "to": "packages/core/src/client/index.ts"}


def test_renames_are_followed_to_where_the_file_is_now(moved: Path) -> None:
    write_tree(moved, {"AGENTS.md": "Helpers live in `src/util.ts`.\n"})
    found = by_anchor(check(moved)[1])["file:src/util.ts"]
    assert found["verdict"] == "REFUTED" and "moved to `packages/core/src/helper.ts`" in found["reason"]


def test_a_moved_folder_names_its_new_place(moved: Path) -> None:
    write_tree(moved, {"AGENTS.md": "Sources are under `src/client/`.\n"})
    found = by_anchor(check(moved)[1])["file:src/client/"]
    assert found["verdict"] == "REFUTED" and "moved to `packages/core/src/client`" in found["reason"]


def test_a_deleted_file_is_stale_whatever_the_sentence_says(moved: Path) -> None:
    # The old rule read "generated" as "not stale"; a tracked file that was deleted is stale all the same.
    write_tree(moved, {"AGENTS.md": "The generated `docs/old.md` is rebuilt by `make docs`.\n"})
    found = by_anchor(check(moved)[1])["file:docs/old.md"]
    assert found["verdict"] == "REFUTED" and "deleted in" in found["reason"] and "'split into packages'" in found["reason"]


def test_a_path_that_never_existed_is_not_stale(moved: Path) -> None:
    # An example in a folder this repository has, and one in a folder it never had: neither is REFUTED.
    write_tree(moved, {"AGENTS.md": "Write a page like `docs/guide/intro.md`; output goes to `.cache/out.json`.\n"})
    code, results = check(moved)
    found = by_anchor(results)
    assert code == 0
    for anchor in ("file:docs/guide/intro.md", "file:.cache/out.json"):
        assert found[anchor]["verdict"] == "INCONCLUSIVE", found[anchor]
        assert found[anchor]["state"] == "never-existed" and found[anchor]["severity"] == "warning"


def test_a_path_written_relative_to_a_package_still_verifies_when_it_never_existed_as_written(moved: Path) -> None:
    write_tree(moved, {"AGENTS.md": "The core helper is `core/src/helper.ts`.\n"})
    found = by_anchor(check(moved)[1])
    assert [r["verdict"] for r in found.values()] == ["VERIFIED"]


def test_a_typed_anchor_that_never_existed_is_refuted_as_a_warning_and_one_gone_as_an_error(moved: Path) -> None:
    verifier = Verifier(moved)
    never = verifier.check("file:docs/never.md")
    gone = verifier.check("file:docs/old.md")
    assert never.verdict is Verdict.REFUTED and never.severity == "warning" and never.state == "never-existed"
    assert gone.verdict is Verdict.REFUTED and gone.severity == "error" and gone.state == "gone"
    assert verifier.check("file:docs/index.md").severity == "note"


def test_the_default_hook_blocks_on_errors_only(moved: Path) -> None:
    write_tree(moved, {"AGENTS.md": "- `file:docs/never.md`\n"})
    assert check(moved)[0] == 0  # REFUTED, but a warning: a path that never was
    assert check(moved, "--fail-on", "warning")[0] == 1
    assert check(moved, "--fail-on", "refuted")[0] == 1


def test_one_walk_answers_every_missing_path_of_a_run_and_the_cache_the_next(moved: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    cache = tmp_path_factory.mktemp("cache")
    memories = [Memory(text=p, anchors=[f"file:{p}"]) for p in ("docs/old.md", "src/util.ts", "docs/never.md", "src/client/")]
    verifier = Verifier(moved, options={"cache_dir": str(cache)})
    reports = verifier.verify_many(memories)
    assert [r.verdict for r in reports] == [Verdict.REFUTED] * 4
    history = history_of(verifier.context)
    assert history.walks == 3  # one walk for the four paths, then one per rename followed (util -> helpers -> helper)
    again = Verifier(moved, options={"cache_dir": str(cache)})
    assert [r.results[0].reason for r in again.verify_many(memories)] == [r.results[0].reason for r in reports]
    assert history_of(again.context).walks == 0  # warm: answered from the cache, no git log


def test_a_shallow_clone_says_how_far_it_looked(moved: Path, tmp_path: Path) -> None:
    clone = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{moved}", str(clone)], check=True, capture_output=True)
    found = Verifier(clone).check("file:docs/old.md")
    assert found.verdict is Verdict.REFUTED and found.severity == "warning"
    assert "shallow clone of 1 commits" in found.reason and "fetch-depth: 0" in found.reason


def test_a_bare_name_is_read_when_history_shows_it_was_here(moved: Path) -> None:
    # `CHANGES.md` named nothing here once renamed, and was silently dropped; `notes.md` never was a path here.
    write_tree(moved, {"CHANGES.md": "c\n"})
    commit(moved, "changes")
    git(moved, "mv", "CHANGES.md", "CHANGELOG.md")
    commit(moved, "rename the changelog")
    write_tree(moved, {"AGENTS.md": "Record it in `CHANGES.md`; keep `notes.md` to yourself.\n"})
    code, results = check(moved)
    found = by_anchor(results)
    assert code == 1 and list(found) == ["file:CHANGES.md"]
    assert "moved to `CHANGELOG.md`" in found["file:CHANGES.md"]["reason"]


def test_history_without_some_blobs_still_sees_exact_renames_and_deletions(tmp_path: Path) -> None:
    # A partial clone lacks blobs, and git fails rather than fetch them: rename detection by content is off,
    # exact renames (same object id) and deletions are still seen.
    write_tree(tmp_path, {"docs/a.md": "one\ntwo\nthree\n" * 20, "docs/c.md": "c\n", "docs/index.md": "i\n"})
    init_repo(tmp_path)
    old_blob = git(tmp_path, "rev-parse", "HEAD:docs/a.md")
    git(tmp_path, "mv", "docs/a.md", "docs/b.md")
    write_tree(tmp_path, {"docs/b.md": "one\ntwo\nthree\n" * 20 + "four\n"})
    git(tmp_path, "mv", "docs/c.md", "docs/d.md")
    commit(tmp_path, "rename a (edited) and c")
    (tmp_path / ".git/objects" / old_blob[:2] / old_blob[2:]).unlink()
    verifier = Verifier(tmp_path)
    edited, exact = verifier.check("file:docs/a.md"), verifier.check("file:docs/c.md")
    assert edited.state == exact.state == "gone"
    assert "deleted in" in edited.reason and "moved to `docs/d.md`" in exact.reason


def test_a_path_deleted_but_not_committed_is_gone_not_never_existed(moved: Path) -> None:
    (moved / "docs/index.md").unlink()
    found = Verifier(moved).check("file:docs/index.md")
    assert found.state == "gone" and found.severity == "error" and "deleted in the work tree, not committed yet" in found.reason


def test_a_long_lived_verifier_sees_a_new_commit(moved: Path) -> None:
    verifier = Verifier(moved)
    assert verifier.check("file:docs/old.md").state == "gone"  # history read at the first HEAD
    assert verifier.check("file:docs/index.md").verdict is Verdict.VERIFIED
    git(moved, "rm", "-q", "docs/index.md")
    commit(moved, "drop the docs index")
    verifier.refresh()
    found = verifier.check("file:docs/index.md")
    assert found.state == "gone" and "'drop the docs index'" in found.reason


def test_paths_one_walk_leaves_out_are_looked_up_a_chunk_at_a_time_in_the_workers(moved: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch sent to workers: the caller walks for the first `MAX_PATHS` missing paths; each worker looked
    up every other one alone (3,000 missing paths ran git 6,000 times). Now one walk per chunk, same answers."""
    from concurrent.futures import ThreadPoolExecutor

    from anchorcheck.evidence import history

    monkeypatch.setattr(history, "MAX_PATHS", 8)  # more than a chunk holds (as 1,000 is more than `MAX_CHUNK`)
    walks: list[int] = []
    walk = history.History._walk
    monkeypatch.setattr(history.History, "_walk", lambda self, paths: walks.append(len(paths)) or walk(self, paths))
    memories = [Memory(text=f"m{i}", anchors=[f"file:docs/never{i}.md"]) for i in range(40)] + [Memory(text="old", anchors=["file:docs/old.md"])]
    with ThreadPoolExecutor(max_workers=2) as pool:
        reports = Verifier(moved, options={"cache": False}).verify_many(memories, pool)
    assert [r.results[0].state for r in reports] == ["never-existed"] * 40 + ["gone"]
    assert "never in this repository's history" in reports[0].results[0].reason
    assert len(walks) <= 1 + 2 * 4  # the caller's, and one per chunk (two workers, four chunks each)
