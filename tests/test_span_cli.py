"""`anchorcheck bank`, `relocate` and `rebank` on real files: output, exit codes, write-back."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import tomlkit

from anchorcheck import Citation
from anchorcheck.cli import main

from tests._span_support import write_file

BODY = "".join(f"row_{n} = {n}\n" for n in range(1, 21))


def run(root: Path, *args: str) -> int:
    return main([*args, "--root", str(root)])


def lock_for(root: Path, capsys, *spans: str) -> Path:  # noqa: ANN001
    assert run(root, "bank", *spans) == 0
    text = capsys.readouterr().out
    lock = root / "anchorcheck.lock"
    lock.write_text("# written by a test\nversion = 1\n\n" + text)
    return lock


def test_bank_prints_a_lock_entry(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    write_file(tmp_path, "src/a.py", BODY)
    assert run(tmp_path, "bank", "src/a.py:3-5") == 0
    doc = tomlkit.parse(capsys.readouterr().out).unwrap()
    [entry] = doc["citation"]
    assert entry["anchor"] == "span:src/a.py#L3-L5"
    record = Citation.from_dict({k: v for k, v in entry.items() if k != "anchor"})
    assert record.lines == ("row_3 = 3\n", "row_4 = 4\n", "row_5 = 5\n") and record.problem() is None


def test_bank_json_and_single_line(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    write_file(tmp_path, "a.py", BODY)
    assert run(tmp_path, "bank", "--format", "json", "a.py:7") == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["anchor"], data["start_line"], data["end_line"]) == ("span:a.py#L7", 7, 7)


def test_bank_takes_paths_relative_to_the_current_directory(tmp_path: Path, capsys, monkeypatch) -> None:  # noqa: ANN001
    write_file(tmp_path, "src/pkg/a.py", BODY)
    monkeypatch.chdir(tmp_path / "src")
    assert run(tmp_path, "bank", "--format", "json", "pkg/a.py:2-3") == 0
    assert json.loads(capsys.readouterr().out)["path"] == "src/pkg/a.py"
    assert run(tmp_path, "bank", "--format", "json", str(tmp_path / "src/pkg/a.py") + ":2") == 0
    assert json.loads(capsys.readouterr().out)["anchor"] == "span:src/pkg/a.py#L2"


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("a.py:5-2", "reversed"),
        ("a.py:1-99", "past the end"),
        ("../x.py:1-2", "refused"),
        ("a.py", "expected PATH:START-END"),
        ("a.py:x-2", "expected PATH:START-END"),
        ("nope.py:1-1", "no such file"),
    ],
)
def test_bank_errors_exit_2_with_one_line(tmp_path: Path, capsys, target: str, message: str) -> None:  # noqa: ANN001
    write_file(tmp_path, "a.py", BODY)
    assert run(tmp_path, "bank", target) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_relocate_updates_only_line_numbers_and_keeps_formatting(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    write_file(tmp_path, "a.py", BODY)
    write_file(tmp_path, "b.py", BODY)
    lock = lock_for(tmp_path, capsys, "a.py:3-5", "b.py:10-11")
    before = lock.read_text()
    os.chmod(lock, 0o640)
    write_file(tmp_path, "a.py", "# new header\n# another\n" + BODY)
    assert run(tmp_path, "relocate", "--dry-run") == 0
    assert "would be relocated: a.py lines 3-5 → a.py lines 5-7" in capsys.readouterr().out
    assert lock.read_text() == before
    assert run(tmp_path, "relocate") == 0
    after = lock.read_text()
    expected = before.replace("start_line = 3\nend_line = 5", "start_line = 5\nend_line = 7")
    assert after == expected  # comment, anchor key, other record and layout untouched
    assert oct(lock.stat().st_mode & 0o777) == "0o640"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert run(tmp_path, "relocate") == 0
    assert "Updated 0 citations" in capsys.readouterr().out


def test_relocate_follows_a_moved_file_into_the_path_field(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    write_file(tmp_path, "old.py", BODY)
    lock = lock_for(tmp_path, capsys, "old.py:3-5")
    (tmp_path / "old.py").rename(tmp_path / "new.py")
    assert run(tmp_path, "relocate") == 0
    entry = tomlkit.parse(lock.read_text())["citation"][0]
    assert (entry["anchor"], entry["path"], entry["start_line"]) == ("span:old.py#L3-L5", "new.py", 3)


def test_relocate_leaves_stale_spans_alone(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    write_file(tmp_path, "a.py", BODY)
    lock = lock_for(tmp_path, capsys, "a.py:3-5")
    before = lock.read_text()
    write_file(tmp_path, "a.py", BODY.replace("row_4 = 4", "row_4 = 40"))
    assert run(tmp_path, "relocate") == 0
    assert lock.read_text() == before


def test_rebank_only_the_named_stale_span(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    write_file(tmp_path, "a.py", BODY)
    lock = lock_for(tmp_path, capsys, "a.py:3-5", "a.py:12-13")
    write_file(tmp_path, "a.py", BODY.replace("row_4 = 4", "row_4 = 40").replace("row_12 = 12", "row_12 = 0"))
    assert run(tmp_path, "rebank", "--accept", "span:a.py#L3-L5") == 0
    assert "rebanked: a.py lines 3-5" in capsys.readouterr().out
    doc = tomlkit.parse(lock.read_text()).unwrap()
    first, second = doc["citation"]
    assert first["lines"][1] == "row_4 = 40\n" and first["anchor"] == "span:a.py#L3-L5"
    assert second["lines"][0] == "row_12 = 12\n"  # not named: still the old fingerprint
    assert lock.read_text().startswith("# written by a test\nversion = 1\n")


def test_rebank_refuses_fresh_or_relocated_spans_and_unknown_names(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    write_file(tmp_path, "a.py", BODY)
    lock = lock_for(tmp_path, capsys, "a.py:3-5")
    before = lock.read_text()
    assert run(tmp_path, "rebank", "span:a.py#L3-L5") == 0
    assert "skipped: fresh" in capsys.readouterr().out
    write_file(tmp_path, "a.py", "top\n" + BODY)
    assert run(tmp_path, "rebank", "span:a.py#L3-L5") == 0
    assert "run anchorcheck relocate" in capsys.readouterr().out
    assert lock.read_text() == before
    assert run(tmp_path, "rebank", "span:a.py#L1-L2") == 2
    assert "no citation span:a.py#L1-L2" in capsys.readouterr().err


def test_rebank_of_a_deleted_file_fails_with_exit_1(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    write_file(tmp_path, "a.py", BODY)
    lock_for(tmp_path, capsys, "a.py:3-5")
    (tmp_path / "a.py").unlink()
    assert run(tmp_path, "rebank", "span:a.py#L3-L5") == 1
    assert "cannot re-bank" in capsys.readouterr().out


def test_native_memory_file_citations_are_relocated_in_place(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    write_file(tmp_path, "a.py", BODY)
    assert run(tmp_path, "bank", "--format", "json", "a.py:3-4") == 0
    record = json.loads(capsys.readouterr().out)
    doc = tomlkit.parse('version = 1\n\n[[memory]]\nid = "rows"  # keep me\ntext = "Rows 3 and 4."\nanchors = ["span:a.py#L3-L4"]\n')
    table = tomlkit.table()
    table.update(record)
    aot = tomlkit.aot()
    aot.append(table)
    doc["memory"][0]["citation"] = aot
    memfile = tmp_path / "team.memories.toml"
    memfile.write_text(tomlkit.dumps(doc))
    write_file(tmp_path, "a.py", "new\n" + BODY)
    assert run(tmp_path, "relocate", str(memfile)) == 0
    text = memfile.read_text()
    assert 'id = "rows"  # keep me' in text
    cite = tomlkit.parse(text)["memory"][0]["citation"][0]
    assert (cite["start_line"], cite["end_line"]) == (4, 5)


def test_missing_or_malformed_store_files_exit_2(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    assert run(tmp_path, "relocate") == 2
    assert "no anchorcheck.lock" in capsys.readouterr().err
    bad = tmp_path / "anchorcheck.lock"
    bad.write_text("version = 1\n[[citation]\n")
    assert run(tmp_path, "relocate") == 2
    assert "anchorcheck.lock:2" in capsys.readouterr().err
    bad.write_text("version = 1\ncitation = 3\n")
    assert run(tmp_path, "relocate") == 2
    assert "array of tables" in capsys.readouterr().err


def test_text_report_prints_the_stale_diff_under_the_result(tmp_path: Path) -> None:
    import io

    from anchorcheck import Memory, Verifier, bank
    from anchorcheck.report import Run, text

    write_file(tmp_path, "a.py", BODY)
    c = bank(tmp_path, "a.py", 3, 4)
    write_file(tmp_path, "a.py", BODY.replace("row_4 = 4", "row_4 = 44"))
    report = Verifier(tmp_path).verify(Memory(text="rows", anchors=[c], source="m.md"))
    out = io.StringIO()
    text.render(Run([report], files=["m.md"]), out)
    printed = out.getvalue()
    assert "REFUTED span:a.py#L3-L4 — a.py lines 3-4 changed since they were banked" in printed
    assert "    | -row_4 = 4\n    | +row_4 = 44\n" in printed
