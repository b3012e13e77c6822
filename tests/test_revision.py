"""RevisionRepository: the Repository interface over a past commit, read through git plumbing only."""

from __future__ import annotations

import os

import pytest

from anchorcheck import Verifier
from anchorcheck.repo.checkout import Repository
from anchorcheck.repo.paths import UnsafePathError
from anchorcheck.repo.safe_read import FileTooLargeError
from anchorcheck.repo.revision import RevisionError, RevisionRepository
from tests.conftest import git, needs_git

pytestmark = needs_git


@pytest.fixture
def history(make_repo):
    root = make_repo({"src/cache.py": "import redis\n", "README.md": "v1\n", "data.bin": b"\x00\x01"})
    git(root, "tag", "v1")
    (root / "src/cache.py").write_text("import pymemcache\n")
    (root / "src/new.py").write_text("x = 1\n")
    (root / "README.md").unlink()
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "swap")
    (root / "src/cache.py").write_text("uncommitted\n")  # the work tree must not leak into the view
    return root


def test_reads_the_tree_of_the_revision_not_the_work_tree(history):
    past = RevisionRepository(Repository(history), "v1")
    assert past.read_bytes("src/cache.py") == b"import redis\n"
    assert past.is_file("README.md") and not past.is_file("src/new.py")
    assert past.is_dir("src") and past.is_dir(".") and not past.is_dir("README.md")
    assert past.files() == ["README.md", "src/cache.py"]  # binary data.bin skipped, as at HEAD
    assert past.files("src/") == ["src/cache.py"]
    assert past.head == git(history, "rev-parse", "v1")
    assert set(past.blob_ids) == {"README.md", "data.bin", "src/cache.py"}


def test_missing_files_and_unsafe_paths(history):
    past = RevisionRepository(Repository(history), "v1")
    with pytest.raises(FileNotFoundError):
        past.read_bytes("src/new.py")
    with pytest.raises(UnsafePathError):
        past.is_file("../etc/passwd")
    with pytest.raises(FileTooLargeError):
        past.read_bytes("src/cache.py", limit=3)


def test_a_symlink_leaving_the_tree_is_refused(make_repo):
    root = make_repo({"a.txt": "a\n"})
    os.symlink("../../outside", root / "escape")
    os.symlink("a.txt", root / "inside")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "links")
    past = RevisionRepository(Repository(root), "HEAD")
    with pytest.raises(UnsafePathError):
        past.read_bytes("escape")
    assert past.read_bytes("inside") == b"a\n"


def test_unknown_revision_and_no_git(history, make_tree):
    with pytest.raises(RevisionError, match="not a commit"):
        RevisionRepository(Repository(history), "v9")
    with pytest.raises(RevisionError, match="not a git checkout"):
        RevisionRepository(Repository(make_tree({"a": "b"})), "HEAD")


def test_plugins_work_unchanged_through_the_view(history):
    verifier = Verifier(history)
    verifier.context.repo = RevisionRepository(verifier.repo, "v1")
    assert verifier.check("file:README.md").verdict == "VERIFIED"
    assert verifier.check("file:src/new.py").verdict == "REFUTED"
