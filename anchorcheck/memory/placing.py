"""Where a command runs, as the words right after it say: "`yarn test:prepare` in `dev/e2e`", "`npm run build` in web/".

The reader of implicit references (`references.py`) calls these on each command it reads; a folder they find
becomes the command's placing (read there alone) or a hint (read there first).
"""

from __future__ import annotations

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
