"""Markdown memory files as agents keep them: CLAUDE.md, memory-bank/, Cursor rules, Copilot instructions."""

from __future__ import annotations

from pathlib import Path

from anchorcheck.memory.memoryfiles import read_memory_file
from anchorcheck.verify.loading import default_registry
from anchorcheck_plugins.formats.markdown import read_markdown

CLAUDE_MD = """\
# CLAUDE.md

This file guides Claude Code in this repository.

## Architecture

- The HTTP layer lives in `file:src/app/api.py`; routes are registered there.
- Settings are read in `file:src/app/config.py`.
  - Defaults sit in `file:src/app/defaults.toml`.
- 1. Numbered lists are fine too
2. The CLI entry point is `file:src/app/cli.py`.
3. Deploy notes: see `file:docs/deploy.md` and `file:docs/runbook.md`.

```python
# `file:not/an/anchor.py` inside fenced code is ignored
```

<!-- `file:commented/out.py` is not a memory
     and neither is this line -->

## Conventions

- Tests live in `file:tests/` and use pytest.
- Type hints everywhere; `mypy --strict` must pass (not an anchor: no known kind).
- We never vendor dependencies: `!file:vendor/`.
- Docs are built from `file:docs/`.
- Migrations live in `file:migrations/`.
- Long bullet that wraps
  onto a second line with `file:src/app/models.py`.
- The changelog is `file:CHANGELOG.md`.
"""


def test_claude_md_bullets_are_memories_with_positions() -> None:
    memories = read_markdown("CLAUDE.md", CLAUDE_MD)
    with_anchors = [m for m in memories if m.anchors]
    assert len(with_anchors) == 10
    first = with_anchors[0]
    assert first.anchors == ["file:src/app/api.py"]
    assert first.position.line == 7 and first.id == "CLAUDE.md:7"
    assert first.anchor_positions[0].line == 7
    assert CLAUDE_MD.splitlines()[6][first.anchor_positions[0].column - 1 :].startswith("file:src/app/api.py")
    wrapped = next(m for m in memories if "wraps" in m.text)
    assert wrapped.text == "Long bullet that wraps onto a second line with `file:src/app/models.py`."
    assert wrapped.anchor_positions[0].line == 29


def test_sub_bullets_belong_to_their_parent() -> None:
    memories = read_markdown("CLAUDE.md", CLAUDE_MD)
    settings = next(m for m in memories if m.text.startswith("Settings"))
    assert settings.anchors == ["file:src/app/config.py", "file:src/app/defaults.toml"]
    assert [p.line for p in settings.anchor_positions] == [8, 9]


def test_fences_comments_and_headings_are_not_memories() -> None:
    anchors = [a for m in read_markdown("CLAUDE.md", CLAUDE_MD) for a in m.anchors]
    assert "file:not/an/anchor.py" not in anchors
    assert "file:commented/out.py" not in anchors
    assert not any(m.text.startswith("#") for m in read_markdown("CLAUDE.md", CLAUDE_MD))


def test_memory_bank_folder(tmp_path: Path) -> None:
    bank = tmp_path / "memory-bank"
    bank.mkdir()
    (bank / "techContext.md").write_text("# Tech\n\n- Python 3.12, `file:pyproject.toml` declares it.\n")
    (bank / "systemPatterns.md").write_text("Paragraph memory about `file:src/core.py`\nthat spans two lines.\n\nNo anchors here.\n")
    registry = default_registry()
    tech = read_memory_file(bank / "techContext.md", "memory-bank/techContext.md", registry)
    patterns = read_memory_file(bank / "systemPatterns.md", "memory-bank/systemPatterns.md", registry)
    assert [m.anchors for m in tech] == [["file:pyproject.toml"]]
    assert patterns[0].text == "Paragraph memory about `file:src/core.py` that spans two lines."
    assert patterns[1].anchors == [] and patterns[1].source == "memory-bank/systemPatterns.md"


def test_cursor_rule_frontmatter_is_metadata_not_memory() -> None:
    rule = """\
---
description: Backend caching rules
globs: src/cache/**/*.py
alwaysApply: false
---
- The cache client is created once in `file:src/cache/client.py`.
"""
    memories = read_markdown(".cursor/rules/cache.mdc", rule)
    assert len(memories) == 1
    assert memories[0].position.line == 6
    assert memories[0].metadata["frontmatter"] == {
        "description": "Backend caching rules",
        "globs": "src/cache/**/*.py",
        "alwaysApply": "false",
    }


def test_copilot_instructions_apply_to() -> None:
    text = '---\napplyTo: "**/*.ts"\n---\nUse the shared client in `file:web/src/api.ts`.\n'
    (memory,) = read_markdown(".github/instructions/web.instructions.md", text)
    assert memory.metadata["frontmatter"]["applyTo"] == "**/*.ts"
    assert memory.anchors == ["file:web/src/api.ts"]


def test_unclosed_frontmatter_is_body_text() -> None:
    memories = read_markdown("AGENTS.md", "---\n- Uses `file:a.py`.\n")
    assert [m.anchors for m in memories] == [["file:a.py"]]
