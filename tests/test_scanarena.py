"""The scan arena answers exactly as `needle in data` per file: over files laid end to end, a match that
straddles two files is none, a dropped file answers nothing, and files added after a scan are found."""

from __future__ import annotations

import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anchorcheck.evidence import scanarena
from anchorcheck.evidence.scanarena import ScanArena

_ALPHABET = b"ab\0"  # a few bytes, so that needles often match, straddle file ends or sit in dropped files


def _order(path: str, data: bytes) -> tuple[int, str]:
    return len(data), path  # as the index lays files out: by size (a different order from the listing's)


@pytest.fixture(params=["memmem", "bytes.find"])
def finder(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both searches the arena may use: the C library's (where ctypes finds it) and CPython's."""
    memmem = scanarena._load_memmem() if request.param == "memmem" else None
    if request.param == "memmem" and memmem is None:
        assert not sys.platform.startswith("linux"), "the C library's memmem did not load"
        pytest.skip("no memmem in this C library")
    monkeypatch.setattr(scanarena, "_MEMMEM", [memmem])
    return str(request.param)


files_st = st.dictionaries(st.sampled_from([f"f{i}.py" for i in range(12)]), st.binary(max_size=12).map(lambda b: bytes(_ALPHABET[x % 3] for x in b)), max_size=12)
needle_st = st.binary(min_size=1, max_size=4).map(lambda b: bytes(_ALPHABET[x % 3] for x in b))


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])  # the fixture only picks the search
@given(first=files_st, later=files_st, dropped=st.lists(st.sampled_from([f"f{i}.py" for i in range(12)])), needles=st.lists(needle_st, min_size=1, max_size=4), data=st.data())
def test_arena_answers_as_each_file_would(finder: str, first: dict[str, bytes], later: dict[str, bytes], dropped: list[str], needles: list[bytes], data: st.DataObject) -> None:
    arena = ScanArena(_order)
    held: dict[str, bytes] = {}
    for path, content in first.items():
        arena.add(path, content)
        held[path] = content
    for needle in needles:  # lays out the first batch
        assert arena.holding(needle, list(held)) == {path for path, content in held.items() if needle in content}
    arena.drop(dropped)
    for path in dropped:
        held.pop(path, None)
    for path, content in later.items():  # a changed file comes back with new bytes, in a chunk of its own
        if path not in held:
            arena.add(path, content)
            held[path] = content
    assert arena.size == sum(map(len, held.values()))
    asked = data.draw(st.lists(st.sampled_from(sorted(held)), unique=True)) if held else []
    for needle in needles:
        assert arena.holding(needle, asked) == {path for path in asked if needle in held[path]}


def test_a_match_across_two_files_is_none(finder: str) -> None:
    arena = ScanArena(_order)
    arena.add("a.py", b"import cont")
    arena.add("b.py", b"extlib\n")  # laid out right after a.py (its size orders it)
    assert arena.holding(b"contextlib", ["a.py", "b.py"]) == set()
    assert arena.holding(b"lib", ["a.py", "b.py"]) == {"b.py"}


def test_many_edits_keep_the_arena_exact_and_bounded(finder: str) -> None:
    """A long-lived index drops and adds a file at each edit: small chunks are laid out again as one."""
    arena = ScanArena(_order)
    for i in range(20):
        arena.add(f"f{i}.py", b"x" * 100 + b"needle" * (i % 2))
    arena.holding(b"needle", [f"f{i}.py" for i in range(20)])
    for edit in range(30):
        path = f"f{edit % 20}.py"
        arena.drop([path])
        arena.add(path, b"y" * 50 + b"needle" * (edit % 3 == 0))
        assert len(arena._chunks) <= scanarena._MAX_CHUNKS
        arena.holding(b"needle", [path])
    holds = {f"f{edit % 20}.py": edit % 3 == 0 for edit in range(30)}  # every file was edited, the last edit counts
    assert arena.holding(b"needle", [f"f{i}.py" for i in range(20)]) == {path for path, held in holds.items() if held}
    assert sum(len(chunk.data) - chunk.dead for chunk in arena._chunks) + sum(map(len, arena._pending.values())) == arena.size


def test_edits_lay_out_again_only_the_small_chunks(finder: str) -> None:
    """The tree as first read stays where it is while edits come and go: only their chunks are laid out again."""
    arena = ScanArena(_order)
    for i in range(100):
        arena.add(f"f{i}.py", b"x" * 1000 + b"needle" * (i == 7))
    assert arena.holding(b"needle", [f"f{i}.py" for i in range(100)]) == {"f7.py"}
    first = arena._chunks[0]
    for edit in range(3 * scanarena._MAX_CHUNKS):
        path = f"f{50 + edit}.py"
        arena.drop([path])
        arena.add(path, b"needle " + path.encode())
        assert arena.holding(b"needle", [path, "f7.py"]) == {path, "f7.py"}
        assert first in arena._chunks and len(arena._chunks) <= scanarena._MAX_CHUNKS
    assert arena.holding(b"needle", [f"f{i}.py" for i in range(100)]) == {"f7.py"} | {f"f{50 + e}.py" for e in range(3 * scanarena._MAX_CHUNKS)}
