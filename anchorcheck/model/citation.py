"""A span citation as a record: where some lines of a file were, their fingerprint, lines and context.

A `Citation` records where the lines were (repo-relative path, 1-based
inclusive lines), the sha256 of their exact raw bytes (line endings
included, no normalization), the lines themselves and up to five lines of
context on each side, how many identical copies of the span the file held,
and which repository and revision they were read from. Banking one
(`anchorcheck.spans.citation.bank`) reads the checkout; the record itself is
vocabulary, read and written without one (a memory's `from_dict`).

Stored records are untrusted input (hand-edited, older, or from another
tool), so `Citation.from_dict` never raises on a mapping: whatever it cannot
accept is kept and reported by `Citation.problem()`, and verification
answers INCONCLUSIVE instead of crashing. jcode's `SourceCitation` JSON
(0-based, end-exclusive lines) is recognised and converted.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from anchorcheck.base.gitnames import is_object_id, strip_credentials
from anchorcheck.model.anchors import Anchor, encode_path

if TYPE_CHECKING:
    from typing import Self

MAX_LINE_NUMBER = 10_000_000
"""Line numbers past this are treated as malformed rather than looked up."""
_FIELDS = (
    "path",
    "start_line",
    "end_line",
    "sha256",
    "lines",
    "context_before",
    "context_after",
    "copies",
    "identity",
    "head",
    "origin",
    "banked_at",
)


def sha256_of(lines: Sequence[bytes]) -> str:
    """The fingerprint of a span: sha256 over the exact concatenated bytes."""
    return hashlib.sha256(b"".join(lines)).hexdigest()


@dataclass(frozen=True)
class Citation:
    """A banked span: `path` lines `start_line`..`end_line` (1-based, inclusive) and their fingerprint.

    Only `path`, `start_line` and `end_line` are required; a record without
    `sha256` but with `lines` is fingerprinted from them. `lines`,
    `context_before` and `context_after` hold text lines with their line
    endings; `copies` is how many identical copies of the span the file held
    when banked (1 = unique, which relaxes the relocation context rule).
    `identity` is `git:<root commit>` or `path:<root>`, `head` the commit it
    was banked at, `origin` the remote URL without credentials.
    """

    path: str
    start_line: int
    end_line: int
    sha256: str | None = None
    lines: tuple[str, ...] | None = None
    context_before: tuple[str, ...] | None = None
    context_after: tuple[str, ...] | None = None
    copies: int | None = None
    identity: str | None = None
    head: str | None = None
    origin: str | None = None
    banked_at: str | None = None

    # -- serialization -------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """JSON- and TOML-safe dict in the lock file's field order; unknown fields are left out."""
        data: dict[str, Any] = {}
        for name in _FIELDS:
            value = getattr(self, name)
            if value is None:
                continue
            data[name] = list(value) if isinstance(value, tuple) else value
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        """Load a stored record leniently; jcode `SourceCitation` records are converted.

        Never raises for a mapping: wrong types are kept as they are and
        reported by `problem()`, so one bad record costs one INCONCLUSIVE
        anchor, not the load of a whole memory file.
        """
        if not isinstance(data, Mapping):
            raise TypeError(f"a citation record must be a table/object, got {type(data).__name__}")
        if "span_hash" in data and "sha256" not in data:
            return cls.from_jcode(data)
        values = {name: _plain(data.get(name)) for name in _FIELDS}
        for name in ("lines", "context_before", "context_after"):
            if isinstance(values[name], list):
                values[name] = tuple(values[name])
        if values["sha256"] is None and _is_text_lines(values["lines"]):
            values["sha256"] = sha256_of([line.encode("utf-8") for line in values["lines"]])
        if isinstance(values["sha256"], str):
            values["sha256"] = values["sha256"].strip().lower()
        if isinstance(values["origin"], str):
            values["origin"] = strip_credentials(values["origin"])
        return cls(**values)

    @classmethod
    def from_jcode(cls, data: Mapping[str, Any]) -> Self:
        """Convert jcode's `SourceCitation` (0-based start, exclusive end, `\\n`-joined text).

        jcode stores the span text joined with LF, which loses the exact line
        endings; the lines are rebuilt with LF, CRLF or no final newline,
        whichever reproduces `span_hash`. When none does, only the hash is
        kept (the span still verifies in place and relocates by hash).
        """
        start, end = data.get("start_line"), data.get("end_line")
        if whole_number(start) and whole_number(end):
            start, end = start + 1, end  # 0-based [start, end) -> 1-based [start, end]
        sha = _plain(data.get("span_hash"))
        sha = sha.strip().lower() if isinstance(sha, str) else sha
        lines, ending = _rebuild_lines(data.get("span_text"), sha)
        return cls(
            path=_plain(data.get("path")),
            start_line=start,
            end_line=end,
            sha256=sha,
            lines=lines,
            context_before=_split_text(data.get("context_before"), ending) if lines is not None else None,
            context_after=_split_text(data.get("context_after"), ending) if lines is not None else None,
            identity=_plain(data.get("repo_id")) or None,
            head=_plain(data.get("git_head")),
            origin=strip_credentials(data["origin"]) if isinstance(data.get("origin"), str) else None,
        )

    # -- validity --------------------------------------------------------------

    def problem(self) -> str | None:
        """Why this record cannot be verified as it stands, or None when it is well-formed."""
        if not isinstance(self.path, str) or not self.path:
            return f"'path' must be a repo-relative path string, got {self.path!r}"
        for name in ("start_line", "end_line"):
            value = getattr(self, name)
            if not whole_number(value):
                return f"'{name}' must be a whole number, got {value!r}"
            if not 1 <= value <= MAX_LINE_NUMBER:
                return f"'{name}' = {value} is outside 1..{MAX_LINE_NUMBER}"
        if self.end_line < self.start_line:
            return f"end_line {self.end_line} is before start_line {self.start_line}"
        if not isinstance(self.sha256, str) or len(self.sha256) != 64:
            return "no sha256 fingerprint of the span (64 hex digits) and no banked lines to compute one"
        try:
            int(self.sha256, 16)
        except ValueError:
            return f"'sha256' is not hexadecimal: {self.sha256!r}"
        for name in ("lines", "context_before", "context_after"):
            value = getattr(self, name)
            if value is not None and not _is_text_lines(value):
                return f"'{name}' must be a list of strings"
        if self.lines is not None and len(self.lines) != self.line_count:
            return f"{len(self.lines)} banked lines for a {self.line_count}-line span"
        if self.copies is not None and (not whole_number(self.copies) or self.copies < 0):
            return f"'copies' must be a whole number, got {self.copies!r}"
        if self.head is not None and not is_object_id(self.head, abbreviated=True):
            return f"'head' must be a commit id (hex digits), got {str(self.head)[:80]!r}"
        return None

    @property
    def line_count(self) -> int:
        return self.end_line - self.start_line + 1

    def banked_bytes(self) -> list[bytes] | None:
        """The banked lines as bytes, when the record carries them."""
        return None if self.lines is None else [line.encode("utf-8") for line in self.lines]

    # -- as an anchor -----------------------------------------------------------

    def anchor_value(self) -> str:
        """`PATH#Lstart-Lend` (`#Ln` for one line), the value of the `span:` anchor."""
        path = encode_path(self.path) if isinstance(self.path, str) else str(self.path)
        if self.start_line == self.end_line:
            return f"{path}#L{self.start_line}"
        return f"{path}#L{self.start_line}-L{self.end_line}"

    def anchor_text(self) -> str:
        return f"span:{self.anchor_value()}"

    def as_anchor(self) -> Anchor:
        """The `span:` anchor carrying this citation, so `Verifier.check(citation)` works."""
        return Anchor("span", self.anchor_value(), detail=self)

    def __str__(self) -> str:
        return self.anchor_text()


def whole_number(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_text_lines(value: object) -> bool:
    return isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)


def _plain(value: Any) -> Any:
    """TOML readers hand back datetimes and tomlkit items; keep plain JSON-like values."""
    if isinstance(value, (datetime, date)):
        text = value.isoformat()
        return text.replace("+00:00", "Z")
    unwrap = getattr(value, "unwrap", None)
    if callable(unwrap):
        return _plain(unwrap())
    return value


def _rebuild_lines(text: object, sha: object) -> tuple[tuple[str, ...] | None, str]:
    if not isinstance(text, str) or not isinstance(sha, str):
        return None, "\n"
    parts = text.split("\n")
    for ending, final in (("\n", True), ("\r\n", True), ("\n", False), ("\r\n", False)):
        rebuilt = [p + ending for p in parts]
        if not final:
            rebuilt[-1] = parts[-1]
        if sha256_of([line.encode("utf-8") for line in rebuilt]) == sha:
            return tuple(rebuilt), ending
    return None, "\n"


def _split_text(text: object, ending: str) -> tuple[str, ...] | None:
    if not isinstance(text, str):
        return None
    if not text:
        return ()
    return tuple(part + ending for part in text.split("\n"))
