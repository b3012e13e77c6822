"""Writing back what history can fix: a path that moved, renamed where it is written, every other byte kept.

A REFUTED `file:` result whose history gives exactly one destination carries
`details["fix"] = {"from": OLD, "to": NEW}` (repo-relative, see
`anchorcheck.verify.staleness`). Where the memory wrote it — a path in prose
as `written` (`./src/util.ts`, `src/app.py:12`, `@docs/x.md`, a path relative
to a nested memory file's folder) or a typed anchor `file:OLD` — the part
that names OLD is replaced by the same reading of NEW. Nothing is rewritten
that cannot be placed exactly: the text at the recorded line and column must
still be what was read, and a path written relative to a folder is rewritten
only when its new place is under that folder too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

from anchorcheck.model.anchors import encode_path
from anchorcheck.model.results import AnchorResult, Position


class Edit(NamedTuple):
    """Replace `old` by `new` at a 1-based line and column of a memory file."""

    line: int
    column: int
    old: str
    new: str


def edit_for(result: AnchorResult, position: Position | None) -> Edit | None:
    """The edit that writes a moved path's new place where the result's reference was written; None when
    history gave no single destination or the new place cannot be written the way the old one was."""
    fix = result.details.get("fix")
    if not isinstance(fix, dict) or position is None:
        return None
    old, new = str(fix.get("from", "")), str(fix.get("to", ""))
    if not old or not new:
        return None
    if fix.get("name"):  # a script, target or recipe renamed: the word in the command
        written = result.anchor if not result.implicit else str(result.details.get("written", ""))
        scoped = result.anchor.startswith("sym:") and "::" in written and "." not in written  # `Config::load()`
        renamed = _word_renamed(written.replace("::", ".") if scoped else written, old, new)
        if renamed is not None and scoped:  # matched as the dotted name it was read as, written back with its `::`
            renamed = renamed.replace(".", "::")
        return None if renamed is None else Edit(position.line, position.column, written, renamed)
    if not result.implicit:  # a typed anchor: `file:OLD` as the anchor text shows it
        written = result.anchor
        return Edit(position.line, position.column, written, written.replace(encode_path(old), encode_path(new), 1)) if encode_path(old) in written else None
    written = str(result.details.get("written", ""))
    renamed = _renamed(written, old, new)
    return None if renamed is None else Edit(position.line, position.column, written, renamed)


def apply(text: str, edits: Iterable[Edit]) -> tuple[str, list[Edit]]:
    """The text with every edit made whose `old` is still where it was read; and the edits made.

    A reference is read once per line, so the same words written again on that line as a whole (a link that
    shows its target, [`a.md`](a.md); `a.md` beside `./a.md`) are the same reference and are rewritten with it:
    half a link rewritten shows the new path and still leads to the old one."""
    lines = text.splitlines(keepends=True)
    wanted = {edit for edit in edits if 0 < edit.line <= len(lines) and edit.column > 0
              and lines[edit.line - 1][edit.column - 1 : edit.column - 1 + len(edit.old)] == edit.old}
    again = {Edit(edit.line, at + 1, old, new) for edit in wanted for old, new in _forms(edit) for at in _repeats(lines[edit.line - 1], old)}
    for edit in sorted(wanted | again, key=lambda e: (e.line, -e.column)):  # right to left: columns stay true
        line, at = lines[edit.line - 1], edit.column - 1
        lines[edit.line - 1] = line[:at] + edit.new + line[at + len(edit.old) :]
    return "".join(lines), sorted(wanted, key=lambda e: (e.line, e.column))


def _forms(edit: Edit) -> list[tuple[str, str]]:
    """The ways the same path is written on one line: `./a.md` and `a.md` read the same from the same file."""
    forms = [(edit.old, edit.new)]
    if edit.old.startswith("./") and edit.new.startswith("./"):
        forms.append((edit.old[2:], edit.new[2:]))
    return forms


def _repeats(line: str, old: str) -> list[int]:
    """The 0-based columns where `old` stands whole on `line`: not part of a longer path or word
    (`docs/a.md`, `a.md.bak` do not hold `a.md`)."""
    pattern = re.compile(rf"(?<![\w./@:-]){re.escape(old)}(?![\w/-]|\.\w)")
    return [match.start() for match in pattern.finditer(line)]


def _word_renamed(written: str, old: str, new: str) -> str | None:
    """`written` with the one whole-word `old` (a command's script or target name) replaced by `new`."""
    pattern = re.compile(rf"(?<![\w:-]){re.escape(old)}(?![\w:-])")
    return pattern.sub(new, written, count=1) if len(pattern.findall(written)) == 1 else None


def _renamed(written: str, old: str, new: str) -> str | None:
    """`written` with the part naming `old` replaced: the longest tail of `old` it holds is what was written,
    the rest of `old` the folder it was read from, and `new` must lie under that folder too. A path written with
    backslashes (`test\\testconfig.json`) is rewritten with backslashes."""
    if "\\" in written and "/" not in written:
        renamed = _renamed(written.replace("\\", "/"), old, new)
        return None if renamed is None else renamed.replace("/", "\\")
    parts = old.split("/")
    for start in range(len(parts)):
        tail = "/".join(parts[start:])
        at = written.find(tail)
        if at < 0:
            continue
        base = "/".join(parts[:start])
        if base and not new.startswith(base + "/"):
            return None
        rest = new[len(base) + 1 :] if base else new
        return written[:at] + rest + written[at + len(tail) :]
    return None
