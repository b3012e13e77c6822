"""The parsed structure of each Markdown memory file, kept in the facts cache by its text.

A check after an edit of a code file reads CLAUDE.md unchanged, and parsing it was a sixth of that
check: markdown-it's import alone is about 104 M instructions (60 modules, logging among them) of a
run's 620 M. `read_document` is a function of the text and the code that reads it, so its answer
is stored under the text's SHA-256, anchorcheck's code signature and the installed distributions
(markdown-it's version among them), and read back the next time the same bytes are read: the
parser is then not imported at all. Nothing else is read from the store: the format reader, the
references and every verdict are worked out from the Document as if it had just been parsed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from anchorcheck.base import digests
from anchorcheck.base.codesig import code_signature, fingerprint
from anchorcheck.evidence.cache import FactsCache
from anchorcheck.memory import commonmark
from anchorcheck.memory.codespans import CodeSpan
from anchorcheck.memory.commonmark import Block, Definition, Document, Line

_CACHE_KEY = "markdown-document-v1"


class Documents:
    """The store of one run: `recall(text)` before a Markdown file is read, `keep(text)` after."""

    def __init__(self, open_cache: Callable[[], FactsCache | None]) -> None:
        self._open = open_cache
        self._cache: FactsCache | None | bool = False  # False: not opened yet
        self._code: str | None = None

    def recall(self, text: str) -> None:
        """Hold the stored Document of `text`, if there is one, for `commonmark.read_document`."""
        cache = self.cache
        if cache is None:
            return
        key = self._key(text)
        value = cache.get_many([key]).get(key)
        if value is not None:
            try:
                commonmark.remember(text, decode(value))
            except (KeyError, TypeError, ValueError):  # another shape: parsed again, and stored anew
                return

    def keep(self, text: str) -> None:
        """Store the Document this run parsed for `text` (none when it was recalled or not Markdown)."""
        document = commonmark.parsed(text)
        cache = self.cache if document is not None else None
        if cache is not None and document is not None:
            cache.put(self._key(text), encode(document))
            cache.flush()

    @property
    def cache(self) -> FactsCache | None:
        if self._cache is False:
            self._cache = self._open()
        return self._cache  # type: ignore[return-value]

    def _key(self, text: str) -> str:
        if self._code is None:
            self._code = digests.sha1("\0".join([code_signature((), ()), *fingerprint()]).encode("utf-8", "surrogateescape")).hexdigest()
        return f"{_CACHE_KEY}:{self._code}:{digests.sha256(text.encode('utf-8', 'surrogatepass')).hexdigest()}"


def encode(document: Document) -> dict[str, Any]:
    """A Document as JSON-safe lists."""
    return {
        "blocks": [[b.kind, b.start, b.end, b.info, b.depth, b.item, [_line(line) for line in b.lines]] for b in document.blocks],
        "memories": [[_line(line) for line in unit] for unit in document.memories],
        "definitions": [list(d) for d in document.definitions],
    }


def decode(value: dict[str, Any]) -> Document:
    """The Document `encode` wrote (ValueError, KeyError or TypeError for another shape)."""
    blocks = tuple(
        Block(str(kind), int(start), int(end), str(info), int(depth), bool(item), tuple(_read_line(line) for line in lines))
        for kind, start, end, info, depth, item, lines in value["blocks"]
    )
    memories = tuple(tuple(_read_line(line) for line in unit) for unit in value["memories"])
    definitions = tuple(Definition(int(line), int(column), str(destination)) for line, column, destination in value["definitions"])
    return Document(blocks, memories, definitions)


def _line(line: Line) -> list[Any]:
    return [line.number, line.text, [[span.text, [list(pair) for pair in span.bounds]] for span in line.spans]]


def _read_line(value: list[Any]) -> Line:
    number, text, spans = value
    return Line(int(number), str(text), tuple(CodeSpan(str(t), _bounds(bounds)) for t, bounds in spans))


def _bounds(value: list[list[int]]) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int]]:
    whole, ticks, content = ((int(a), int(b)) for a, b in value)
    return whole, ticks, content
