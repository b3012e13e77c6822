"""The command lines of a fenced shell block, as a shell would read them, with where each is written.

A line continued with `\\` is joined to the next; lines of `VAR=value` words
alone that a command continues (a block that sets the environment over
several lines before `pnpm dev`) are given apart, so their variables are read
where they are written and the command where its program is. The lines of a
here-document (`cat > x.py <<'EOF'` up to `EOF`) are the file's, not
commands; `# comments` are dropped; in a console block only the `$ ` lines
are commands.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from typing import NamedTuple

from anchorcheck.base.lazyregex import later
from anchorcheck.memory.chains import strip_comment
from anchorcheck.memory.installs import ENV_ASSIGNMENT

__all__ = ["ShellLine", "shell_lines"]

_HEREDOC = later(r"<<-?\s*(['\"]?)([A-Za-z_]\w*)\1")  # `cat > x.py <<'EOF'`: the lines up to EOF are the file's


class ShellLine(NamedTuple):
    """A command of the block (its text, 1-based line, 0-based column, the `VAR=value` lines it continues), or,
    with `environment`, a line of `VAR=value` words alone that a later line's command continues."""

    text: str
    line: int
    column0: int
    before: str = ""
    environment: bool = False


def shell_lines(body: list[str], first: int, only_prompts: bool) -> Iterator[ShellLine]:
    """The commands of a shell block's `body`, whose first line is line `first` of the document."""
    heredoc: str | None = None
    pending: ShellLine | None = None  # a command continued with a trailing backslash
    for number, line in enumerate(body, first):
        body_text = line.strip()
        column0 = len(line) - len(line.lstrip())
        if heredoc is not None:  # a line of the file a here-document writes, not a command
            heredoc = None if body_text == heredoc else heredoc
            continue
        opened = _HEREDOC.search(strip_comment(body_text)) if "<<" in body_text else None
        heredoc = opened.group(2) if opened else None
        if pending is not None:
            if not pending.text:  # only `VAR=value \` lines so far: the command is written from here on
                pending = pending._replace(line=number, column0=column0)
            text = f"{pending.text} {body_text.rstrip(chr(92)).strip()}".strip()
            pending = pending._replace(text=text)
        else:
            if body_text.startswith("$ "):
                column0 += 2
                body_text = body_text[2:].strip()
            elif only_prompts:
                continue
            if not body_text or body_text.startswith("#"):
                continue
            body_text = strip_comment(body_text)
            pending = ShellLine(body_text.rstrip("\\").strip(), number, column0)
        if not body_text.endswith("\\"):
            yield pending
            pending = None
        elif _assignments(pending.text):
            yield pending._replace(environment=True)
            pending = ShellLine("", number, column0, f"{pending.before}{pending.text} ")


def _assignments(text: str) -> bool:
    """Whether a line is `VAR=value` words alone."""
    try:
        words = shlex.split(text)
    except ValueError:
        return False
    return bool(words) and all(ENV_ASSIGNMENT.match(w) for w in words)
