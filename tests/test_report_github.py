"""`--format github`: workflow-command annotations, escaped as the Actions runner expects."""

from __future__ import annotations

from anchorcheck.cli import main
from anchorcheck.report.github import escape_data, escape_property
from tests.conftest import needs_git


def test_annotations_for_refuted_and_inconclusive(make_tree, capsys, monkeypatch) -> None:  # noqa: ANN001
    root = make_tree({"CLAUDE.md": "- Gone `file:src/gone.py`\n- Unbanked `span:a.py#L1`\n- Here `file:a.py`\n", "a.py": "x\n"})
    monkeypatch.chdir(root)
    assert main(["check", "--format", "github", "CLAUDE.md"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (
        "::error file=CLAUDE.md,line=1,col=9,title=anchorcheck file/refuted::"
        "file:src/gone.py — src/gone.py does not exist in the repository"
    )
    # a span nobody banked is a mistake of the memory file: an error with its own rule id and the fix
    assert lines[1] == (
        "::error file=CLAUDE.md,line=2,col=13,title=anchorcheck span/unbanked::"
        "span:a.py#L1 — a.py lines 1-1: not banked, run anchorcheck lock"
    )
    assert len(lines) == 3 and lines[2].startswith("Checked 3 anchors")


def test_escaping() -> None:
    assert escape_data("50% done\nnext\r") == "50%25 done%0Anext%0D"
    assert escape_property("dir,with:colon/CLAUDE.md") == "dir%2Cwith%3Acolon/CLAUDE.md"


@needs_git
def test_a_monorepo_project_as_root_is_annotated_from_the_repository_top(make_repo, capsys, monkeypatch) -> None:  # noqa: ANN001
    """GitHub and code scanning place paths from the repository's top: `--root packages/web` must not drop the folder."""
    import json

    root = make_repo({
        "packages/web/AGENTS.md": "- Served by `file:src/server.py` with `pkg:pypi/redis`\n",
        "packages/web/pyproject.toml": '[project]\nname = "web"\nversion = "1"\ndependencies = ["flask"]\n',
    })
    for cwd in (root, root / "packages/web"):
        monkeypatch.chdir(cwd)
        web = "packages/web" if cwd == root else "."
        assert main(["check", "--root", web, "--format", "github"]) == 1
        first = capsys.readouterr().out.splitlines()[0]
        assert first.startswith("::warning file=packages/web/AGENTS.md,line=1,"), first  # never existed: a warning
        assert main(["check", "--root", web, "--format", "sarif"]) == 1
        results = json.loads(capsys.readouterr().out)["runs"][0]["results"]
        assert {loc["physicalLocation"]["artifactLocation"]["uri"] for r in results for loc in r["locations"]} == {"packages/web/AGENTS.md"}
        related = [loc["physicalLocation"]["artifactLocation"]["uri"] for r in results for loc in r.get("relatedLocations", [])]
        assert related and all(uri.startswith("packages/web/") for uri in related), related
