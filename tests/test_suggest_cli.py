"""`anchorcheck suggest`: --write on each memory format (byte-exact, idempotent), --diff, --check, json."""

from __future__ import annotations

import io
import json
import sys
import re
from pathlib import Path

import pytest
import tomlkit

from anchorcheck.cli import main

from tests.test_suggest import FILES

MARKDOWN = """\
---
globs: src/**
---
# Memory

- We cache with Redis. Keys expire after a day.\r
- Nothing to type here: deploys need approval.
- The read path is RedisCache.get,
  and the URL comes from REDIS_URL.

```
We cache with Redis.
```
<!-- We do not use Celery. -->
"""
NATIVE = """\
# team memories
version = 1

[[memory]]
id = "cache"   # keep this comment
text = "We cache with Redis."

[[memory]]
id = "queue"
text = "There is no task queue: we do not use Celery."
anchors = ["file:pyproject.toml"]  # trailing
"""
JSONL = (
    '{"type":"entity","name":"cache","entityType":"fact","observations":["We cache with Redis.","caf\\u00e9 opens at 9"]}\n'
    '{"type": "relation", "from": "cache", "to": "db", "relationType": "uses"}\n'
)
ANCHOR = re.compile(r" `[!a-z]+:[^`]*`")


def run(root: Path, *args: str) -> int:
    return main(["suggest", *args, "--root", str(root)])


@pytest.fixture
def shop(make_repo, monkeypatch) -> Path:  # noqa: ANN001
    files = {**FILES, "CLAUDE.md": MARKDOWN, "team.memories.toml": NATIVE, "memory.jsonl": JSONL}
    root = make_repo(files)
    monkeypatch.chdir(root)
    return root


def test_write_markdown_keeps_every_other_byte_and_is_idempotent(shop: Path, capsys) -> None:  # noqa: ANN001
    assert run(shop, "--check", "CLAUDE.md") == 1
    capsys.readouterr()
    assert run(shop, "--write", "CLAUDE.md") == 0
    assert "Wrote 4 anchors for 2 memories." in capsys.readouterr().out
    after = (shop / "CLAUDE.md").read_bytes().decode()
    assert ANCHOR.sub("", after) == MARKDOWN  # only the inserted anchors differ: CRLF, frontmatter, fence, comment kept
    # at the end of the bullet, never between its sentences (issue 28 finding 9)
    assert "- We cache with Redis. Keys expire after a day. `pkg:pypi/redis` `import:redis in:src/shop/cache.py`\r\n" in after
    assert "  and the URL comes from REDIS_URL. `sym:py:shop.cache.RedisCache.get` `env:REDIS_URL`\n" in after
    assert run(shop, "--write", "--check", "CLAUDE.md") == 0
    assert "Wrote 0 anchors for 0 memories." in capsys.readouterr().out
    assert (shop / "CLAUDE.md").read_bytes().decode() == after
    assert main(["check", "--root", str(shop), "CLAUDE.md"]) == 0


def test_write_native_through_tomlkit(shop: Path, capsys) -> None:  # noqa: ANN001
    assert run(shop, "--write", "team.memories.toml") == 0
    after = (shop / "team.memories.toml").read_text()
    assert 'id = "cache"   # keep this comment\n' in after and 'anchors = ["file:pyproject.toml", "!pkg:pypi/celery"]  # trailing\n' in after
    doc = tomlkit.parse(after).unwrap()
    assert doc["memory"][0]["anchors"] == ["pkg:pypi/redis", "import:redis in:src/shop/cache.py"]
    assert after.replace('\nanchors = ["pkg:pypi/redis", "import:redis in:src/shop/cache.py"]', "").replace(', "!pkg:pypi/celery"', "") == NATIVE
    assert run(shop, "--write", "--check", "team.memories.toml") == 0
    assert (shop / "team.memories.toml").read_text() == after


def test_write_mcp_jsonl_in_the_observation(shop: Path, capsys) -> None:  # noqa: ANN001
    assert run(shop, "--write", "memory.jsonl") == 0
    after = (shop / "memory.jsonl").read_text()
    assert after == JSONL.replace("We cache with Redis.", "We cache with Redis. `pkg:pypi/redis` `import:redis in:src/shop/cache.py`")
    assert run(shop, "--write", "--check", "memory.jsonl") == 0
    assert (shop / "memory.jsonl").read_text() == after


def test_diff_writes_nothing_and_spans_go_to_the_lock(shop: Path, capsys) -> None:  # noqa: ANN001
    (shop / "CLAUDE.md").write_text("- The getter is `src/shop/cache.py:L10-L11`.\n")
    assert run(shop, "--diff", "CLAUDE.md") == 0
    out = capsys.readouterr().out
    assert "+- The getter is `src/shop/cache.py:L10-L11`. `span:src/shop/cache.py#L10-L11`\n" in out
    assert "+anchor = \"span:src/shop/cache.py#L10-L11\"" in out
    assert (shop / "CLAUDE.md").read_text() == "- The getter is `src/shop/cache.py:L10-L11`.\n" and not (shop / "anchorcheck.lock").exists()
    assert run(shop, "--write", "CLAUDE.md") == 0
    lock = tomlkit.parse((shop / "anchorcheck.lock").read_text()).unwrap()
    assert [c["anchor"] for c in lock["citation"]] == ["span:src/shop/cache.py#L10-L11"]
    assert main(["check", "--root", str(shop), "CLAUDE.md"]) == 0
    (shop / "src/shop/cache.py").write_text(FILES["src/shop/cache.py"].replace("self.client.get(key)", "None"))
    assert main(["check", "--root", str(shop), "CLAUDE.md"]) == 1  # the banked span is refuted by the edit


def test_json_output_and_default_files(shop: Path, capsys) -> None:  # noqa: ANN001
    assert run(shop, "--format", "json") == 0
    data = json.loads(capsys.readouterr().out)
    files = {m["memory_file"] for m in data["memories"]}
    assert files == {"CLAUDE.md", "team.memories.toml", "memory.jsonl"}
    first = data["memories"][0]["suggestions"][0]
    assert set(first) >= {"anchor", "reason", "evidence", "confidence"}
    assert data["summary"]["proposed"] == sum(len(m["suggestions"]) for m in data["memories"])


def test_bad_memory_file_is_one_line_exit_2(shop: Path, capsys) -> None:  # noqa: ANN001
    (shop / "bad.memories.toml").write_text("version = 1\n[[memory]\n")
    assert run(shop, "bad.memories.toml") == 2
    err = capsys.readouterr().err
    assert "bad.memories.toml:2" in err and err.count("\n") == 1


def test_a_symlinked_memory_file_is_written_through_once(shop: Path, capsys) -> None:  # noqa: ANN001
    (shop / "AGENTS.md").write_text("- We cache with Redis.\n")
    (shop / "CLAUDE.md").unlink()
    (shop / "CLAUDE.md").symlink_to("AGENTS.md")
    assert run(shop, "--write", "AGENTS.md", "CLAUDE.md") == 0
    assert (shop / "CLAUDE.md").is_symlink()
    assert (shop / "AGENTS.md").read_text() == "- We cache with Redis. `pkg:pypi/redis` `import:redis in:src/shop/cache.py`\n"


def test_a_nested_memory_file_names_paths_from_its_folder(shop: Path, capsys) -> None:  # noqa: ANN001
    """A path in plain prose of a nested AGENTS.md is read from its folder; what `check` already reads in
    inline code (`make lint`, `api.ts`) is not proposed again (issue 28 finding 9)."""
    (shop / "web/AGENTS.md").write_text("- The client is web/api.ts, also known as api.ts; run `make lint` at the root.\n- The entry is api.ts, next to `api.ts`.\n")
    assert run(shop, "--write", "web/AGENTS.md") == 0
    assert (shop / "web/AGENTS.md").read_text() == (
        "- The client is web/api.ts, also known as api.ts; run `make lint` at the root. `file:web/api.ts`\n- The entry is api.ts, next to `api.ts`.\n"
    )


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_on_a_terminal_only(shop: Path, capsys, monkeypatch) -> None:  # noqa: ANN001
    assert run(shop, "CLAUDE.md") == 0
    assert capsys.readouterr().err == ""  # not a terminal: nothing on stderr
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert run(shop, "CLAUDE.md") == 0
    shown = terminal.getvalue()
    assert "\rCLAUDE.md: memory 1 of " in shown and shown.endswith("\r")  # the line is cleared before the report
