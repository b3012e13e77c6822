"""`file:` anchors end to end through the Verifier."""

from __future__ import annotations

from pathlib import Path

import pytest

from anchorcheck import Memory, Verdict, Verifier
from tests.conftest import git, init_repo, needs_git, write_tree


def test_existing_missing_and_escaping_paths(make_tree, tmp_path) -> None:
    root = make_tree({"docs/adr/0003.md": "# ADR", "src/app.py": ""})
    (tmp_path / "outside.txt").write_text("x")
    v = Verifier(root)
    assert v.check("file:docs/adr/0003.md").verdict is Verdict.VERIFIED
    assert v.check("file:docs/adr").verdict is Verdict.VERIFIED
    missing = v.check("file:docs/adr/0004.md")
    assert missing.verdict is Verdict.REFUTED and "does not exist" in missing.reason
    escaping = v.check("file:../outside.txt")
    assert escaping.verdict is Verdict.INCONCLUSIVE and "'..'" in escaping.reason
    absolute = v.check(f"file:{tmp_path / 'outside.txt'}")
    assert absolute.verdict is Verdict.INCONCLUSIVE and "absolute" in absolute.reason


def test_moved_file_hint_names_the_new_place(make_tree) -> None:
    root = make_tree({"src/new/settings.py": ""})
    result = Verifier(root).check("file:src/old/settings.py")
    assert result.verdict is Verdict.REFUTED and "src/new/settings.py" in result.reason


def test_percent_encoded_path(make_tree) -> None:
    root = make_tree({"docs/my notes.md": ""})
    assert Verifier(root).check("file:docs/my%20notes.md").verdict is Verdict.VERIFIED


def test_negation_and_memory_verdict(make_tree) -> None:
    root = make_tree({"a.txt": ""})
    v = Verifier(root)
    report = v.verify(Memory(text="a exists, b does not", anchors=["file:a.txt", "!file:b.txt"]))
    assert report.verdict is Verdict.VERIFIED
    report = v.verify(Memory(text="b exists", anchors=["file:a.txt", "file:b.txt"]))
    assert report.verdict is Verdict.REFUTED
    report = v.verify(Memory(text="bad", anchors=["file:a.txt", "file:"]))
    assert report.verdict is Verdict.INCONCLUSIVE
    assert "malformed anchor" in report.results[1].reason


def test_results_are_deterministic(make_tree) -> None:
    root = make_tree({"a.txt": "", "b/a.txt": "", "c/a.txt": ""})
    first = [Verifier(root).check("file:x/a.txt").to_dict() for _ in range(3)]
    assert first[0] == first[1] == first[2]


def test_no_hint_for_a_conventional_file_name(make_tree) -> None:
    # Every package has an index.js or __init__.py: another one says nothing about where this one went.
    root = make_tree({"test/index.js": "", "other/__init__.py": "", "crate/src/mod.rs": "", "tools/cache.py": ""})
    v = Verifier(root)
    for gone in ("src/index.js", "pkg/__init__.py", "src/mod.rs"):
        result = v.check(f"file:{gone}")
        assert result.verdict is Verdict.REFUTED and "a file of that name" not in result.reason, result.reason
    assert "a file of that name is at tools/cache.py" in v.check("file:src/cache.py").reason


@needs_git
@pytest.mark.parametrize("committed", [True, False], ids=["committed", "staged"])
def test_rename_hint_follows_git_not_the_file_name(tmp_path: Path, committed: bool) -> None:
    """`git mv client/stdio.py client/stdio_transport.py`: git knows where it went; another stdio.py is not it."""
    body = "".join(f"def transport_{i}() -> int:\n    return {i}\n\n" for i in range(20))
    root = init_repo(write_tree(tmp_path / "repo", {"src/pkg/client/stdio.py": body, "src/pkg/server/stdio.py": "SERVER = 1\n"}))
    git(root, "mv", "src/pkg/client/stdio.py", "src/pkg/client/stdio_transport.py")
    if committed:
        git(root, "commit", "-q", "-m", "rename the transport")
    result = Verifier(root).check("file:src/pkg/client/stdio.py")
    assert result.verdict is Verdict.REFUTED and result.severity == "error"
    said = "moved to `src/pkg/client/stdio_transport.py` in " if committed else "renamed to `src/pkg/client/stdio_transport.py` in git's index"
    assert said in result.reason
    assert result.reason.count("stdio_transport.py") == 1, result.reason  # the rename said once
    assert "server/stdio.py" not in result.reason
    assert result.details["fix"] == {"from": "src/pkg/client/stdio.py", "to": "src/pkg/client/stdio_transport.py"}


@needs_git
def test_rename_hint_follows_a_chain_of_renames(tmp_path: Path) -> None:
    body = "".join(f"VALUE_{i} = {i}\n" for i in range(30))
    root = init_repo(write_tree(tmp_path / "repo", {"src/a.py": body, "lib/__init__.py": ""}))
    git(root, "mv", "src/a.py", "src/b.py")
    git(root, "commit", "-q", "-m", "a to b")
    git(root, "mv", "src/b.py", "lib/c.py")
    git(root, "commit", "-q", "-m", "b to c")
    assert "moved to `lib/c.py` in " in Verifier(root).check("file:src/a.py").reason


@needs_git
def test_rename_hint_in_a_project_folder_as_root(tmp_path: Path) -> None:
    """A monorepo project as the root: git's paths are made relative to it, as the anchor's are."""
    body = "".join(f"VALUE_{i} = {i}\n" for i in range(30))
    top = init_repo(write_tree(tmp_path / "repo", {"packages/web/src/a.py": body}))
    git(top, "mv", "packages/web/src/a.py", "packages/web/src/b.py")
    git(top, "commit", "-q", "-m", "a to b")
    assert "moved to `src/b.py` in " in Verifier(top / "packages/web").check("file:src/a.py").reason
