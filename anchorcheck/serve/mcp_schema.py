"""What a model sees of the MCP tools besides their names: parameter descriptions and result shapes.

A model calls a tool from its JSON schema alone, so the anchor grammar is written where it
looks (the `anchors` parameter), with examples of every kind, and each result is a typed
shape (an output schema) rather than "an object". Arguments that fail the schema become one
sentence naming the parameter (`argument_error`), not a validation library's dump.
"""

from __future__ import annotations

from typing import Annotated, Any

from typing_extensions import TypedDict  # pydantic reads TypedDicts from typing only on Python 3.12+

from pydantic import Field, ValidationError

ANCHOR_GRAMMAR = (
    "Each anchor is 'kind:value', optionally negated with a leading '!' and scoped with a trailing "
    "' in:PATH' (a repo-relative file, folder or glob). Kinds: file:PATH (the path exists), "
    "span:PATH#Lstart-Lend (banked lines, from bank_citation), pkg:pypi/NAME, pkg:npm/NAME, "
    "pkg:cargo/NAME, pkg:golang/MODULE or pkg:NAME for any ecosystem (a manifest declares it), "
    "import:MODULE (source imports it), env:NAME (code reads the variable), sym:PATH::Class.method or "
    "sym:py:package.module.Name (the file defines it), cmd:COMMAND LINE (a runner defines it). "
    "Paths are relative to the repository root. Examples: 'pkg:pypi/redis', 'import:redis in:src/', "
    "'!pkg:pypi/celery', 'sym:src/cache.py::RedisCache.get', 'env:REDIS_URL', 'cmd:make lint', "
    "'file:docs/adr/0003.md'."
)

Anchors = Annotated[list[str], Field(description=ANCHOR_GRAMMAR)]
OptionalAnchors = Annotated[list[str] | None, Field(description=ANCHOR_GRAMMAR + " Omit to use only the suggested ones.")]
MemoryText = Annotated[str, Field(description="The memory as a sentence or two of prose, e.g. 'The cache reads through Redis in src/app/cache.py.'")]
Citations = Annotated[
    list[dict[str, Any]] | None,
    Field(description="The banked citation records of the memory's span anchors, exactly as bank_citation "
          "(its 'citation') or remember (its 'citations') returned them."),
]
RepoPath = Annotated[str, Field(description="A file path relative to the repository root, e.g. 'src/app/cache.py'.")]
StartLine = Annotated[int, Field(description="First line to bank, 1-based.", ge=1)]
EndLine = Annotated[int, Field(description="Last line to bank, 1-based and inclusive (equal to start_line for one line).", ge=1)]
Spans = Annotated[
    list[str] | None,
    Field(description="Lines the memory is about, banked now: 'src/app.py:10-20' or 'span:src/app.py#L10-L20'."),
]
MemoryId = Annotated[str, Field(description="The id remember returned (or search found), e.g. 'm3'.")]
Query = Annotated[str, Field(description="Words to look for in stored memories' text and anchors, e.g. 'redis cache'.")]
BankedCitation = Annotated[
    dict[str, Any],
    Field(description="A citation as bank_citation returned it ({anchor, citation}), or its bare citation record."),
]
Accept = Annotated[
    bool,
    Field(description="True only after re-reading the code and finding the memory still holds: banks a changed span anyway."),
]
Limit = Annotated[int, Field(description="At most this many memories, best matches first.", ge=1, le=100)]


class Evidence(TypedDict):
    path: str | None
    line: int | None
    detail: str


class AnchorResult(TypedDict, total=False):
    anchor: str
    verdict: str  # VERIFIED | REFUTED | INCONCLUSIVE
    reason: str
    evidence: list[Evidence]
    state: str  # span anchors: fresh | relocated | stale | unverifiable
    details: dict[str, Any]
    plugin: str
    implicit: bool
    severity: str  # error (certain), warning (likely), note


class CheckResult(TypedDict):
    results: list[AnchorResult]
    summary: dict[str, int]


class MemoryVerdict(TypedDict, total=False):
    memory: dict[str, Any]
    verdict: str
    reason: str
    results: list[AnchorResult]


class BankResult(TypedDict):
    anchor: str
    citation: dict[str, Any]


class SpanLines(TypedDict):
    path: str
    start_line: int
    end_line: int
    lines: list[str]


class Rebanked(TypedDict, total=False):
    status: str  # unchanged, moved, accepted or refused
    anchor: str
    citation: dict[str, Any]
    reason: str
    banked: SpanLines
    current: SpanLines


class Suggestion(TypedDict, total=False):
    anchor: str
    reason: str
    confidence: str  # high | medium
    evidence: list[Evidence]
    mention: str
    citation: dict[str, Any]


class Suggestions(TypedDict):
    suggestions: list[Suggestion]


class Remembered(TypedDict):
    id: str
    store: str
    text: str
    anchors: list[str]
    citations: list[dict[str, Any]]
    suggested: list[Suggestion]
    verdict: str
    results: list[AnchorResult]


class Recalled(TypedDict):
    id: str
    text: str
    anchors: list[str]
    verdict: str
    reason: str
    results: list[AnchorResult]


class Found(TypedDict):
    store: str
    memories: list[Recalled]


class Forgotten(TypedDict):
    id: str
    store: str
    text: str


def argument_error(tool: str, error: ValidationError) -> str:
    """One sentence for arguments that do not fit the tool's schema: the first wrong parameter and what it needs."""
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "arguments"
    if first["type"] == "missing":
        need = "is required"
    else:
        need = str(first["msg"]).replace("Input should be", "should be").split(",")[0]
    more = f" (and {len(error.errors()) - 1} more)" if len(error.errors()) > 1 else ""
    return f"{tool}: argument '{where}' {need}{more}; see the tool's input schema."
