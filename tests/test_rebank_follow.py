"""The write loop cannot bless a lie: `rebank` follows a span's content, shows both texts and wants
`--accept` when it changed; moved spans are reported by `check` and fail `lock --check` (issue 28, finding 1)."""

from __future__ import annotations

from pathlib import Path

import pytest
import tomlkit

import anchorcheck
from anchorcheck.cli import main

from tests.conftest import init_repo, write_tree

APP = 'import os\nTIMEOUT = 30\n\n\ndef run():\n    return os.getenv("X")\n'
EDITED = '"""The app."""\n' + APP.replace("TIMEOUT = 30", "TIMEOUT = 10")
MEMORY = "# Notes\n\n- The timeout is 30 s `span:src/app.py#L2`.\n"


def run(root: Path, *args: str) -> int:
    return main([*args, "--root", str(root)])


@pytest.fixture
def repo(tmp_path: Path, capsys) -> Path:  # noqa: ANN001
    """The issue's case: a memory cites line 2 (`TIMEOUT = 30`), locked, committed."""
    root = init_repo(write_tree(tmp_path, {"src/app.py": APP, "CLAUDE.md": MEMORY}))
    assert run(root, "lock") == 0
    capsys.readouterr()
    return root


def lock_entry(root: Path) -> dict:
    [entry] = tomlkit.parse((root / "anchorcheck.lock").read_text()).unwrap()["citation"]
    return entry


def test_rebank_of_a_changed_span_is_refused_and_no_command_makes_it_verified(repo: Path, capsys) -> None:  # noqa: ANN001
    write_tree(repo, {"src/app.py": EDITED})  # a docstring above, 30 → 10: line 2 is now `import os`
    before = (repo / "anchorcheck.lock").read_text()
    for command in (["rebank", "span:src/app.py#L2"], ["rebank", "--dry-run", "span:src/app.py#L2"]):
        assert run(repo, *command) == 1
        out = capsys.readouterr().out
        assert "may now be false" in out and "--accept" in out
        assert "2 TIMEOUT = 30" in out and "3 TIMEOUT = 10" in out  # banked and current text, side by side
    assert run(repo, "relocate") == 0
    assert run(repo, "lock") == 0
    assert (repo / "anchorcheck.lock").read_text() == before
    assert (repo / "CLAUDE.md").read_text() == MEMORY
    assert run(repo, "check") == 1
    assert "REFUTED span:src/app.py#L2" in capsys.readouterr().out


def test_accepted_rebank_follows_the_content_into_the_lock_and_the_memory_file(repo: Path, capsys) -> None:  # noqa: ANN001
    write_tree(repo, {"src/app.py": EDITED})
    assert run(repo, "rebank", "--accept", "--dry-run", "span:src/app.py#L2") == 0
    assert (repo / "CLAUDE.md").read_text() == MEMORY
    capsys.readouterr()
    assert run(repo, "rebank", "--accept", "span:src/app.py#L2") == 0
    out = capsys.readouterr().out
    assert "the memory's text was written for the old lines" in out
    assert "CLAUDE.md:3: span:src/app.py#L2: rewritten as span:src/app.py#L3" in out
    entry = lock_entry(repo)
    assert (entry["anchor"], entry["start_line"], entry["lines"]) == ("span:src/app.py#L3", 3, ["TIMEOUT = 10\n"])  # never `import os`
    assert (repo / "CLAUDE.md").read_text() == MEMORY.replace("#L2", "#L3")


def test_check_notes_a_moved_span_and_lock_check_fails_until_relocated(repo: Path, capsys) -> None:  # noqa: ANN001
    write_tree(repo, {"src/app.py": '"""The app."""\n' + APP})
    assert run(repo, "check") == 0
    out = capsys.readouterr().out
    assert "hint: 1 span moved intact: run `anchorcheck relocate` to record where" in out
    note = next(line for line in out.splitlines() if line.startswith("note: "))
    assert note.endswith("CLAUDE.md:3:24: span:src/app.py#L2 is now at src/app.py lines 3-3")  # the memory file as other findings show it
    assert run(repo, "lock", "--check") == 1
    assert "span:src/app.py#L2: moved to src/app.py lines 3-3: run anchorcheck relocate" in capsys.readouterr().out
    assert run(repo, "relocate") == 0
    assert run(repo, "lock", "--check") == 0
    capsys.readouterr()
    assert run(repo, "check") == 0
    assert "moved" not in capsys.readouterr().out


def test_library_rebank_refuses_a_changed_span_unless_accepted(repo: Path) -> None:
    banked = anchorcheck.bank(repo, "src/app.py", 2, 2)
    write_tree(repo, {"src/app.py": '"""The app."""\n' + APP})
    moved = anchorcheck.rebank(repo, banked)  # moved intact: follows it, nothing to accept
    assert (moved.start_line, moved.lines) == (3, ("TIMEOUT = 30\n",))
    write_tree(repo, {"src/app.py": EDITED})
    with pytest.raises(anchorcheck.SpanChanged, match="may now be false") as caught:
        anchorcheck.rebank(anchorcheck.Verifier(repo), banked)
    assert caught.value.current.lines == ("TIMEOUT = 10\n",)
    accepted = anchorcheck.rebank(repo, banked, accept=True)
    assert (accepted.start_line, accepted.lines) == (3, ("TIMEOUT = 10\n",))
    (repo / "src/app.py").unlink()
    with pytest.raises(anchorcheck.BankError, match="cannot re-bank"):
        anchorcheck.rebank(repo, banked, accept=True)
