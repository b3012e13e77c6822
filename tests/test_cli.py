"""The command line as a user runs it: real subprocesses, exit codes, output formats."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import anchorcheck


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "anchorcheck", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def test_version() -> None:
    done = run("--version")
    assert done.returncode == 0 and done.stdout.strip() == f"anchorcheck {anchorcheck.__version__}"


def test_anchor_exit_codes_and_text(make_tree) -> None:
    root = make_tree({"README.md": "# hi"})
    ok = run("anchor", "--root", str(root), "file:README.md")
    assert ok.returncode == 0
    assert ok.stdout.startswith("VERIFIED file:README.md — README.md exists")
    bad = run("anchor", "--root", str(root), "file:README.md", "file:NOPE.md")
    assert bad.returncode == 1
    assert "REFUTED file:NOPE.md — NOPE.md does not exist in the repository" in bad.stdout
    assert bad.stdout.splitlines()[-1].startswith("Checked 2 anchors: ")
    assert bad.stdout.splitlines()[-1].endswith("s.") and ": 1 refuted, 1 verified in " in bad.stdout
    assert ok.stdout.splitlines()[-1].startswith("Checked 1 anchor: "), "one anchor, not '1 anchors'"


def test_fail_on_inconclusive(make_tree) -> None:
    root = make_tree({"a": ""})
    assert run("anchor", "--root", str(root), "file:../x").returncode == 0
    assert run("anchor", "--root", str(root), "--fail-on", "inconclusive", "file:../x").returncode == 1


def test_malformed_anchor_is_exit_2_without_traceback(make_tree) -> None:
    done = run("anchor", "--root", str(make_tree({})), "file:a.txt in:src/")
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "anchorcheck: error: invalid anchor 'file:a.txt in:src/': column 12: "
        "'file:' anchors do not take an 'in:' scope"
    )
    assert "Traceback" not in done.stderr


def test_json_format(make_tree) -> None:
    root = make_tree({"a.txt": ""})
    done = run("anchor", "--root", str(root), "--format", "json", "file:a.txt", "!file:a.txt")
    data = json.loads(done.stdout)
    assert [r["verdict"] for r in data["results"]] == ["VERIFIED", "REFUTED"]
    assert data["results"][0]["evidence"] == [{"path": "a.txt", "line": None, "detail": "file exists"}]
    assert data["summary"]["anchors"] == {"VERIFIED": 1, "REFUTED": 1, "INCONCLUSIVE": 0}


def test_check_memory_file_points_at_lines(make_tree) -> None:
    root = make_tree(
        {
            "src/app.py": "",
            "NOTES.md": "# Notes\n\n- The app lives in `file:src/app.py`.\n- Docs are in `file:docs/` and\n  `file:docs/index.md`.\n- Plain prose.\n",
        }
    )
    done = run("check", "--root", str(root), "NOTES.md", cwd=root)
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert "NOTES.md:4: REFUTED memory: Docs are in `file:docs/` and `file:docs/index.md`." in lines
    assert any(line.startswith("NOTES.md:5:4: REFUTED file:docs/index.md — ") for line in lines)
    assert not any("Plain prose" in line for line in lines), "memories without anchors are only counted"
    assert lines[-1].startswith("Checked 3 anchors in 1 file: 2 refuted, 1 verified; 1 memory refuted in ")
    assert "without anchors" not in lines[-1], "paragraphs with nothing to check are not findings"
    assert not any("src/app.py" in line for line in lines), "verified memories stay quiet"
    verbose = run("check", "-v", "--root", str(root), "NOTES.md", cwd=root)
    assert "NOTES.md:3:21: VERIFIED file:src/app.py — src/app.py exists" in verbose.stdout
    assert "NOTES.md:6: INCONCLUSIVE memory: Plain prose." in verbose.stdout
    data = json.loads(run("check", "--format", "json", "--root", str(root), "NOTES.md", cwd=root).stdout)
    first = data["results"][0]
    assert (first["memory_file"], first["line"], first["column"], first["memory_id"]) == ("NOTES.md", 3, 21, "NOTES.md:3")


def test_missing_memory_file_is_exit_2(make_tree) -> None:
    root = make_tree({})
    done = run("check", "--root", str(root), "nope.md", cwd=root)
    assert done.returncode == 2 and "nope.md: no such file" in done.stderr


def test_bad_config_is_exit_2(make_tree) -> None:
    root = make_tree({".anchorcheck.toml": "wat = 1\n"})
    done = run("anchor", "--root", str(root), "file:x")
    assert done.returncode == 2 and ".anchorcheck.toml:1: unknown key 'wat'" in done.stderr


def test_plugins_lists_builtins() -> None:
    done = run("plugins", "--format", "json")
    data = json.loads(done.stdout)
    names = {p["name"]: p for p in data["plugins"]}
    assert names["file"]["version"] == anchorcheck.__version__
    assert data["kinds"]["file"] == "file"
    text = run("plugins").stdout
    assert f"file (anchorcheck {anchorcheck.__version__})  hooks: register_anchor_kinds" in text
