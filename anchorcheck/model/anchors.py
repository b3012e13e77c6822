"""The anchor grammar: `[!]kind:value[ in:SCOPE]`, parsed and formatted so that they round-trip.

The surface form is fixed by the design; what a value means belongs to the
kind, so the kind's own parser (registered by its plugin) validates the value
and reports errors at the right column. See docs/anchors.md.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote

from anchorcheck.base.bounded import brief
from anchorcheck.base.globs import gitignore

if TYPE_CHECKING:
    from anchorcheck.model.registry import AnchorKind

_KIND = re.compile(r"[a-z][a-z0-9_-]*")
_SCOPE_KEYWORD = "in:"
_SURROGATE = re.compile("[\ud800-\udfff]")


class AnchorSyntaxError(ValueError):
    """A malformed anchor: names the 1-based column and what was expected there."""

    def __init__(self, message: str, text: str = "", column: int = 1) -> None:
        self.message = message
        self.text = text
        self.column = column
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.text:
            return f"invalid anchor {brief(self.text)}: column {self.column}: {self.message}"
        return f"column {self.column}: {self.message}"


@dataclass(frozen=True)
class Anchor:
    """A typed claim about the code. `value` is kept as written so formatting is lossless.

    `detail` is the kind's parsed form of the value (a purl, a span range...),
    filled by the kind's parser and ignored by equality.
    """

    kind: str
    value: str
    negated: bool = False
    scope: str | None = None
    detail: Any = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        return format_anchor(self)

    def positive(self) -> Anchor:
        """The same claim without negation, which is what a verifier checks."""
        return Anchor(self.kind, self.value, False, self.scope, self.detail)


ValueParser = Callable[[str], Any]


def encode_path(path: str) -> str:
    """Percent-encode what the grammar cannot carry in a path (whitespace and `%`)."""
    return quote(path, safe="/:@!$&'()*+,;=[]{}#?~^|<>\"`\\", errors="surrogateescape")


def decode_path(path: str) -> str:
    """Undo `encode_path`: `docs/my%20notes.md` is the file `docs/my notes.md`. Escapes that are not
    UTF-8 (`bad%FF.py`) decode as the operating system spells such a name (surrogateescape), not U+FFFD."""
    return unquote(path, errors="surrogateescape")


def parse_anchor(text: str, kinds: Mapping[str, AnchorKind]) -> Anchor:
    """Parse one anchor against the known kinds (`anchorcheck.parse_anchor` passes those the loaded
    plugins registered).

    Raises AnchorSyntaxError naming the column and what was expected.
    """
    if not isinstance(text, str):
        raise AnchorSyntaxError(f"expected an anchor string, got {type(text).__name__}")
    if "\x00" in text or "\n" in text:
        bad = min(i for i in (text.find("\x00"), text.find("\n")) if i >= 0)
        raise AnchorSyntaxError("anchors are one line without NUL bytes", text, bad + 1)
    surrogate = _SURROGATE.search(text)
    if surrogate:  # a JSON `\ud800` decodes to one; nothing can encode it (write a non-UTF-8 byte as %FF)
        raise AnchorSyntaxError("a lone surrogate is not text (write a byte that is not UTF-8 as %XX)", text, surrogate.start() + 1)
    pos = len(text) - len(text.lstrip())
    if pos == len(text):
        raise AnchorSyntaxError("expected an anchor such as 'pkg:pypi/redis', got nothing", text, 1)
    negated = text.startswith("!", pos)
    if negated:
        pos += 1
    kind_match = _KIND.match(text, pos)
    if not kind_match or not text.startswith(":", kind_match.end()):
        raise AnchorSyntaxError(
            "expected an anchor kind followed by ':' (for example 'pkg:', 'file:')", text, pos + 1
        )
    kind = kind_match.group()
    spec = kinds.get(kind)  # a kind a plugin declared is imported here, on its first anchor
    if spec is None:
        known = ", ".join(sorted(kinds)) or "none loaded"
        raise AnchorSyntaxError(f"unknown anchor kind {kind!r} (known kinds: {known})", text, pos + 1)
    value_start = kind_match.end() + 1
    if spec.spaced:
        value_start, value_end = _spaced_value(text, value_start, spec.scoped)
    else:
        value_end = _token_end(text, value_start)
    value = text[value_start:value_end]
    if not value:
        raise AnchorSyntaxError(f"expected a value after '{kind}:'", text, value_start + 1)
    scope, end = _parse_scope(text, value_end)
    if scope is not None and not spec.scoped:
        raise AnchorSyntaxError(f"'{kind}:' anchors do not take an 'in:' scope", text, value_end + 2)
    trailing = text[end:]
    if trailing.strip():
        column = end + len(trailing) - len(trailing.lstrip()) + 1
        raise AnchorSyntaxError("expected the end of the anchor (one ' in:PATH' scope at most)", text, column)
    detail = _parse_value(spec.parse, value, text, value_start)
    return Anchor(kind, value, negated, scope, detail)


def _spaced_value(text: str, start: int, scoped: bool) -> tuple[int, int]:
    """Where a value with spaces (`cmd:cd web && pnpm test`) starts and ends: it runs to the end of
    the anchor, or to a trailing ` in:SCOPE` for a scoped kind."""
    while start < len(text) and text[start].isspace():
        start += 1
    end = len(text.rstrip())
    if scoped:
        last = text.rfind(" ", start, end)
        if last > start and text.startswith(_SCOPE_KEYWORD, last + 1):
            end = len(text[:last].rstrip())
    return start, end


def _token_end(text: str, start: int) -> int:
    end = start
    while end < len(text) and not text[end].isspace():
        end += 1
    return end


def _parse_scope(text: str, pos: int) -> tuple[str | None, int]:
    rest = text[pos:]
    stripped = rest.lstrip()
    if not stripped:
        return None, len(text)
    start = pos + (len(rest) - len(stripped))
    if not stripped.startswith(_SCOPE_KEYWORD):
        raise AnchorSyntaxError("expected ' in:PATH' or the end of the anchor", text, start + 1)
    scope_start = start + len(_SCOPE_KEYWORD)
    scope_end = _token_end(text, scope_start)
    scope = text[scope_start:scope_end]
    if not scope:
        raise AnchorSyntaxError("expected a path, directory or glob after 'in:'", text, scope_start + 1)
    if set("*?[") & set(scope):
        try:
            gitignore([decode_path(scope)])
        except (ValueError, re.error) as exc:  # `[z-a]`: caught here, not by every plugin that lists the scope
            raise AnchorSyntaxError(f"invalid glob: {str(exc).splitlines()[0][:120]}", text, scope_start + 1) from None
    return decode_path(scope), scope_end


def _parse_value(parser: ValueParser | None, value: str, text: str, value_start: int) -> Any:
    if parser is None:
        return None
    try:
        return parser(value)
    except AnchorSyntaxError as exc:
        raise AnchorSyntaxError(exc.message, text, value_start + exc.column) from None


def format_anchor(anchor: Anchor) -> str:
    """The canonical text of an anchor; `parse_anchor(format_anchor(a)) == a`."""
    text = f"{'!' if anchor.negated else ''}{anchor.kind}:{anchor.value}"
    if anchor.scope is not None:
        text += f" {_SCOPE_KEYWORD}{encode_path(anchor.scope)}"
    return text


def anchor_text(anchor: Any) -> str:
    """The printable form of anything a memory may hold as an anchor."""
    if isinstance(anchor, Anchor):
        return format_anchor(anchor)
    if isinstance(anchor, str):
        return anchor.strip()
    as_anchor = getattr(anchor, "anchor_text", None)
    if callable(as_anchor):
        return str(as_anchor())
    return repr(anchor)
