"""TOML and JSON parsing whose cost is bounded on hostile input, and error text of bounded length.

A repository's files are untrusted: a memory checker runs in CI and inside
agents on repositories nobody vetted. The standard parsers are fine on what
people write, but three inputs make them fail in ways a user must never see:

- a TOML dotted key of thousands of parts (`a.a.a.....= 1`) makes tomllib
  keep a key tuple for every prefix of it, quadratic in the key's length:
  40 KB of text became 1.5 GB. A pre-scan bounds the key-path slots a file
  may make tomllib build, before it parses;
- an integer of more than 4,300 digits raises a bare ValueError (Python's
  int-to-str limit), and nesting deeper than the recursion limit raises
  RecursionError. Both become `LimitError` naming the line.

Callers turn `LimitError` (and the parser's own syntax error, which passes
through untouched) into their documented error: ManifestError for a
manifest, LockError for the lock, MemoryFileError for a memory file.
"""

from __future__ import annotations

import json
import re
import reprlib
import tomllib
from collections.abc import Callable
from typing import Any

from anchorcheck.base.lazyregex import later

# Key-path slots (8 bytes each) tomllib may build for dotted keys: ~16 MB. Real files use a few per line.
TOML_KEY_BUDGET = 2_000_000
_LONG_NUMBER = later(r"\d{4000,}")  # near Python's 4,300-digit int conversion limit
_brief = reprlib.Repr()
_brief.maxstring = _brief.maxother = 60
_brief.maxlist = _brief.maxdict = _brief.maxtuple = _brief.maxset = 4
_brief.maxlevel = 2


class LimitError(ValueError):
    """Input past what anchorcheck parses: too deeply nested, a number too long, a dotted key too long."""

    def __init__(self, message: str, line: int | None = None) -> None:
        self.message, self.line = message, line
        super().__init__(message if line is None else f"line {line}: {message}")


def brief(value: object) -> str:
    """A repr short enough for a one-line error, whatever the value holds."""
    return _brief.repr(value)


def toml_loads(text: str) -> dict[str, Any]:
    """`tomllib.loads` after the dotted-key budget check; TOMLDecodeError passes through (saying so when the
    file is TOML 1.1, which tomllib cannot read), LimitError for the rest."""
    check_toml_keys(text)
    try:
        return _bounded(tomllib.loads, tomllib.TOMLDecodeError, text)
    except tomllib.TOMLDecodeError as exc:
        message, at, where = str(exc).partition(" (at line ")
        if at and _in_inline_table(text, where):
            raise tomllib.TOMLDecodeError(f"{message}: {TOML_11} (at line {where}") from None
        raise


TOML_11 = "a newline or trailing comma in an inline table `{ … }` is TOML 1.1, which this TOML 1.0 reader cannot read yet"


def _in_inline_table(text: str, where: str) -> bool:
    """Whether the error `(at line L, column C)` falls inside an inline table opened on its line."""
    found = re.match(r"(\d+), column (\d+)", where)
    if found is None:
        return False
    lines = text.split("\n", int(found.group(1)))
    before = lines[int(found.group(1)) - 1][: int(found.group(2)) - 1] if len(lines) >= int(found.group(1)) else ""
    return before.count("{") > before.count("}")


def json_loads(text: str) -> Any:
    """`json.loads`; JSONDecodeError passes through, LimitError for nesting and over-long numbers."""
    return _bounded(json.loads, json.JSONDecodeError, text)


def _bounded(parse: Callable[[str], Any], syntax_error: type[ValueError], text: str) -> Any:
    try:
        return parse(text)
    except syntax_error:
        raise
    except RecursionError:
        raise LimitError("nested too deeply") from None
    except ValueError as exc:  # Python's limit on the digits of an int
        raise LimitError(f"a number too long to read ({str(exc).split(':')[0]})", long_number_line(text)) from None


def long_number_line(text: str) -> int | None:
    """The line of the first run of digits long enough to trip the int conversion limit."""
    found = _LONG_NUMBER.search(text)
    return text.count("\n", 0, found.start()) + 1 if found else None


def check_toml_keys(text: str) -> None:
    """Raise LimitError when the dotted keys would make tomllib build more than TOML_KEY_BUDGET slots.

    For a key of k parts under a table header of h parts, tomllib keeps the
    k - 1 prefixes `header + key[:i]`, (k - 1) * (h + k) slots at most. A key
    (and a header) sits on one line; a line inside a multi-line string that
    looks like one is counted too, which can only overestimate. h is the
    largest header seen so far, so no line can hide a long header from the count.
    """
    spent, header = 0, 1
    for number, line in enumerate(text.split("\n"), 1):
        if "." not in line:
            continue
        stripped = line.lstrip()
        if stripped.startswith("["):
            header = max(header, _parts(stripped.lstrip("["), "]"))
            continue
        parts = _parts(stripped, "=")
        if parts > 1:
            spent += (parts - 1) * (header + parts)
            if spent > TOML_KEY_BUDGET:
                raise LimitError("dotted keys with too many parts (a key-nesting bomb)", number)


def _parts(text: str, stop: str) -> int:
    """The dot-separated parts of the key before `stop`, quotes respected; 0 when `stop` never comes.
    Quotes after the first `stop` (a value's, as in most lines of a lockfile) cannot hide it: only a
    quote before it sends the line to the character-by-character reading."""
    head, found, _ = text.partition(stop)
    if not found:
        return 0
    key = head if '"' not in head and "'" not in head else _unquoted_prefix(text, stop)
    return key.count(".") + 1 if key is not None else 0


def _unquoted_prefix(text: str, stop: str) -> str | None:
    """The text before the first `stop` outside quotes, with quoted runs blanked; None when there is none."""
    out, quote, i = [], "", 0
    while i < len(text):
        char = text[i]
        if quote:
            if char == "\\" and quote == '"':
                i += 1
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == stop:
            return "".join(out)
        else:
            out.append(char)
        i += 1
    return None
