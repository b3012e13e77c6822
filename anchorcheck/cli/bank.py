"""`anchorcheck bank PATH:START-END` — print a banked citation, ready for a lock or memory file."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import tomlkit

from anchorcheck.base.printable import json_safe
from anchorcheck.model.citation import Citation
from anchorcheck.spans.citation import BankError, bank
from anchorcheck.memory.lockfile import as_toml_table
from anchorcheck.cli.common import EXIT_CLEAN, UsageError, add_root, root_of
from anchorcheck.repo.checkout import Repository


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("bank", help="fingerprint lines of a file and print the citation")
    parser.add_argument("spans", nargs="+", metavar="PATH:START-END", help="e.g. src/app.py:10-20 or src/app.py:7")
    add_root(parser)
    parser.add_argument("--format", default="toml", choices=["toml", "json"], help="toml: [[citation]] lock entries")
    parser.set_defaults(run=run)


def parse_target(text: str) -> tuple[str, int, int]:
    """`PATH:START-END` or `PATH:LINE`, split at the last colon."""
    path, sep, lines = text.rpartition(":")
    start, dash, end = lines.partition("-")
    if not sep or not path or not start.isdigit() or (dash and not end.isdigit()):
        raise UsageError(f"{text!r}: expected PATH:START-END or PATH:LINE (1-based, inclusive), e.g. src/app.py:10-20")
    return path, int(start), int(end) if dash else int(start)


def repo_path(path: str, repo: Repository) -> str:
    """A path as typed on the command line, relative to the current directory, as a repo-relative one.

    The library only takes repo-relative paths (stored records are untrusted);
    at the prompt a path below the current directory is what a person means.
    Paths outside the root are passed on unchanged, for `bank` to refuse.
    """
    local = Path(path)
    if not local.exists():
        return path
    try:
        return repo.relative(local)
    except ValueError:
        return path


def run(args: argparse.Namespace) -> int:
    repo = Repository(root_of(args))
    citations: list[Citation] = []
    for text in args.spans:
        path, start, end = parse_target(text)
        try:
            citations.append(bank(repo, repo_path(path, repo), start, end))
        except BankError as exc:
            raise UsageError(f"cannot bank {text}: {exc}") from None
    if args.format == "json":
        rows = [{"anchor": c.anchor_text(), **c.to_dict()} for c in citations]
        sys.stdout.write(json_safe(json.dumps(rows[0] if len(rows) == 1 else rows, indent=2, ensure_ascii=False)))
        sys.stdout.write("\n")
        return EXIT_CLEAN
    doc = tomlkit.document()
    entries = tomlkit.aot()
    for c in citations:
        entries.append(as_toml_table({"anchor": c.anchor_text(), **c.to_dict()}))
    doc.append("citation", entries)
    sys.stdout.write(tomlkit.dumps(doc))
    return EXIT_CLEAN
