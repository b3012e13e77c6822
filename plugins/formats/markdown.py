"""Markdown memory files as people keep them: CLAUDE.md, AGENTS.md, memory-bank/, Cursor rules, Copilot instructions.

One top-level bullet, numbered item or paragraph is one memory. Anchors are
inline code spans (`` `pkg:pypi/redis` ``) and belong to the block they sit
in; the block's first line is where results point. Not memories: headings,
fenced code, HTML comments, thematic breaks, and YAML frontmatter (Cursor `.mdc` rules and
`*.instructions.md` files open with one; its `key: value` lines are kept as
the memories' metadata, e.g. `globs` or `applyTo`).

Sub-bullets belong to the bullet above them: a nested item elaborates its
parent ("- Cache is Redis / - configured in `span:...`"), so its anchors are
the parent memory's anchors and a stale one refutes the parent. A person who
means two independent facts writes two top-level bullets.
"""

from __future__ import annotations

import re

from anchorcheck import Memory, MemoryFormat, Position, hookimpl
from anchorcheck.plugin import later, code_span_anchors
from anchorcheck_plugins.formats import editor

_BULLET = re.compile(r"^(\s*)(?:[-*+]|\d{1,9}[.)])\s+")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^\s{0,3}#{1,6}(\s|$)")
_THEMATIC_BREAK = re.compile(r"^\s{0,3}([-*_])(?:\s*\1){2,}\s*$")
_FRONTMATTER_KEY = later(r"^([A-Za-z_][\w-]*)\s*:\s*(.*)$")

# Where agents' memory and rule files live; `check` with no arguments looks for these.
# Matched with fnmatch on the repo-relative path, where `*` also crosses `/` (so `.claude/rules/*.md`
# takes the rules of every subfolder too, and `**/AGENTS.md` every nested AGENTS.md).
KNOWN_FILES = (
    # Claude Code
    "CLAUDE.md",
    "**/CLAUDE.md",
    "CLAUDE.local.md",
    "**/CLAUDE.local.md",
    ".claude/CLAUDE.md",
    ".claude/rules/*.md",
    # skills, subagents and slash commands: where most of a repository's agent instructions live
    # (Claude Code's `.claude/`, and `.agents/`, the folder Codex and others read skills from)
    ".claude/skills/*.md",
    ".claude/agents/*.md",
    ".claude/commands/*.md",
    ".agents/*.md",
    # Codex and the AGENTS.md convention (Codex's override file beside it)
    "AGENTS.md",
    "**/AGENTS.md",
    "AGENTS.override.md",
    "**/AGENTS.override.md",
    # Gemini CLI
    "GEMINI.md",
    "**/GEMINI.md",
    # GitHub Copilot
    ".github/copilot-instructions.md",
    ".github/instructions/*.instructions.md",
    # Cursor, Windsurf, Cline, Roo Code, Kiro, Junie, Aider
    ".cursorrules",
    ".cursor/rules/*.mdc",
    ".cursor/rules/*.md",
    ".windsurfrules",
    ".windsurf/rules/*.md",
    ".clinerules",
    ".clinerules/*.md",
    ".roorules",
    ".roo/rules*/*.md",
    ".kiro/steering/*.md",
    ".junie/guidelines.md",
    "CONVENTIONS.md",
    # memory banks
    "MEMORY.md",
    "memory-bank/*.md",
)
# Rule files with no extension: their text is Markdown (or plain prose, which reads the same).
_PROSE_FILES = (".cursorrules", ".windsurfrules", ".clinerules", ".roorules")


def read_markdown(path: str, text: str) -> list[Memory]:
    """The memories of one Markdown file, in file order."""
    lines = text.splitlines()
    start, frontmatter = _frontmatter(lines)
    return [_memory(path, block, frontmatter) for block in _blocks(lines, start)]


def memory_blocks(text: str) -> list[list[tuple[int, str]]]:
    """The (1-based line, line) blocks that are the memories of a file: what writers edit."""
    lines = text.splitlines()
    return _blocks(lines, _frontmatter(lines)[0])


def _blocks(lines: list[str], start: int) -> list[list[tuple[int, str]]]:
    blocks: list[list[tuple[int, str]]] = []
    block: list[tuple[int, str]] = []

    def flush() -> None:
        if block:
            blocks.append(list(block))
            block.clear()

    fence: str | None = None
    in_comment = False
    for number, line in enumerate(lines[start:], start=start + 1):
        fence_match = _FENCE.match(line)
        if fence is not None:
            if fence_match and fence_match.group(1)[0] == fence[0] and len(fence_match.group(1)) >= len(fence):
                fence = None
            continue
        if in_comment or line.lstrip().startswith("<!--"):
            flush()
            in_comment = "-->" not in line.split("<!--", 1)[-1]
            continue
        if fence_match:
            flush()
            fence = fence_match.group(1)
            continue
        if not line.strip() or _HEADING.match(line) or _THEMATIC_BREAK.match(line):
            flush()
            continue
        bullet = _BULLET.match(line)
        if bullet and (not block or len(bullet.group(1)) <= _indent(block[0][1])):
            flush()
        block.append((number, line))
    flush()
    return blocks


def _frontmatter(lines: list[str]) -> tuple[int, dict[str, str]]:
    """Where the body starts, and the frontmatter's top-level `key: value` pairs as text."""
    if not lines or lines[0].strip() != "---":
        return 0, {}
    for index in range(1, len(lines)):
        if lines[index].strip() in ("---", "..."):
            pairs = {}
            for line in lines[1:index]:
                match = _FRONTMATTER_KEY.match(line)
                if match:
                    pairs[match.group(1)] = match.group(2).strip().strip("\"'")
            return index + 1, pairs
    return 0, {}


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _memory(path: str, block: list[tuple[int, str]], frontmatter: dict[str, str]) -> Memory:
    anchors: list[str] = []
    positions: list[Position | None] = []
    for number, line in block:
        for content, offset in code_span_anchors(line):
            anchors.append(content)
            positions.append(Position(number, offset + 1))
    first = block[0][0]
    text = " ".join(_BULLET.sub("", line, count=1).strip() for _, line in block)
    return Memory(
        text=text,
        anchors=anchors,
        id=f"{path}:{first}",
        metadata={"frontmatter": dict(frontmatter)} if frontmatter else {},
        source=path,
        position=Position(first, _indent(block[0][1]) + 1),
        anchor_positions=positions,
    )


def _matches(path: str) -> bool:
    return path.lower().endswith((".md", ".mdc", ".markdown")) or path.rsplit("/", 1)[-1] in _PROSE_FILES


@hookimpl
def register_memory_formats(register):  # noqa: ANN001, ANN201 - hook signature
    register(
        MemoryFormat(
            name="markdown",
            read=read_markdown,
            rename=editor("markdown_edit", "rename_markdown"),
            insert=editor("markdown_edit", "insert_markdown"),
            patterns=KNOWN_FILES,
            matches=_matches,
            summary="Markdown memory files: one bullet or paragraph per memory, anchors as code spans",
            markdown=True,
            prose_anchors=True,
        )
    )
