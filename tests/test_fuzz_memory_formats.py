"""Fuzzing the memory formats, the anchor grammar, the lock and the configuration (issue 17).

Markdown, native TOML and MCP JSONL memory files raise only MemoryFileError, the lock
only LockError, the configuration only ConfigError, an anchor only AnchorSyntaxError,
whatever the bytes; each input within the deadline.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._fuzz_support import fuzz
from tests._fuzz_targets import targets

FORMATS = [t for t in targets() if t.name.startswith("format:") or t.name in ("anchor", "lock", "config")]


@pytest.mark.parametrize("target", FORMATS, ids=lambda t: t.name)
def test_memory_formats_raise_only_their_documented_error(target, tmp_path: Path) -> None:
    fuzz(target, tmp_path)
