"""The write path on the demo: `suggest --write` types an un-anchored MEMORY.md, and drift then refutes it.

The demo repository is copied into a temp git repository with MEMORY.md
stripped of every anchor (as a user's notes start out); the anchors that
`suggest --write` inserts must all verify, and a drift commit (the Redis
cache replaced, a client method renamed) must refute exactly the memories
that talk about what changed.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from anchorcheck.cli import main
from tests.conftest import REPO_ROOT, git, init_repo

DEMO = REPO_ROOT / "corpora" / "demo"
ANCHOR = re.compile(r"\s*`[!a-z]+:[^`]*`")
CACHE = '''"""Read-through cache for incident lookups, kept in process."""

from typing import Any


class LocalCache:
    def __init__(self) -> None:
        self._items: dict[int, dict[str, Any]] = {}

    def fetch(self, incident_id: int) -> dict[str, Any] | None:
        return self._items.get(incident_id)
'''


@pytest.fixture
def demo(tmp_path: Path, monkeypatch) -> Path:  # noqa: ANN001
    root = tmp_path / "demo"
    shutil.copytree(DEMO / "repo", root)
    (root / "anchorcheck.lock").unlink()
    bare = "".join(ANCHOR.sub("", line) if line.startswith("- ") else line for line in (DEMO / "MEMORY.md").read_text().splitlines(True))
    (root / "MEMORY.md").write_text(bare)
    init_repo(root)
    monkeypatch.chdir(root)
    return root


def memories(root: Path, capsys) -> dict[str, str]:  # noqa: ANN001
    main(["check", "--root", str(root), "--format", "json", "MEMORY.md"])
    data = json.loads(capsys.readouterr().out)
    return {m["text"][:30]: m["verdict"] for m in data["memories"]}


def test_suggest_write_types_the_demo_and_drift_refutes_it(demo: Path, capsys) -> None:  # noqa: ANN001
    assert main(["suggest", "--root", str(demo), "--write", "MEMORY.md"]) == 0
    assert "Wrote " in capsys.readouterr().out
    assert main(["check", "--root", str(demo), "--format", "json", "MEMORY.md"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["results"] and all(r["verdict"] == "VERIFIED" for r in data["results"])
    before = memories(demo, capsys)
    typed = [text for text, verdict in before.items() if verdict == "VERIFIED"]
    assert len(typed) >= 10

    (demo / "src/tracker/cache.py").write_text(CACHE)
    api = demo / "web/src/api.ts"
    api.write_text(api.read_text().replace("listIncidents", "fetchIncidents"))
    git(demo, "commit", "-qam", "drift: in-process cache, renamed client method")

    after = memories(demo, capsys)
    refuted = {text for text, verdict in after.items() if verdict == "REFUTED"}
    assert refuted == {
        "Incident lookups go through a ",
        "The cache layer falls back to ",
        "API responses are validated wi",
        "Cache writes go through SETEX:",
    }
    assert all(after[text] == "VERIFIED" for text in typed if text not in refuted)
    # a second run proposes nothing new for what is still true, and nothing for what drifted
    capsys.readouterr()
    assert main(["suggest", "--root", str(demo), "--check", "MEMORY.md"]) == 0
