"""Write-back that keeps memory files true: relocated spans, re-armed triggers, quiet armed triggers."""

from __future__ import annotations

import json
from pathlib import Path

import tomlkit

from anchorcheck import Verifier
from anchorcheck.cli import main
from anchorcheck_plugins.kinds.watch import bank_watch

from tests._span_support import write_file

BODY = "".join(f"row_{n} = {n}\n" for n in range(1, 21))


def run(root: Path, *args: str) -> int:
    return main([*args, "--root", str(root)])


def locked(root: Path, monkeypatch, memory_file: str, memory: str) -> None:  # noqa: ANN001
    """BODY in src/a.py and old.py, one memory file, and the lock banked for it; cwd at the root."""
    monkeypatch.chdir(root)
    write_file(root, "src/a.py", BODY)
    write_file(root, "old.py", BODY.replace("row", "col"))  # unlike src/a.py: a rename has one place to go
    write_file(root, memory_file, memory)
    assert run(root, "lock") == 0


def test_relocate_rewrites_the_span_written_in_markdown_and_rekeys_the_lock(tmp_path: Path, monkeypatch, capsys) -> None:  # noqa: ANN001
    memory = "# Notes\n\n- Rows 3-5 hold the defaults. `span:src/a.py#L3-L5`\r\n- Keep `span:src/a.py#L3-L5` in mind.\n\n```\n`span:src/a.py#L3-L5`\n```\n"
    locked(tmp_path, monkeypatch, "CLAUDE.md", memory)
    write_file(tmp_path, "src/a.py", "# header\n# more\n" + BODY)
    assert run(tmp_path, "check") == 0  # relocated spans still verify
    capsys.readouterr()
    lock_before = (tmp_path / "anchorcheck.lock").read_text()

    assert run(tmp_path, "relocate", "--dry-run") == 0
    out = capsys.readouterr().out
    assert "CLAUDE.md:3: span:src/a.py#L3-L5: would be rewritten as span:src/a.py#L5-L7" in out
    assert "CLAUDE.md:4: span:src/a.py#L3-L5: would be rewritten as span:src/a.py#L5-L7" in out
    assert (tmp_path / "CLAUDE.md").read_bytes() == memory.encode()
    assert (tmp_path / "anchorcheck.lock").read_text() == lock_before

    assert run(tmp_path, "relocate") == 0
    assert "Rewrote 2 anchors in memory files." in capsys.readouterr().out
    # every other byte kept: the CRLF, the fenced block (not a memory), the heading
    assert (tmp_path / "CLAUDE.md").read_bytes() == memory.replace("`span:src/a.py#L3-L5`\r", "`span:src/a.py#L5-L7`\r").replace(
        "Keep `span:src/a.py#L3-L5`", "Keep `span:src/a.py#L5-L7`"
    ).encode()
    [entry] = tomlkit.parse((tmp_path / "anchorcheck.lock").read_text())["citation"]
    assert (entry["anchor"], entry["start_line"], entry["end_line"]) == ("span:src/a.py#L5-L7", 5, 7)
    assert run(tmp_path, "check", "--format", "json") == 0
    [result, _] = json.loads(capsys.readouterr().out)["results"]
    assert result["anchor"] == "span:src/a.py#L5-L7" and result["state"] == "fresh"


def test_relocate_follows_a_renamed_file_into_memory_jsonl(tmp_path: Path, monkeypatch, capsys) -> None:  # noqa: ANN001
    line = '{"type": "entity", "name": "rows", "entityType": "fact", "observations": ["caf\\u00e9 rows `span:old.py#L2-L3`"]}\n'
    locked(tmp_path, monkeypatch, "memory.jsonl", line)
    (tmp_path / "old.py").rename(tmp_path / "new.py")
    assert run(tmp_path, "relocate") == 0
    assert (tmp_path / "memory.jsonl").read_text() == line.replace("old.py#L2-L3", "new.py#L2-L3")
    assert run(tmp_path, "check") == 0


def test_relocate_keeps_the_written_text_when_the_new_key_is_taken(tmp_path: Path, monkeypatch, capsys) -> None:  # noqa: ANN001
    monkeypatch.chdir(tmp_path)
    write_file(tmp_path, "a.py", BODY)
    write_file(tmp_path, "CLAUDE.md", "- one `span:a.py#L3-L4`\n- two `span:a.py#L4-L5`\n")
    assert run(tmp_path, "lock") == 0
    write_file(tmp_path, "a.py", "top\n" + BODY)
    assert run(tmp_path, "relocate") == 0
    out = capsys.readouterr().out
    assert "span:a.py#L4-L5 already has an entry" in out
    assert (tmp_path / "CLAUDE.md").read_text().startswith("- one `span:a.py#L3-L4`\n")


def test_rebank_rearms_a_fired_trigger_where_each_format_writes_it(tmp_path: Path, monkeypatch, capsys) -> None:  # noqa: ANN001
    monkeypatch.chdir(tmp_path)
    write_file(tmp_path, "uv.lock", "a\n")
    old = bank_watch(Verifier(tmp_path).repo, "uv.lock")
    markdown = f"- Licences were audited. `{old}` <!-- keep -->\n"
    native = f'version = 1\n\n[[memory]]\nid = "audit"  # keep\ntext = "Licences were audited."\nanchors = ["{old}"]\n'
    jsonl = json.dumps({"type": "entity", "name": "audit", "entityType": "fact", "observations": [f"audited `{old}`"]}) + "\n"
    files = {"CLAUDE.md": markdown, "team.memories.toml": native, "memory.jsonl": jsonl}
    for name, text in files.items():
        write_file(tmp_path, name, text)
    write_file(tmp_path, "uv.lock", "b\n")
    new = bank_watch(Verifier(tmp_path).repo, "uv.lock")
    assert run(tmp_path, "check", "--fail-on", "inconclusive") == 1
    capsys.readouterr()

    assert run(tmp_path, "rebank", "--dry-run", old) == 0
    assert f"would be rewritten as {new}" in capsys.readouterr().out
    assert all((tmp_path / name).read_text() == text for name, text in files.items())

    assert run(tmp_path, "rebank", old) == 0
    out = capsys.readouterr().out
    assert "Updated 1 citation (rebanked)." in out and "Rewrote 3 anchors in memory files." in out
    assert all((tmp_path / name).read_text() == text.replace(old, new) for name, text in files.items())
    assert run(tmp_path, "check", "--fail-on", "inconclusive") == 0
    capsys.readouterr()
    assert run(tmp_path, "rebank", new) == 0  # armed as written: nothing to do
    assert "skipped: quiet" in capsys.readouterr().out


def test_armed_triggers_keep_a_clean_run_quiet_and_fired_ones_are_reported(tmp_path: Path, monkeypatch, capsys) -> None:  # noqa: ANN001
    monkeypatch.chdir(tmp_path)
    write_file(tmp_path, "uv.lock", "a\n")
    write_file(tmp_path, "README.md", "hi\n")
    trigger = bank_watch(Verifier(tmp_path).repo, "uv.lock")
    write_file(tmp_path, "CLAUDE.md", f"- The readme exists. `file:README.md` `{trigger}`\n- Licences were audited. `{trigger}`\n")
    assert run(tmp_path, "check", "--fail-on", "inconclusive") == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "2 armed triggers" in out and "1 watched only by armed triggers" in out
    assert run(tmp_path, "check", "--format", "sarif", "--fail-on", "inconclusive") == 0
    assert json.loads(capsys.readouterr().out)["runs"][0]["results"] == []

    write_file(tmp_path, "uv.lock", "b\n")
    assert run(tmp_path, "check") == 0
    assert run(tmp_path, "check", "--fail-on", "inconclusive") == 1
    out = capsys.readouterr().out
    assert "trigger fired: re-check" in out and "CLAUDE.md:1: INCONCLUSIVE memory" in out and "CLAUDE.md:2: INCONCLUSIVE memory" in out
