"""No control character from a repository or a store reaches the terminal (issue 25, item 4).

A file named with `ESC [31m`, a memory naming it, and a cited line holding `ESC ]0;title BEL` (which
sets the terminal's title): every text output shows them without their escape sequences, the GitHub
annotations too (the log viewer renders ANSI), a replayed report as well as a full run; JSON keeps the
exact names, escaped.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from anchorcheck.base.printable import json_safe, printable
from tests.conftest import git, init_repo, needs_git, write_tree

pytestmark = needs_git

RED, TITLE = "\x1b[31m", "\x1b]0;title\x07"
NAME = f"src/a{RED}red.py"
MEMORY = f"- Reads `env:TOKEN`, once lived in `file:src/gone{RED}.py`; `sym:{NAME}::nope`; the values: `span:src/x.py#L1-L2`.\n"


def _cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "anchorcheck", *args], cwd=root, capture_output=True, text=True, check=False)


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    root = init_repo(write_tree(tmp_path / "repo", {NAME: "import os\nX = os.environ['TOKEN']\n", "src/x.py": "a = 1\nb = 2\n"}))
    banked = _cli(root, "bank", "src/x.py:1-2").stdout
    write_tree(root, {"anchorcheck.lock": "version = 1\n\n" + banked, "AGENTS.md": MEMORY, "src/x.py": f"a = 1\nb = 3  # {TITLE} quoted\n"})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "hostile names")
    return root


@pytest.mark.parametrize("fmt", ["text", "github"])
def test_text_outputs_show_no_escape_sequence(hostile: Path, fmt: str) -> None:
    for run in range(2):  # a full run, then its replay
        done = _cli(hostile, "check", "-v", "--format", fmt)
        assert done.returncode == 1
        assert "\x1b" not in done.stdout + done.stderr and "\x07" not in done.stdout
        assert "ared.py" in done.stdout and "src/gone.py" in done.stdout
        if fmt == "text":
            assert "| +b = 3  #  quoted" in done.stdout  # the quoted line, its title sequence gone whole


def test_json_keeps_the_names_escaped(hostile: Path) -> None:
    done = _cli(hostile, "check", "--format", "json")
    assert "\x1b" not in done.stdout
    anchors = [result["anchor"] for result in json.loads(done.stdout)["results"]]
    assert f"file:src/gone{RED}.py" in anchors


def test_an_error_naming_a_file_prints_no_escape_sequence(tmp_path: Path) -> None:
    root = init_repo(write_tree(tmp_path / "repo", {"AGENTS.md": "x\n"}))
    done = _cli(root, "check", f"missing{RED}{TITLE}.md")
    assert done.returncode == 2 and done.stderr.startswith("anchorcheck: error: ")
    assert "\x1b" not in done.stderr and "missing" in done.stderr


def test_printable_removes_every_control_but_newline_and_tab() -> None:
    assert printable(f"a{RED}b{TITLE}c\x1b[2J\x9b31md\x7fe\x00f\r\n\tg\x1b]8;;http://x\x1b\\h") == "abcdef\n\tgh"
    assert printable(f"kept{RED}red\x1b[0m{TITLE}", colours=True) == f"kept{RED}red\x1b[0m"
    assert printable("an OSC never ended \x1b]0;x\nnext line") == "an OSC never ended \nnext line"
    text = json.dumps({"k": "\x7f\x9b"}, ensure_ascii=False)
    assert json.loads(json_safe(text)) == {"k": "\x7f\x9b"} and "\x9b" not in json_safe(text)
