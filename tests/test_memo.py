"""The shared memo keeps what an edit did not feed: after a file changes, only the entries that read
it (or whose watch says its new bytes matter) are computed again, however often entries come and go."""

from __future__ import annotations

from anchorcheck.base.memo import Memo


def _entry(memo: Memo, key: str, paths: list[str], watch=None, listing: bool = False) -> list[str]:
    """The entry under `key`, computed from `paths`; the returned list records each computation."""
    computed: list[str] = []

    def factory() -> str:
        computed.append(key)
        memo.read_all(paths)
        if watch is not None:
            memo.watch(watch)
        if listing:
            memo.listed()
        return key

    memo.get(key, factory)
    return computed


def _listed(path: str) -> bool:
    return False


def test_an_entry_the_edited_file_did_not_feed_is_kept():
    memo = Memo()
    _entry(memo, "a", ["a.py"])
    _entry(memo, "b", ["b.py", "shared.py"])
    _entry(memo, "c", ["c.py", "shared.py"])
    assert memo.forget({"a.py"}, False, _listed) == 1
    assert memo.peek("a") is None and memo.peek("b") == "b" and memo.peek("c") == "c"
    assert memo.forget({"shared.py"}, False, _listed) == 2
    assert memo.peek("b") is None and memo.peek("c") is None
    assert memo.forget({"a.py", "b.py", "shared.py"}, False, _listed) == 0  # nothing left that read them


def test_an_entry_computed_again_is_dropped_again_by_what_it_read_now():
    memo = Memo()
    _entry(memo, "a", ["old.py"])
    memo.forget({"old.py"}, False, _listed)
    assert _entry(memo, "a", ["new.py"]) == ["a"]  # computed again, from another file this time
    assert memo.forget({"old.py"}, False, _listed) == 0 and memo.peek("a") == "a"
    assert memo.forget({"new.py"}, False, _listed) == 1 and memo.peek("a") is None


def test_a_watch_shared_by_entries_is_asked_once_and_drops_them_all():
    memo = Memo()
    asked: list[str] = []

    def matters(path: str) -> bool:
        asked.append(path)
        return path == "hit.py"

    for key in ("s1", "s2"):
        _entry(memo, key, [f"{key}.py"], watch=matters)
    _entry(memo, "other", ["other.py"])
    assert memo.forget({"miss.py"}, False, _listed) == 0 and asked == ["miss.py"]
    assert memo.forget({"hit.py"}, False, _listed) == 2
    assert memo.peek("s1") is None and memo.peek("s2") is None and memo.peek("other") == "other"


def test_a_new_listing_drops_the_entries_that_depended_on_it():
    memo = Memo()
    _entry(memo, "listed", ["a.py"], listing=True)
    _entry(memo, "was_absent", ["gone.py"])
    _entry(memo, "plain", ["b.py"])
    assert memo.forget(set(), True, lambda path: path == "gone.py") == 2
    assert memo.peek("plain") == "plain"


def test_a_volatile_entry_lives_for_one_call_and_leaves_the_others():
    memo = Memo()
    memo.uncovered = lambda paths: {path for path in paths if path.startswith("ignored/")}
    _entry(memo, "volatile", ["ignored/x.py"])
    _entry(memo, "kept", ["ignored.py"])
    assert memo.drop_volatile() == {"ignored/x.py"}
    assert memo.peek("volatile") is None and memo.peek("kept") == "kept"
    assert memo.forget({"ignored/x.py"}, False, _listed) == 0
    _entry(memo, "volatile", ["ignored/x.py"])  # again, and this time indexed by a change seen before it goes
    assert memo.forget({"other.py"}, False, _listed) == 0
    assert memo.drop_volatile() == {"ignored/x.py"}
    assert memo.forget({"ignored/x.py"}, False, _listed) == 0 and memo.peek("kept") == "kept"
