"""The text report as a person scans it: what fails first, counts in words, what to run next, plain reasons."""

from __future__ import annotations

from pathlib import Path

import pytest

import anchorcheck
from anchorcheck.cli import main
from tests.conftest import git, init_repo, needs_git, write_tree

pytestmark = needs_git


def test_the_refuted_memory_comes_first_grouped_by_file(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    prose = "".join(f"- Note {i} uses `pkg:pypi/lib{i}`.\n" for i in range(5))  # no manifest: INCONCLUSIVE, not an error
    root = init_repo(write_tree(tmp_path / "repo", {
        "AGENTS.md": prose,
        "CLAUDE.md": "- Shown before.\n- The app uses `pkg:pypi/flask`.\n- Gone: `file:src/gone.py`.\n",
        "src/app.py": "",
    }))
    monkeypatch.chdir(root)
    assert main(["check", "--fail-on", "refuted"]) == 1  # a typed path that never existed is a warning, not an error
    lines = [line for line in capsys.readouterr().out.splitlines() if ": " in line and "memory:" in line]
    assert lines[0].startswith("CLAUDE.md:3: REFUTED memory:"), lines
    assert [line.split(":")[0] for line in lines[1:]] == ["AGENTS.md"] * 5 + ["CLAUDE.md"], "the rest grouped by file, in file order"


def test_errors_come_before_warnings(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 27 item 5: text output shows errors first. A typed path that never existed is REFUTED but a warning
    (the run passes); one history shows deleted is an error (the run fails): it must not come after the warning."""
    root = init_repo(write_tree(tmp_path / "repo", {"src/gone.py": "", "src/app.py": ""}))
    git(root, "rm", "-q", "src/gone.py")
    git(root, "commit", "-q", "-m", "drop gone")
    write_tree(root, {"MEMORY.md": "- Never here: `file:src/never.py`.\n- Gone: `file:src/gone.py`.\n"})
    monkeypatch.chdir(root)
    assert main(["check", "MEMORY.md"]) == 1
    lines = [line for line in capsys.readouterr().out.splitlines() if "memory:" in line]
    assert [line.split(":")[1] for line in lines] == ["2", "1"], lines


def test_quiet_prints_what_fails_the_run_under_fail_on(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """`-q` prints only what fails the run: a REFUTED warning (a typed path that never existed) passes by default,
    so it is not printed then (it was: a REFUTED line and exit 0); with `--fail-on warning` it fails, and is."""
    root = init_repo(write_tree(tmp_path / "repo", {"src/app.py": "", "MEMORY.md": "- Never here: `file:src/never.py`.\n"}))
    monkeypatch.chdir(root)
    capsys.readouterr()
    assert main(["check", "-q", "MEMORY.md"]) == 0 and capsys.readouterr().out == ""
    assert main(["check", "-q", "--fail-on", "warning", "MEMORY.md"]) == 1 and "file:src/never.py" in capsys.readouterr().out
    # an INCONCLUSIVE memory fails `--fail-on inconclusive`: printed by `-q` then, and only then (one rule for both)
    write_tree(root, {"MEMORY.md": "- Uses `pkg:pypi/flask`.\n"})  # no manifest: INCONCLUSIVE
    assert main(["check", "-q", "--fail-on", "refuted", "MEMORY.md"]) == 0 and capsys.readouterr().out == ""
    assert main(["check", "-q", "--fail-on", "inconclusive", "MEMORY.md"]) == 1 and "pkg:pypi/flask" in capsys.readouterr().out


def test_the_summary_counts_anchors_and_references_in_the_right_number(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    root = init_repo(write_tree(tmp_path / "repo", {"CLAUDE.md": "# Notes\n\nPlain prose.\n\nMore prose.\n\n- Entry `file:src/app.py`.\n- Tests live in `tests/`.\n", "tests/test_app.py": "", "src/app.py": ""}))
    monkeypatch.chdir(root)
    assert main(["check"]) == 0
    summary = capsys.readouterr().out.splitlines()[-1]
    assert summary.startswith("Checked 1 anchor and 1 reference in 1 file: 2 verified in ")
    assert "without anchors" not in summary and "memories" not in summary


def test_a_moved_span_says_what_to_run(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    code = "".join(f"VALUE_{i} = {i}\n" for i in range(12))
    root = init_repo(write_tree(tmp_path / "repo", {"CLAUDE.md": "- Values `span:src/v.py#L3-L4`\n", "src/v.py": code}))
    monkeypatch.chdir(root)
    assert main(["lock"]) == 0
    (root / "src/v.py").write_text('"""Values."""\n\n' + code)
    capsys.readouterr()
    assert main(["check"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-2] == "hint: 1 span moved intact: run `anchorcheck relocate` to record where"
    assert out[-1].startswith("Checked 1 anchor in 1 file: 1 verified in ")


def test_no_internal_wording_reaches_a_prompt(tmp_path: Path) -> None:
    root = init_repo(write_tree(tmp_path / "repo", {f"src/m{i}.py": "import os\n" for i in range(3)}))
    verifier = anchorcheck.Verifier(root)
    report = verifier.verify(anchorcheck.Memory(text="We queue jobs with Celery.", anchors=["import:celery"]))
    text = anchorcheck.render_prompt([report], policy="mark").text
    assert "searched 3 source files: 0 read in full, 3 never mention it" in text
    for internal in ("prefilter", "unparsed", "(s)", "ruled out"):
        assert internal not in text
    git(root, "status")  # the checkout is untouched
