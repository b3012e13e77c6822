"""anchorcheck: verify AI-agent memories against the code they talk about.

    >>> import anchorcheck
    >>> v = anchorcheck.Verifier("path/to/checkout")
    >>> v.check("file:README.md").verdict
    <Verdict.VERIFIED: 'VERIFIED'>
"""

from __future__ import annotations

from importlib import import_module

from anchorcheck._version import __version__

TYPE_CHECKING = False  # not `typing`'s: importing it costs a replayed `check` 4-7 ms (anchorcheck.replay)
if TYPE_CHECKING:
    from typing import Any

    from anchorcheck.anchors import Anchor, AnchorSyntaxError, format_anchor, parse_anchor
    from anchorcheck.citation import BankError, Citation, bank
    from anchorcheck.hookspecs import hookimpl
    from anchorcheck.model import AnchorResult, Evidence, Memory, MemoryReport, Position, Suggestion, Verdict, combine
    from anchorcheck.registry import AnchorKind, Ecosystem, Invocation, Language, MemoryFormat, Runner
    from anchorcheck.render import Rendered, render_prompt
    from anchorcheck.repo import Repository, UnsafePathError
    from anchorcheck.fleet import verify_fleet
    from anchorcheck.suggestions import suggest
    from anchorcheck.verifier import Verifier

# Where each public name lives: imported on first use (PEP 562), so that `anchorcheck --version`,
# a plugin's `from anchorcheck import hookimpl` or a CLI subcommand loads only what it touches.
_HOMES = {
    **dict.fromkeys(["Anchor", "AnchorSyntaxError", "format_anchor", "parse_anchor"], "anchorcheck.anchors"),
    **dict.fromkeys(["BankError", "Citation", "bank"], "anchorcheck.citation"),
    "hookimpl": "anchorcheck.hookspecs",
    **dict.fromkeys(["AnchorResult", "Evidence", "Memory", "MemoryReport", "Position", "Suggestion", "Verdict", "combine"], "anchorcheck.model"),
    **dict.fromkeys(["AnchorKind", "Ecosystem", "Invocation", "Language", "MemoryFormat", "Runner"], "anchorcheck.registry"),
    **dict.fromkeys(["Rendered", "render_prompt"], "anchorcheck.render"),
    **dict.fromkeys(["Repository", "UnsafePathError"], "anchorcheck.repo"),
    "Verifier": "anchorcheck.verifier",
    "verify_fleet": "anchorcheck.fleet",
    "suggest": "anchorcheck.suggestions",  # the suggestion engine loads on first use
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
    "Position",
    "Rendered",
    "Repository",
    "Runner",
    "Suggestion",
    "UnsafePathError",
    "Verdict",
    "Verifier",
    "bank",
    "combine",
    "format_anchor",
    "hookimpl",
    "parse_anchor",
    "render_prompt",
    "suggest",
    "verify_fleet",
]
