"""`anchorcheck fix` and `check --fix`: a path history shows moved is rewritten where it is written,
in prose and in typed anchors, every other byte kept; `--diff` previews and writes nothing."""

from __future__ import annotations

import io
import os
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from anchorcheck.cli import main
from tests.conftest import git, init_repo, needs_git, write_tree

pytestmark = needs_git


def cli(root: Path, *args: str) -> tuple[int, str]:
    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(root)
    try:
        with redirect_stdout(out):
            code = main(list(args))
    finally:
        os.chdir(cwd)
    return code, out.getvalue()


@pytest.fixture
def moved(tmp_path: Path) -> Path:
    """web/src/util.ts renamed to web/src/helpers.ts, docs/old.md deleted."""
    write_tree(tmp_path, {"web/src/util.ts": "u\n", "web/src/app.ts": "a\n", "docs/old.md": "o\n", "docs/index.md": "i\n"})
    init_repo(tmp_path)
    git(tmp_path, "mv", "web/src/util.ts", "web/src/helpers.ts")
    git(tmp_path, "rm", "-q", "docs/old.md")
    git(tmp_path, "commit", "-q", "-m", "rename util")
    return tmp_path


def test_fix_rewrites_moved_paths_in_prose_and_typed_anchors_keeping_every_other_byte(moved: Path) -> None:
    root_text = "# Notes\r\n\r\n- Helpers: `web/src/util.ts:12`.\r\n- See [util](web/src/util.ts#top).\r\n- Typed: `file:web/src/util.ts`\r\n- Gone: `docs/old.md`\r\n"
    nested_text = "Use `src/util.ts` from here.\n"
    write_tree(moved, {"AGENTS.md": root_text, "web/AGENTS.md": nested_text})
    assert cli(moved, "fix")[0] == 0
    assert (moved / "AGENTS.md").read_bytes().decode() == root_text.replace("web/src/util.ts", "web/src/helpers.ts")
    assert (moved / "web/AGENTS.md").read_text() == "Use `src/helpers.ts` from here.\n"  # read from web/, written so
    code, out = cli(moved, "check", "--format", "json")
    assert code == 0 or '"docs/old.md' in out  # what is left is the deleted file: no destination to write


def test_diff_previews_and_writes_nothing(moved: Path) -> None:
    write_tree(moved, {"AGENTS.md": "See `web/src/util.ts`.\n"})
    code, out = cli(moved, "fix", "--diff")
    assert code == 0 and "-See `web/src/util.ts`." in out and "+See `web/src/helpers.ts`." in out
    assert (moved / "AGENTS.md").read_text() == "See `web/src/util.ts`.\n"


def test_check_fix_reports_then_fixes(moved: Path) -> None:
    write_tree(moved, {"AGENTS.md": "See `web/src/util.ts`.\n"})
    code, out = cli(moved, "check", "--fix")
    assert code == 1 and "moved to `web/src/helpers.ts`" in out  # the report is of the file as it was
    assert (moved / "AGENTS.md").read_text() == "See `web/src/helpers.ts`.\n"
    assert cli(moved, "check")[0] == 0


def test_a_renamed_script_is_refuted_with_its_new_name_and_fixed(tmp_path: Path) -> None:
    write_tree(tmp_path, {"package.json": '{"scripts": {"test:unit": "vitest", "build": "tsc"}}\n'})
    init_repo(tmp_path)
    write_tree(tmp_path, {"package.json": '{"scripts": {"test:units": "vitest", "build": "tsc"}}\n'})
    git(tmp_path, "commit", "-q", "-am", "scripts: plural")
    write_tree(tmp_path, {"AGENTS.md": "Run `pnpm test:unit`, never `pnpm lint`.\n"})
    code, out = cli(tmp_path, "check")
    assert code == 1 and "renamed to `test:units` in" in out and "'scripts: plural'" in out
    # `lint` never was a script: not stale, an example (issue 27), with how far history was read
    assert "INCONCLUSIVE cmd:pnpm lint" in out and "never defined in package.json (all 2 revisions of it looked at)" in out
    cli(tmp_path, "fix")
    assert (tmp_path / "AGENTS.md").read_text() == "Run `pnpm test:units`, never `pnpm lint`.\n"


def test_a_target_renamed_inside_a_slash_list_of_targets_is_refuted_and_fixed(tmp_path: Path) -> None:
    """`make format/lint/typecheck` after `typecheck` became `pyright`: history must be asked about `typecheck`,
    not about the word `format/lint/typecheck` no Makefile ever defined (it said "never defined", a warning)."""
    rules = "format:\n\truff format\nlint:\n\truff check\n{}:\n\tpyright\n"
    write_tree(tmp_path, {"Makefile": rules.format("typecheck")})
    init_repo(tmp_path)
    write_tree(tmp_path, {"Makefile": rules.format("pyright")})
    git(tmp_path, "commit", "-q", "-am", "make: typecheck is pyright")
    write_tree(tmp_path, {"AGENTS.md": "Run `make format/lint/typecheck` before a PR.\n"})
    code, out = cli(tmp_path, "check")
    assert code == 1 and "REFUTED cmd:make format/lint/typecheck" in out and "renamed to `pyright` in" in out
    assert "never defined" not in out
    cli(tmp_path, "fix")
    assert (tmp_path / "AGENTS.md").read_text() == "Run `make format/lint/pyright` before a PR.\n"


def test_a_link_whose_text_shows_its_target_is_rewritten_whole(moved: Path) -> None:
    """[`web/src/util.ts`](web/src/util.ts) is one reference written twice on its line: rewriting the text and not
    the target left a link that shows the new path and still leads to the old one."""
    text = "Read [`web/src/util.ts`](web/src/util.ts) — not `docs/web/src/util.ts.bak`.\n\nSee [it](./web/src/util.ts), `web/src/util.ts`.\n"
    write_tree(moved, {"AGENTS.md": text})
    cli(moved, "fix")
    assert (moved / "AGENTS.md").read_text() == text.replace("`web/src/util.ts`](web/src/util.ts)", "`web/src/helpers.ts`](web/src/helpers.ts)").replace(
        "(./web/src/util.ts), `web/src/util.ts`", "(./web/src/helpers.ts), `web/src/helpers.ts`")
    assert cli(moved, "check")[0] == 0


def test_a_file_copied_to_two_places_as_it_was_deleted_has_no_single_destination(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """plans/notes.md deleted and its bytes added as plans/a.md and plans/b.md in one commit: git's rename detection
    pairs it with one of them by chance. Stale, but which copy is meant is for a person: no fix, and the reason
    names both."""
    write_tree(tmp_path, {"plans/notes.md": "future work\n" * 5, "README.md": "r\n"})
    init_repo(tmp_path)
    text = "Notes: `plans/notes.md`. `file:plans/notes.md`\n"
    write_tree(tmp_path, {"plans/a.md": "future work\n" * 5, "plans/b.md": "future work\n" * 5, "AGENTS.md": text})
    git(tmp_path, "rm", "-q", "plans/notes.md")
    git(tmp_path, "add", "plans")
    git(tmp_path, "commit", "-q", "-m", "split the notes")
    code, out = cli(tmp_path, "check")
    assert code == 1 and "REFUTED file:plans/notes.md" in out
    assert "`plans/a.md`" in out and "`plans/b.md`" in out and "moved to" not in out
    capsys.readouterr()
    cli(tmp_path, "fix")
    assert (tmp_path / "AGENTS.md").read_text() == text
    said = capsys.readouterr().err  # what fix leaves, and why
    assert "left: AGENTS.md:1:" in said and "`plans/a.md`, `plans/b.md`" in said and "which one is meant is for a person" in said


def test_a_symbol_anchor_whose_file_moved_is_refuted_with_the_move_and_fixed(tmp_path: Path) -> None:
    """`sym:app/tracer.py::Proxy` after app/tracer.py became app/tracing.py: the file half of the anchor is the
    path history moved, rewritten as `file:` anchors are (it said only "app/tracer.py does not exist")."""
    write_tree(tmp_path, {"app/tracer.py": "class Proxy:\n    pass\n"})
    init_repo(tmp_path)
    git(tmp_path, "mv", "app/tracer.py", "app/tracing.py")
    git(tmp_path, "commit", "-q", "-m", "rename tracer")
    write_tree(tmp_path, {"MEMORY.md": "- The proxy. `sym:app/tracer.py::Proxy`\n"})
    code, out = cli(tmp_path, "check", "MEMORY.md")
    assert code == 1 and "moved to `app/tracing.py` in" in out
    cli(tmp_path, "fix", "MEMORY.md")
    assert (tmp_path / "MEMORY.md").read_text() == "- The proxy. `sym:app/tracing.py::Proxy`\n"
    assert cli(tmp_path, "check", "MEMORY.md")[0] == 0
