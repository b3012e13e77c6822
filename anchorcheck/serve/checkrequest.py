"""A check server's request, read and bounded before anything acts on it.

A request is JSON from a process of the same user, but a stale, buggy or hostile client must cost only
its own answer: one `"umask": 1e400` (an `OverflowError` in `int`) or a terminal 1e400 columns wide
killed the server. Every field is checked for its type and range here, and a request that fails
gets a refusal naming the field (`BadRequest`); the server goes on serving.
"""

from __future__ import annotations

import codecs

MAX_WORDS = 4096  # words of a check: a command line
MAX_WIDTH = 10_000  # terminal columns
MAX_ENCODING = 64  # characters of an encoding's name


class BadRequest(ValueError):
    """What is wrong with a request, as the refusal says it."""


class CheckRequest:
    """The fields of a `check` request, each of its type and in its range."""

    __slots__ = ("argv", "cwd", "umask", "width", "tty", "out_encoding", "err_encoding")

    def __init__(self, argv: list[str], cwd: str, umask: int, width: int, tty: bool, out_encoding: str | None, err_encoding: str | None) -> None:
        self.argv, self.cwd, self.umask, self.width = argv, cwd, umask, width
        self.tty, self.out_encoding, self.err_encoding = tty, out_encoding, err_encoding

    @classmethod
    def read(cls, message: dict[str, object]) -> CheckRequest:
        """The request `message` holds; BadRequest naming the first field that is missing or wrong."""
        argv = message.get("check")
        if not isinstance(argv, list) or len(argv) > MAX_WORDS or not all(isinstance(word, str) and "\0" not in word for word in argv):
            raise BadRequest(f"check: not a list of at most {MAX_WORDS} words")
        cwd = message.get("cwd")
        if not isinstance(cwd, str) or not cwd or "\0" in cwd:
            raise BadRequest("cwd: not a folder's path")
        terminal = message.get("terminal")
        if not isinstance(terminal, list) or len(terminal) != 4 or not isinstance(terminal[0], bool):
            raise BadRequest("terminal: not [is a tty, stdout encoding, stderr encoding, width]")
        return cls(argv, cwd, _whole(message.get("umask"), "umask", 0, 0o777), _whole(terminal[3], "terminal width", 1, MAX_WIDTH), terminal[0], _encoding(terminal[1]), _encoding(terminal[2]))


def _whole(value: object, name: str, low: int, high: int) -> int:
    """An integer in [low, high]: not a float (1e400 is one), not a bool."""
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise BadRequest(f"{name}: not a whole number from {low} to {high}")
    return value


def _encoding(value: object) -> str | None:
    """A stream's encoding: None, or the name of one Python knows (a check's output may be encoded with it)."""
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > MAX_ENCODING:
        raise BadRequest("terminal: an encoding is not a name")
    try:
        codecs.lookup(value)
    except LookupError:
        raise BadRequest(f"terminal: no encoding {value!r}") from None
    return value
