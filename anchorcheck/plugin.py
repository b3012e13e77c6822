"""The public plugin API: everything a kind, language, ecosystem, format or runner plugin programs against.

A plugin imports from here and from `anchorcheck` itself, never from the layers
below (`anchorcheck.model`, `.repo`, `.evidence`, ...): those may move between
releases, this surface does not (docs/plugins.md documents each name; the
import-linter contracts in pyproject.toml hold the bundled plugins to it).

    >>> from anchorcheck import AnchorKind, hookimpl
    >>> from anchorcheck.plugin import Context, Evidence, SourceIndex

Each name is imported on first use (PEP 562), as in `anchorcheck`: a plugin that
only registers a kind loads no source index, no tree-sitter and no package reader.
"""

from __future__ import annotations

from importlib import import_module

TYPE_CHECKING = False  # not `typing`'s: a plugin's `from anchorcheck.plugin import ...` stays cheap
if TYPE_CHECKING:
    from typing import Any

    from anchorcheck.base.bounded import LimitError, brief, json_loads, toml_loads
    from anchorcheck.base.globs import Wildcard
    from anchorcheck.base.lazyregex import later
    from anchorcheck.base.words import plural
    from anchorcheck.evidence.facts import OPTIONAL as OPTIONAL_IMPORT
    from anchorcheck.evidence.facts import (
        TYPE_CHECKING_ONLY,
        Define,
        Definitions,
        Facts,
        Parsed,
        definitions,
        enclosing_name,
        first_error_line,
        nested,
        single_bindings,
        string_constants,
        string_value,
    )
    from anchorcheck.evidence.grammars import parser as grammar_parser
    from anchorcheck.evidence.goals import Goal, Search
    from anchorcheck.evidence.history import at_head, history_of
    from anchorcheck.evidence.index import SourceIndex
    from anchorcheck.evidence.listing import classify
    from anchorcheck.evidence.trees import parse as parse_tree
    from anchorcheck.evidence.trees import parser_for
    from anchorcheck.evidence.packages import (
        BUILD,
        CONDA,
        CONTAINS,
        DEV,
        DIRECT,
        DISJOINT,
        GROUP,
        INDIRECT,
        LOCKED,
        OPTIONAL,
        OVERLAPS,
        PEER,
        PROJECT,
        REPLACEMENT,
        TOOL,
        WORKSPACE,
        Declaration,
        FileFacts,
        LockEntry,
        ManifestError,
        ManifestStatus,
        PackageIndex,
        as_table,
        broken,
        locked_facts,
        project_index,
    )
    from anchorcheck.evidence.packages import decode as decode_manifest
    from anchorcheck.evidence.packages import load as load_manifest
    from anchorcheck.memory.codespans import code_spans
    from anchorcheck.memory.commonmark import Block, Document, Line, frontmatter_end, read_document
    from anchorcheck.memory.memoryfiles import MemoryFileError, code_span_anchors, header_lines, looks_like_anchor, span_anchors
    from anchorcheck.model.anchors import Anchor, AnchorSyntaxError, decode_path, encode_path
    from anchorcheck.model.hookspecs import hookimpl
    from anchorcheck.model.registry import AnchorKind, Ecosystem, Invocation, Language, MemoryFormat, Runner
    from anchorcheck.model.results import LEAVES_CHECKOUT, NOT_IN_CONFIG, AnchorResult, Evidence, Memory, Position, Verdict
    from anchorcheck.base.gitnames import is_object_id
    from anchorcheck.base.gitnames import renames as git_renames
    from anchorcheck.repo.checkout import Repository
    from anchorcheck.repo.paths import UnsafePathError, check_relative, looks_binary
    from anchorcheck.repo.safe_read import FileTooLargeError
    from anchorcheck.repo.context import BudgetExceeded, Context
    from anchorcheck.model.citation import MAX_LINE_NUMBER, Citation
    from anchorcheck.spans.citation import split_lines, window
    from anchorcheck.spans.spanlocate import Found, current_region, locate, unified_diff


def _home(module: str, *names: str) -> dict[str, tuple[str, str]]:
    return {name: (module, name) for name in names}


# Public name -> (module that defines it, its name there). Renamed where two homes use one name
# (`OPTIONAL` is both an import guard and a dependency relation) or a bare name says too little.
_HOMES: dict[str, tuple[str, str]] = {
    # registering: hook markers and what a plugin registers
    **_home("anchorcheck.model.hookspecs", "hookimpl"),
    **_home("anchorcheck.model.registry", "AnchorKind", "Ecosystem", "Invocation", "Language", "MemoryFormat", "Runner"),
    # anchors, verdicts, results and evidence
    **_home("anchorcheck.model.anchors", "Anchor", "AnchorSyntaxError", "decode_path", "encode_path"),
    **_home("anchorcheck.model.results", "AnchorResult", "Evidence", "LEAVES_CHECKOUT", "Memory", "NOT_IN_CONFIG", "Position", "Verdict"),
    # what a verifier is handed, and the checkout it reads through
    **_home("anchorcheck.repo.context", "BudgetExceeded", "Context"),
    **_home("anchorcheck.repo.checkout", "Repository"),
    **_home("anchorcheck.repo.paths", "UnsafePathError", "check_relative", "looks_binary"),
    **_home("anchorcheck.repo.safe_read", "FileTooLargeError"),
    **_home("anchorcheck.base.gitnames", "is_object_id"),
    "git_renames": ("anchorcheck.base.gitnames", "renames"),
    # reading untrusted files within bounds
    **_home("anchorcheck.base.bounded", "LimitError", "brief", "json_loads", "toml_loads"),
    **_home("anchorcheck.base.lazyregex", "later"),
    **_home("anchorcheck.base.words", "plural"),
    **_home("anchorcheck.base.globs", "Wildcard"),
    # source evidence: the shared index, its searches and the facts a language extracts
    **_home("anchorcheck.evidence.index", "SourceIndex"),
    **_home("anchorcheck.evidence.goals", "Goal", "Search"),
    **_home("anchorcheck.evidence.history", "at_head", "history_of"),
    **_home("anchorcheck.evidence.listing", "classify"),
    **_home("anchorcheck.evidence.trees", "parser_for"),
    "parse_tree": ("anchorcheck.evidence.trees", "parse"),
    **_home(
        "anchorcheck.evidence.facts",
        "TYPE_CHECKING_ONLY", "Define", "Definitions", "Facts", "Parsed", "definitions", "enclosing_name", "nested",
        "first_error_line", "single_bindings", "string_constants", "string_value",
    ),
    "OPTIONAL_IMPORT": ("anchorcheck.evidence.facts", "OPTIONAL"),
    "grammar_parser": ("anchorcheck.evidence.grammars", "parser"),
    # package evidence: manifests, lockfiles and how a declaration relates to a claim
    **_home(
        "anchorcheck.evidence.packages",
        "BUILD", "CONDA", "CONTAINS", "DEV", "DIRECT", "DISJOINT", "GROUP", "INDIRECT", "LOCKED", "OPTIONAL",
        "OVERLAPS", "PEER", "PROJECT", "REPLACEMENT", "TOOL", "WORKSPACE", "Declaration", "FileFacts", "LockEntry",
        "ManifestError", "ManifestStatus", "PackageIndex", "as_table", "broken", "locked_facts", "project_index",
    ),
    "load_manifest": ("anchorcheck.evidence.packages", "load"),
    "decode_manifest": ("anchorcheck.evidence.packages", "decode"),
    # spans
    **_home("anchorcheck.model.citation", "MAX_LINE_NUMBER", "Citation"),
    **_home("anchorcheck.spans.citation", "split_lines", "window"),
    **_home("anchorcheck.spans.spanlocate", "Found", "current_region", "locate", "unified_diff"),
    # memory files: what a format plugin shares with the Markdown reader
    **_home("anchorcheck.memory.codespans", "code_spans"),
    **_home("anchorcheck.memory.commonmark", "Block", "Document", "Line", "frontmatter_end", "read_document"),
    **_home("anchorcheck.memory.memoryfiles", "MemoryFileError", "code_span_anchors", "header_lines", "looks_like_anchor", "span_anchors"),
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'anchorcheck.plugin' has no attribute {name!r}")
    value = getattr(import_module(home[0]), home[1])
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})


__all__ = sorted(_HOMES)
