"""Receipts: a record per verdict change; `check --receipts FILE` appends them as JSONL."""

from __future__ import annotations

import datetime as dt
import json
import os

import pytest

from anchorcheck import Memory, Verdict, Verifier
from anchorcheck.cli import main
from anchorcheck.memory.receipts import MAX_LOG_BYTES, Receipt, ReceiptLog, ReceiptLogError, memory_key, receipts_for
from tests.conftest import git, needs_git

NOW = dt.datetime(2026, 12, 1, tzinfo=dt.timezone.utc)


def test_only_changes_make_receipts(make_tree, tmp_path):
    root = make_tree({"README.md": "hi\n"})
    memory = Memory("readme exists", ["file:README.md"], id="readme")
    log = ReceiptLog(tmp_path / "receipts.jsonl")
    first = log.record([Verifier(root).verify(memory)], revision=None, now=NOW)
    assert [(r.memory, r.previous, r.verdict) for r in first] == [("readme", None, Verdict.VERIFIED)]
    assert log.record([Verifier(root).verify(memory)], now=NOW) == []
    (root / "README.md").unlink()
    changed = log.record([Verifier(root).verify(memory)], now=NOW)
    assert [(r.previous, r.verdict) for r in changed] == [(Verdict.VERIFIED, Verdict.REFUTED)]
    assert changed[0].evidence[0].anchor == "file:README.md" and "does not exist" in changed[0].reason
    assert [r.verdict for r in log.read()] == [Verdict.VERIFIED, Verdict.REFUTED]
    assert Receipt.from_dict(changed[0].to_dict()) == changed[0]


def test_library_receipts_for_a_store(make_tree):
    root = make_tree({"a.md": ""})
    reports = [Verifier(root).verify(Memory("no id", ["file:a.md"]))]
    key = memory_key(reports[0].memory)
    assert key.startswith("sha256:")
    assert receipts_for(reports, {key: Verdict.VERIFIED}) == []
    assert receipts_for(reports, {key: Verdict.REFUTED})[0].previous is Verdict.REFUTED


def test_a_corrupt_log_names_the_line(tmp_path):
    path = tmp_path / "receipts.jsonl"
    path.write_text('{"memory": "a", "verdict": "VERIFIED"}\nnot json\n')
    with pytest.raises(ReceiptLogError, match=r"receipts.jsonl:2"):
        ReceiptLog(path).read()


@needs_git
def test_check_receipts_cli(make_repo, tmp_path, capsys):
    root = make_repo({"README.md": "hi\n"})
    memories = tmp_path / "MEMORY.md"
    memories.write_text("- The readme is there: `file:README.md`\n")
    log = tmp_path / "receipts.jsonl"
    assert main(["check", "--root", str(root), "--receipts", str(log), str(memories)]) == 0
    (root / "README.md").unlink()
    assert main(["check", "--root", str(root), "--receipts", str(log), str(memories)]) == 1
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(r["previous"], r["verdict"]) for r in lines] == [(None, "VERIFIED"), ("VERIFIED", "REFUTED")]
    assert lines[1]["revision"] == git(root, "rev-parse", "HEAD")
    log.write_text("garbage\n")
    assert main(["check", "--root", str(root), "--receipts", str(log), str(memories)]) == 2
    assert "receipts.jsonl:1" in capsys.readouterr().err


@pytest.mark.parametrize("kind", ["fifo", "oversized"])
def test_a_receipt_log_that_is_a_fifo_or_too_large_is_one_line_not_a_hang(make_tree, tmp_path, capsys, kind):
    root = make_tree({"README.md": "hi\n", "MEMORY.md": "- readme `file:README.md`\n"})
    log = tmp_path / "receipts.jsonl"
    if kind == "fifo":
        os.mkfifo(log)  # reading it would block until a writer came: forever
    else:
        with open(log, "wb") as handle:
            handle.truncate(MAX_LOG_BYTES + 1)  # sparse: no disk used, but past the cap
    assert main(["check", "--root", str(root), "--receipts", str(log), str(root / "MEMORY.md")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(log) in err
    assert ("not a regular file" if kind == "fifo" else "over the") in err
