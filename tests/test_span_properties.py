"""Property tests over generated files and edits: the fingerprint and relocation rules hold."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from anchorcheck.model.citation import Citation, sha256_of
from anchorcheck.spans.citation import CONTEXT_LINES, count_copies, split_lines, window
from anchorcheck.spans.spanlocate import locate

LINE = st.text(alphabet="ab \t\r", max_size=4).map(lambda s: s + "\n")
FILE = st.lists(LINE, min_size=1, max_size=30)


def citation_for(lines: list[str], start: int, end: int) -> Citation:
    """What `bank` records, built in memory so hypothesis can run thousands of cases fast."""
    raw = [line.encode() for line in lines]
    span = raw[start - 1 : end]
    return Citation(
        path="f.txt",
        start_line=start,
        end_line=end,
        sha256=sha256_of(span),
        lines=tuple(lines[start - 1 : end]),
        context_before=tuple(lines[max(0, start - 1 - CONTEXT_LINES) : start - 1]),
        context_after=tuple(lines[end : end + CONTEXT_LINES]),
        copies=count_copies(raw, span),
    )


@st.composite
def file_and_span(draw: st.DrawFn) -> tuple[list[str], int, int]:
    lines = draw(FILE)
    start = draw(st.integers(1, len(lines)))
    end = draw(st.integers(start, min(len(lines), start + 5)))
    return lines, start, end


def current(text: bytes) -> list[bytes]:
    return split_lines(text)


@settings(max_examples=400)
@given(file_and_span(), st.data())
def test_changing_any_byte_inside_the_span_is_never_fresh(case: tuple[list[str], int, int], data: st.DataObject) -> None:
    lines, start, end = case
    c = citation_for(lines, start, end)
    text = "".join(lines).encode()
    offset = len("".join(lines[: start - 1]).encode())
    length = len("".join(lines[start - 1 : end]).encode())
    at = offset + data.draw(st.integers(0, length - 1))
    replacement = data.draw(st.sampled_from(b"ab \t\r\nx").filter(lambda b: b != text[at]))
    edited = text[:at] + bytes([replacement]) + text[at + 1 :]
    assert locate(c, current(edited)).state != "fresh"


@settings(max_examples=400)
@given(file_and_span(), st.lists(LINE, min_size=1, max_size=8), st.data())
def test_a_move_with_intact_context_relocates_to_exactly_the_right_lines(
    case: tuple[list[str], int, int], inserted: list[str], data: st.DataObject
) -> None:
    lines, start, end = case
    c = citation_for(lines, start, end)
    # insert lines above the banked context, so the span and both contexts move together
    block_start = start - 1 - len(c.context_before)
    at = data.draw(st.integers(0, block_start))
    if len(c.context_before) < CONTEXT_LINES:
        inserted = []  # a file-start span may sit only at the start: nothing can be inserted above it
    moved = lines[:at] + inserted + lines[at:]
    found = locate(c, current("".join(moved).encode()))
    expected = start + len(inserted)
    raw = [s.encode() for s in moved]
    if found.state == "fresh":  # the exact window is tried first: it may hold the same bytes still
        assert raw[start - 1 : end] == [s.encode() for s in c.lines]
        return
    assert found.state == "relocated"
    block = [s.encode() for s in (*c.context_before, *c.lines, *c.context_after)]
    if count_copies(raw, block) == 1:
        assert (found.start, found.end) == (expected, expected + (end - start))
    else:  # identical blocks: whichever is taken holds the bytes and the context
        i = found.start - 1
        assert raw[i - len(c.context_before) : i + len(c.lines) + len(c.context_after)] == block


@settings(max_examples=400)
@given(file_and_span(), st.lists(LINE, max_size=6), st.data())
def test_edits_outside_the_span_and_its_context_keep_it_fresh(
    case: tuple[list[str], int, int], appended: list[str], data: st.DataObject
) -> None:
    lines, start, end = case
    c = citation_for(lines, start, end)
    after_context = end + len(c.context_after)
    tail_edit = data.draw(st.integers(after_context, len(lines)))
    edited = lines[:tail_edit] + appended + lines[tail_edit + data.draw(st.integers(0, 2)) :]
    before_context = start - 1 - len(c.context_before)
    if before_context > 0:  # a same-length, newline-free edit above the context
        i = data.draw(st.integers(0, before_context - 1))
        edited[i] = edited[i].replace("a", "b").replace(" ", "\t") if edited[i].strip("\n") else "x\n"
    assert locate(c, current("".join(edited).encode())).state == "fresh"


@settings(max_examples=300)
@given(st.lists(st.sampled_from(["a\n", "\n", "b\r\n", "c"]), max_size=12).map("".join), st.integers(1, 14), st.integers(0, 3))
def test_window_agrees_with_splitting_the_whole_file(text: str, start: int, extra: int) -> None:
    data = text.encode()
    lines = split_lines(data)
    end = start + extra
    expected = b"".join(lines[start - 1 : end]) if end <= len(lines) else None
    assert window(data, start, end) == expected
