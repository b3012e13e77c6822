"""Banking span citations: the exact bytes of some lines of a file, read when a memory is written.

`bank` reads the lines of a checkout's file into a `Citation` (the record,
`anchorcheck.model.citation`); `split_lines` and `window` number lines as
`grep -n` does. The `span:` kind re-reads the file at recall time and decides
fresh / relocated / stale / unverifiable (see docs/citations.md).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import UTC, datetime

from anchorcheck.model.citation import Citation, sha256_of, whole_number
from anchorcheck.repo.checkout import Repository
from anchorcheck.repo.paths import UnsafePathError, check_relative
from anchorcheck.repo.safe_read import FileTooLargeError

CONTEXT_LINES = 5
"""Lines of context banked on each side of a span (fewer at the start or end of a file)."""
MAX_SPAN_LINES = 500
"""The longest span `bank` accepts: a citation points at a passage, not at a whole module."""
MAX_SPAN_BYTES = 64 * 1024
"""The largest span `bank` accepts in bytes, so a lock file stays reviewable."""

_BINARY_PEEK = 8000
class BankError(ValueError):
    """A span that cannot be banked: names the file (and lines) and says why.

    Raised by `bank` for empty or reversed ranges, ranges past the end of the
    file, refused or unreadable paths, binary or non-UTF-8 files, and spans
    over MAX_SPAN_LINES lines or MAX_SPAN_BYTES bytes.
    """

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        self.message = message
        super().__init__(f"{path}: {message}")


def split_lines(data: bytes) -> list[bytes]:
    """Lines as `grep -n` and editors number them: split after each LF, endings kept.

    A CR before the LF stays part of its line (so CRLF→LF is a byte change),
    and a last line without a newline is a line of its own.
    """
    lines = data.split(b"\n")
    tail = lines.pop()
    out = [line + b"\n" for line in lines]
    if tail:
        out.append(tail)
    return out


def window(data: bytes, start: int, end: int) -> bytes | None:
    """The raw bytes of lines `start`..`end` (1-based, inclusive) as `split_lines` numbers them,
    or None when the file has fewer lines; cheaper than splitting the whole file."""
    parts = data.split(b"\n", end)
    if len(parts) > end:  # line `end` is followed by a newline
        return b"\n".join(parts[start - 1 : end]) + b"\n"
    if len(parts) == end and parts[-1]:  # line `end` is the last line, without a newline
        return b"\n".join(parts[start - 1 : end])
    return None


def find_block(lines: Sequence[bytes], block: Sequence[bytes]) -> list[int]:
    """0-based starts of every line-aligned occurrence of `block` in `lines`."""
    n = len(block)
    if not n or n > len(lines):
        return []
    first, wanted = block[0], list(block)
    return [i for i in range(len(lines) - n + 1) if lines[i] == first and list(lines[i : i + n]) == wanted]


def count_copies(lines: Sequence[bytes], span: Sequence[bytes]) -> int:
    """How many times the span's lines occur, line-aligned, in a file's lines."""
    return len(find_block(lines, span))


def _encode(lines: Sequence[bytes]) -> tuple[str, ...]:
    return tuple(line.decode("utf-8") for line in lines)


def bank(
    root: str | os.PathLike[str] | Repository,
    path: str,
    start: int,
    end: int,
) -> Citation:
    """Bank lines `start`..`end` (1-based, inclusive) of `path`, as a memory store does at write time.

    Raises BankError (the path and the reason) for a range that is empty,
    reversed or past the end of the file, a refused, missing or unreadable
    path, a binary or non-UTF-8 file, and a span over the size caps.
    """
    repo = root if isinstance(root, Repository) else Repository(root)
    shown = path if isinstance(path, str) else repr(path)
    try:
        rel = check_relative(path)
    except UnsafePathError as exc:
        raise BankError(shown, f"refused: {exc.why}") from None
    if not (whole_number(start) and whole_number(end)):
        raise BankError(rel, f"line numbers must be whole numbers, got {start!r}-{end!r}")
    if start < 1:
        raise BankError(rel, f"lines are numbered from 1, got start line {start}")
    if end < start:
        raise BankError(rel, f"empty or reversed range: end line {end} is before start line {start}")
    if end - start + 1 > MAX_SPAN_LINES:
        raise BankError(rel, f"{end - start + 1} lines is over the {MAX_SPAN_LINES}-line cap for a span")
    data = _read(repo, rel)
    lines = split_lines(data)
    if end > len(lines):
        raise BankError(rel, f"lines {start}-{end} are past the end of the file ({len(lines)} lines)")
    span = lines[start - 1 : end]
    size = sum(len(line) for line in span)
    if size > MAX_SPAN_BYTES:
        raise BankError(rel, f"lines {start}-{end} are {size} bytes, over the {MAX_SPAN_BYTES}-byte cap for a span")
    return Citation(
        path=rel,
        start_line=start,
        end_line=end,
        sha256=sha256_of(span),
        lines=_encode(span),
        context_before=_encode(lines[max(0, start - 1 - CONTEXT_LINES) : start - 1]),
        context_after=_encode(lines[end : end + CONTEXT_LINES]),
        copies=count_copies(lines, span),
        identity=repo.identity,
        head=repo.head,
        origin=repo.origin,
        banked_at=datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z"),
    )


def _read(repo: Repository, rel: str) -> bytes:
    try:
        if not repo.is_file(rel):
            raise BankError(rel, "no such file in the repository")
        data = repo.read_bytes(rel)
    except UnsafePathError as exc:
        raise BankError(rel, f"refused: {exc.why}") from None
    except FileTooLargeError as exc:
        raise BankError(rel, f"file is {exc.size} bytes, over the {exc.cap}-byte cap") from None
    except OSError as exc:
        raise BankError(rel, f"cannot read: {exc.strerror or exc}") from None
    if b"\x00" in data[:_BINARY_PEEK]:
        raise BankError(rel, "binary file (a NUL byte near the start); only text can be cited")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise BankError(rel, f"line {line} is not valid UTF-8; only UTF-8 text can be cited") from None
    return data
