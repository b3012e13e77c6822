"""Commands written with a value to fill in whose filled-in value cannot change what they claim.

`pnpm test-types <filename>` runs the script test-types whatever file is filled in (`just stream-test <target>` the
recipe stream-test: whether the recipe takes it as an argument or as another recipe, stream-test must be one), and `scripts/build.sh <target>`
runs that file of the checkout whatever target is: the placeholder is dropped and the rest is read as usual. Only
these two shapes: a runner may read an extra word as part of the name (`pnpm <script>`, `make <target>`,
`yarn workspace <name> build`, `pnpm --filter <pkg> build`, `cd <dir>`), and there the line stays unread.
"""

from __future__ import annotations

import itertools
import re
import shlex
from typing import NamedTuple

from anchorcheck.memory.pathtokens import placeholder_word, program_path


class Filled(NamedTuple):
    """The command without its placeholders, and whether only its program's path is a claim (not the call)."""

    command: str
    path_only: bool


# `pnpm NAME`/`yarn NAME` run the script NAME unless NAME is one of their own commands; these read the next word as
# the name of what they run or where (`pnpm exec <bin>`, `yarn workspace <pkg> build`), or install what follows.
_NOT_SCRIPTS = frozenset(
    "run run-script rum urn exec dlx x workspace workspaces recursive m multi add install i remove rm un uninstall "
    "update up upgrade create init link ln unlink patch why global".split()
)
_SCRIPT_NAME = re.compile(r"[A-Za-z][\w:.@-]*")
_SHELL = frozenset("$`;&|()")


def _fill_in(word: str) -> bool:
    """A word that only stands for a value to fill in (`<file>`, `path/to/x`), with nothing the shell would run;
    not `...`, which may be pnpm's graph syntax (`pnpm build ...`) or "and so on"."""
    return placeholder_word(word) and not _SHELL & set(word) and "..." not in word and "…" not in word


def _name_at(words: list[str]) -> int | None:
    """Where the script name is in a package-manager script call (`pnpm NAME`, `pnpm run NAME`, `npm run NAME`,
    `yarn NAME`, `bun run NAME`) or a just recipe call (`just NAME`), or None for any other line."""
    tool = words[0]
    if tool in ("npm", "bun", "pnpm", "yarn") and len(words) > 2 and words[1] in ("run", "run-script"):
        at = 2
    elif tool in ("pnpm", "yarn") and len(words) > 1 and words[1] not in _NOT_SCRIPTS:
        at = 1
    elif tool == "just" and len(words) > 1:
        at = 1
    else:
        return None
    return at if _SCRIPT_NAME.fullmatch(words[at]) else None


def filled(command: str, before: str = "") -> Filled:
    """The command (run after `before`, a `cd DIR && ` or `VAR=value` lines) read without its placeholders, when it
    has some and they cannot change what it claims; else the whole line as written (the placeholders then keep it
    unread)."""
    found = _filled(command) if not before else None
    return Filled(before + command, False) if found is None else found


def _filled(command: str) -> Filled | None:
    try:
        words = shlex.split(command, comments=False)
    except ValueError:
        return None
    if not words or not any(_fill_in(w) for w in words[1:]):
        return None
    name = _name_at(words)
    path_only = name is None
    first = 1 if path_only else name + 1
    if path_only and program_path(words[0]) is None:
        return None
    if any(placeholder_word(w) and not _fill_in(w) or _SHELL.issuperset(w) for w in words) or any(_fill_in(w) for w in words[:first]):
        return None
    if path_only:
        return Filled(shlex.join(w for w in words if not _fill_in(w)), True)
    # what follows the name goes to the script (npm alone reads its own options there, before a `--`)
    rest = list(itertools.takewhile(lambda w: w != "--", words[first:]))
    if words[0] == "npm" and any(w.startswith("-") for w in rest):
        return None
    return Filled(shlex.join(words[:first]), False)
