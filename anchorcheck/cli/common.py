"""Options and plumbing shared by the subcommands: root, format, verifier, exit code."""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable
from typing import IO

from anchorcheck.repo.config import FAIL_ON
from anchorcheck.report import Run, fails_under, format_names, renderer
from anchorcheck.repo.gitdir import refusal
from anchorcheck.repo.paths import find_root
from anchorcheck.verify.verifier import Verifier

EXIT_CLEAN, EXIT_FAILED = 0, 1


class UsageError(Exception):
    """A mistake on the command line; printed as one line, exit 2."""


def add_root(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--root",
        metavar="DIR",
        help="repository root (default: the nearest directory above the current one holding .git)",
    )


def add_memory_files(parser: argparse.ArgumentParser, default: str) -> None:
    parser.add_argument("files", nargs="*", metavar="FILE", help=f"memory files, directories or globs (default: {default})")


def add_format(parser: argparse.ArgumentParser, choices: list[str] | None = None) -> None:
    parser.add_argument("--format", default="text", choices=choices or format_names(), help="output format")


def add_verification(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--fail-on",
        choices=list(FAIL_ON),
        default=None,
        help="exit 1 on findings of severity error (default), on warnings too, on any REFUTED, or on INCONCLUSIVE too",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="also show what verified")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the on-disk source cache")
    parser.add_argument(
        "--deadline",
        type=seconds("deadline"),
        metavar="SECONDS",
        default=None,
        help="time budget for the whole command; anchors not reached are INCONCLUSIVE (budget exceeded)",
    )


MAX_SECONDS = 7 * 24 * 3600.0  # a week: longer is a typo, and an overflow for a lock's timeout


def seconds(what: str, at_least: float | None = None) -> Callable[[str], float]:
    """An argparse type: a positive number of seconds (or one of at least `at_least`), the error naming `what`."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
        if not math.isfinite(value) or value > MAX_SECONDS:  # `1e400` is inf: no clock or lock takes it
            raise argparse.ArgumentTypeError(f"the {what} must be at most {MAX_SECONDS:g} seconds")
        if at_least is None and not value > 0:
            raise argparse.ArgumentTypeError(f"the {what} must be a positive number of seconds")
        if at_least is not None and not value >= at_least:
            raise argparse.ArgumentTypeError(f"the {what} must be at least {at_least} seconds")
        return value

    return parse


def root_of(args: argparse.Namespace) -> str:
    if args.root:
        if not os.path.isdir(args.root):
            raise UsageError(f"--root {args.root}: not a directory")
        root = str(args.root)
    else:
        root = str(find_root("."))
    refused = refusal(root)
    if refused:  # git cannot or must not read this checkout: never bank or verify it under a made-up path identity
        raise UsageError(refused)
    return root


def make_verifier(args: argparse.Namespace, *, resident: bool = False) -> Verifier:
    """The command's Verifier: one-shot (no snapshot of the tree to revalidate) unless it keeps
    answering while files change (`check --watch`), or a server's (`anchorcheck serve`). A write of
    several files that a killed command left half done is completed first, before the command reads
    the lock or a memory file (`anchorcheck.memory.journal`)."""
    from anchorcheck.memory.journal import finish_interrupted_write

    verifier = _verifier(args, resident)
    if finish_interrupted_write(verifier.root, verifier.registry):
        verifier.refresh()
    return verifier


def _verifier(args: argparse.Namespace, resident: bool) -> Verifier:
    served = getattr(args, "verifiers", None)
    if served is not None:  # a server's resident Verifier for this checkout, up to date (anchorcheck.serve.checkserver)
        return served(root_of(args), not getattr(args, "no_cache", False))
    handed = None if resident else getattr(args, "listed", None)  # what a `check` that found no report to replay listed
    options = {"cache": not getattr(args, "no_cache", False), "prefetch_listing": handed is None, "resident": resident}
    verifier = Verifier(root_of(args), options=options)
    if handed is not None and not verifier.repo.adopt_listing(handed):
        verifier.repo.prefetch_listing()
    return verifier


def exit_code(run: Run, fail_on: str) -> int:
    """Exit 1 on anchors written wrongly, and on the findings `fail_on` names: `error` (the default: what
    the evidence makes certain, so a hook blocks only on those), `warning` (likely ones too), `refuted`
    (any REFUTED, whatever its severity) or `inconclusive` (each INCONCLUSIVE item the report lists as
    well: an anchor, or a memory with anchors that a lifecycle rule left INCONCLUSIVE; a paragraph
    without anchors is not one, most prose has none)."""
    return EXIT_FAILED if any(fails_under(report, fail_on) for report in run.reports) else EXIT_CLEAN


def add_output(parser: argparse.ArgumentParser) -> None:
    """`--quiet`, `--color` and `--output`: how a report is written, as a CI job or a terminal wants it."""
    parser.add_argument("-q", "--quiet", action="store_true", help="print only what fails the run: no notes, hints or summary")
    parser.add_argument("--color", choices=["auto", "always", "never"], default="auto", help="colour the text format (auto: on a terminal, unless NO_COLOR is set)")
    parser.add_argument("--output", metavar="FILE", help="write the report to FILE instead of standard output")


def emit(run: Run, fmt: str, out: IO[str] | None = None, *, color: str = "auto", output: str | None = None) -> None:
    if output is not None:
        try:
            with open(output, "w", encoding="utf-8") as handle:
                emit(run, fmt, handle, color=color)
        except OSError as exc:
            raise UsageError(f"--output {output}: {exc.strerror or exc}") from None
        return
    stream = out or sys.stdout
    wanted = {"always": True, "never": False}.get(color, stream.isatty() and "NO_COLOR" not in os.environ)
    run.color = fmt == "text" and wanted
    renderer(fmt)(run, stream)
