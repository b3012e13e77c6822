"""anchorcheck: verify AI-agent memories against the code they talk about.

    >>> import anchorcheck
    >>> v = anchorcheck.Verifier("path/to/checkout")
    >>> v.check("file:README.md").verdict
    <Verdict.VERIFIED: 'VERIFIED'>
"""

from __future__ import annotations

from importlib import metadata

from anchorcheck.anchors import Anchor, AnchorSyntaxError, format_anchor, parse_anchor
from anchorcheck.citation import BankError, Citation, bank
from anchorcheck.hookspecs import hookimpl
from anchorcheck.model import AnchorResult, Evidence, Memory, MemoryReport, Position, Suggestion, Verdict, combine
from anchorcheck.registry import AnchorKind, Ecosystem, Invocation, Language, MemoryFormat, Runner
from anchorcheck.render import Rendered, render_prompt
from anchorcheck.repo import Repository, UnsafePathError
from anchorcheck.verifier import Verifier

try:
    __version__ = metadata.version("anchorcheck")
except metadata.PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

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
    "Runner",
    "Repository",
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
]


def __getattr__(name: str) -> object:
    """`anchorcheck.suggest(root, text)`: the suggestion engine loads on first use, not with the package."""
    if name == "suggest":
        from anchorcheck.suggestions import suggest

        return suggest
    raise AttributeError(f"module 'anchorcheck' has no attribute {name!r}")
