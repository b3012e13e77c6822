"""Prompt rendering: the mark and filter policies over real verification reports."""

from __future__ import annotations

from pathlib import Path

import pytest

from anchorcheck import Memory, Verifier, bank, render_prompt
from anchorcheck.report.render import mark_for

from tests._span_support import commit_all, make_git_repo, run_git, write_file

BODY = "".join(f"setting_{n} = {n}\n" for n in range(1, 21))


def reports(root: Path, memories: list[Memory]):  # noqa: ANN201
    verifier = Verifier(root)
    return [verifier.verify(m) for m in memories]


@pytest.fixture
def stale_setup(tmp_path: Path):  # noqa: ANN201
    root = make_git_repo(tmp_path / "r", {"conf.py": BODY, "README.md": "hi\n"})
    fresh = bank(root, "conf.py", 1, 2)
    stale = bank(root, "conf.py", 10, 11)
    write_file(root, "conf.py", BODY.replace("setting_10 = 10\n", "setting_10 = 99\n"))
    head = commit_all(root)
    memories = [
        Memory(text="Settings 1 and 2 are ints.", anchors=[fresh]),
        Memory(text="Setting 10 is 10.", anchors=[stale]),
        Memory(text="We like small functions."),
        Memory(text="There is a roadmap.", anchors=["file:ROADMAP.md"]),
    ]
    return root, memories, stale.head, head


def test_mark_keeps_every_memory_and_marks_the_stale_one(stale_setup) -> None:  # noqa: ANN001
    root, memories, banked, head = stale_setup
    out = render_prompt(reports(root, memories), "mark")
    lines = out.text.splitlines()
    assert lines[0] == "- Settings 1 and 2 are ints."
    assert lines[1] == "- Setting 10 is 10."
    assert lines[2].startswith("  (source changed since this was recorded: conf.py")
    assert f"recorded at {banked[:12]}, tree now at {head[:12]}" in lines[2]
    assert "re-read the file before relying on it" in lines[2]
    assert lines[3] == "- We like small functions."  # no anchors: unchanged
    assert lines[4].startswith("- There is a roadmap.")
    assert "contradicted by the code: file:ROADMAP.md" in lines[5]
    assert (out.shown, out.marked, out.omitted) == (4, 2, 0)


def test_filter_leaves_refuted_memories_out_and_counts_them(stale_setup) -> None:  # noqa: ANN001
    root, memories, _, _ = stale_setup
    out = render_prompt(reports(root, memories), "filter")
    assert out.text.splitlines() == [
        "- Settings 1 and 2 are ints.",
        "- We like small functions.",
        "(2 memories left out: the current code contradicts them.)",
    ]
    assert (out.shown, out.marked, out.omitted) == (2, 0, 2)


def test_inconclusive_memories_are_not_marked(tmp_path: Path) -> None:
    write_file(tmp_path, "a.py", "x\n")
    out = render_prompt(reports(tmp_path, [Memory(text="t", anchors=["span:a.py#L1"])]), "mark")
    assert out.text == "- t" and out.marked == 0


def test_foreign_checkout_is_marked_but_kept(tmp_path: Path) -> None:
    root = make_git_repo(tmp_path / "r", {"a.py": BODY})
    run_git(root, "remote", "add", "origin", "https://example.com/o/r.git")
    c = bank(root, "a.py", 1, 1)
    run_git(tmp_path, "clone", "-q", str(root), str(tmp_path / "clone"))
    [report] = reports(tmp_path / "clone", [Memory(text="t", anchors=[c])])
    assert "different checkout" in (mark_for(report) or "")


def test_unknown_policy_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown policy"):
        render_prompt([], "hide")
