"""The command line's parser classes: argparse's, sized without importing shutil.

argparse makes a help formatter for every `add_argument` (to check the metavar against
`nargs`), and the formatter imports shutil for the terminal's width: shutil imports bz2 and
lzma, ~3 ms of every `check`, for a width only help text uses. `_Formatter` reads the width
by `shutil.get_terminal_size`'s rule instead (`anchorcheck.base.width`), so help is laid out exactly as before.
"""

from __future__ import annotations

import argparse

from anchorcheck.base.width import columns


class _Formatter(argparse.HelpFormatter):
    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position, columns() - 2 if width is None else width)


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose help formatter does not import shutil; subcommands' parsers are of its class."""

    def __init__(self, *args: object, formatter_class: type[argparse.HelpFormatter] = _Formatter, **kwargs: object) -> None:
        super().__init__(*args, formatter_class=formatter_class, **kwargs)  # type: ignore[arg-type]
