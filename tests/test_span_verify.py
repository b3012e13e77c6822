"""The `span:` kind on real files: fresh, relocated, stale and unverifiable, rule by rule."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from anchorcheck import Anchor, Citation, Memory, Verdict, Verifier, bank
from anchorcheck.model.anchors import AnchorSyntaxError

from tests._span_support import write_file

BODY = "".join(f"line {n}\n" for n in range(1, 31))


def lines_of(n: int, m: int) -> str:
    return "".join(f"line {k}\n" for k in range(n, m + 1))


def check(root: Path, citation: Citation):  # noqa: ANN201
    return Verifier(root).check(citation)


def test_fresh_span_verifies_with_its_lines_as_evidence(tmp_path: Path) -> None:
    write_file(tmp_path, "a.py", BODY)
    r = check(tmp_path, bank(tmp_path, "a.py", 10, 12))
    assert (r.verdict, r.state) == (Verdict.VERIFIED, "fresh")
    assert r.anchor == "span:a.py#L10-L12"
    assert r.evidence[0].path == "a.py" and r.evidence[0].line == 10


def test_span_moved_down_with_intact_context_relocates_to_the_new_lines(tmp_path: Path) -> None:
    write_file(tmp_path, "a.py", BODY)
    c = bank(tmp_path, "a.py", 10, 12)
    write_file(tmp_path, "a.py", "new 1\nnew 2\n" + BODY)
    r = check(tmp_path, c)
    assert (r.verdict, r.state) == (Verdict.VERIFIED, "relocated")
    assert (r.details["start_line"], r.details["end_line"], r.details["rule"]) == (12, 14, "context")
    assert r.evidence[0].line == 12 and "moved from a.py lines 10-12" in r.evidence[0].detail


def test_any_byte_change_inside_the_span_is_stale_with_a_diff(tmp_path: Path) -> None:
    write_file(tmp_path, "a.py", BODY)
    c = bank(tmp_path, "a.py", 10, 12)
    write_file(tmp_path, "a.py", BODY.replace("line 11\n", "line  11\n"))
    r = check(tmp_path, c)
    assert (r.verdict, r.state) == (Verdict.REFUTED, "stale")
    diff = r.details["diff"]
    assert "-line 11" in diff and "+line  11" in diff and "@@ -10,3 +10,3 @@" in diff
    assert r.details["current_lines"] == [10, 12]


@pytest.mark.parametrize(
    "edit",
    [
        lambda s: s.replace("line 11\n", "line 11\r\n"),  # CRLF inside the span
        lambda s: s.replace("line 11\n", "    line 11\n"),  # indentation
        lambda s: s.replace("line 11\n", "line 11 \n"),  # trailing whitespace
    ],
)
def test_whitespace_and_line_ending_changes_are_real_changes(tmp_path: Path, edit) -> None:  # noqa: ANN001
    write_file(tmp_path, "a.py", BODY)
    c = bank(tmp_path, "a.py", 10, 12)
    write_file(tmp_path, "a.py", edit(BODY))
    assert check(tmp_path, c).verdict is Verdict.REFUTED


def test_removing_the_final_newline_inside_a_span_is_stale(tmp_path: Path) -> None:
    write_file(tmp_path, "a.py", "a\nb\nc\n")
    c = bank(tmp_path, "a.py", 2, 3)
    write_file(tmp_path, "a.py", "a\nb\nc")
    r = check(tmp_path, c)
    assert r.verdict is Verdict.REFUTED
    assert "no newline at end of file" in r.details["diff"]


def test_edited_original_is_not_vouched_for_by_an_identical_twin(tmp_path: Path) -> None:
    twin = "def helper():\n    return 42\n"
    text = "# top\n" + twin + "".join(f"a{n}\n" for n in range(8)) + twin + "".join(f"b{n}\n" for n in range(8))
    write_file(tmp_path, "t.py", text)
    c = bank(tmp_path, "t.py", 12, 13)  # the second copy
    assert c.copies == 2
    edited = text.replace("a7\n" + twin, "a7\ndef helper():\n    return 43\n")
    write_file(tmp_path, "t.py", edited)
    r = check(tmp_path, c)
    assert r.verdict is Verdict.REFUTED
    assert "identical copy elsewhere lack" in r.reason or "identical copies" in r.reason


def test_twin_block_still_relocates_with_its_own_context(tmp_path: Path) -> None:
    twin = "x = 1\ny = 2\n"
    text = "".join(f"p{n}\n" for n in range(6)) + twin + "".join(f"q{n}\n" for n in range(6)) + twin + "".join(f"r{n}\n" for n in range(6))
    write_file(tmp_path, "t.py", text)
    c = bank(tmp_path, "t.py", 15, 16)
    write_file(tmp_path, "t.py", "inserted\n" + text)
    r = check(tmp_path, c)
    assert (r.verdict, r.details["start_line"]) == (Verdict.VERIFIED, 16)


def test_span_at_start_of_file_relocates_only_to_the_start(tmp_path: Path) -> None:
    head = "import os\nimport sys\n"
    text = head + "".join(f"x{n}\n" for n in range(10)) + head + "".join(f"y{n}\n" for n in range(10))
    write_file(tmp_path, "s.py", text)
    c = bank(tmp_path, "s.py", 1, 2)
    assert c.context_before == () and c.copies == 2
    # the file-start copy is edited; the mid-file twin must not vouch for it
    write_file(tmp_path, "s.py", text.replace(head, "import os\nimport re\n", 1))
    assert check(tmp_path, c).verdict is Verdict.REFUTED


def test_span_at_end_of_file_relocates_only_to_the_end(tmp_path: Path) -> None:
    tail = "main()\n"
    text = "".join(f"a{n}\n" for n in range(6)) + tail + "".join(f"b{n}\n" for n in range(6)) + "".join(f"a{n}\n" for n in range(6)) + tail
    write_file(tmp_path, "e.py", text)
    c = bank(tmp_path, "e.py", 20, 20)
    assert c.context_after == () and c.copies == 2
    write_file(tmp_path, "e.py", text[: -len(tail)] + "main(1)\n")
    assert check(tmp_path, c).verdict is Verdict.REFUTED
    write_file(tmp_path, "e.py", "extra\n" + text)
    r = check(tmp_path, c)
    assert (r.verdict, r.details["start_line"]) == (Verdict.VERIFIED, 21)


def test_unique_span_relocates_even_when_a_context_line_was_edited(tmp_path: Path) -> None:
    write_file(tmp_path, "a.py", BODY)
    c = bank(tmp_path, "a.py", 10, 12)
    assert c.copies == 1
    write_file(tmp_path, "a.py", "top\n" + BODY.replace("line 8\n", "line eight\n"))
    r = check(tmp_path, c)
    assert (r.verdict, r.state, r.details["rule"], r.details["start_line"]) == (Verdict.VERIFIED, "relocated", "unique", 11)


def test_span_that_had_twins_still_needs_its_context(tmp_path: Path) -> None:
    twin = "same\nsame2\n"
    text = "".join(f"p{n}\n" for n in range(6)) + twin + "".join(f"q{n}\n" for n in range(6)) + twin + "".join(f"r{n}\n" for n in range(6))
    write_file(tmp_path, "t.py", text)
    c = bank(tmp_path, "t.py", 7, 8)
    # delete the other twin and edit a context line of ours: only one copy is left, but it had twins
    edited = text.replace("q5\n" + twin, "q5\n").replace("p5\n", "p five\n")
    write_file(tmp_path, "t.py", "shift\n" + edited)
    assert check(tmp_path, c).verdict is Verdict.REFUTED


def test_unique_span_with_a_new_twin_is_not_guessed(tmp_path: Path) -> None:
    write_file(tmp_path, "a.py", BODY)
    c = bank(tmp_path, "a.py", 10, 11)
    span = "line 10\nline 11\n"
    changed = BODY.replace("line 9\n", "nine\n").replace("line 12\n", "twelve\n") + span
    write_file(tmp_path, "a.py", "top\n" + changed)
    assert check(tmp_path, c).verdict is Verdict.REFUTED


def test_deleted_file_is_stale(tmp_path: Path) -> None:
    write_file(tmp_path, "a.py", BODY)
    c = bank(tmp_path, "a.py", 1, 2)
    (tmp_path / "a.py").unlink()
    r = check(tmp_path, c)
    assert (r.verdict, r.state) == (Verdict.REFUTED, "stale")
    assert "no longer exists" in r.reason


def test_file_moved_without_git_is_found_by_content(tmp_path: Path) -> None:
    write_file(tmp_path, "old/a.py", BODY)
    c = bank(tmp_path, "old/a.py", 5, 7)
    (tmp_path / "new").mkdir()
    (tmp_path / "old/a.py").rename(tmp_path / "new/a.py")
    r = check(tmp_path, c)
    assert (r.verdict, r.state, r.details["path"], r.details["start_line"]) == (Verdict.VERIFIED, "relocated", "new/a.py", 5)
    assert r.evidence[0].path == "new/a.py"


def test_file_gone_and_content_only_in_twins_without_context_is_stale(tmp_path: Path) -> None:
    write_file(tmp_path, "a.py", "x\n" + "common\n" + "y\n")
    write_file(tmp_path, "b.py", "p\ncommon\nq\n")
    write_file(tmp_path, "c.py", "r\ncommon\ns\n")
    c = bank(tmp_path, "a.py", 2, 2)
    (tmp_path / "a.py").unlink()
    assert check(tmp_path, c).verdict is Verdict.REFUTED


def test_file_gone_and_twin_file_without_its_context_does_not_vouch(tmp_path: Path) -> None:
    shared = "def main():\n    run()\n"
    write_file(tmp_path, "a.py", "import a\n" + shared + "# a only\n")
    write_file(tmp_path, "b.py", "import b\n" + shared + "# b only\n")  # same lines, same numbers
    c = bank(tmp_path, "a.py", 2, 3)
    assert c.copies == 1
    (tmp_path / "a.py").unlink()
    assert check(tmp_path, c).verdict is Verdict.REFUTED


def test_file_gone_and_copied_whole_into_two_places_is_not_guessed(tmp_path: Path) -> None:
    write_file(tmp_path, "a.py", BODY)
    c = bank(tmp_path, "a.py", 10, 12)
    write_file(tmp_path, "x/a.py", BODY)
    write_file(tmp_path, "y/a.py", BODY)
    (tmp_path / "a.py").unlink()
    assert check(tmp_path, c).verdict is Verdict.REFUTED


def test_shrunk_file_is_stale_not_an_error(tmp_path: Path) -> None:
    write_file(tmp_path, "a.py", BODY)
    c = bank(tmp_path, "a.py", 25, 30)
    write_file(tmp_path, "a.py", lines_of(1, 3))
    r = check(tmp_path, c)
    assert r.verdict is Verdict.REFUTED and "diff" in r.details


def test_record_with_only_a_hash_verifies_in_place_and_relocates_by_hash(tmp_path: Path) -> None:
    write_file(tmp_path, "a.py", BODY)
    full = bank(tmp_path, "a.py", 10, 12)
    bare = Citation("a.py", 10, 12, sha256=full.sha256)
    assert check(tmp_path, bare).state == "fresh"
    write_file(tmp_path, "a.py", "x\n" + BODY)
    r = check(tmp_path, bare)  # no context and no copies: cannot relocate safely
    assert r.verdict is Verdict.REFUTED and "no banked lines" in r.reason
    unique = replace(bare, copies=1)
    assert check(tmp_path, unique).details["start_line"] == 11


@pytest.mark.parametrize(
    "record",
    [
        {"path": "a.py", "start_line": 5, "end_line": 2, "sha256": "0" * 64},
        {"path": "a.py", "start_line": 1, "end_line": 10**30, "sha256": "0" * 64},
        {"path": "a.py", "start_line": "one", "end_line": 2, "sha256": "0" * 64},
        {"path": ["a.py"], "start_line": 1, "end_line": 2, "sha256": "0" * 64},
        {"path": "a.py", "start_line": 1, "end_line": 2},
        {"path": "a.py", "start_line": 1, "end_line": 2, "sha256": "0" * 64, "lines": [1, 2]},
    ],
)
def test_malformed_records_are_inconclusive_and_never_raise(tmp_path: Path, record: dict) -> None:
    write_file(tmp_path, "a.py", BODY)
    r = check(tmp_path, Citation.from_dict(record))
    assert (r.verdict, r.state) == (Verdict.INCONCLUSIVE, "unverifiable")
    assert "malformed citation" in r.reason


def test_line_numbers_past_the_end_are_stale_or_relocated_never_an_error(tmp_path: Path) -> None:
    write_file(tmp_path, "a.py", BODY)
    moved = replace(bank(tmp_path, "a.py", 1, 2), start_line=5000, end_line=5001)
    assert check(tmp_path, moved).details["start_line"] == 1  # the bytes and context are at the top
    gone = Citation.from_dict({"path": "a.py", "start_line": 5000, "end_line": 5001, "lines": ["zz\n", "yy\n"]})
    assert check(tmp_path, gone).verdict is Verdict.REFUTED


@pytest.mark.parametrize("path", ["../etc/passwd", "/etc/passwd", "C:/x.py", "a\x00b"])
def test_escaping_paths_are_refused_unread(tmp_path: Path, path: str) -> None:
    r = check(tmp_path, Citation(path, 1, 1, sha256="0" * 64))
    assert (r.verdict, r.state) == (Verdict.INCONCLUSIVE, "unverifiable")


def test_binary_file_is_unverifiable(tmp_path: Path) -> None:
    write_file(tmp_path, "a.py", BODY)
    c = bank(tmp_path, "a.py", 1, 1)
    write_file(tmp_path, "a.py", b"\x00\x01binary")
    r = check(tmp_path, c)
    assert r.verdict is Verdict.INCONCLUSIVE and "binary" in r.reason


def test_span_anchor_without_a_citation_is_not_banked(tmp_path: Path) -> None:
    write_file(tmp_path, "a.py", BODY)
    r = Verifier(tmp_path).check("span:a.py#L1-L3")
    assert r.verdict is Verdict.INCONCLUSIVE and r.reason.endswith("not banked, run anchorcheck lock")


def test_an_anchor_carrying_a_lock_entry_verifies(tmp_path: Path) -> None:
    write_file(tmp_path, "a.py", BODY)
    c = bank(tmp_path, "a.py", 3, 4)
    r = Verifier(tmp_path).check(Anchor("span", "a.py#L3-L4", detail=c))
    assert r.state == "fresh"


def test_negated_and_in_a_memory(tmp_path: Path) -> None:
    write_file(tmp_path, "a.py", BODY)
    c = bank(tmp_path, "a.py", 3, 4)
    report = Verifier(tmp_path).verify(Memory(text="lines 3-4", anchors=[c, "file:a.py"]))
    assert report.verdict is Verdict.VERIFIED


@pytest.mark.parametrize(
    ("text", "column"),
    [("span:a.py", 10), ("span:a.py#L0-L2", 12), ("span:a.py#L5-L2", 15), ("span:#L1", 6), ("span:a.py#L1-", 14)],
)
def test_malformed_span_anchor_text_names_the_column(tmp_path: Path, text: str, column: int) -> None:
    with pytest.raises(AnchorSyntaxError) as info:
        Verifier(tmp_path).parse(text)
    assert info.value.column == column


def test_single_line_and_encoded_paths_parse(tmp_path: Path) -> None:
    from anchorcheck_plugins.kinds.span import parse_span

    assert parse_span("src/a.py#L7") == parse_span("src/a.py#L7-L7")
    assert parse_span("docs/my%20notes.md#L1-L2").path == "docs/my notes.md"
    assert parse_span("weird#name.py#L3").path == "weird#name.py"
    assert Verifier(tmp_path).parse("span:a.py#L7").detail is None


@pytest.mark.parametrize(
    ("edit", "current"),
    [
        # two lines inserted right above the span, among its banked context, and one line inside edited
        (lambda s: s.replace("line 8\n", "line 8\ninserted A\ninserted B\n").replace("line 11\n", "line 11 EDITED\n"), [12, 14]),
        # the context line just above edited too, a line inserted further up
        (lambda s: s.replace("line 2\n", "line 2\nnew\n").replace("line 9\n", "line nine\n").replace("line 11\n", "line 11 EDITED\n"), [11, 13]),
    ],
)
def test_a_stale_diff_shows_the_lines_that_changed(tmp_path: Path, edit, current) -> None:  # noqa: ANN001
    """The banked lines are aligned to the file before diffing: inserted lines above are not `+` lines,
    and the real edit inside the span is shown."""
    write_file(tmp_path, "a.py", BODY)
    c = bank(tmp_path, "a.py", 10, 12)
    write_file(tmp_path, "a.py", edit(BODY))
    r = check(tmp_path, c)
    assert (r.verdict, r.state) == (Verdict.REFUTED, "stale")
    diff = r.details["diff"].splitlines()
    changed = [line for line in diff[2:] if line[:1] in "+-"]
    assert changed == ["-line 11", "+line 11 EDITED"], r.details["diff"]
    assert r.details["current_lines"] == current


def test_a_git_lfs_pointer_in_place_of_the_banked_file_is_unverifiable(tmp_path: Path) -> None:
    """A clone without git-lfs (or with GIT_LFS_SKIP_SMUDGE=1) holds the pointer, not the content that was
    banked: the content may be unchanged, so the span is not stale."""
    write_file(tmp_path, "data/schema.sql", BODY)
    citation = bank(tmp_path, "data/schema.sql", 3, 5)
    pointer = "version https://git-lfs.github.com/spec/v1\noid sha256:" + "4d7a" * 16 + "\nsize 300\n"
    write_file(tmp_path, "data/schema.sql", pointer)
    result = check(tmp_path, citation)
    assert (result.verdict, result.state) == (Verdict.INCONCLUSIVE, "unverifiable")
    assert result.reason == "data/schema.sql is a Git LFS pointer: the file's content is not fetched here"
    write_file(tmp_path, "data/schema.sql", "version 2\n" + BODY)  # a file that merely starts with "version"
    assert check(tmp_path, citation).verdict is Verdict.VERIFIED
