"""The calls of a command line that chains several (`pnpm install && pnpm build`, `make a; make b`, `npm test | tee x`).

Each call of a chain is a command of its own, read like the first: the second
call of `pnpm run db:migrate && pnpm run generate` claims the script
`generate` as much as a line of its own would. A `cd DIR` in the chain moves
the calls after it, so it is kept as their prefix (`cd web && pnpm build`
then `cd web && pnpm test`), the form the `cmd:` kind reads. Only the text is
split, as a shell splits it at its control operators outside quotes; a line
with a subshell, a command substitution, an unbalanced quote or a bar glued
between two words (`-t bug|feature|task`, a usage line's choice of values) is
not split (what runs where cannot be told from the words).

The rest reads one call's text as a shell would before it runs anything: its
`# comment` (`strip_comment`) and the `VAR=value` words before its program
whose value the shell expands (`unexpanded`).
"""

from __future__ import annotations

import shlex

from anchorcheck.base.lazyregex import later
from anchorcheck.memory.installs import install

__all__ = ["calls", "cd_form", "scoped_calls", "strip_comment", "unexpanded"]

# The `VAR=value` words before a command's program (a value quoted with spaces too), and one of them.
_PREFIX = later(r"\s*(?:[A-Za-z_]\w*=(?:\"[^\"]*\"|'[^']*'|[^\s'\"]*)\s+)+")
_PREFIX_WORD = later(r"([A-Za-z_]\w*=)(\"[^\"]*\"|'[^']*'|[^\s'\"]*)")

_OPERATORS = ("&&", "||", ";", "|", "&")  # longest first where one starts another
_OPAQUE = "()`"  # a subshell or a command substitution: the calls inside it run elsewhere


def calls(command: str) -> list[tuple[int, str]] | None:
    """The calls of a command line, each with the offset it starts at, in order; None when the line cannot be
    split safely. A line without a control operator is one call."""
    found: list[tuple[int, str]] = []
    quote = ""
    start = index = 0
    while index < len(command):
        char = command[index]
        if char == "\\" and quote != "'":
            index += 2
            continue
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in _OPAQUE or command.startswith("$(", index):
            return None
        elif char in "&|;" and not _redirection(command, index):
            operator = next(op for op in _OPERATORS if command.startswith(op, index))
            if operator == "|" and _glued(command, index):
                return None
            found.append((start, command[start:index]))
            index += len(operator)
            start = index
            continue
        index += 1
    if quote:
        return None
    found.append((start, command[start:]))
    return [(offset + len(part) - len(part.lstrip()), part.strip()) for offset, part in found if part.strip()]


def _glued(command: str, index: int) -> bool:
    """Whether the `|` at `index` touches a word on both sides (`-t bug|feature|task`): a usage line's choice of values
    as often as a pipe, so which program runs after it cannot be told from the words (beads' `bd create ... -t
    bug|feature|task -p 0-4` read `task -p 0-4` as a call of its own)."""
    before, after = command[index - 1 : index], command[index + 1 : index + 2]
    return bool(before) and bool(after) and not before.isspace() and not after.isspace() and after not in "|&"


def _redirection(command: str, index: int) -> bool:
    """Whether the `&` at `index` is part of a redirection (`2>&1`, `&> log`, `>& log`) rather than an operator."""
    return command[index] == "&" and (command[index - 1 : index] in (">", "<") or command[index + 1 : index + 2] == ">")


def scoped_calls(command: str) -> list[tuple[int, str, str]] | None:
    """The calls of a chained command line that are not `cd`, each as (offset, call, the `cd ... && ` calls before
    it); None when the line is one call or cannot be split. The calls after a `cd` that follows another call, or a
    second `cd`, are left out: that call may have made the folder the `cd` enters (`mkdir out && cd out && make`)."""
    parts = calls(command)
    if parts is None or len(parts) < 2:
        return None
    found: list[tuple[int, str, str]] = []
    prefix = ""
    for offset, part in parts:
        try:
            words = shlex.split(part)
        except ValueError:
            return found
        if words[:1] in (["cd"], ["pushd"], ["popd"]):
            if found or prefix or words[0] != "cd":
                break  # a `cd` after a call (or a second one): where the rest runs is not read
            prefix += f"{part} && "
            continue
        found.append((offset, part, prefix))
    return found


def cd_form(command: str) -> bool:
    """`cd DIR && a && b`: a line the `cmd:` kind reads whole, each call from DIR (only `&&` after the `cd`). Not when
    one of its calls installs (`cd ui && pnpm install && pnpm dev`): an install is read for its packages, not as a
    command, so the line is read call by call, each from DIR, and the calls after the install stay claims."""
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    if words[:1] != ["cd"] or words[2:3] != ["&&"] or any(w in ("||", "|", ";") or w.endswith(";") for w in words):
        return False
    return not any(install(shlex.split(call)) is not None for _, call in calls(command) or [])


def unexpanded(command: str) -> str:
    """The command with the `VAR=value` prefixes whose value expands a variable (`URL="$BASE/x" pnpm dev`) set to a plain
    word: the shell fills them in, nobody has to, so the command stays a claim (a `VAR=<x>` prefix stays a placeholder)."""
    prefix = _PREFIX.match(command)
    if prefix is None:
        return command
    plain = _PREFIX_WORD.sub(lambda m: m.group(1) + ("set" if "$" in m.group(2) else m.group(2)), prefix.group())
    return plain + command[prefix.end() :]


def strip_comment(body: str) -> str:
    """A shell line without its trailing ` # comment` (a `#` inside quotes or a word is kept).

    Read left to right as a shell reads it: the first `#` that starts a word outside quotes starts the comment,
    whatever the comment holds after it. A comment's own quote (`# don't skip`, `# see "Build"`) is prose, not
    an open string: a test of what follows the `#` took it for one, kept the comment as arguments, and an
    apostrophe there left the line unreadable, so the command was dropped and its drift went unseen."""
    quote, escaped = "", False
    for at, char in enumerate(body):
        if escaped:
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True
        elif quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and at and body[at - 1] in " \t":
            return body[:at].rstrip()
    return body
