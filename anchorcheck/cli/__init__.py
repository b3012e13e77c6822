"""The `anchorcheck` command. Each subcommand is a module with `add_parser` and `run`.

Exit codes: 0 clean, 1 a memory or anchor failed (REFUTED, or INCONCLUSIVE
with `--fail-on inconclusive`), 2 a usage, configuration or I/O error.
Expected errors print one line naming the file and line, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from anchorcheck import __version__
from anchorcheck.anchors import AnchorSyntaxError
from anchorcheck.cli import anchor, bank, check, lock, mcp, plugins, rebank, relocate, suggest
from anchorcheck.cli.common import UsageError
from anchorcheck.config import ConfigError
from anchorcheck.memoryfiles import MemoryFileError
from anchorcheck.receipts import ReceiptLogError

COMMANDS = [check, lock, suggest, anchor, bank, relocate, rebank, mcp, plugins]
EXIT_USAGE = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="anchorcheck",
        description="Verify AI-agent memories against the code they talk about.",
    )
    parser.add_argument("--version", action="version", version=f"anchorcheck {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):
        # A path or anchor may hold a lone surrogate (a non-UTF-8 file name, a `\ud800` in a JSONL
        # memory): printed escaped, never a UnicodeEncodeError halfway through the report.
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except (AnchorSyntaxError, ConfigError, MemoryFileError, ReceiptLogError, UsageError) as exc:
        print(f"anchorcheck: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (OSError, NotADirectoryError) as exc:
        print(f"anchorcheck: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
