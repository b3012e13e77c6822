"""A Markdown memory file read again unchanged is not parsed again: its structure comes from the cache
(anchorcheck.memory.documents), and the check prints what a check that parsed it prints.

Real git repositories in temp dirs and the real CLI in a subprocess, each run with the disk cache on
after an edit of another file (no stored report to replay), held to a `--no-cache` run of the same tree.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from anchorcheck.memory import commonmark
from anchorcheck.memory.documents import Documents, decode, encode
from tests.conftest import git, needs_git, write_tree

# The real entry point, and afterwards whether the process imported the Markdown parser.
_RUN = """\
import sys
from anchorcheck.cli import main
code = main(sys.argv[2:])
with open(sys.argv[1], "w") as marker:
    marker.write(str("markdown_it" in sys.modules))
sys.exit(code)
"""
_ELAPSED = re.compile(r"in \d+\.\d\ds\.")

MEMORY = (
    "# Notes\n\n"
    "- The entry point is `src/app/main.py`; JSON is parsed there: `import:json`.\n"
    "- Docs: `file:docs/index.md`, see [the changelog](CHANGELOG.md).\n\n"
    "| file | what |\n|---|---|\n| `src/app/main.py` | the app |\n\n"
    "[faq]: docs/faq.md\n"
)


def _check(root: Path, cache: Path, *words: str) -> tuple[str, int, bool]:
    marker = root.parent / "parsed.txt"
    env = {**os.environ, "ANCHORCHECK_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-c", _RUN, str(marker), "check", "-v", *words], cwd=root, env=env, capture_output=True, text=True, check=False)
    return _ELAPSED.sub("in Xs.", done.stdout + done.stderr), done.returncode, marker.read_text() == "True"


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    root = write_tree(tmp_path / "repo", {"CLAUDE.md": MEMORY, "src/app/__init__.py": "", "src/app/main.py": "import json\n", "docs/index.md": "# Docs\n", "CHANGELOG.md": "# Changelog\n"})
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "first")
    return root


@needs_git
def test_an_unchanged_memory_file_is_read_from_the_cache_with_the_same_report(checkout: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = _check(checkout, cache)
    assert first[2]  # parsed, and kept
    (checkout / "CHANGELOG.md").write_text("# Changelog\n\nan edit\n")  # another tree: no stored report to replay
    again = _check(checkout, cache)
    assert not again[2]  # the Markdown parser was not even imported
    assert again[:2] == _check(checkout, tmp_path / "other-cache", "--no-cache")[:2]


@needs_git
def test_an_edited_memory_file_is_parsed_again(checkout: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _check(checkout, cache)
    (checkout / "CLAUDE.md").write_text(MEMORY + "\n- The old entry point `file:src/app/old.py` is gone.\n")
    edited = _check(checkout, cache)
    assert edited[2]
    assert "REFUTED file:src/app/old.py" in edited[0]
    assert edited[:2] == _check(checkout, tmp_path / "other-cache", "--no-cache")[:2]


def test_a_stored_document_of_another_shape_is_parsed_again() -> None:
    text = "- `file:a.py` and `b.md`\n"

    class Damaged:
        def get_many(self, keys: list[str]) -> dict[str, dict[str, object]]:
            return {key: {"blocks": [["paragraph", 1]], "memories": []} for key in keys}

    Documents(lambda: Damaged()).recall(text)  # type: ignore[arg-type, return-value]
    assert commonmark.read_document(text) == commonmark._parse(text)
    assert decode(encode(commonmark.read_document(text))) == commonmark._parse(text)
