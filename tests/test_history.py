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
from anchorcheck.evidence import history as history_module
from anchorcheck.evidence.history import history_of
from anchorcheck.evidence.historywalk import PATHSPECS_MOST, pathspecs
from anchorcheck.repo import gitcmd
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


def test_a_folder_that_moved_is_not_verified_by_a_source_roots_folder_of_that_name(tmp_path: Path) -> None:
    # held-out-7 (prefect src/prefect/server/AGENTS.md "`concurrency/`"): the server's folder moved, and the
    # client's src/app/concurrency/ (a source root's reading) answered for it; history wins
    write_tree(tmp_path, {"src/app/server/concurrency/leases.py": "x\n", "src/app/concurrency/sync.py": "y\n"})
    init_repo(tmp_path)
    git(tmp_path, "mv", "src/app/server/concurrency", "src/app/server/limits")
    commit(tmp_path, "server: concurrency is limits")
    write_tree(tmp_path, {"src/app/server/AGENTS.md": "- `concurrency/` - server-side concurrency management\n",
                          "src/app/AGENTS.md": "- `concurrency/` - client-side concurrency\n"})
    found = {r["memory_file"]: r for r in check(tmp_path)[1]}
    server = found["src/app/server/AGENTS.md"]
    assert server["verdict"] == "REFUTED" and "moved to `src/app/server/limits`" in server["reason"]
    assert found["src/app/AGENTS.md"]["verdict"] == "VERIFIED"  # its own folder's: unchanged


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
    # one walk for the four paths, one further back for the deleted one (deleted before too?), one per rename followed
    assert history.walks == 4  # (util -> helpers -> helper)
    again = Verifier(moved, options={"cache_dir": str(cache)})
    assert [r.results[0].reason for r in again.verify_many(memories)] == [r.results[0].reason for r in reports]
    assert history_of(again.context).walks == 0  # warm: answered from the cache, no git log


def test_a_kept_answer_whose_new_place_is_gone_from_the_work_tree_is_looked_up_again(moved: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    cache = tmp_path_factory.mktemp("cache")
    assert "moved to `packages/core/src/helper.ts`" in Verifier(moved, options={"cache_dir": str(cache)}).check("file:src/util.ts").reason
    (moved / "packages/core/src/helper.ts").unlink()  # not committed: HEAD, and so the cache's key, is the same
    again = Verifier(moved, options={"cache_dir": str(cache)}).check("file:src/util.ts")
    assert again.state == "gone" and "moved to" not in again.reason and "fix" not in again.details


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
    monkeypatch.setattr(history.History, "_walk", lambda self, paths, **how: walks.append(len(paths)) or walk(self, paths, **how))
    memories = [Memory(text=f"m{i}", anchors=[f"file:docs/never{i}.md"]) for i in range(40)] + [Memory(text="old", anchors=["file:docs/old.md"])]
    with ThreadPoolExecutor(max_workers=2) as pool:
        reports = Verifier(moved, options={"cache": False}).verify_many(memories, pool)
    assert [r.results[0].state for r in reports] == ["never-existed"] * 40 + ["gone"]
    assert "never in this repository's history" in reports[0].results[0].reason
    # the caller's, one per chunk (two workers, four chunks each), and one further back where the deleted path is
    assert len(walks) <= 1 + 2 * 4 + 2


def git_commands(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The git commands anchorcheck runs from now on in this process, by name (`log`, `rev-parse`, ...)."""
    ran: list[str] = []
    run, stream = gitcmd.run, gitcmd.Stream

    def counted_run(root: Path, commands: list[tuple[str, ...]], *args: object, **kwargs: object) -> list[str | None]:
        ran.extend(command[0] for command in commands)
        return run(root, commands, *args, **kwargs)  # type: ignore[arg-type]

    def counted_stream(root: Path, args: tuple[str, ...], *rest: object, **kwargs: object) -> gitcmd.Stream:
        ran.append(args[0])
        return stream(root, args, *rest, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(gitcmd, "run", counted_run)
    monkeypatch.setattr(gitcmd, "Stream", counted_stream)
    return ran


def test_a_second_check_at_the_same_head_answers_history_without_git_log(
    moved: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANCHORCHECK_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    write_tree(moved, {"AGENTS.md": "Sources in `src/client/index.ts`, docs in `docs/old.md`; a page like `docs/guide/intro.md`.\n"})
    ran = git_commands(monkeypatch)
    first = check(moved)
    assert "log" in ran
    ran.clear()
    assert check(moved) == first  # gone, moved and never-existed alike, from the cache
    assert "log" not in ran and ran.count("rev-parse") <= 2  # HEAD named once; no walk


def test_the_walk_stops_at_the_commit_that_answers_every_path(tmp_path: Path) -> None:
    write_tree(tmp_path, {"docs/old.md": "o\n", "a.txt": "0\n"})
    init_repo(tmp_path)
    for at in range(1, 20):
        write_tree(tmp_path, {"a.txt": f"{at}\n"})
        commit(tmp_path, f"edit {at}")
    git(tmp_path, "mv", "docs/old.md", "docs/new.md")
    commit(tmp_path, "move the old doc")
    history = history_of(Verifier(tmp_path, options={"cache": False}).context)
    gone = history.fate("docs/old.md")
    assert gone is not None and "'move the old doc'" in gone.describe() and gone.moved_to == "docs/new.md"
    # The newest commit answered: the other twenty were never read. (A path deleted, not moved, is looked up
    # once more from that commit's parent: was it deleted before too, a file that comes and goes?)
    assert history.commits == 1
    assert history.fate("docs/never.md").never_existed  # type: ignore[union-attr]
    assert history.commits == 1 + 21  # a path never there: the whole history, to the root


def test_a_walk_cut_short_says_how_far_it_read_and_concludes_nothing(moved: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(history_module, "MAX_COMMITS", 3)  # of 4
    verifier = Verifier(moved, options={"cache": False})
    never = verifier.check("file:docs/never.md")
    assert never.verdict is Verdict.REFUTED and never.severity == "warning" and never.state != "never-existed"
    assert "not in the history looked at (history cut at 3 commits)" in never.reason
    assert "moved to `packages/core/src/helper.ts`" in verifier.check("file:src/util.ts").reason  # in the 3 newest: found


class _OutOfTime(gitcmd.Stream):
    """A streamed git run whose time ran out before it wrote anything (what the timer does to a long walk)."""

    def __iter__(self):  # type: ignore[no-untyped-def]
        self.cut = True
        return iter(())


@pytest.mark.parametrize("deadline", [None, history_module.MIN_SECONDS + 5], ids=["its own bound", "a deadline"])
def test_a_walk_cut_for_time_is_not_kept_for_the_next_run(
    moved: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, deadline: float | None
) -> None:
    cache = tmp_path_factory.mktemp("cache")
    monkeypatch.setattr(gitcmd, "Stream", _OutOfTime)
    cut = Verifier(moved, options={"cache_dir": str(cache)}).check("file:docs/never.md", deadline=deadline)
    assert cut.severity == "warning" and cut.state != "never-existed"
    assert "not in the history looked at (history cut at 0 commits: out of time)" in cut.reason
    monkeypatch.undo()
    again = Verifier(moved, options={"cache_dir": str(cache)})
    assert again.check("file:docs/never.md").state == "never-existed"  # looked again, with time
    assert history_of(again.context).walks == 1


def test_the_walk_reads_the_same_however_git_output_arrives(tmp_path: Path) -> None:
    # Odd names under the folder asked about (a newline, a 0x01 byte: what the reader splits on), commits
    # that do not touch it (a header alone), and git's output handed over whole, byte by byte, or cut in two
    # at every place.
    from anchorcheck.evidence.historywalk import _Log

    write_tree(tmp_path, {"odd/a\nb.md": "x\n", "odd/\x01c.md": "y\n", "odd/d.md": "z\n", "keep.md": "k\n"})
    init_repo(tmp_path)
    for at in range(3):
        write_tree(tmp_path, {"keep.md": f"{at}\n"})
        commit(tmp_path, f"edit {at}")
    git(tmp_path, "rm", "-q", "-r", "odd")
    commit(tmp_path, "drop odd")
    out = subprocess.run(
        ["git", "log", "-z", "--sparse", "--full-history", "--name-status", "--no-renames", "--format=%x01%H", "--", "odd"],
        cwd=tmp_path, capture_output=True, text=True, check=True,
    ).stdout

    def read(pieces: list[str], limit: int | None = None) -> tuple[list[tuple[list[str], list[tuple[str, str, str]]]], int]:
        log = _Log(limit=limit)
        return list(log.read(pieces)), log.count

    whole = read([out])
    assert whole[1] == 5 and [sorted(e[:2] for e in entries) for _, entries in whole[0]] == [
        [("D", "odd/\x01c.md"), ("D", "odd/a\nb.md"), ("D", "odd/d.md")],
        [("A", "odd/\x01c.md"), ("A", "odd/a\nb.md"), ("A", "odd/d.md")],
    ]
    assert read(list(out)) == whole
    for cut in range(len(out)):
        assert read([out[:cut], out[cut:]]) == whole
    assert read([out], limit=4) == (whole[0][:1], 4)  # the root commit, fifth, is not read
    assert read(list(out), limit=4) == (whole[0][:1], 4)


def test_a_program_file_a_command_runs_is_judged_by_history_too(tmp_path: Path) -> None:
    """`python scripts/gen.py` after the script was deleted is stale (an error, with the commit); `python
    datagen.py` for a file this repository never had (one the text tells the reader to write) is not."""
    write_tree(tmp_path, {"scripts/gen.py": "print(1)\n", "a.txt": "a\n"})
    init_repo(tmp_path)
    git(tmp_path, "rm", "-q", "scripts/gen.py")
    commit(tmp_path, "drop the generator")
    write_tree(tmp_path, {"AGENTS.md": "```sh\npython scripts/gen.py\npython datagen.py\n```\n"})
    code, results = check(tmp_path)
    found = by_anchor(results)
    gone, never = found["cmd:python scripts/gen.py"], found["cmd:python datagen.py"]
    assert code == 1 and gone["verdict"] == "REFUTED" and gone["severity"] == "error" and "'drop the generator'" in gone["reason"]
    assert never["verdict"] == "INCONCLUSIVE" and never["severity"] == "warning" and "never in this repository's history" in never["reason"]


def test_a_script_the_configuration_defined_and_renamed_is_stale_though_a_dependency_could_provide_one(tmp_path: Path) -> None:
    """`hatch run prepare` after the project's script was renamed to `prep`: a name a dependency could provide
    is INCONCLUSIVE, unless the configuration's own history shows it defined there and removed (strands' drift)."""
    project = '[project]\nname = "app"\nversion = "1"\n\n[tool.hatch.envs.default.scripts]\nprepare = "ruff check"\n'
    write_tree(tmp_path, {"pyproject.toml": project})
    init_repo(tmp_path)
    write_tree(tmp_path, {"pyproject.toml": project.replace("prepare =", "prep =")})
    commit(tmp_path, "rename prepare to prep")
    write_tree(tmp_path, {"AGENTS.md": "Run `hatch run prepare`, then `hatch run docs-serve`.\n"})
    code, results = check(tmp_path)
    found = by_anchor(results)
    renamed, never = found["cmd:hatch run prepare"], found["cmd:hatch run docs-serve"]
    assert code == 1 and renamed["verdict"] == "REFUTED" and renamed["severity"] == "error" and renamed["state"] == "gone"
    assert "renamed to `prep` in" in renamed["reason"] and "'rename prepare to prep'" in renamed["reason"]
    assert never["verdict"] == "INCONCLUSIVE" and "a dependency may provide it" in never["reason"]


def test_a_cargo_alias_the_configuration_renamed_is_stale_though_an_external_subcommand_could_answer(tmp_path: Path) -> None:
    cargo = '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n'
    write_tree(tmp_path, {"Cargo.toml": cargo, "src/main.rs": "fn main() {}\n", ".cargo/config.toml": '[alias]\nsqlness = "test"\n'})
    init_repo(tmp_path)
    write_tree(tmp_path, {".cargo/config.toml": '[alias]\nsqltest = "test"\n'})
    commit(tmp_path, "rename the sqlness alias")
    write_tree(tmp_path, {"AGENTS.md": "Run `cargo sqlness` and `cargo nextest run`.\n"})
    code, results = check(tmp_path)
    found = by_anchor(results)
    renamed, external = found["cmd:cargo sqlness"], found["cmd:cargo nextest run"]
    assert code == 1 and renamed["verdict"] == "REFUTED" and "renamed to `sqltest` in" in renamed["reason"]
    assert external["verdict"] == "INCONCLUSIVE" and "installed separately" in external["reason"]


def test_a_path_gone_before_the_memory_file_named_it_is_not_stale(moved: Path) -> None:
    # AGENTS.md was committed after src/ moved: its `src/client/index.ts` never held here as written.
    write_tree(moved, {"AGENTS.md": "The client is `src/client/index.ts`.\n"})
    commit(moved, "docs: agents")
    code, results = check(moved)
    found = by_anchor(results)["file:src/client/index.ts"]
    assert code == 0 and found["verdict"] == "INCONCLUSIVE" and found["state"] == "written-after" and found["severity"] == "warning"
    assert "AGENTS.md did not name `src/client/index.ts` before" in found["reason"] and "'split into packages'" in found["reason"]
    assert "fix" not in found["details"]


def test_a_path_the_committed_memory_file_named_before_it_moved_is_stale(tmp_path: Path) -> None:
    write_tree(tmp_path, {"src/a.py": "x\n", "AGENTS.md": "Entry point: `src/a.py`.\n"})
    init_repo(tmp_path)
    git(tmp_path, "mv", "src/a.py", "src/main.py")
    commit(tmp_path, "rename the entry point")
    code, results = check(tmp_path)
    found = by_anchor(results)["file:src/a.py"]
    assert code == 1 and found["verdict"] == "REFUTED" and found["state"] == "gone"
    assert found["details"]["fix"] == {"from": "src/a.py", "to": "src/main.py"}


def test_a_target_removed_before_the_line_that_runs_it_was_written_is_a_warning(tmp_path: Path) -> None:
    write_tree(tmp_path, {"Makefile": "test:\n\techo t\ntest-py39:\n\techo old\n"})
    init_repo(tmp_path)
    write_tree(tmp_path, {"Makefile": "test:\n\techo t\n"})
    commit(tmp_path, "drop python 3.9")
    write_tree(tmp_path, {"AGENTS.md": "```sh\nmake test-py39\n```\n"})
    git(tmp_path, "add", "AGENTS.md")
    code, results = check(tmp_path)  # staged, not committed yet: the line is new, written after the target went
    found = next(r for r in results if "test-py39" in r["anchor"])
    assert code == 0 and found["verdict"] == "INCONCLUSIVE" and found["state"] == "written-after"
    git(tmp_path, "reset", "-q", "--hard", "HEAD~1")  # before the drop: the line is now written while the target is there
    write_tree(tmp_path, {"AGENTS.md": "```sh\nmake test-py39\n```\n"})
    commit(tmp_path, "docs: agents")
    write_tree(tmp_path, {"Makefile": "test:\n\techo t\n"})
    commit(tmp_path, "drop python 3.9")
    code, results = check(tmp_path)
    found = next(r for r in results if "test-py39" in r["anchor"])
    assert code == 1 and found["verdict"] == "REFUTED" and found["state"] == "gone" and "'drop python 3.9'" in found["reason"]


def test_a_memory_no_git_tracks_keeps_its_stale_verdict(moved: Path) -> None:
    # A store's memory has no history of its own: when it was written cannot be told, so history alone decides.
    report = Verifier(moved).verify(Memory("The client is `src/client/index.ts`.", anchors=["file:src/client/index.ts"]))
    assert report.results[0].verdict is Verdict.REFUTED and report.results[0].state == "gone"


def test_a_news_fragment_a_release_consumed_is_not_stale_but_a_folder_cleared_once_is(tmp_path: Path) -> None:
    # towncrier's shape: each change adds changelog/<pr>.<type>.md, each release deletes them all.
    write_tree(tmp_path, {"changelog/_template.md.j2": "t\n", "docs/a.md": "a\n", "docs/b.md": "b\n", "docs/c.md": "c\n", "docs/keep.md": "k\n"})
    init_repo(tmp_path)
    for release, prs in enumerate([(1, 2), (3, 4, 5), (6, 7)]):
        write_tree(tmp_path, {f"changelog/{pr}.added.md": f"pr {pr}\n" for pr in prs})
        commit(tmp_path, f"changes for release {release}")
        for pr in prs:
            git(tmp_path, "rm", "-q", f"changelog/{pr}.added.md")
        commit(tmp_path, f"release {release}: compile the changelog")
    for name in ("a", "b", "c"):
        git(tmp_path, "rm", "-q", f"docs/{name}.md")
    commit(tmp_path, "docs: drop the old guides")
    write_tree(tmp_path, {"AGENTS.md": "For PR 6, write `changelog/6.added.md`. The guide is `docs/b.md`.\n"})
    found = by_anchor(check(tmp_path)[1])
    fragment, guide = found["file:changelog/6.added.md"], found["file:docs/b.md"]
    assert fragment["verdict"] == "INCONCLUSIVE" and fragment["state"] == "recurring" and "a folder a workflow consumes" in fragment["reason"]
    assert guide["verdict"] == "REFUTED" and guide["state"] == "gone" and "'docs: drop the old guides'" in guide["reason"]


def test_a_memory_file_moved_with_the_folder_it_names_keeps_its_stale_verdict(tmp_path: Path) -> None:
    # The package moved whole, its AGENTS.md with it: the file named the old path before the move (as AGENTS.md there).
    write_tree(tmp_path, {"pkg/src/app.ts": "x\n", "pkg/AGENTS.md": "Start at `pkg/src/app.ts`.\n"})
    init_repo(tmp_path)
    (tmp_path / "packages").mkdir()
    git(tmp_path, "mv", "pkg", "packages/pkg")
    commit(tmp_path, "move the package")
    found = by_anchor(check(tmp_path, "packages/pkg/AGENTS.md")[1])["file:pkg/src/app.ts"]
    assert found["verdict"] == "REFUTED" and found["state"] == "gone" and "packages/pkg/src/app.ts" in found["reason"]


def test_a_memory_file_moved_after_the_folder_it_names_keeps_its_stale_verdict(tmp_path: Path) -> None:
    # tensorzero's shape: the folder moved first, the AGENTS.md that names it moved one commit later.
    write_tree(tmp_path, {"gateway/tests/relay/a.rs": "x\n", "core/AGENTS.md": "Relay tests: `gateway/tests/relay`.\n"})
    init_repo(tmp_path)
    git(tmp_path, "mv", "gateway/tests/relay", "gateway/tests/relays")
    commit(tmp_path, "tests: plural")
    (tmp_path / "crates").mkdir()
    git(tmp_path, "mv", "core", "crates/core")
    commit(tmp_path, "crates/")
    found = by_anchor(check(tmp_path, "crates/core/AGENTS.md")[1])["file:gateway/tests/relay"]
    assert found["verdict"] == "REFUTED" and found["state"] == "gone" and "gateway/tests/relays" in found["reason"]


@pytest.mark.parametrize("written_first", [True, False])
def test_a_path_that_moved_long_before_the_text_was_written_is_no_stale_one(tmp_path: Path, written_first: bool) -> None:
    """held-out-9's spree: `app/controllers/spree/` in a CLAUDE.md of 2026, a root folder that moved into a gem in
    2010 and whose trail ended deleted in 2026. The text went stale only if it named the path before it left the
    place written (the first move); written after, it meant another place's (each engine's): not stale."""
    write_tree(tmp_path, {"app/controllers/spree/base.rb": "x\n", "README.md": "r\n"})
    init_repo(tmp_path)
    notes = {"AGENTS.md": "Controllers live in `app/controllers/spree/`.\n"}
    if written_first:
        write_tree(tmp_path, notes)
        commit(tmp_path, "notes")
    (tmp_path / "core").mkdir()
    git(tmp_path, "mv", "app", "core/app")
    commit(tmp_path, "into a gem")
    if not written_first:
        write_tree(tmp_path, notes)
        commit(tmp_path, "notes")
    git(tmp_path, "rm", "-rq", "core/app/controllers")
    commit(tmp_path, "controllers out")
    found = by_anchor(check(tmp_path, "--no-cache")[1])["file:app/controllers/spree/"]
    assert "moved in " in found["reason"] and "'into a gem'" in found["reason"] and "then deleted in" in found["reason"]
    if written_first:
        assert found["verdict"] == "REFUTED" and found["state"] == "gone", found["reason"]
    else:
        assert found["verdict"] == "INCONCLUSIVE" and found["state"] == "written-after", found["reason"]


def test_a_walk_for_many_paths_reads_every_change_and_answers_as_one_for_a_few(moved: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    # Past PATHSPECS_MOST paths git is given the folders they lie in (decoys in one folder), or no pathspec at all
    # (decoys in more top-level folders than that), and the walk matches every change itself: the answers must not
    # differ from those of the paths asked alone.
    asked = ["docs/old.md", "src/util.ts", "src/client/", "src/client/index.ts", "docs/never.md"]
    in_one = [f"gone/decoy{i}.md" for i in range(2 * PATHSPECS_MOST)]
    spread = [f"gone{i}/decoy.md" for i in range(2 * PATHSPECS_MOST)]
    assert pathspecs([*asked, *in_one]) == ["docs", "src", "gone"] and pathspecs([*asked, *spread]) is None

    def reasons(paths: list[str]) -> list[str]:
        verifier = Verifier(moved, options={"cache_dir": str(tmp_path_factory.mktemp("cache"))})
        reports = verifier.verify_many([Memory(text=p, anchors=[f"file:{p}"]) for p in paths])
        return [r.results[0].reason for r in reports]

    few = reasons(asked)
    assert "moved to `packages/core/src/helper.ts`" in few[1] and "'split into packages'" in few[0]
    for decoys in (in_one, spread):
        many = reasons(asked + decoys)
        assert many[: len(asked)] == few
        assert all("never in this repository's history" in reason for reason in many[len(asked) :]), many[len(asked) :]


def test_a_moved_path_named_beside_its_new_place_is_not_stale(moved: Path) -> None:
    # Folo (held-out-15): a list of paths whose change needs a store build names the old config beside the new one
    write_tree(moved, {"AGENTS.md": "Rebuild when `src/util.ts` or `packages/core/src/helper.ts` changed.\n\nHelpers: `src/util.ts`.\n"})
    found = [r for r in check(moved)[1] if r["anchor"] == "file:src/util.ts"]
    beside, alone = sorted(found, key=lambda r: r["verdict"])
    assert beside["verdict"] == "INCONCLUSIVE" and "written knowing the move" in beside["reason"] and "fix" not in beside["details"]
    assert alone["verdict"] == "REFUTED" and alone["state"] == "gone"


def test_a_new_place_that_is_a_prefix_of_the_old_path_is_not_named_beside_it(tmp_path: Path) -> None:
    # review: `scripts/deploy.sh` moved to `scripts/deploy`; the old path's own text holds the new one as a prefix
    write_tree(tmp_path, {"scripts/deploy.sh": "echo\n", "AGENTS.md": "Run `scripts/deploy.sh`.\n"})
    init_repo(tmp_path)
    git(tmp_path, "mv", "scripts/deploy.sh", "scripts/deploy")
    commit(tmp_path, "drop the extension")
    found = by_anchor(check(tmp_path)[1])["file:scripts/deploy.sh"]
    assert found["verdict"] == "REFUTED" and "moved to `scripts/deploy`" in found["reason"]


def _java(body: str, count: int) -> str:
    """A small Java file: eleven shared import lines (a license header, the imports) and `count` lines of its own."""
    return "".join(f"import org.example.shared.Thing{i};\n" for i in range(11)) + "".join(body.format(i=i) for i in range(count))


def test_a_file_git_pairs_with_an_unrelated_one_of_another_name_was_deleted_not_moved(tmp_path: Path) -> None:
    """ta4j deleted a 38-line chart test in the commit that added an unrelated `ZigZagTrend.java`, 53 % alike in their
    imports: git's `-M` paired them, and the REFUTED said "moved to" it, with a `fix` that would write it in. Under
    60 % alike with another name, git's pairing is a guess: deleted. A renamed file that kept most of its text, or a
    file that kept its name, still moved."""
    write_tree(tmp_path, {
        "BuyTest.java": _java("void buyCase{i}() {{ assertTrue(chart{i}); }}\n", 9),
        "Parser.java": _java("int parse{i}() {{ return {i}; }}\n", 30),
        "util/Cache.java": _java("Object get{i}() {{ return null; }}\n", 9),
        "AGENTS.md": "See `BuyTest.java`, `Parser.java` and `util/Cache.java`.\n",
    })
    init_repo(tmp_path)
    write_tree(tmp_path, {"ZigZagTrend.java": _java("int trendValue{i} = compute({i});\n", 9),
                          "TokenParser.java": _java("int parse{i}() {{ return {i}; }}\n", 30) + "int extra() { return 0; }\n"})
    for gone in ("BuyTest.java", "Parser.java"):
        os.remove(tmp_path / gone)
    commit(tmp_path, "replace the chart test")
    write_tree(tmp_path, {"core/Cache.java": _java("Object fetch{i}() {{ return null; }}\n", 9)})  # (alone: git pairs it)
    os.remove(tmp_path / "util/Cache.java")
    commit(tmp_path, "move the cache")
    found = by_anchor(check(tmp_path)[1])
    buy = found["file:BuyTest.java"]
    assert buy["verdict"] == "REFUTED" and "deleted in" in buy["reason"] and "ZigZagTrend" not in buy["reason"], buy
    assert "fix" not in buy["details"]
    assert "moved to `TokenParser.java`" in found["file:Parser.java"]["reason"]  # most of its text kept
    assert "moved to `core/Cache.java`" in found["file:util/Cache.java"]["reason"]  # its name kept, half its text new
