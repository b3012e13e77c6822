"""Markdown memory files (CLAUDE.md, AGENTS.md, memory-bank/*.md, ...): one bullet or paragraph per memory.

Anchors are inline code spans (`` `pkg:pypi/redis` ``) and belong to the
block they sit in; the block's first line is where results point. Fenced
code, headings and YAML frontmatter are not memories.
"""

from __future__ import annotations

import re

from anchorcheck import Memory, MemoryFormat, Position, hookimpl
from anchorcheck.memoryfiles import looks_like_anchor

_BULLET = re.compile(r"^(\s*)(?:[-*+]|\d{1,9}[.)])\s+")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^\s{0,3}#{1,6}(\s|$)")
_CODE_SPAN = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")


def read_markdown(path: str, text: str) -> list[Memory]:
    lines = text.splitlines()
    memories: list[Memory] = []
    block: list[tuple[int, str]] = []

    def flush() -> None:
        if block:
            memories.append(_memory(path, block))
            block.clear()

    fence: str | None = None
    start = _after_frontmatter(lines)
    for number, line in enumerate(lines[start:], start=start + 1):
        fence_match = _FENCE.match(line)
        if fence is not None:
            if fence_match and fence_match.group(1)[0] == fence[0] and len(fence_match.group(1)) >= len(fence):
                fence = None
            continue
        if fence_match:
            flush()
            fence = fence_match.group(1)
            continue
        if not line.strip() or _HEADING.match(line):
            flush()
            continue
        bullet = _BULLET.match(line)
        if bullet and (not block or len(bullet.group(1)) <= _indent(block[0][1])):
            flush()
        block.append((number, line))
    flush()
    return memories


def _after_frontmatter(lines: list[str]) -> int:
    if lines and lines[0].strip() == "---":
        for index in range(1, len(lines)):
            if lines[index].strip() in ("---", "..."):
                return index + 1
    return 0


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _memory(path: str, block: list[tuple[int, str]]) -> Memory:
    anchors: list[str] = []
    positions: list[Position | None] = []
    for number, line in block:
        for match in _CODE_SPAN.finditer(line):
            content = match.group(2).strip()
            if looks_like_anchor(content):
                anchors.append(content)
                positions.append(Position(number, match.start(2) + 1))
    first = block[0][0]
    text = " ".join(_BULLET.sub("", line, count=1).strip() for _, line in block)
    return Memory(
        text=text,
        anchors=list(anchors),
        id=f"{path}:{first}",
        source=path,
        position=Position(first, _indent(block[0][1]) + 1),
        anchor_positions=positions,
    )


@hookimpl
def register_memory_formats(register):  # noqa: ANN001, ANN201 - hook signature
    register(
        MemoryFormat(
            name="markdown",
            read=read_markdown,
            patterns=("*.md", "*.mdc", "*.markdown"),
            summary="Markdown memory files: one bullet or paragraph per memory, anchors as code spans",
        )
    )
