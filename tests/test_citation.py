"""The Citation record: banking, round trips, lenient loading and jcode conversion."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import tomlkit

import anchorcheck
from anchorcheck import BankError, Citation, bank
from anchorcheck.spans.citation import MAX_SPAN_BYTES, MAX_SPAN_LINES, count_copies, split_lines

from tests._span_support import run_git as git
from tests._span_support import write_file as write

SOURCE = "".join(f"line {n}\n" for n in range(1, 21))


def test_split_lines_keeps_endings_and_a_last_line_without_newline() -> None:
    assert split_lines(b"a\r\nb\n\nc") == [b"a\r\n", b"b\n", b"\n", b"c"]
    assert split_lines(b"a\n") == [b"a\n"]
    assert split_lines(b"") == []


def test_bank_records_exact_bytes_context_and_copies(tmp_path: Path) -> None:
    write(tmp_path, "src/a.py", SOURCE)
    c = bank(tmp_path, "src/a.py", 8, 10)
    assert (c.path, c.start_line, c.end_line) == ("src/a.py", 8, 10)
    assert c.lines == ("line 8\n", "line 9\n", "line 10\n")
    assert c.sha256 == hashlib.sha256(b"line 8\nline 9\nline 10\n").hexdigest()
    assert c.context_before == tuple(f"line {n}\n" for n in range(3, 8))
    assert c.context_after == tuple(f"line {n}\n" for n in range(11, 16))
    assert c.copies == 1
    assert c.identity == f"path:{tmp_path.resolve()}"
    assert c.head is None and c.banked_at.endswith("Z")


def test_bank_at_start_and_end_of_file_keeps_short_context(tmp_path: Path) -> None:
    write(tmp_path, "a.txt", "one\n\ntwo\nlast")
    first = bank(tmp_path, "a.txt", 1, 1)
    assert first.context_before == () and first.context_after == ("\n", "two\n", "last")
    last = bank(tmp_path, "a.txt", 4, 4)
    assert last.lines == ("last",) and last.context_after == ()


def test_bank_counts_identical_copies(tmp_path: Path) -> None:
    write(tmp_path, "twins.py", "x = 1\ny = 2\nz\nx = 1\ny = 2\n")
    assert bank(tmp_path, "twins.py", 1, 2).copies == 2
    assert count_copies(split_lines(b"a\na\na\n"), [b"a\n", b"a\n"]) == 2


def test_bank_in_git_records_identity_head_and_stripped_origin(tmp_path: Path) -> None:
    write(tmp_path, "a.py", SOURCE)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "init")
    git(tmp_path, "remote", "add", "origin", "https://user:secret@example.com/org/repo.git")
    c = bank(tmp_path, "a.py", 1, 2)
    head = git(tmp_path, "rev-parse", "HEAD")
    assert c.identity == f"git:{head}" and c.head == head
    assert c.origin == "https://example.com/org/repo.git"


@pytest.mark.parametrize(
    ("path", "start", "end", "message"),
    [
        ("a.py", 5, 4, "reversed"),
        ("a.py", 0, 2, "numbered from 1"),
        ("a.py", 19, 25, "past the end of the file (20 lines)"),
        ("missing.py", 1, 1, "no such file"),
        ("../outside.py", 1, 1, "refused"),
        ("/etc/passwd", 1, 1, "refused"),
        ("bin.dat", 1, 1, "binary"),
        ("latin1.txt", 1, 1, "not valid UTF-8"),
        ("a.py", True, 2, "whole numbers"),
    ],
)
def test_bank_refusals_name_the_file_and_reason(tmp_path: Path, path: str, start: int, end: int, message: str) -> None:
    write(tmp_path, "a.py", SOURCE)
    write(tmp_path, "bin.dat", b"\x00\x01\x02\n")
    write(tmp_path, "latin1.txt", "ok\ncaf\xe9\n".encode("latin-1"))
    with pytest.raises(BankError) as info:
        bank(tmp_path, path, start, end)
    assert message in str(info.value)
    assert isinstance(info.value, ValueError)


def test_bank_refuses_spans_over_the_caps(tmp_path: Path) -> None:
    write(tmp_path, "long.txt", "x\n" * (MAX_SPAN_LINES + 1))
    with pytest.raises(BankError, match="line cap"):
        bank(tmp_path, "long.txt", 1, MAX_SPAN_LINES + 1)
    write(tmp_path, "wide.txt", "y" * (MAX_SPAN_BYTES + 1) + "\n")
    with pytest.raises(BankError, match="byte cap"):
        bank(tmp_path, "wide.txt", 1, 1)


def test_bank_refuses_a_symlink_out_of_the_root(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n")
    root = tmp_path / "repo"
    root.mkdir()
    (root / "link.txt").symlink_to(outside)
    with pytest.raises(BankError, match="refused"):
        bank(root, "link.txt", 1, 1)


def test_round_trip_through_json_and_toml(tmp_path: Path) -> None:
    write(tmp_path, "a.py", "first\r\nsecond\n\nno newline")
    c = bank(tmp_path, "a.py", 2, 4)
    assert Citation.from_dict(json.loads(json.dumps(c.to_dict()))) == c
    doc = tomlkit.document()
    doc.update(c.to_dict())
    assert Citation.from_dict(tomlkit.parse(tomlkit.dumps(doc))) == c
    assert Citation.from_dict(tomlkit.parse(tomlkit.dumps(doc)).unwrap()) == c


def test_to_dict_follows_the_lock_field_order_and_omits_unknowns() -> None:
    c = Citation("a.py", 1, 2, sha256="0" * 64)
    assert list(c.to_dict()) == ["path", "start_line", "end_line", "sha256"]


def test_minimal_hand_written_record_loads_and_computes_its_fingerprint() -> None:
    c = Citation.from_dict({"path": "a.py", "start_line": 3, "end_line": 3, "lines": ["x = 1\n"]})
    assert c.sha256 == hashlib.sha256(b"x = 1\n").hexdigest()
    assert c.problem() is None
    assert c.context_before is None and c.copies is None


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"path": "a.py", "start_line": 5, "end_line": 2, "sha256": "0" * 64}, "before start_line"),
        ({"path": "a.py", "start_line": "1", "end_line": 2, "sha256": "0" * 64}, "whole number"),
        ({"path": "a.py", "start_line": 1, "end_line": 10**40, "sha256": "0" * 64}, "outside"),
        ({"path": "a.py", "start_line": 0, "end_line": 1, "sha256": "0" * 64}, "outside"),
        ({"path": 7, "start_line": 1, "end_line": 1, "sha256": "0" * 64}, "'path'"),
        ({"start_line": 1, "end_line": 1, "sha256": "0" * 64}, "'path'"),
        ({"path": "a.py", "start_line": 1, "end_line": 1}, "no sha256"),
        ({"path": "a.py", "start_line": 1, "end_line": 1, "sha256": "z" * 64}, "hexadecimal"),
        ({"path": "a.py", "start_line": 1, "end_line": 2, "sha256": "0" * 64, "lines": ["a\n"]}, "1 banked lines"),
        ({"path": "a.py", "start_line": 1, "end_line": 1, "sha256": "0" * 64, "lines": "a\n"}, "'lines'"),
        ({"path": "a.py", "start_line": 1, "end_line": 1, "sha256": "0" * 64, "copies": -1}, "'copies'"),
    ],
)
def test_malformed_records_load_and_report_their_problem(record: dict, message: str) -> None:
    c = Citation.from_dict(record)
    problem = c.problem()
    assert problem is not None and message in problem
    assert c.anchor_text().startswith("span:")  # printable even when malformed


def test_hand_written_upper_case_fingerprint_is_normalized() -> None:
    c = Citation.from_dict({"path": "a", "start_line": 1, "end_line": 1, "sha256": " " + "AB" * 32 + " "})
    assert c.sha256 == "ab" * 32 and c.problem() is None


def test_from_dict_strips_credentials_from_stored_origins() -> None:
    c = Citation.from_dict({"path": "a", "start_line": 1, "end_line": 1, "origin": "https://u:p@h/x.git"})
    assert c.origin == "https://h/x.git"


def test_jcode_source_citation_converts_to_one_based_inclusive_lines() -> None:
    text = "def f():\n    return 1"
    record = {
        "path": "src/f.py",
        "start_line": 9,
        "end_line": 11,
        "span_hash": hashlib.sha256(b"def f():\n    return 1\n").hexdigest(),
        "span_text": text,
        "context_before": "import os\n",
        "context_after": "",
        "repo_id": "git:abc",
        "origin": "https://tok@github.com/o/r.git",
        "git_head": "abc1234",
    }
    c = Citation.from_dict(record)
    assert (c.start_line, c.end_line) == (10, 11)
    assert c.lines == ("def f():\n", "    return 1\n")
    assert c.context_before == ("import os\n", "\n") and c.context_after == ()
    assert (c.identity, c.head, c.origin) == ("git:abc", "abc1234", "https://github.com/o/r.git")
    assert c.problem() is None


def test_jcode_record_with_crlf_or_unknown_endings() -> None:
    crlf = {"path": "a", "start_line": 0, "end_line": 1, "span_text": "x", "span_hash": hashlib.sha256(b"x\r\n").hexdigest()}
    assert Citation.from_jcode(crlf).lines == ("x\r\n",)
    unknown = dict(crlf, span_hash="1" * 64)
    c = Citation.from_jcode(unknown)
    assert c.lines is None and c.sha256 == "1" * 64 and c.problem() is None
    legacy = {"path": "a", "start_line": 0, "end_line": 1, "span_hash": "1" * 64, "span_text": "x", "repo_id": ""}
    assert Citation.from_dict(legacy).identity is None


def test_citation_is_an_anchor_and_exported() -> None:
    c = Citation("docs/my notes.md", 4, 4, sha256="0" * 64)
    anchor = c.as_anchor()
    assert (anchor.kind, anchor.value, anchor.detail) == ("span", "docs/my%20notes.md#L4", c)
    assert Citation("a.py", 1, 3).anchor_text() == "span:a.py#L1-L3"
    assert anchorcheck.bank is bank and "BankError" in anchorcheck.__all__


def test_memory_round_trip_keeps_citations(tmp_path: Path) -> None:
    write(tmp_path, "a.py", SOURCE)
    c = bank(tmp_path, "a.py", 2, 3)
    memory = anchorcheck.Memory(text="t", anchors=["file:a.py", c])
    again = anchorcheck.Memory.from_dict(json.loads(json.dumps(memory.to_dict())))
    assert again.anchors == ["file:a.py", c]
