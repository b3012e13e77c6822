"""The `span:` kind in real git repositories: renames, repository identity, clones, revisions."""

from __future__ import annotations

import shutil
from pathlib import Path

from anchorcheck import Verdict, Verifier, bank

from tests._span_support import commit_all, make_git_repo, run_git, write_file

BODY = "".join(f"value_{n} = {n}\n" for n in range(1, 41))


def test_git_rename_is_followed_to_the_new_path(tmp_path: Path) -> None:
    root = make_git_repo(tmp_path / "r", {"src/old_name.py": BODY, "other.py": "x = 1\n"})
    c = bank(root, "src/old_name.py", 10, 12)
    run_git(root, "mv", "src/old_name.py", "src/new_name.py")
    commit_all(root, "rename")
    r = Verifier(root).check(c)
    assert (r.verdict, r.state) == (Verdict.VERIFIED, "relocated")
    assert (r.details["path"], r.details["start_line"], r.details["rule"]) == ("src/new_name.py", 10, "git rename")
    assert r.evidence[0].path == "src/new_name.py"


def test_git_rename_with_edits_elsewhere_in_the_file_relocates(tmp_path: Path) -> None:
    root = make_git_repo(tmp_path / "r", {"a.py": BODY})
    c = bank(root, "a.py", 20, 22)
    run_git(root, "mv", "a.py", "b.py")
    write_file(root, "b.py", "# header\n" + BODY.replace("value_40 = 40\n", "value_40 = 41\n"))
    commit_all(root, "rename and edit")
    r = Verifier(root).check(c)
    assert (r.verdict, r.details["path"], r.details["start_line"]) == (Verdict.VERIFIED, "b.py", 21)


def test_renamed_and_edited_span_is_stale(tmp_path: Path) -> None:
    root = make_git_repo(tmp_path / "r", {"a.py": BODY})
    c = bank(root, "a.py", 20, 22)
    run_git(root, "mv", "a.py", "b.py")
    write_file(root, "b.py", BODY.replace("value_21 = 21\n", "value_21 = 0\n"))
    commit_all(root, "rename and edit the span")
    r = Verifier(root).check(c)
    assert (r.verdict, r.state) == (Verdict.REFUTED, "stale")


def test_stale_result_names_both_revisions(tmp_path: Path) -> None:
    root = make_git_repo(tmp_path / "r", {"a.py": BODY})
    c = bank(root, "a.py", 5, 6)
    write_file(root, "a.py", BODY.replace("value_5 = 5\n", "value_5 = 50\n"))
    now = commit_all(root, "edit")
    r = Verifier(root).check(c)
    assert r.verdict is Verdict.REFUTED
    assert (r.details["banked_head"], r.details["current_head"]) == (c.head, now)
    assert c.head[:12] in r.reason and now[:12] in r.reason
    assert f"(banked at {c.head[:12]})" in r.details["diff"]


def test_citation_from_another_repository_is_inconclusive(tmp_path: Path) -> None:
    one = make_git_repo(tmp_path / "one", {"a.py": BODY})
    other = make_git_repo(tmp_path / "other", {"a.py": BODY + "# different history\n"})
    c = bank(one, "a.py", 1, 2)
    r = Verifier(other).check(c)
    assert (r.verdict, r.state) == (Verdict.INCONCLUSIVE, "unverifiable")
    assert "different repository" in r.reason


def test_moved_checkout_of_the_same_history_still_verifies(tmp_path: Path) -> None:
    root = make_git_repo(tmp_path / "r", {"a.py": BODY})
    c = bank(root, "a.py", 1, 2)
    moved = tmp_path / "elsewhere" / "renamed-checkout"
    moved.parent.mkdir()
    shutil.move(str(root), str(moved))
    r = Verifier(moved).check(c)
    assert (r.verdict, r.state) == (Verdict.VERIFIED, "fresh")
    assert "different checkout" not in r.reason


def test_clone_with_a_different_origin_verifies_and_says_so(tmp_path: Path) -> None:
    root = make_git_repo(tmp_path / "r", {"a.py": BODY})
    run_git(root, "remote", "add", "origin", "https://example.com/team/project.git")
    c = bank(root, "a.py", 3, 4)
    clone = tmp_path / "clone"
    run_git(tmp_path, "clone", "-q", str(root), str(clone))
    r = Verifier(clone).check(c)
    assert (r.verdict, r.state) == (Verdict.VERIFIED, "fresh")
    assert "checked in a different checkout" in r.reason
    assert r.details["checkout"] == "different"
    assert any("banked from https://example.com/team/project.git" in e.detail for e in r.evidence)


def test_unstaged_move_git_cannot_see_is_found_by_content_search(tmp_path: Path) -> None:
    root = make_git_repo(tmp_path / "r", {"a.py": BODY})
    c = bank(root, "a.py", 7, 9)
    (root / "a.py").rename(root / "moved.py")  # untracked: `git diff -M` reports only a deletion
    r = Verifier(root).check(c)
    assert (r.verdict, r.details["path"]) == (Verdict.VERIFIED, "moved.py")


def test_a_citation_banked_outside_git_verifies_only_in_that_directory(tmp_path: Path) -> None:
    """A `path:` identity says "this tree": a copy elsewhere with the same bytes is another tree."""
    one = tmp_path / "one"
    write_file(one, "a.py", BODY)
    c = bank(one, "a.py", 1, 2)
    assert c.identity == f"path:{one.resolve()}"
    assert Verifier(one).check(c).verdict is Verdict.VERIFIED
    copy = tmp_path / "copy"
    shutil.copytree(one, copy)
    r = Verifier(copy).check(c)
    assert (r.verdict, r.state) == (Verdict.INCONCLUSIVE, "unverifiable")
    assert "banked in another directory" in r.reason and str(one.resolve()) in r.reason
    make_git_repo(one, {})  # the same directory under git later: still the same tree
    assert Verifier(one).check(c).verdict is Verdict.VERIFIED


def test_a_shallow_clone_says_why_it_cannot_check_and_what_would(tmp_path: Path) -> None:
    """CI checkouts are shallow by default: the oldest commit there is not the repository's first, so a
    citation banked in a full clone cannot be bound to it. INCONCLUSIVE, saying so, not "a different repository"."""
    root = make_git_repo(tmp_path / "r", {"a.py": BODY})
    c = bank(root, "a.py", 5, 6)
    write_file(root, "b.py", "x = 1\n")
    commit_all(root, "more")
    shallow = tmp_path / "ci"
    run_git(tmp_path, "clone", "-q", "--depth", "1", (root.resolve()).as_uri(), str(shallow))
    r = Verifier(shallow).check(c)
    assert (r.verdict, r.state) == (Verdict.INCONCLUSIVE, "unverifiable")
    assert "this checkout is a shallow clone, whose first commit is not here" in r.reason and "fetch-depth: 0" in r.reason
    assert Verifier(root).check(c).verdict is Verdict.VERIFIED


def test_a_checkout_that_writes_crlf_line_endings_keeps_spans_fresh(tmp_path: Path) -> None:
    """core.autocrlf (what CI runners on Windows use) writes CRLF into the work tree of a file committed
    with LF: the repository's bytes are unchanged, edited elsewhere or not. Where git keeps CRs as they
    are (autocrlf off, or `-text`), CRLF is a real change and the span is stale."""
    root = make_git_repo(tmp_path / "r", {"a.py": BODY})
    c = bank(root, "a.py", 20, 22)
    run_git(root, "config", "core.autocrlf", "true")
    (root / "a.py").unlink()
    run_git(root, "checkout", "-q", "--", "a.py")
    assert b"\r\n" in (root / "a.py").read_bytes()
    r = Verifier(root).check(c)
    assert (r.verdict, r.state) == (Verdict.VERIFIED, "fresh") and r.reason.endswith("(this checkout writes CRLF line endings)")
    write_file(root, "a.py", b"# header\r\n" + (root / "a.py").read_bytes())  # edited as a Windows editor writes
    r = Verifier(root).check(c)
    assert (r.verdict, r.state, r.details["start_line"]) == (Verdict.VERIFIED, "relocated", 21)
    write_file(root, ".gitattributes", "a.py -text\n")  # git keeps this file's bytes as they are
    assert Verifier(root).check(c).verdict is Verdict.REFUTED
    (root / ".gitattributes").unlink()
    run_git(root, "config", "core.autocrlf", "false")
    assert Verifier(root).check(c).verdict is Verdict.REFUTED
