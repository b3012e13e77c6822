"""Repository access: safe paths, listing, identity — in plain directories and real git repos."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from anchorcheck.base.gitnames import strip_credentials
from anchorcheck.repo.checkout import Repository
from anchorcheck.repo.paths import UnsafePathError, find_root
from tests.conftest import git, init_repo, needs_git


@pytest.mark.parametrize(
    "path, why",
    [
        ("/etc/passwd", "absolute"),
        ("\\\\server\\share", "absolute"),
        ("C:/Windows/win.ini", "drive letter"),
        ("c:relative", "drive letter"),
        ("../outside.txt", "'..'"),
        ("src/../../outside.txt", "'..'"),
        ("src\\..\\..\\x", "'..'"),
        ("a\x00b", "NUL"),
        ("", "empty"),
    ],
)
def test_unsafe_paths_are_refused_before_any_read(make_tree, path: str, why: str) -> None:
    repo = Repository(make_tree({"a.txt": "x"}))
    with pytest.raises(UnsafePathError) as caught:
        repo.read_bytes(path)
    assert why in str(caught.value)


def test_non_string_path_is_refused(make_tree) -> None:
    with pytest.raises(UnsafePathError, match="expected a path string"):
        Repository(make_tree({"a": "x"})).resolve(7)  # type: ignore[arg-type]


def test_symlink_outside_root_is_refused(tmp_path: Path, make_tree) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    root = make_tree({"a.txt": "x"})
    (root / "link.txt").symlink_to(secret)
    (root / "linkdir").symlink_to(tmp_path)
    repo = Repository(root)
    with pytest.raises(UnsafePathError, match="outside the repository"):
        repo.read_bytes("link.txt")
    with pytest.raises(UnsafePathError, match="outside the repository"):
        repo.read_bytes("linkdir/secret.txt")
    assert "link.txt" not in repo.files()


def test_symlink_inside_root_is_followed(make_tree) -> None:
    root = make_tree({"real/a.txt": "hello"})
    (root / "alias.txt").symlink_to(root / "real" / "a.txt")
    assert Repository(root).read_bytes("alias.txt") == b"hello"


def test_symlink_loop_is_refused_not_hung(make_tree) -> None:
    root = make_tree({"a.txt": "x"})
    (root / "loop1").symlink_to(root / "loop2")
    (root / "loop2").symlink_to(root / "loop1")
    repo = Repository(root)
    with pytest.raises((UnsafePathError, OSError)):
        repo.read_bytes("loop1")
    assert repo.files() == ["a.txt"]


def test_listing_without_git_honours_gitignore_and_skips(make_tree) -> None:
    root = make_tree(
        {
            ".gitignore": "*.log\nsecret/\n!keep.log\n",
            "src/app.py": "print()",
            "src/.gitignore": "generated.py\n",
            "src/generated.py": "x = 1",
            "debug.log": "noise",
            "keep.log": "kept",
            "secret/key.txt": "k",
            "node_modules/left/index.js": "module.exports = 1",
            "build/out.py": "x",
            "img.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00",
            "big.txt": "x" * 5000,
        }
    )
    repo = Repository(root, max_file_size=4096)
    assert repo.files() == [".gitignore", "keep.log", "src/.gitignore", "src/app.py"]


def test_ignore_files_are_compiled_once_and_again_when_edited(make_tree, monkeypatch) -> None:
    """3,000 missing paths were judged against the same `.gitignore` files by reading and compiling each of
    them per path (19 s); an edited one is read again (a longer line: its status changes whatever the clock)."""
    import anchorcheck.repo.paths as paths

    compiled: list[list[str]] = []
    compile_once = paths.gitignore_file
    monkeypatch.setattr(paths, "gitignore_file", lambda lines: compiled.append(lines) or compile_once(lines))
    root = make_tree({".gitignore": "*.log\n", "web/.gitignore": "/out/\n", "web/app.js": ""})
    repo = Repository(root)
    for i in range(200):
        assert repo.ignored_because(f"web/out/m{i}.js") == "ignored by web/.gitignore"
        assert repo.ignored_because(f"web/src/m{i}.log") == "ignored by .gitignore"
        assert repo.ignored_because(f"web/src/m{i}.js") is None
    assert sorted(map(tuple, compiled)) == [("*.log",), ("/out/",)]
    (root / "web/.gitignore").write_text("/generated/\n")
    assert repo.ignored_because("web/out/m0.js") is None and repo.ignored_because("web/generated/m0.js")
    assert len(compiled) == 3


def test_scope_limits_listing(make_tree) -> None:
    root = make_tree({"src/a/x.py": "", "src/b/y.py": "", "tests/t.py": "", "src/a/z.ts": ""})
    repo = Repository(root)
    assert repo.files("src/a/") == ["src/a/x.py", "src/a/z.ts"]
    assert repo.files("src/a") == ["src/a/x.py", "src/a/z.ts"]
    assert repo.files("tests/t.py") == ["tests/t.py"]
    assert repo.files("*.py") == ["src/a/x.py", "src/b/y.py", "tests/t.py"]
    assert repo.files("src/**/*.ts") == ["src/a/z.ts"]


def test_configurable_skip_dirs_and_excludes(make_tree) -> None:
    root = make_tree({"vendor/lib.py": "", "third_party/x.py": "", "app.py": "", "gen/a_pb2.py": ""})
    repo = Repository(root, skip_dirs={"third_party"}, exclude=["*_pb2.py"])
    assert repo.files() == ["app.py", "vendor/lib.py"]


@needs_git
def test_git_listing_uses_the_index_and_untracked_files(make_repo) -> None:
    root = make_repo({".gitignore": "ignored.txt\n", "tracked.py": "a", "ignored.txt": "i", "gone.py": "g"})
    git(root, "rm", "-q", "--cached", "gone.py")
    (root / "gone.py").unlink()
    (root / "new.py").write_text("n")
    assert Repository(root).files() == [".gitignore", "new.py", "tracked.py"]


@needs_git
def test_identity_head_and_origin(make_repo, tmp_path: Path) -> None:
    root = make_repo({"a.txt": "x"})
    first = git(root, "rev-list", "--max-parents=0", "HEAD")
    git(root, "remote", "add", "origin", "https://user:s3cret@example.com/org/repo.git")
    repo = Repository(root)
    assert repo.identity == f"git:{first}"
    assert repo.head == git(root, "rev-parse", "HEAD")
    assert repo.origin == "https://example.com/org/repo.git"
    moved = tmp_path / "elsewhere"
    root.rename(moved)
    assert Repository(moved).identity == f"git:{first}", "a moved checkout keeps its identity"


@needs_git
def test_blob_ids_only_for_unmodified_tracked_files(make_repo) -> None:
    root = make_repo({"a.py": "a", "b.py": "b"})
    (root / "b.py").write_text("changed")
    ids = Repository(root).blob_ids
    assert set(ids) == {"a.py"}
    assert ids["a.py"] == git(root, "hash-object", "a.py")


def test_works_without_git_installed(make_tree, monkeypatch) -> None:
    root = make_tree({".git/HEAD": "ref: refs/heads/main\n", ".gitignore": "x.txt\n", "x.txt": "", "y.txt": ""})
    monkeypatch.setenv("PATH", str(root / "no-such-bin"))
    repo = Repository(root)
    assert repo.in_git is False
    assert repo.identity == f"path:{root.resolve()}"
    assert repo.head is None and repo.origin is None
    assert repo.files() == [".gitignore", "y.txt"]


def test_find_root_walks_up_to_git(make_tree) -> None:
    root = make_tree({".git/HEAD": "x", "src/pkg/mod.py": ""})
    assert find_root(root / "src" / "pkg") == root.resolve()
    plain = root.parent / "plain"
    plain.mkdir()
    assert find_root(plain) == plain.resolve()


def test_read_bytes_caps_size(make_tree) -> None:
    repo = Repository(make_tree({"big.json": "x" * 100}), max_file_size=10)
    with pytest.raises(OSError, match="over the 10-byte cap"):
        repo.read_bytes("big.json")
    assert repo.read_bytes("big.json", limit=1000) == b"x" * 100


@pytest.mark.parametrize(
    "url, shown",
    [
        ("https://user:pw@github.com/o/r.git", "https://github.com/o/r.git"),
        ("https://token@github.com/o/r", "https://github.com/o/r"),
        ("git@github.com:o/r.git", "git@github.com:o/r.git"),
        ("ssh://git@host:22/o/r", "ssh://git@host:22/o/r"),
        ("ssh://git:pw@host/o/r", "ssh://git@host/o/r"),
    ],
)
def test_credentials_are_stripped(url: str, shown: str) -> None:
    assert strip_credentials(url) == shown


def test_unreadable_root_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(NotADirectoryError):
        Repository(tmp_path / "missing")
    assert os.path.exists(tmp_path)


@needs_git
def test_tracked_file_turned_into_an_escaping_symlink_is_refused(tmp_path: Path, make_repo) -> None:
    # The listing trusts git's index for unmodified regular files; a swap git reports must be stat-ed again.
    root = make_repo({"a.py": "x = 1\n", "pkg/b.py": "y = 2\n"})
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "b.py").write_text("stolen\n")
    (root / "a.py").unlink()
    (root / "a.py").symlink_to(secret / "b.py")
    (root / "pkg" / "b.py").unlink()
    (root / "pkg").rmdir()
    (root / "pkg").symlink_to(secret)
    repo = Repository(root)
    assert repo.files() == []
    with pytest.raises(UnsafePathError):
        repo.read_bytes("pkg/b.py")


@pytest.mark.parametrize("in_git", [pytest.param(True, marks=needs_git), False])
def test_an_edited_listed_file_turned_into_a_symlink_is_still_confined(tmp_path: Path, make_tree, in_git) -> None:
    # A long-lived Verifier reads an edited listed file without resolving it again: a link in its place
    # is still followed only inside the root, and a file swapped for one going out is refused.
    secret = tmp_path / "secret.py"
    secret.write_text("stolen\n")
    root = make_tree({"a.py": "x = 1\n", "real/b.py": "y = 2\n", "c.py": "z = 3\n"})
    if in_git:
        init_repo(root)
    repo = Repository(root)
    assert repo.paths() == ["a.py", "c.py", "real/b.py"]
    (root / "c.py").write_text("z = 4\n")
    (root / "a.py").unlink()
    (root / "a.py").symlink_to(secret)
    repo.forget(["a.py", "c.py"])
    with pytest.raises(UnsafePathError, match="outside the repository"):
        repo.read_bytes("a.py")
    assert repo.read_bytes("c.py") == b"z = 4\n"
    (root / "a.py").unlink()
    (root / "a.py").symlink_to(root / "real" / "b.py")
    assert repo.read_bytes("a.py") == b"y = 2\n"
    (root / "a.py").unlink()
    with pytest.raises(FileNotFoundError):
        repo.read_bytes("a.py")
    (root / "a.py").mkdir()
    with pytest.raises(IsADirectoryError):
        repo.read_bytes("a.py")


@needs_git
def test_size_cap_and_binary_check_apply_to_tracked_files(make_repo) -> None:
    root = make_repo({"small.py": "x", "big.py": "x" * 50, "blob.py": b"x\x00y"})
    repo = Repository(root, max_file_size=10)
    assert repo.files() == ["small.py"]
    assert repo.paths() == ["big.py", "blob.py", "small.py"]  # listed, not yet judged
    assert repo.files(where=lambda p: p != "small.py") == []


@needs_git
def test_listing_and_blob_ids_agree_whichever_is_asked_first(make_repo) -> None:
    # blob ids need only the index; the listing adds untracked files, however the two calls are ordered
    root = make_repo({"tracked.py": "a", "edited.py": "b"})
    (root / "edited.py").write_text("changed")
    (root / "new.py").write_text("n")
    ids_first, listing_first = Repository(root), Repository(root)
    assert set(ids_first.blob_ids) == {"tracked.py"}
    assert listing_first.files() == ["edited.py", "new.py", "tracked.py"]
    assert ids_first.files() == listing_first.files()
    assert listing_first.blob_ids == ids_first.blob_ids
    assert set(listing_first.staged_blob_ids) == {"edited.py", "tracked.py"}


@needs_git
def test_a_prefetched_listing_is_the_same_and_runs_git_once(make_repo, monkeypatch) -> None:
    root = make_repo({"tracked.py": "a", "edited.py": "b"})
    (root / "edited.py").write_text("changed")
    (root / "new.py").write_text("n")
    plain = Repository(root)
    expected = (plain.files(), plain.blob_ids, plain.staged_blob_ids)
    ran: list[tuple[str, ...]] = []
    real = Repository._run_git
    monkeypatch.setattr(Repository, "_run_git", lambda self, commands, *rest: real(self, ran.extend(commands) or commands, *rest))
    for ask_ids_first in (True, False):
        ran.clear()
        repo = Repository(root)
        repo.prefetch_listing()
        if ask_ids_first:
            assert repo.blob_ids == expected[1]
        assert (repo.files(), repo.blob_ids, repo.staged_blob_ids) == expected
        listing = [c for c in ran if c[0] in ("ls-files", "diff-files")]
        assert sorted(listing) == sorted(set(listing)) and len(listing) == 3


def test_no_prefetch_outside_git(tmp_path) -> None:
    (tmp_path / "a.py").write_text("x")
    repo = Repository(tmp_path)
    repo.prefetch_listing()
    assert repo.files() == ["a.py"]


def test_files_by_name(make_tree) -> None:
    root = make_tree({"a/__init__.py": "", "a/b/__init__.py": "", "c/__init__.py": b"\0binary", "setup.py": "", "pkg.json": ""})
    repo = Repository(root)
    assert repo.paths(named=["__init__.py"]) == ["a/__init__.py", "a/b/__init__.py", "c/__init__.py"]
    assert repo.files(named=["__init__.py"]) == ["a/__init__.py", "a/b/__init__.py"]  # still judged as text
    assert repo.files("a/b", named=["__init__.py", "setup.py"]) == ["a/b/__init__.py"]
    assert repo.paths(named=["setup.py", "missing"]) == ["setup.py"]


@needs_git
def test_a_verifier_lists_the_checkout_when_first_asked_not_when_built(make_repo) -> None:
    # A library caller may build a Verifier long before its first check: files added meanwhile count.
    import pickle

    from anchorcheck import Verifier

    root = make_repo({"src/a.py": "import os\n"})
    verifier = Verifier(root, options={"cache": False})
    (root / "src/b.py").write_text("import redis\n")
    assert verifier.check("import:redis").verdict.value == "VERIFIED"
    prefetched = Repository(root)
    prefetched.prefetch_listing()
    assert pickle.loads(pickle.dumps(prefetched)).files() == ["src/a.py", "src/b.py"]
