"""Re-banking a span where its content went, never blessing whatever now sits at the old lines.

A memory says "the timeout is 30 s" and cites line 2. Someone adds a
docstring above and changes the value to 10: the span is stale, and line 2
now holds `import os`. Fingerprinting line 2 again would make the next check
VERIFIED for a claim that is now false, twice over (wrong lines, changed
value). So a span is followed to where its content is now (the region the
stale diff shows: between its banked context, or aligned with it), and when
that content changed the new fingerprint is refused unless the caller
accepts it after seeing both texts (`SpanChanged` carries them). A span that
moved intact is simply banked at its new lines: nothing it says changed.

The CLI (`anchorcheck rebank --accept`), the citation stores and the MCP
server all go through `rebank`, so the rule is the same everywhere.
"""

from __future__ import annotations

import os

from anchorcheck.model.citation import Citation
from anchorcheck.model.results import AnchorResult
from anchorcheck.spans.citation import BankError, bank
from anchorcheck.verify.verifier import Verifier


class SpanChanged(BankError):
    """The cited lines changed since they were banked: the memory built on them may now be false.

    `banked` is the record as stored, `current` the span banked where its
    content is now (what accepting would store), `result` the stale check
    (its `details["diff"]` is the unified diff of the two).
    """

    def __init__(self, banked: Citation, current: Citation, result: AnchorResult) -> None:
        self.banked, self.current, self.result = banked, current, result
        super().__init__(
            banked.path,
            f"the cited lines changed since they were banked ({lines_of(banked)} now stand at {lines_of(current)} and read "
            "differently): the memory may now be false; re-read it, and re-bank with accept=True only if it still holds",
        )


def rebank(root: str | os.PathLike[str] | Verifier, citation: Citation, *, accept: bool = False) -> Citation:
    """The citation banked again where its content is now.

    Fresh: returned as it is. Moved intact: banked at its new path and lines.
    Changed: `SpanChanged` unless `accept` (the caller has seen both texts
    and vouches that the memory still holds), then banked where the content
    went. BankError when there is nothing to follow: the file and the lines
    are gone, or the record cannot be checked here (another repository, a
    malformed record); its message says why.
    """
    verifier = root if isinstance(root, Verifier) else Verifier(root)
    result = verifier.check(citation)
    if result.state == "fresh":
        return citation
    if result.state == "relocated":
        moved = result.details
        return _bank(verifier, str(moved["path"]), _line(moved["start_line"]), _line(moved["end_line"]))
    if result.state != "stale":
        raise BankError(citation.path, f"cannot re-bank: {result.reason}")
    where = result.details.get("current_lines")
    if not isinstance(where, list) or not where:
        raise BankError(citation.path, f"cannot re-bank: {result.reason}; nothing stands where the lines were: bank the lines the memory is about now")
    current = _bank(verifier, citation.path, _line(where[0]), _line(where[-1]))
    if not accept:
        raise SpanChanged(citation, current, result)
    return current


def lines_of(citation: Citation) -> str:
    """`src/app.py line 2` or `src/app.py lines 3-5`, as a person reads it."""
    if citation.start_line == citation.end_line:
        return f"{citation.path} line {citation.start_line}"
    return f"{citation.path} lines {citation.start_line}-{citation.end_line}"


def _line(value: object) -> int:
    """A line number the span kind put in a result's details (always an int there)."""
    if not isinstance(value, int):
        raise TypeError(f"expected a line number, got {value!r}")
    return value


def _bank(verifier: Verifier, path: str, start: int, end: int) -> Citation:
    try:
        return bank(verifier.repo, path, start, end)
    except BankError as exc:
        raise BankError(exc.path, f"cannot re-bank: {exc.message}") from None
