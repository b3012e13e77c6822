"""Where a command runs, as the words around it say: "`yarn test:prepare` in `dev/e2e`", "`npm run build` in web/", and a
lead-in over a block ("**From packages/dev-server:**").

The reader of implicit references (`references.py`) calls these on each command it reads; a folder they find
becomes the command's placing (read there alone) or a hint (read there first).
"""

from __future__ import annotations

import re

from anchorcheck.base.lazyregex import later
from anchorcheck.memory.pathtokens import folderish
from anchorcheck.model.reference import Reference

_RUNS_IN = later(r"`\s+(?:in|from|inside|within)\s+`")  # between a command's code span and a folder's
# "`pnpm run test:base` - Integration tests (in `tests/rspack-test`)": the folder closes what the sentence says of the
# command, with no other code span or sentence break between (the command's closing backtick to the folder's opening one)
_RUNS_IN_LATER = later(r"`[^`.;:!?]*(?:\(|\s)(?:in|inside|within)\s+`")
_RUNS_IN_FOLDER = later(r"[ \t]+(?:in|from|inside|within|under)[ \t]+(?:the[ \t]+)?([A-Za-z0-9_][\w.-]*(?:/[\w.-]+)*/)(?=[\s.,;:)]|$)")


def runs_in(found: list[Reference], line: str) -> None:
    """`yarn test:prepare` in `dev-packages/e2e-tests`: a folder named right after a command, joined by
    "in" or "from", is where that command runs (a hint, as a folder named before it is, and where it is placed).
    Named later in its sentence ("`pnpm test:base` - integration tests (in `tests/rspack-test`)") it is a hint only:
    the words between may speak of something else ("`make test` runs the tests in `tests/`")."""
    if len(found) < 2:
        return
    command, folder = found[-2], found[-1]
    if command.kind != "cmd" or folder.kind != "file" or command.line != folder.line or not folderish(folder.value):
        return
    between = line[command.end_column - 1 : folder.column - 1]
    if _RUNS_IN.fullmatch(between):
        found[-2] = _placed(command, folder.value)
    elif _RUNS_IN_LATER.fullmatch(between):  # said after what it does: read there first, not there alone
        found[-2] = command._replace(hints=tuple(dict.fromkeys((folder.value.rstrip("/"), *command.hints))))


def runs_in_prose(found: list[Reference], line: str) -> None:
    """"Build the bundle with `npm run build` in web/.": a folder written in plain text right after a command
    (with its trailing slash, so that "in parallel" is no folder) is where it runs, as a code span's is."""
    command = found[-1]
    if command.kind != "cmd" or command.form != "code":
        return
    folder = _RUNS_IN_FOLDER.match(line, command.end_column)  # past the closing backtick
    if folder is not None:
        found[-1] = _placed(command, folder.group(1))


def _placed(command: Reference, folder: str) -> Reference:
    return command._replace(hints=tuple(dict.fromkeys((folder.rstrip("/"), *command.hints))), placed=folder.rstrip("/"))


# A lead-in that names where the block below runs in plain words, the folder not in code ("**From packages/dev-server:**"
# over vendure's `npm run populate`): a path of two or more segments, the first lower-case (not "From CI/CD:"). Asked of
# the line with its closing emphasis and colon taken off, every quantifier possessive: nothing to backtrack.
_PLAIN_PLACE = later(r"\b(?:from|in|inside|within)\s++(?:the\s++)?+[*_]*+((?-i:[a-z0-9._@])[\w.@-]*+(?:/[\w.@-]++)++)/?+[*_]*+(?:\s++(?:directory|folder))?+$", re.I)
MOST_LEAD_IN = 300  # characters of a lead-in line asked where it places the block below: a longer one is prose


def leads_in(text: str, last: bool, placed: str) -> bool:
    """Whether a line of a paragraph at the margin introduces what follows: it ends with a colon, or it is the
    paragraph's last, says where to run (`placed`) and breaks off unfinished ("From the `mcp/` directory, run" over
    a list); emphasis around it is no part of it ("**From `web/`:**")."""
    text = text.rstrip().rstrip("*_").rstrip()
    return text.endswith(":") or last and bool(placed) and not text.endswith((".", "!", "?"))


def plain_place(text: str) -> str:
    """The folder a lead-in names in plain words ("**From packages/dev-server:**"), its emphasis and colon off; ""."""
    if "`" in text or len(text) > MOST_LEAD_IN:
        return ""
    found = _PLAIN_PLACE.search(text.strip().strip("*_").rstrip().removesuffix(":").rstrip("*_ "))
    return found.group(1) if found else ""
