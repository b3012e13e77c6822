"""Verdicts kept on disk per tree state (anchorcheck.evidence.stored): a new process answers an anchor it saw
before without searching, and any change to what the answer was worked out from is another key."""

from __future__ import annotations

import json

from tests._source_support import verifier, write
from tests.conftest import init_repo, needs_git

from anchorcheck import Verdict

pytestmark = needs_git

_FILES = {
    "pyproject.toml": '[project]\nname = "app"\nversion = "1"\ndependencies = ["requests"]\n',
    ".gitignore": "notes/\n",
    **{f"app/m{i}.py": f'import json\nimport os\nA{i} = os.environ.get("A{i}")\n\ndef f{i}():\n    pass\n' for i in range(8)},
}
_ANCHORS = ["import:json", "import:redis", "env:A3", "env:B", "sym:app/m3.py::f3", "sym:py:app.m4.f4", "pkg:pypi/requests", "file:notes/todo.md"]


def _answers(root, cache):
    """Each anchor's result on a new Verifier (a new process, as far as the disk cache can tell), and
    the files that Verifier read."""
    v = verifier(root, cache)
    read, original = [], v.repo._read
    v.repo._read = lambda path, cap, amount=-1: read.append(path) or original(path, cap, amount)  # type: ignore[method-assign]
    return {anchor: v.check(anchor).to_dict() for anchor in _ANCHORS}, read


def test_a_new_verifier_answers_from_the_disk_without_reading_a_file(tmp_path):
    root, cache = write(tmp_path / "repo", _FILES), tmp_path / "cache"
    init_repo(root)
    first, read = _answers(root, cache)
    assert read and {a: r["verdict"] for a, r in first.items()} == {
        "import:json": "VERIFIED", "import:redis": "REFUTED", "env:A3": "VERIFIED", "env:B": "REFUTED",
        "sym:app/m3.py::f3": "VERIFIED", "sym:py:app.m4.f4": "VERIFIED", "pkg:pypi/requests": "VERIFIED", "file:notes/todo.md": "REFUTED",
    }
    again, read = _answers(root, cache)
    assert json.dumps(again) == json.dumps(first) and read == []  # as printed: `details` in the same order too
    assert json.dumps(_answers(root, None)[0]) == json.dumps(first)  # the same as worked out without any cache


def test_an_edit_added_or_ignored_file_is_another_tree_state(tmp_path):
    root, cache = write(tmp_path / "repo", _FILES), tmp_path / "cache"
    init_repo(root)
    first, _ = _answers(root, cache)
    (root / "app/m3.py").write_text('import redis\nimport os\nB = os.environ["B"]\n')  # not committed
    edited, read = _answers(root, cache)
    assert {a: r["verdict"] for a, r in edited.items()} == {
        **{a: r["verdict"] for a, r in first.items()}, "import:redis": "VERIFIED", "env:A3": "REFUTED", "env:B": "VERIFIED", "sym:app/m3.py::f3": "REFUTED",
    }
    assert edited == _answers(root, None)[0] and "app/m3.py" in read
    write(root, {"app/new.py": "import celery\n"})  # untracked: listed, so another state too
    assert _answers(root, cache)[0]["import:redis"] == _answers(root, None)[0]["import:redis"]
    write(root, {"notes/todo.md": "x\n"})  # ignored: no listing shows it, but the answer looked for it
    assert _answers(root, cache)[0]["file:notes/todo.md"] == _answers(root, None)[0]["file:notes/todo.md"]
    assert _answers(root, None)[0]["file:notes/todo.md"]["verdict"] != "REFUTED"


def test_an_answer_cut_short_by_a_deadline_is_not_kept(tmp_path):
    root, cache = write(tmp_path / "repo", _FILES), tmp_path / "cache"
    init_repo(root)
    assert verifier(root, cache).check("env:B", deadline=0).verdict is Verdict.INCONCLUSIVE
    assert verifier(root, cache).check("env:B").verdict is Verdict.REFUTED


def test_a_tree_with_too_many_unvouched_files_is_not_hashed_to_store_verdicts(tmp_path, monkeypatch):
    import anchorcheck.repo.treestate

    monkeypatch.setattr(anchorcheck.repo.treestate, "MAX_UNCLEAN", 3)
    root, cache = write(tmp_path / "repo", _FILES), tmp_path / "cache"
    init_repo(root)
    write(root, {f"scratch/s{i}.py": "import redis\n" for i in range(4)})  # untracked: git vouches for none
    first, _ = _answers(root, cache)
    again, read = _answers(root, cache)
    assert again == first and first["import:redis"]["verdict"] == "VERIFIED"
    assert read  # no stored verdict answered: the search ran again from the files


def test_a_link_to_a_folder_or_a_submodule_not_checked_out_keeps_verdicts_stored(tmp_path):
    from tests.conftest import git

    root, cache = write(tmp_path / "repo", {**_FILES, "lib/real/f": "x\n"}), tmp_path / "cache"
    (root / "lib" / "linked").symlink_to("real")
    (root / "vendor" / "sub").mkdir(parents=True)
    init_repo(root)
    git(root, "update-index", "--add", "--cacheinfo", f"160000,{'5' * 40},vendor/sub")
    first, _ = _answers(root, cache)
    again, read = _answers(root, cache)
    assert json.dumps(again) == json.dumps(first) and read == []
    (root / "lib" / "linked").unlink()
    (root / "lib" / "linked").symlink_to("gone")  # another link text: another tree state
    assert _answers(root, cache)[1]
