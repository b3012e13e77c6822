"""`anchorcheck check --watch`: a running process that prints only the verdicts an edit changed."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

from tests._source_support import write


def _reader(stream, lines: queue.Queue) -> None:  # noqa: ANN001
    for line in stream:
        lines.put(line.rstrip("\n"))


def _next(lines: queue.Queue, timeout: float = 30.0) -> str:
    return lines.get(timeout=timeout)


def _watching(root: Path, *files: str) -> tuple[subprocess.Popen, queue.Queue, dict]:
    """`check --watch` running on `root` (JSON lines), its output's lines, and the first whole report."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "anchorcheck", "check", "--root", str(root), "--watch", "--interval", "0.1", "--format", "json", *files],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=root, env={**os.environ, "NO_COLOR": "1"},
    )
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=_reader, args=(proc.stdout, lines), daemon=True).start()
    report = [_next(lines)]
    while report[-1] != "}":
        report.append(_next(lines))
    return proc, lines, json.loads("\n".join(report))  # the whole report once, as `check` prints it


def test_watch_prints_changed_verdicts_only(tmp_path: Path) -> None:
    write(tmp_path, {
        "src/app.py": "import json\n",
        "NOTES.md": "# Notes\n\n- We cache with Redis: `import:redis`.\n- JSON everywhere: `import:json`.\n",
    })
    proc, lines, first = _watching(tmp_path, "NOTES.md")
    try:
        assert first["summary"]["memories"]["REFUTED"] == 1
        time.sleep(0.3)
        (tmp_path / "src/app.py").write_text("import json\nimport redis\n")
        change = json.loads(_next(lines))
        assert change["memory"] == "NOTES.md:3" and (change["was"], change["now"]) == ("REFUTED", "VERIFIED")
        (tmp_path / "src/app.py").write_text("import redis\n")  # the other memory breaks, this one holds
        change = json.loads(_next(lines))
        assert change["memory"] == "NOTES.md:4" and (change["was"], change["now"]) == ("VERIFIED", "REFUTED")
        assert "import:json" in change["reason"]
        time.sleep(0.5)
        assert lines.empty()  # nothing changed since: nothing printed
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_watch_sees_an_edit_of_a_memory_file_git_ignores(tmp_path: Path) -> None:
    """CLAUDE.local.md is git-ignored: no snapshot watches it, so an edit of it alone never started a
    new check (the Verifier saw no change), and the changed memory was never printed."""
    from tests.conftest import init_repo

    write(tmp_path, {"src/app.py": "import json\n", ".gitignore": "CLAUDE.local.md\n", "CLAUDE.local.md": "- Redis: `import:redis`.\n"})
    init_repo(tmp_path)
    proc, lines, first = _watching(tmp_path)
    try:
        assert first["summary"]["memories"]["REFUTED"] == 1
        time.sleep(0.3)
        (tmp_path / "CLAUDE.local.md").write_text("- JSON: `import:json`.\n")
        change = json.loads(_next(lines, timeout=15))
        assert change["memory"] == "CLAUDE.local.md:1" and (change["was"], change["now"]) == ("REFUTED", "VERIFIED")
    finally:
        proc.terminate()
        proc.wait(timeout=30)
