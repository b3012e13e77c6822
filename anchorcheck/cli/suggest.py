"""`anchorcheck suggest [FILE|DIR|GLOB...]` — propose typed anchors for the memories, and write them.

Each memory's text is read for forms that name code (see
`anchorcheck.verify.suggestions`); an anchor is proposed only when it verifies now,
and never one that `check` already reads from the text as an implicit reference
(a path in inline code, a command). `--write` inserts the proposals into the
memory files through each format's own writer (every other byte kept; in
Markdown at the end of the bullet or paragraph) and banks proposed spans into
`anchorcheck.lock`, all files written together (`anchorcheck.memory.journal`); a
second run then proposes nothing new. A file that only imports others
(`@AGENTS.md`) is never rewritten: its memories are those of the files it imports.
`--diff` prints the change as a unified diff and writes nothing. Exit 0, or
1 with `--check` when there are proposals (for CI), 2 for usage errors.
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
from pathlib import Path
from typing import Any, TextIO

from anchorcheck.base.printable import json_safe, printable
from anchorcheck.cli.common import EXIT_CLEAN, EXIT_FAILED, add_memory_files, add_root, make_verifier

_IMPORT = re.compile(r"(?:@\S+\s*)+")  # `@AGENTS.md`, `@docs/a.md @docs/b.md`: Claude Code's imports


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("suggest", help="propose typed anchors that hold now for the memories (and write them)")
    add_memory_files(parser, "the known memory files of the repository")
    add_root(parser)
    parser.add_argument("--format", default="text", choices=["text", "json"], help="output format")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--write", action="store_true", help="insert the proposed anchors into the memory files and bank spans")
    what.add_argument("--diff", action="store_true", help="print the change as a unified diff, write nothing")
    parser.add_argument("--check", action="store_true", help="exit 1 when anything is proposed")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from anchorcheck.memory.journal import Batch
    from anchorcheck.memory.lockfile import LOCK_NAME, dumps, load_lock
    from anchorcheck.memory.memoryfiles import load
    from anchorcheck.verify.suggestions import Suggester
    from anchorcheck.memory.writeback import insert_anchors, real_path

    verifier = make_verifier(args)
    lock = load_lock(verifier.root)
    suggester = Suggester(verifier, implicit_checked=True)
    rows: list[dict[str, Any]] = []
    edits: list[tuple[Path, str, str, str]] = []  # path, shown, before, after
    progress = _Progress(sys.stderr)
    for shown, memories in load(args.files, verifier.repo, verifier.registry, verifier.config.memory_files):
        if _imports_only(memories):
            continue
        additions: dict[str, list[tuple[str, str | None]]] = {}
        for at, memory in enumerate(memories, 1):
            progress.show(f"{shown}: memory {at} of {len(memories)}")
            written = [a if isinstance(a, str) else a.anchor_text() for a in memory.anchors]
            found = suggester.suggest(memory.text, written + list(_own_citation_anchors(memory)), _folder(Path(shown), verifier.root))
            if not found:
                continue
            line = memory.position.line if memory.position else None
            rows.append({"memory_file": shown, "memory_id": memory.id, "line": line, "text": memory.text, "suggestions": found})
            additions[str(memory.id)] = [(s.anchor, s.mention) for s in found]
            for s in found:
                if s.citation is not None and s.anchor not in lock.entries:
                    lock.entries[s.anchor] = s.citation
        if additions and (args.write or args.diff):
            target = real_path(Path(shown))
            if any(real_path(path) == target for path, *_ in edits):
                continue  # a symlink to a file already edited (CLAUDE.md -> AGENTS.md): its memories are the same
            before, after = insert_anchors(Path(shown), shown, additions, verifier.registry, verifier.root)
            edits.append((Path(shown), shown, before, after))
    progress.show("")
    banked = any(s.citation is not None for row in rows for s in row["suggestions"])
    if args.diff:
        for _, shown, before, after in edits:
            sys.stdout.writelines(difflib.unified_diff(before.splitlines(True), after.splitlines(True), f"a/{shown}", f"b/{shown}"))
        if banked:
            old = lock.path.read_text(encoding="utf-8") if lock.path.exists() else ""
            sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), dumps(lock).splitlines(True), f"a/{LOCK_NAME}", f"b/{LOCK_NAME}"))
    elif args.write:
        batch = Batch(verifier.root)
        for path, _, before, after in edits:
            if after != before:
                batch.put(real_path(path), after)
        if banked:
            batch.put(lock.path, dumps(lock))
        batch.commit()
    if not args.diff:
        _report(rows, args.format, args.write)
    return EXIT_FAILED if args.check and rows else EXIT_CLEAN


class _Progress:
    """One line on a terminal's stderr saying which memory is read: a cold first run on a large
    checkout parses the files that may hold the names the text gives, and that can take seconds.
    Nothing when stderr is not a terminal (pipes, CI logs)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream if stream.isatty() else None
        self.width = 0

    def show(self, line: str) -> None:
        if self.stream is None:
            return
        self.stream.write("\r" + line.ljust(self.width) + ("" if line else "\r"))
        self.stream.flush()
        self.width = len(line)


def _imports_only(memories: list[Any]) -> bool:
    """Whether a file's every memory is an import line (`@AGENTS.md`): a one-line pointer, nothing to anchor."""
    return bool(memories) and all(_IMPORT.fullmatch(memory.text.strip()) for memory in memories)


def _folder(path: Path, root: Path) -> str:
    """The repo-relative folder of a memory file ("" at the root or outside the checkout)."""
    try:
        rel = path.resolve().parent.relative_to(root.resolve()).as_posix()
    except ValueError:
        return ""
    return "" if rel == "." else rel


def _own_citation_anchors(memory: Any) -> list[str]:
    """The span anchors a native memory's own citations stand for (already banked with it)."""
    from anchorcheck.model.citation import Citation

    out = []
    for record in memory.metadata.get("citations", []) or []:
        if isinstance(record, dict):
            key = record.get("anchor")
            out.append(key if isinstance(key, str) else Citation.from_dict(record).anchor_text())
    return out


def _report(rows: list[dict[str, Any]], fmt: str, written: bool) -> None:
    count = sum(len(row["suggestions"]) for row in rows)
    if fmt == "json":
        data = {
            "memories": [{**row, "suggestions": [s.to_dict() for s in row["suggestions"]]} for row in rows],
            "summary": {"proposed": count, "memories": len(rows), "written": written},
        }
        sys.stdout.write(json_safe(json.dumps(data, indent=2, ensure_ascii=False)))
        sys.stdout.write("\n")
        return
    for row in rows:
        where = f"{row['memory_file']}:{row['line']}" if row["line"] else row["memory_file"]
        for s in row["suggestions"]:
            print(printable(f"{where}: {s.anchor} — {s.reason} ({s.confidence})"))
    verb = "Wrote" if written else "Proposed"
    print(f"{verb} {count} anchor{'s' if count != 1 else ''} for {len(rows)} memor{'y' if len(rows) == 1 else 'ies'}.")
