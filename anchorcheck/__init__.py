"""anchorcheck: verify AI-agent memories against the code they talk about.

    >>> import anchorcheck
    >>> v = anchorcheck.Verifier("path/to/checkout")
    >>> v.check("file:README.md").verdict
    <Verdict.VERIFIED: 'VERIFIED'>
"""

from __future__ import annotations

from importlib import import_module

from anchorcheck._version import __version__

TYPE_CHECKING = False  # not `typing`'s: importing it costs a replayed `check` 4-7 ms (anchorcheck.serve.replay)
if TYPE_CHECKING:
    from typing import Any

    from anchorcheck.model.anchors import Anchor, AnchorSyntaxError, format_anchor
    from anchorcheck.verify.loading import parse_anchor
    from anchorcheck.model.citation import Citation
    from anchorcheck.spans.citation import BankError, bank
    from anchorcheck.model.hookspecs import hookimpl
    from anchorcheck.model.results import AnchorResult, Evidence, Memory, MemoryReport, Position, Suggestion, Verdict, combine
    from anchorcheck.model.registry import AnchorKind, Ecosystem, Invocation, Language, MemoryFormat, Runner
    from anchorcheck.report.render import Rendered, render_prompt
    from anchorcheck.repo.checkout import Repository
    from anchorcheck.repo.paths import UnsafePathError
    from anchorcheck.verify.fleet import verify_fleet
    from anchorcheck.verify.memory_store import MemoryStore, StoreError
    from anchorcheck.verify.rebanking import SpanChanged, rebank
    from anchorcheck.verify.suggestions import suggest
    from anchorcheck.verify.verifier import Verifier

# Where each public name lives: imported on first use (PEP 562), so that `anchorcheck --version`,
# a plugin's `from anchorcheck import hookimpl` or a CLI subcommand loads only what it touches.
_HOMES = {
    **dict.fromkeys(["Anchor", "AnchorSyntaxError", "format_anchor"], "anchorcheck.model.anchors"),
    "parse_anchor": "anchorcheck.verify.loading",  # the grammar with the loaded plugins' kinds
    **dict.fromkeys(["BankError", "bank"], "anchorcheck.spans.citation"),
    "Citation": "anchorcheck.model.citation",
    "hookimpl": "anchorcheck.model.hookspecs",
    **dict.fromkeys(["AnchorResult", "Evidence", "Memory", "MemoryReport", "Position", "Suggestion", "Verdict", "combine"], "anchorcheck.model.results"),
    **dict.fromkeys(["AnchorKind", "Ecosystem", "Invocation", "Language", "MemoryFormat", "Runner"], "anchorcheck.model.registry"),
    **dict.fromkeys(["Rendered", "render_prompt"], "anchorcheck.report.render"),
    "Repository": "anchorcheck.repo.checkout",
    "UnsafePathError": "anchorcheck.repo.paths",
    "Verifier": "anchorcheck.verify.verifier",
    "verify_fleet": "anchorcheck.verify.fleet",
    **dict.fromkeys(["MemoryStore", "StoreError"], "anchorcheck.verify.memory_store"),
    **dict.fromkeys(["SpanChanged", "rebank"], "anchorcheck.verify.rebanking"),
    "suggest": "anchorcheck.verify.suggestions",  # the suggestion engine loads on first use
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'anchorcheck' has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOMES])


__all__ = [
    "Anchor",
    "AnchorKind",
    "AnchorResult",
    "AnchorSyntaxError",
    "BankError",
    "Citation",
    "Ecosystem",
    "Evidence",
    "Invocation",
    "Language",
    "Memory",
    "MemoryFormat",
    "MemoryReport",
    "MemoryStore",
    "Position",
    "Rendered",
    "Repository",
    "Runner",
    "StoreError",
    "SpanChanged",
    "Suggestion",
    "UnsafePathError",
    "Verdict",
    "Verifier",
    "bank",
    "combine",
    "format_anchor",
    "hookimpl",
    "parse_anchor",
    "rebank",
    "render_prompt",
    "suggest",
    "verify_fleet",
]
