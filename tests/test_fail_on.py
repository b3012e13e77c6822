"""`check --fail-on inconclusive` fails on what it lists, and one bad memory file is one finding
(issue 28, finding 5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anchorcheck.cli import main

from tests.conftest import write_tree

PROSE = "# Notes\n\nA paragraph without anchors.\n\nAnother one.\n\n- The readme is `file:README.md`.\n"


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # memory files are shown relative to the current directory


def check(root: Path, capsys, *args: str) -> tuple[int, str]:  # noqa: ANN001
    code = main(["check", "--no-cache", "--root", str(root), *args])
    return code, capsys.readouterr().out


def test_paragraphs_without_anchors_do_not_fail_fail_on_inconclusive(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    root = write_tree(tmp_path, {"README.md": "hi\n", "CLAUDE.md": PROSE})
    assert check(root, capsys, "--fail-on", "inconclusive")[0] == 0


def test_fail_on_inconclusive_lists_every_item_it_fails_on(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    root = write_tree(tmp_path, {"README.md": "hi\n", "CLAUDE.md": PROSE + "- HTTP is `pkg:pypi/requests`.\n"})
    code, out = check(root, capsys, "--fail-on", "inconclusive")
    assert code == 1 and "CLAUDE.md:8:12: INCONCLUSIVE pkg:pypi/requests" in out
    code, out = check(root, capsys, "--fail-on", "inconclusive", "--format", "github")
    assert code == 1 and "file=CLAUDE.md,line=8" in out and "pkg:pypi/requests" in out


def test_one_malformed_memory_file_is_one_finding_and_the_others_are_still_checked(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    root = write_tree(
        tmp_path,
        {"CLAUDE.md": "- The guide is `file:docs/gone.md`.\n", "memory.jsonl": '{"type": "entity", "name": "x"\n'},
    )
    code, out = check(root, capsys)
    assert code == 1  # the stale path of the other file is found
    assert "REFUTED file:docs/gone.md" in out
    assert "memory.jsonl:1:1: INCONCLUSIVE memory.jsonl — the memory file could not be read" in out
    write_tree(root, {"CLAUDE.md": "- Nothing to check here.\n"})
    assert check(root, capsys)[0] == 0  # INCONCLUSIVE: exit as --fail-on says
    code, out = check(root, capsys, "--fail-on", "inconclusive", "--format", "json")
    [row] = [r for r in json.loads(out)["results"] if r.get("state") == "unreadable-file"]
    assert code == 1 and (row["memory_file"], row["line"]) == ("memory.jsonl", 1)
