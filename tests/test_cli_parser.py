"""The CLI's parser lays help out as argparse's own does, without importing shutil (bz2, lzma) for it."""

from __future__ import annotations

import argparse

import pytest

from anchorcheck.cli import COMMANDS, _command
from anchorcheck.cli.parser import Parser


def _help(parser_class: type[argparse.ArgumentParser]) -> list[str]:
    parser = parser_class(prog="anchorcheck", description="Verify AI-agent memories against the code they talk about.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        _command(name).add_parser(sub)
    return [parser.format_help(), *(action.format_help() for action in sub.choices.values())]


@pytest.mark.parametrize("columns", [None, "40", "57", "200", "abc", "-3", "0"])
def test_help_is_laid_out_as_argparse_lays_it_out(columns: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    ours = _help(Parser)
    assert ours == _help(argparse.ArgumentParser)
    assert len(ours) == len(COMMANDS) + 1 and all("usage: anchorcheck" in text for text in ours)
