"""Colour only in the text format, only on a terminal, and never with NO_COLOR."""

from __future__ import annotations

import io

import pytest

from anchorcheck.cli.common import emit
from anchorcheck.model.results import AnchorResult, Memory, MemoryReport, Verdict
from anchorcheck.report import Run


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _run() -> Run:
    result = AnchorResult("file:x.py", Verdict.REFUTED, "x.py does not exist in the repository")
    return Run([MemoryReport(Memory(text="x", anchors=["file:x.py"], source="CLAUDE.md"), [result])], files=["CLAUDE.md"])


@pytest.mark.parametrize(("stream", "fmt", "no_color", "coloured"), [
    (Terminal(), "text", False, True),
    (io.StringIO(), "text", False, False),
    (Terminal(), "text", True, False),
    (Terminal(), "github", False, False),
    (Terminal(), "sarif", False, False),
])
def test_colour_rules(monkeypatch, stream: io.StringIO, fmt: str, no_color: bool, coloured: bool) -> None:  # noqa: ANN001
    monkeypatch.delenv("NO_COLOR", raising=False)
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    emit(_run(), fmt, stream)
    assert ("\033[" in stream.getvalue()) is coloured
