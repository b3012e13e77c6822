"""Writing anchors back into the MCP memory server's `memory.jsonl`, every other byte kept.

Anchors live in an entity's observation strings, as code spans. The edits
work on the raw JSON text of each observation literal (found with the
standard library's own string scanner), so the rest of the line — key
order, spacing, how other characters are escaped — is left as it was:

- rename: `` `old` `` becomes `` `new` `` inside an observation;
- insert: `` `anchor` `` is appended to the end of the observation.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from json.decoder import scanstring

_DECODER = json.JSONDecoder()
_SPACE = " \t\r\n"


def rename_jsonl(path: str, text: str, renames: Mapping[str, str]) -> tuple[str, list[tuple[int, str]]]:
    """Rewrite every code span `old` in an observation as `new`; (line, old anchor) of each."""
    lines = text.splitlines(keepends=True)
    changed = []
    for number, line in enumerate(lines, start=1):
        new = line
        for _, start, end in reversed(list(_observations(line))):
            raw = new[start:end]
            for old, replacement in renames.items():
                written = f"`{_escaped(old)}`"
                if written in raw:
                    raw = raw.replace(written, f"`{_escaped(replacement)}`")
                    changed.append((number, old))
            new = new[:start] + raw + new[end:]
        lines[number - 1] = new
    return "".join(lines), changed


def insert_jsonl(path: str, text: str, additions: Mapping[str, Sequence[tuple[str, str | None]]]) -> str:
    """Append anchors to the observations named by id (`ENTITY#N`, as the reader names them)."""
    lines = text.splitlines(keepends=True)
    for number, line in enumerate(lines, start=1):
        new = line
        for memory_id, _, end in reversed(list(_observations(line))):
            wanted = additions.get(memory_id, ())
            if wanted:
                added = _escaped("".join(f" `{anchor}`" for anchor, _ in wanted))
                new = new[: end - 1] + added + new[end - 1 :]
        lines[number - 1] = new
    return "".join(lines)


def _escaped(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)[1:-1]


def _observations(line: str) -> Iterator[tuple[str, int, int]]:
    """(memory id, start, end) of each observation string literal of an entity line, quotes included."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError:
        return
    if not isinstance(record, dict) or record.get("type") != "entity" or not isinstance(record.get("name"), str):
        return
    at = _skip(line, line.index("{") + 1)
    while at < len(line) and line[at] == '"':
        key, at = scanstring(line, at + 1)
        at = _skip(line, _skip(line, at) + 1)  # past the colon
        if key == "observations" and line[at] == "[":
            yield from _literals(line, _skip(line, at + 1), record["name"])
        _, at = _DECODER.raw_decode(line, at)
        at = _skip(line, at)
        at = _skip(line, at + 1) if line[at] == "," else at


def _literals(line: str, at: int, name: str) -> Iterator[tuple[str, int, int]]:
    index = 0
    while line[at] == '"':
        _, end = scanstring(line, at + 1)
        index += 1
        yield f"{name}#{index}", at, end
        at = _skip(line, end)
        at = _skip(line, at + 1) if line[at] == "," else at


def _skip(line: str, at: int) -> int:
    while at < len(line) and line[at] in _SPACE:
        at += 1
    return at
