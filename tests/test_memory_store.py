"""`anchorcheck.MemoryStore`: the store behind MCP `remember`, used from the library; broken input is one line."""

from __future__ import annotations

import pytest

import anchorcheck


def test_add_search_recall_forget_each_read_verified(make_repo) -> None:  # noqa: ANN001
    root = make_repo({"src/app.py": "import os\n", "README.md": "x\n"})
    store = anchorcheck.MemoryStore(anchorcheck.Verifier(root))
    first = store.add("The readme exists.", ["file:README.md"])
    store.add("The app reads os.", ["import:os"])
    assert [r.memory.id for r in store.search("readme")] == [first.id] == ["m1"]
    (root / "README.md").unlink()
    assert store.recall("m1").verdict is anchorcheck.Verdict.REFUTED
    store.forget("m1")
    assert [m.id for m in store.memories()] == ["m2"]
    assert store.add("Another.", []).id == "m3"  # ids are never reused


def test_bad_store_paths_and_files_are_one_line(make_repo) -> None:  # noqa: ANN001
    root = make_repo({"notes.memories.toml": "version = 1\n[[memory]]\nid = 3\n"})
    verifier = anchorcheck.Verifier(root)
    for path, message in (("../x.memories.toml", "'..'"), ("notes.toml", "must end with .memories.toml")):
        with pytest.raises(anchorcheck.StoreError, match=message):
            anchorcheck.MemoryStore(verifier, path)
    with pytest.raises(anchorcheck.StoreError, match=r"^notes.memories.toml:2: \[\[memory\]\] needs an 'id' string$"):
        anchorcheck.MemoryStore(verifier, "notes.memories.toml").add("x", [])
    assert (root / "notes.memories.toml").read_text() == "version = 1\n[[memory]]\nid = 3\n"  # never overwritten
