"""The `anchorcheck` command. Each subcommand is a module with `add_parser` and `run`.

Exit codes: 0 clean, 1 a memory or anchor failed (REFUTED, or INCONCLUSIVE
with `--fail-on inconclusive`), 2 a usage, configuration or I/O error.
Expected errors print one line naming the file and line, never a traceback.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Sequence
from importlib import import_module

TYPE_CHECKING = False  # not `typing`'s: importing it costs a replayed `check` 4-7 ms (anchorcheck.serve.replay)
if TYPE_CHECKING:
    import argparse
    from types import ModuleType
    from typing import Any

from anchorcheck._version import __version__

# The subcommands, each a module of this package, imported only when named: a run of
# `anchorcheck check` never loads what `relocate` or `mcp` need, and `--version` loads none.
COMMANDS = ["check", "fix", "lock", "suggest", "anchor", "bank", "relocate", "rebank", "baseline", "init", "mcp", "serve", "plugins"]
EXIT_USAGE = 2
EXIT_OUTPUT_CLOSED = 141  # what a shell reports for a program SIGPIPE ended: 128 + 13
# A command allocates mostly what it keeps (modules, classes, the registry, per-file facts):
# at the default first-generation threshold (700) a check of a small repository ran 38
# collections and 3 of the second generation, 6-11 ms of its CPU time, and freed little. A
# larger threshold (mypy's order of size) still collects garbage in cycles, in bounded steps.
GC_THRESHOLD = 100_000


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser, with only the subcommand that `argv` names (none for `--version`, all for help)."""
    from anchorcheck.cli.parser import Parser  # not before: a replayed `check` parses nothing (anchorcheck.serve.replay)

    parser = Parser(
        prog="anchorcheck",
        description="Verify AI-agent memories against the code they talk about.",
    )
    parser.add_argument("--version", action="version", version=f"anchorcheck {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    first = argv[0] if argv else None  # the command comes first: the only options before it exit
    for command in [first] if first in COMMANDS else [] if first == "--version" else COMMANDS:
        _command(command).add_parser(sub)
    return parser


def _command(name: str) -> ModuleType:
    return import_module(f"anchorcheck.cli.{name}")


def _usage_errors() -> tuple[type[Exception], ...]:
    """The errors printed as one line: imported when one is raised, so that a run that raises none
    does not import `receipts` (or anything else) for its exception class alone."""
    from anchorcheck.model.anchors import AnchorSyntaxError
    from anchorcheck.cli.common import UsageError
    from anchorcheck.repo.config import ConfigError
    from anchorcheck.memory.memoryfiles import MemoryFileError
    from anchorcheck.memory.receipts import ReceiptLogError

    return (AnchorSyntaxError, ConfigError, MemoryFileError, ReceiptLogError, UsageError)


def console() -> int:
    """The `anchorcheck` command (and `python -m anchorcheck`): `main`, after which the process ends.

    Everything a run imported and kept is frozen out of the collector's reach first: the
    collections the interpreter runs at exit then skip it, where they traversed every module,
    class and cached fact only to free nothing (5% of a check of a small repository, about
    0.4x `python -c pass`). Objects are still released as their modules are cleared; only
    garbage in reference cycles is left to the operating system, with the rest of the process.
    `main` itself freezes nothing: a caller in the same process goes on.
    """
    try:
        code = main()
    except BrokenPipeError:  # a report printed before any command ran (a server's answer, a replay)
        code = _output_closed()
    gc.freeze()
    return code


def _error(exc: BaseException) -> None:
    """The one line an expected error prints: it names a file of the repository, and may quote it."""
    from anchorcheck.base.printable import printable

    print(f"anchorcheck: error: {printable(str(exc))}", file=sys.stderr)


def _output_closed() -> int:
    """The reader of stdout went away (`anchorcheck check | head -1`): nothing is wrong, so nothing is
    said, as for a program SIGPIPE ended; stdout goes to the null device so the flush at exit cannot fail."""
    import os

    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # no file descriptor to point elsewhere (a stream a caller replaced)
        pass
    return EXIT_OUTPUT_CLOSED


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; the collector's thresholds are raised for it and restored after."""
    thresholds = gc.get_threshold()
    gc.set_threshold(GC_THRESHOLD, *thresholds[1:])
    try:
        return _main(argv)
    finally:
        gc.set_threshold(*thresholds)


def _main(argv: Sequence[str] | None) -> int:
    for stream in (sys.stdout, sys.stderr):
        # A path or anchor may hold a lone surrogate (a non-UTF-8 file name, a `\ud800` in a JSONL
        # memory): printed escaped, never a UnicodeEncodeError halfway through the report.
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv == ["--version"]:  # what argparse's version action prints, without importing argparse (~5 ms)
        print(f"anchorcheck {__version__}")
        return 0
    listed = None
    if argv[:1] == ["check"]:  # before any heavy import: a running server's answer, or the last report
        from anchorcheck.serve.checkclient import ask

        answered = ask(argv[1:])
        if answered is not None:
            return answered
        from anchorcheck.serve.replay import replay, take_listing

        replayed = replay(argv[1:])
        listed = take_listing()  # what its lookup listed: this check's to take over, no later command's
        if replayed is not None:
            return replayed
    return run_command(argv, listed=listed)


def run_command(argv: list[str], *, listed: Any = None, verifiers: Any = None) -> int:
    """Parse `argv` and run its command, expected errors printed as one line. A check run here may store its
    report for a replay (`anchorcheck.serve.replay`); one a server runs with its own `verifiers` does not (its
    Verifier's listing is of an earlier state, `anchorcheck.serve.checkserver`)."""
    args = build_parser(argv).parse_args(argv)
    args.argv = argv[1:] if verifiers is None else None  # the words a stored report is found by (anchorcheck.serve.replay)
    args.listed = listed
    args.verifiers = verifiers
    try:
        return int(args.run(args))
    except _usage_errors() as exc:  # evaluated only when an exception reaches it
        _error(exc)
        return EXIT_USAGE
    except BrokenPipeError:
        return _output_closed()
    except (OSError, NotADirectoryError) as exc:
        _error(exc)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
