"""`anchorcheck lock`: banking the span anchors of memory files, and readers attaching the entries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import anchorcheck
from anchorcheck.cli import main
from anchorcheck.memory.lockfile import LockError, load_lock
from tests.conftest import needs_git

CODE = "".join(f"line {n}\n" for n in range(1, 21))
MEMORY = """\
# Notes

- Lines 3 to 5 hold the setup. `span:src/app.py#L3-L5`
- Line 10 is the loop. `span:src/app.py#L10`
- Not a span: `file:src/app.py`
"""


@pytest.fixture
def repo(make_repo, monkeypatch) -> Path:  # noqa: ANN001
    root = make_repo({"src/app.py": CODE, "CLAUDE.md": MEMORY})
    monkeypatch.chdir(root)
    return root


def _check(capsys) -> tuple[int, str]:  # noqa: ANN001
    code = main(["check", "-v"])
    return code, capsys.readouterr().out


@needs_git
def test_unbanked_spans_fail_the_check_until_locked(repo: Path, capsys) -> None:  # noqa: ANN001
    code, out = _check(capsys)
    assert code == 1, "a span nobody banked is a mistake of the memory file, not a pass"
    assert "CLAUDE.md:3:33: INCONCLUSIVE span:src/app.py#L3-L5 — src/app.py lines 3-5: not banked, run anchorcheck lock" in out
    assert not (repo / "anchorcheck.lock").exists(), "check never writes the lock"
    assert main(["lock"]) == 0
    assert "2 added, 0 removed, 0 unchanged" in capsys.readouterr().out
    code, out = _check(capsys)
    assert code == 0
    assert "VERIFIED span:src/app.py#L3-L5 — src/app.py lines 3-5 are unchanged" in out
    assert "VERIFIED span:src/app.py#L10 —" in out


@needs_git
def test_lock_is_sorted_deterministic_and_a_rerun_is_a_no_op(repo: Path, capsys) -> None:  # noqa: ANN001
    assert main(["lock"]) == 0
    first = (repo / "anchorcheck.lock").read_bytes()
    text = first.decode()
    assert text.index('anchor = "span:src/app.py#L10"') < text.index('anchor = "span:src/app.py#L3-L5"')
    assert 'lines = [\n    "line 3\\n",\n    "line 4\\n",\n    "line 5\\n",\n]' in text
    assert main(["lock"]) == 0
    assert "up to date" in capsys.readouterr().out.splitlines()[-1]
    assert (repo / "anchorcheck.lock").read_bytes() == first
    assert main(["lock", "--check"]) == 0


@needs_git
def test_code_edit_makes_a_locked_span_stale_and_lock_does_not_hide_it(repo: Path, capsys) -> None:  # noqa: ANN001
    main(["lock"])
    (repo / "src/app.py").write_text(CODE.replace("line 4\n", "line four\n"))
    code, out = _check(capsys)
    assert code == 1
    assert "CLAUDE.md:3:33: REFUTED span:src/app.py#L3-L5" in out
    main(["lock"])
    assert main(["check"]) == 1, "lock keeps existing entries: a stale span stays stale until rebanked"


@needs_git
def test_pruning_only_without_arguments(repo: Path, capsys) -> None:  # noqa: ANN001
    main(["lock"])
    (repo / "CLAUDE.md").write_text("- Only the loop now. `span:src/app.py#L10`\n")
    assert main(["lock", "--check"]) == 1
    assert main(["lock", "CLAUDE.md"]) == 0
    assert 'span:src/app.py#L3-L5' in (repo / "anchorcheck.lock").read_text(), "naming files only adds"
    assert main(["lock"]) == 0
    assert "0 added, 1 removed, 1 unchanged" in capsys.readouterr().out.splitlines()[-1]
    assert 'span:src/app.py#L3-L5' not in (repo / "anchorcheck.lock").read_text()


@needs_git
def test_spans_that_cannot_be_banked_name_their_memory(repo: Path, capsys) -> None:  # noqa: ANN001
    (repo / "CLAUDE.md").write_text("# x\n\n- Past the end `span:src/app.py#L30-L40`\n- Fine `span:src/app.py#L1`\n")
    assert main(["lock"]) == 1
    err = capsys.readouterr().err
    assert "CLAUDE.md:3:17: cannot bank span:src/app.py#L30-L40:" in err and "past the end of the file" in err
    assert "span:src/app.py#L1" in (repo / "anchorcheck.lock").read_text()


@needs_git
def test_native_memories_with_their_own_citation_need_no_lock(repo: Path, capsys) -> None:  # noqa: ANN001
    record = anchorcheck.bank(repo, "src/app.py", 7, 8).to_dict()
    fields = "\n".join(f"{k} = {_toml(v)}" for k, v in record.items())
    (repo / "team.memories.toml").write_text(
        'version = 1\n[[memory]]\nid = "m"\ntext = "t"\nanchors = ["span:src/app.py#L7-L8"]\n'
        f'[[memory.citation]]\nanchor = "span:src/app.py#L7-L8"\n{fields}\n'
    )
    assert main(["check", "team.memories.toml"]) == 0
    assert main(["lock", "team.memories.toml"]) == 0
    assert "0 added" in capsys.readouterr().out


def _toml(value: object) -> str:
    return json.dumps(value)  # TOML basic strings, integers and arrays share JSON's syntax


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("version = 1\n[[citation]\n", 2, "invalid TOML"),
        ("version = 7\n", 1, "'version' must be 1"),
        ("version = 1\n\n[[citation]]\npath = 'a.py'\n", 3, "needs an 'anchor' string"),
        ("version = 1\n[[citation]]\nanchor = 'span:a#L1'\n[[citation]]\nanchor = 'span:a#L1'\n", 4, "duplicate entry"),
    ],
)
def test_malformed_lock_is_an_error_with_file_and_line(make_tree, capsys, monkeypatch, text: str, line: int, message: str) -> None:  # noqa: ANN001
    root = make_tree({"anchorcheck.lock": text, "CLAUDE.md": "- `span:a.py#L1`\n", "a.py": "x\n"})
    with pytest.raises(LockError) as raised:
        load_lock(root)
    assert (raised.value.line, message in raised.value.message) == (line, True)
    monkeypatch.chdir(root)
    assert main(["check", "--root", str(root), "CLAUDE.md"]) == 2
    assert f"anchorcheck.lock:{line}: " in capsys.readouterr().err


@needs_git
def test_escaping_span_paths_are_refused_not_read(repo: Path, capsys) -> None:  # noqa: ANN001
    (repo / "CLAUDE.md").write_text("- Outside `span:../outside.txt#L1`\n")
    (repo.parent / "outside.txt").write_text("secret\n")
    assert main(["lock"]) == 1
    assert "cannot bank span:../outside.txt#L1: ../outside.txt: refused" in capsys.readouterr().err
    assert "secret" not in (repo / "anchorcheck.lock").read_text()


@needs_git
def test_a_native_citation_no_anchor_names_is_checked_on_its_own(repo: Path, capsys) -> None:  # noqa: ANN001
    record = anchorcheck.bank(repo, "src/app.py", 7, 8).to_dict()
    fields = "\n".join(f"{k} = {_toml(v)}" for k, v in record.items())
    (repo / "team.memories.toml").write_text(f'version = 1\n[[memory]]\nid = "m"\ntext = "t"\n[[memory.citation]]\n{fields}\n')
    assert main(["check", "-v", "team.memories.toml"]) == 0
    assert "team.memories.toml:2:1: VERIFIED span:src/app.py#L7-L8" in capsys.readouterr().out
    (repo / "src/app.py").write_text(CODE.replace("line 7\n", "line seven\n"))
    assert main(["check", "team.memories.toml"]) == 1
