"""Text from a repository or a store made safe to print: no control character reaches a terminal.

A file name, a quoted line, a reason naming either, a replayed report: all may hold escape
sequences that a terminal (or a CI log viewer, which renders ANSI) obeys: set the window title,
move the cursor, rewrite earlier lines, hide text. Every text output passes what it did not
write itself through `printable`, which removes escape sequences whole (CSI, OSC and the other
string commands up to their terminator or the line's end, two-byte escapes), the other C0
controls but newline and tab, DEL, and the C1 controls. JSON needs `json_safe` only: it
escapes C0 itself, but not DEL and C1.
"""

from __future__ import annotations

from anchorcheck.base.lazyregex import later

# One alternation, each branch linear: a string command (OSC, DCS, SOS, PM, APC) runs to BEL, ST or
# the line's end; a CSI to its final byte; any other escape takes its intermediates and final byte.
_CONTROL = later(
    r"(?P<sgr>\x1b\[[0-9;]*m)"
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?"
    r"|(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?"
    r"|\x1b[\x20-\x2f]*[\x30-\x7e]?"
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"
)
_ANY = later(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_JSON_UNSAFE = later(r"[\x7f-\x9f]")


def printable(text: str, *, colours: bool = False) -> str:
    """`text` without control characters (newline and tab kept); with `colours`, SGR sequences (`ESC [ ... m`,
    which only colour text) are kept: for a report anchorcheck rendered and stored itself."""
    if _ANY.search(text) is None:
        return text
    if colours:
        return _CONTROL.sub(lambda found: found.group("sgr") or "", text)
    return _CONTROL.sub("", text)


def json_safe(text: str) -> str:
    """JSON text with DEL and the C1 controls written as `\\u` escapes: the same value to any JSON reader
    (outside strings JSON holds only ASCII), nothing a terminal obeys when it is printed."""
    return _JSON_UNSAFE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)
