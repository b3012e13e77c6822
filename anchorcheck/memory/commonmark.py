"""Markdown read as CommonMark (markdown-it-py): which lines are prose, headings, code, HTML, and which are memories.

A line-by-line regex reader gets Markdown's structure wrong where it matters
to a checker: it read backticks inside an indented code block as code spans,
took a setext heading (`Title` over `=====`) for a memory, and ended an HTML
comment at the first line holding `-->` in any position. Here the document is
parsed once by a CommonMark parser (GFM tables enabled, as GitHub renders
agents' files) and every reader of Markdown -- the Markdown memory format,
implicit references, write-back -- asks the same `Document`.

Positions stay exact: markdown-it gives each block its lines (`token.map`),
and a code span's column comes from the raw line (`code_spans`), kept only
when the parser also read a code span with that content there (an escaped
backtick, or backticks inside an HTML comment or an autolink, make none).
Front matter is blanked before parsing, so line numbers hold.

markdown-it is imported on the first parse, not with this module: a check answered
by a stored report, or one whose memory files are all of other formats, never loads
its sixty modules. A text past MARKDOWN_CAP is not parsed at all (`MarkdownTooLarge`):
the parse costs about a second per MiB, and the largest instruction file of the
corpora is 81 KB, so a larger one is data, not instructions, and its reader says so.
"""

from __future__ import annotations

import bisect
import functools
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from anchorcheck.base.lazyregex import later
from anchorcheck.memory.codespans import CodeSpan, code_spans

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

# Past this many characters a text is not parsed: about a second of work per MiB (16 MB took 6 s), where
# the largest real instruction file read so far is 81 KB and hostile tables of 440 KB still parse.
MARKDOWN_CAP = 1024 * 1024
_PROSE = frozenset({"paragraph", "table"})
_DEFINITION = later(r"^ {0,3}\[((?:[^\[\]\\]|\\.){1,999})\]:[ \t]*<?([^\s<>]+)")


class Line(NamedTuple):
    """One raw line of a prose block: its 1-based number, its text, and its CommonMark code spans."""

    number: int
    text: str
    spans: tuple[CodeSpan, ...]


class Block(NamedTuple):
    """One leaf block of the document, in order.

    `kind` is `paragraph`, `table`, `heading`, `fence`, `code` (indented code),
    `html` or `hr`; `start` and `end` are its first and last 1-based lines;
    `info` a fence's language (first word of its info string, lowercased), a heading's level (`"2"`);
    `depth` how many list items enclose it, and `item` whether it is the first
    block of its list item (the line with the bullet); `lines` hold a prose
    block's (paragraph, table, heading) lines with their code spans.
    """

    kind: str
    start: int
    end: int
    info: str = ""
    depth: int = 0
    item: bool = False
    lines: tuple[Line, ...] = ()


class Definition(NamedTuple):
    """A link reference definition (`[adr]: docs/adr/0003.md`, what a `[the ADR][adr]` link points at): its
    1-based line, the 0-based column of its destination, and the destination as written."""

    line: int
    column: int
    destination: str


class Document(NamedTuple):
    """A Markdown text as blocks, its memories (each top-level list item, paragraph or table, as its prose
    lines), and the link reference definitions its links use."""

    blocks: tuple[Block, ...]
    memories: tuple[tuple[Line, ...], ...]
    definitions: tuple[Definition, ...] = ()


def frontmatter_end(lines: Sequence[str]) -> int:
    """The index of the first line after a YAML front matter block (`---` ... `---`), 0 when there is none."""
    if not lines or lines[0].strip() != "---":
        return 0
    for index in range(1, len(lines)):
        if lines[index].strip() in ("---", "..."):
            return index + 1
    return 0


class MarkdownTooLarge(ValueError):
    """A text past MARKDOWN_CAP: left unparsed, so none of it is read (the message says why)."""


@functools.cache
def _parser() -> MarkdownIt:
    """The one CommonMark parser, made (and markdown-it imported) on the first parse.

    Emphasis says nothing a checker reads, and is the slowest inline rule on hostile input (`*a ` x 50,000).
    Inline content is parsed only where a line holds backticks (`_code_contents`): a third of the time saved.
    """
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table").disable(["emphasis", "inline"])


_HELD = 4  # texts whose Documents are kept: the format reader, the reference reader and write-back ask for the same
_held: dict[str, tuple[Document, bool]] = {}  # text -> (its Document, whether this process parsed it)
_holding = threading.Lock()


def read_document(text: str) -> Document:
    """The structure of a Markdown text (parsed once: the format reader, the reference reader and
    write-back ask for the same text in one run; or not at all, when a stored one was `remember`ed).
    MarkdownTooLarge past MARKDOWN_CAP characters."""
    held = _held.get(text)
    if held is not None:
        return held[0]
    document = _parse(text)
    _hold(text, document, parsed=True)
    return document


def remember(text: str, document: Document) -> None:
    """Hold a Document read back from a store for `text`: `read_document(text)` answers it without parsing."""
    _hold(text, document, parsed=False)


def parsed(text: str) -> Document | None:
    """The Document of `text` if this process parsed it and still holds it (what a store may keep), else None."""
    held = _held.get(text)
    return held[0] if held is not None and held[1] else None


def _hold(text: str, document: Document, *, parsed: bool) -> None:
    with _holding:
        _held.pop(text, None)
        _held[text] = (document, parsed)
        while len(_held) > _HELD:
            del _held[next(iter(_held))]


def _parse(text: str) -> Document:
    if len(text) > MARKDOWN_CAP:
        raise MarkdownTooLarge(f"Markdown of {len(text):,} characters, more than {MARKDOWN_CAP // 2**20} MiB; not parsed (an instruction file is a few KB)")
    lines = text.splitlines()
    body = frontmatter_end(lines)
    env: dict[str, object] = {}
    tokens = _parser().parse("\n" * body + "\n".join(lines[body:]), env)
    blocks: list[Block] = []
    memories: list[tuple[Line, ...]] = []
    unit: list[Line] = []
    depth, fresh_item = 0, False
    index = 0
    while index < len(tokens):
        token = tokens[index]
        kind = token.type
        if kind == "list_item_open":
            depth += 1
            fresh_item = True
        elif kind == "list_item_close":
            depth -= 1
            if depth == 0 and unit:
                memories.append(tuple(unit))
                unit = []
        elif token.map is not None and kind.endswith("_open") and kind[: -len("_open")] in (*_PROSE, "heading"):
            name = kind[: -len("_open")]
            close = _closing(tokens, index)
            prose = _prose_lines(lines, token.map, tokens[index + 1 : close], env)
            level = str(_heading_level(token.markup)) if name == "heading" else ""
            blocks.append(Block(name, token.map[0] + 1, token.map[1], level, depth, fresh_item, prose))
            if name != "heading":
                unit.extend(prose)
                if depth == 0:
                    memories.append(tuple(unit))
                    unit = []
            fresh_item = False
            index = close
        elif token.map is not None and kind in ("fence", "code_block", "html_block", "hr"):
            name = {"fence": "fence", "code_block": "code", "html_block": "html", "hr": "hr"}[kind]
            info = token.info.split(maxsplit=1)[0].lower() if kind == "fence" and token.info.strip() else ""
            blocks.append(Block(name, token.map[0] + 1, token.map[1], info, depth, fresh_item))
            fresh_item = False
        index += 1
    return Document(tuple(blocks), tuple(memories), _definitions(lines, body, blocks, env))


def _definitions(lines: list[str], body: int, blocks: list[Block], env: dict[str, object]) -> tuple[Definition, ...]:
    """The definitions CommonMark took (they make no block, so they are the lines between blocks that read as one)."""
    labels = env.get("references")
    if not isinstance(labels, dict) or not labels:
        return ()
    from markdown_it.common.utils import normalizeReference  # loaded by the parse that made `labels`

    covered = bytearray(len(lines) + 1)
    for block in blocks:
        covered[block.start - 1 : block.end] = b"\1" * (block.end - block.start + 1)
    found = []
    for index in range(body, len(lines)):
        match = None if covered[index] else _DEFINITION.match(lines[index])
        if match is not None and normalizeReference(match.group(1)) in labels:
            found.append(Definition(index + 1, match.start(2), match.group(2)))
    return tuple(found)


def _heading_level(markup: str) -> int:
    """1-6 for `#`...`######`; a setext heading underlined with `=` is level 1, with `-` level 2."""
    return len(markup) if markup.startswith("#") else 1 if markup.startswith("=") else 2


def _closing(tokens: list[Token], index: int) -> int:
    """The index of the token that closes the one at `index`."""
    level, at = 0, index
    while at < len(tokens):
        level += tokens[at].nesting
        if level == 0:
            return at
        at += 1
    return len(tokens) - 1


def _prose_lines(lines: list[str], where: list[int], inner: list[Token], env: dict[str, object]) -> tuple[Line, ...]:
    """The raw lines of a prose block, each with the code spans CommonMark reads there.

    The parser says which code spans there are (by content, in order), the raw
    line where each is: a span found on the line is kept when the parser read
    the same content at or after the last one kept.
    """
    found: list[tuple[int, CodeSpan]] = []
    by_content: dict[str, list[int]] = {}
    for number in range(where[0], min(where[1], len(lines))):
        for span in code_spans(lines[number]):
            by_content.setdefault(_normalized(span.group(2)), []).append(len(found))
            found.append((number, span))
    wanted = _code_contents(inner, env) if found else []
    kept: set[int] = set()
    last = -1
    for content in wanted:
        places = by_content.get(content, ())
        at = bisect.bisect_right(places, last)
        if at < len(places):
            last = places[at]
            kept.add(last)
    spans: dict[int, list[CodeSpan]] = {}
    for position in sorted(kept):
        number, span = found[position]
        spans.setdefault(number, []).append(span)
    return tuple(Line(number + 1, lines[number], tuple(spans.get(number, ()))) for number in range(where[0], min(where[1], len(lines))))


def _code_contents(inner: list[Token], env: dict[str, object]) -> list[str]:
    """The contents of the code spans of a block's inline parts, in order."""
    contents = []
    for token in inner:
        if token.type == "inline":
            children: list[Token] = []
            _parser().inline.parse(token.content, _parser(), env, children)
            contents += [child.content for child in children if child.type == "code_inline"]
    return contents


def _normalized(content: str) -> str:
    """A code span's content as CommonMark gives it: one space stripped from each end when both have one."""
    if len(content) >= 2 and content[0] == " " and content[-1] == " " and content.strip(" "):
        return content[1:-1]
    return content


def fence_body(lines: list[str], block: Block) -> list[str]:
    """The lines between a fenced block's opening fence and its closing one (the end of its container when unclosed)."""
    opener = lines[block.start - 1].strip()
    marker = opener[: len(opener) - len(opener.lstrip(opener[:1]))]
    last = lines[block.end - 1].strip() if block.end > block.start else ""
    end = block.end - 1 if last and set(last) == {marker[0]} and len(last) >= len(marker) else block.end
    return lines[block.start : min(end, len(lines))]
