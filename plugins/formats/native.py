"""The native memory format, `*.memories.toml`: ids, timestamps, status and exact citations.

For memory stores that want more than prose: each `[[memory]]` table is one
memory with an id, its text, its anchors and optional metadata; full citation
records (`[[memory.citation]]`, the fields of the lock) may ride along so the
store needs no separate lock. The format is documented in
docs/memory-format.md and docs/memory-format.schema.json.
"""

from __future__ import annotations

import datetime as dt
import re
import tomllib
from typing import Any

from anchorcheck import Memory, MemoryFormat, Position, hookimpl
from anchorcheck.plugin import LimitError, brief, toml_loads, later, MemoryFileError, header_lines
from anchorcheck_plugins.formats import editor

VERSION = 1
_TOML_AT = later(r"at line (\d+)")
_MEMORY_HEADER = later(r"^[ \t]*\[\[[ \t]*memory[ \t]*\]\]", re.MULTILINE)
_CITATION_HEADER = later(r"^[ \t]*\[\[[ \t]*memory[ \t]*\.[ \t]*citation[ \t]*\]\]", re.MULTILINE)
_OPTIONAL = {
    "status": str,
    "created": (dt.datetime, dt.date),
    "expires": (dt.datetime, dt.date),
    "resolve_after": (dt.datetime, dt.date),
    "as_of": str,
}
_KNOWN = {"id", "text", "anchors", "citation", "metadata", *_OPTIONAL}
# The fields of a banked citation (docs/citations.md, the lock's [[citation]]); lists hold strings.
_CITATION = {
    "anchor": str,
    "path": str,
    "start_line": int,
    "end_line": int,
    "sha256": str,
    "lines": list,
    "context_before": list,
    "context_after": list,
    "copies": int,
    "identity": str,
    "head": str,
    "origin": str,
    "banked_at": (str, dt.datetime, dt.date),
}
_CITATION_REQUIRED = ("path", "start_line", "end_line")


def read_native(path: str, text: str) -> list[Memory]:
    """The memories of one `*.memories.toml` file; MemoryFileError names the line of a bad entry."""
    try:
        doc = toml_loads(text)  # tomllib, bounded: tomlkit is quadratic over empty lines and raises more than ParseError
    except tomllib.TOMLDecodeError as exc:
        where = _TOML_AT.search(str(exc))
        raise MemoryFileError(path, int(where.group(1)) if where else None, f"invalid TOML: {exc}") from None
    except LimitError as exc:
        raise MemoryFileError(path, exc.line, f"invalid TOML: {exc.message}") from None
    version = doc.get("version")
    if version != VERSION:
        raise MemoryFileError(path, _line_of_key(text, "version"), f"'version' must be {VERSION}, got {brief(version)}")
    entries = doc.get("memory", [])
    if not isinstance(entries, list):
        raise MemoryFileError(path, _line_of_key(text, "memory"), "'memory' must be an array of tables: [[memory]]")
    lines = header_lines(text, _MEMORY_HEADER)
    citation_lines = header_lines(text, _CITATION_HEADER)
    memories, seen = [], {}
    for index, entry in enumerate(entries):
        line = lines[index] if index < len(lines) else None
        after = lines[index + 1] if index + 1 < len(lines) else float("inf")
        mine = [n for n in citation_lines if line is not None and line < n < after]
        memory = _memory(path, entry, line, mine)
        if memory.id in seen:
            raise MemoryFileError(path, line, f"duplicate memory id {brief(memory.id)} (first at line {seen[memory.id]})")
        seen[memory.id] = line
        memories.append(memory)
    return memories


def _memory(path: str, entry: Any, line: int | None, citation_lines: list[int]) -> Memory:
    """One [[memory]] table; `citation_lines` are the lines of its [[memory.citation]] headers."""

    def fail(message: str, at: int | None = line) -> MemoryFileError:
        return MemoryFileError(path, at, message)

    if not isinstance(entry, dict):
        raise fail("each [[memory]] must be a table")
    unknown = sorted(set(entry) - _KNOWN)
    if unknown:
        raise fail(f"unknown key {unknown[0]!r} in [[memory]] (known: {', '.join(sorted(_KNOWN))})")
    memory_id, text = entry.get("id"), entry.get("text")
    if not isinstance(memory_id, str) or not memory_id:
        raise fail("[[memory]] needs an 'id' string")
    if not isinstance(text, str):
        raise fail(f"memory {memory_id!r} needs a 'text' string")
    anchors = entry.get("anchors", [])
    if not isinstance(anchors, list) or not all(isinstance(a, str) for a in anchors):
        raise fail(f"memory {memory_id!r}: 'anchors' must be a list of strings")
    citations = entry.get("citation", [])
    if not isinstance(citations, list) or not all(isinstance(c, dict) for c in citations):
        raise fail(f"memory {memory_id!r}: 'citation' must be an array of tables: [[memory.citation]]")
    if len(citation_lines) != len(citations):  # inline tables have no header line: name the memory's
        citation_lines = [line] * len(citations)
    for citation, at in zip(citations, citation_lines):
        problem = _citation_problem(citation)
        if problem:
            raise fail(f"memory {memory_id!r}: [[memory.citation]] {problem}", at)
    metadata = entry.get("metadata", {})
    if not isinstance(metadata, dict):
        raise fail(f"memory {memory_id!r}: 'metadata' must be a table")
    metadata = {key: _json_safe(value) for key, value in metadata.items()}
    problem = _wrong_type(entry, _OPTIONAL)
    if problem:
        raise fail(f"memory {memory_id!r}: {problem}")
    metadata.update({key: _json_safe(entry[key]) for key in _OPTIONAL if key in entry})
    if citations:
        metadata["citations"] = [dict(c) for c in citations]
    return Memory(
        text=text,
        anchors=list(anchors),
        id=memory_id,
        metadata=metadata,
        source=path,
        position=Position(line) if line else None,
        anchor_positions=[Position(line) if line else None for _ in anchors],
    )


def _citation_problem(record: dict[str, Any]) -> str | None:
    """What is wrong with the shape of a [[memory.citation]] table (its values are judged when verified)."""
    unknown = sorted(set(record) - set(_CITATION))
    if unknown:
        return f"has unknown key {unknown[0]!r} (known: {', '.join(_CITATION)})"
    missing = [key for key in _CITATION_REQUIRED if key not in record]
    if missing:
        return f"needs {missing[0]!r}"
    wrong = _wrong_type(record, _CITATION)
    return f"field {wrong}" if wrong else None


def _wrong_type(table: dict[str, Any], types: dict[str, Any]) -> str | None:
    """`'key' has the wrong type (T)` for the first key of `table` not of its type in `types`, else None."""
    for key, expected in types.items():
        if key not in table:
            continue
        value = table[key]
        if not isinstance(value, expected) or (isinstance(value, bool) and expected is int):
            return f"{key!r} has the wrong type ({type(value).__name__})"
        if isinstance(value, list) and not all(isinstance(item, str) for item in value):
            return f"{key!r} must be a list of strings"
    return None


def _json_safe(value: Any) -> Any:
    """Dates and times become ISO 8601 text so reports and JSON output can carry them."""
    if isinstance(value, (dt.datetime, dt.date)):
        text = value.isoformat()
        return text.replace("+00:00", "Z") if isinstance(value, dt.datetime) else text
    return value


def _line_of_key(text: str, key: str) -> int | None:
    match = re.search(rf"^[ \t]*{re.escape(key)}[ \t]*=", text, re.MULTILINE)
    return text.count("\n", 0, match.start()) + 1 if match else None


@hookimpl
def register_memory_formats(register):  # noqa: ANN001, ANN201 - hook signature
    register(
        MemoryFormat(
            name="native",
            rename=editor("native_edit", "rename_native"),
            insert=editor("native_edit", "insert_native"),
            read=read_native,
            patterns=("*.memories.toml",),
            matches=lambda path: path.endswith(".memories.toml"),
            summary="anchorcheck's structured memories: [[memory]] tables with ids, anchors and citations",
        )
    )
