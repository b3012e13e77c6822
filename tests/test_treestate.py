"""The paths of a listing git does not vouch for (`treestate._unvouched`), found in git's raw index listing by
patterns: the same paths as parsing the index entry by entry, whatever modes and stages it holds."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from anchorcheck.repo.listing import index_entries
from anchorcheck.repo.treestate import _unvouched

_ENTRY = st.tuples(
    st.sampled_from(["100644", "100755", "120000", "160000"]),
    st.sampled_from(["0", "0", "0", "1", "2"]),
    st.sampled_from(["a", "b/c", "d 0\tx", "100644 e", "f\\g", "lib/linked"]),
)


@given(st.lists(_ENTRY, max_size=8), st.sets(st.sampled_from(["a", "b/c", "lib/linked", "gone"])), st.sets(st.sampled_from(["u", "v/w"])))
def test_the_unvouched_paths_are_those_parsing_the_index_gives(entries, modified, others) -> None:
    staged = "".join(f"{mode} {'5' * 40} {stage}\t{path}\0" for mode, stage, path in entries)
    modified_out = "".join(f"{path}\0" for path in sorted(modified))
    index, changed = index_entries(staged, modified_out)
    at_stage_0 = {path for _, stage, path in entries if stage == "0"}
    expected = {path for path in changed if path in (index or {})} | others
    if all(stage == "0" for _, stage, _ in entries):  # diff-files names only paths the index holds
        modified &= at_stage_0
        modified_out = "".join(f"{path}\0" for path in sorted(modified))
        index, changed = index_entries(staged, modified_out)
        expected = {path for path in changed if path in (index or {})} | others
    assert _unvouched(staged, modified_out, set(others)) == expected
