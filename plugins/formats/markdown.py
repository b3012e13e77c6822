"""Markdown memory files as people keep them: CLAUDE.md, AGENTS.md, memory-bank/, Cursor rules, Copilot instructions.

The text is read as CommonMark (`anchorcheck.plugin.read_document`). One
top-level list item, paragraph or table is one memory. Anchors are
inline code spans (`` `pkg:pypi/redis` ``) and belong to the block they sit
in; the block's first line is where results point. Not memories: headings
(`#` and setext), fenced and indented code, HTML blocks and comments, thematic breaks, and YAML frontmatter (Cursor `.mdc` rules and
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
from anchorcheck.plugin import Line, frontmatter_end, later, read_document, span_anchors
from anchorcheck_plugins.formats import editor

_BULLET = re.compile(r"^(\s*)(?:[-*+]|\d{1,9}[.)])\s+")
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
    # skills of a folder of a monorepo: OpenCode and Claude Code load `.claude/skills` and `.agents/skills` on the way
    # up from where they run (docling keeps one in docling/.agents/skills/)
    "**/.claude/skills/*.md",
    "**/.agents/skills/*.md",
    # OpenCode's own project folder: agents, commands and skills (held-out-10's workerd kept 41 files there)
    ".opencode/agent/*.md",
    ".opencode/agents/*.md",
    ".opencode/command/*.md",
    ".opencode/commands/*.md",
    ".opencode/skills/*.md",
    # Codex and the AGENTS.md convention (Codex's override file beside it)
    "AGENTS.md",
    "**/AGENTS.md",
    "AGENTS.override.md",
    "**/AGENTS.override.md",
    # Amp's first name for it, still kept by repositories that adopted it early (firezone's rust/AGENT.md, which its
    # CLAUDE.md tells agents to read; dolt's, turso's)
    "AGENT.md",
    "**/AGENT.md",
    # Gemini CLI
    "GEMINI.md",
    "**/GEMINI.md",
    # GitHub Copilot
    ".github/copilot-instructions.md",
    ".github/instructions/*.instructions.md",
    ".github/skills/*.md",  # project skills, as Copilot reads them beside `.claude/skills` and `.agents/skills`
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
    ".serena/memories/*.md",  # Serena's project memories (penpot keeps 55, "the primary project guidance")
)
# Rule files with no extension: their text is Markdown (or plain prose, which reads the same).
_PROSE_FILES = (".cursorrules", ".windsurfrules", ".clinerules", ".roorules")


def read_markdown(path: str, text: str) -> list[Memory]:
    """The memories of one Markdown file, in file order."""
    frontmatter = _frontmatter(text.splitlines())
    return [_memory(path, block, frontmatter) for block in memory_blocks(text)]


def memory_blocks(text: str) -> tuple[tuple[Line, ...], ...]:
    """The prose lines (number, text, code spans) of each memory of a file, as CommonMark reads it: what writers edit."""
    return read_document(text).memories


def _frontmatter(lines: list[str]) -> dict[str, str]:
    """The front matter's top-level `key: value` pairs as text."""
    pairs = {}
    for line in lines[1 : frontmatter_end(lines) - 1]:
        match = _FRONTMATTER_KEY.match(line)
        if match:
            pairs[match.group(1)] = match.group(2).strip().strip("\"'")
    return pairs


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _memory(path: str, block: tuple[Line, ...], frontmatter: dict[str, str]) -> Memory:
    anchors: list[str] = []
    positions: list[Position | None] = []
    for line in block:
        for content, offset in span_anchors(line.spans):
            anchors.append(content)
            positions.append(Position(line.number, offset + 1))
    first = block[0]
    text = " ".join(_BULLET.sub("", line.text, count=1).strip() for line in block)
    return Memory(
        text=text,
        anchors=anchors,
        id=f"{path}:{first.number}",
        metadata={"frontmatter": dict(frontmatter)} if frontmatter else {},
        source=path,
        position=Position(first.number, _indent(first.text) + 1),
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
