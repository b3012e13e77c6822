"""Writing anchors back into `*.memories.toml`: the `anchors` arrays, through tomlkit.

tomlkit keeps comments, ordering and layout, so only the array elements
that change are rewritten; a file with nothing to change is returned as it
was, byte for byte. A memory whose own `[[memory.citation]]` carries an
anchor keeps that anchor's text: the citation is what it names, and
`relocate` updates it where it is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from anchorcheck.plugin import header_lines

_MEMORY_HEADER = re.compile(r"^[ \t]*\[\[[ \t]*memory[ \t]*\]\]", re.MULTILINE)


def rename_native(path: str, text: str, renames: Mapping[str, str]) -> tuple[str, list[tuple[int, str]]]:
    """Rewrite the `anchors` elements that are keys of `renames`; (line of the memory, old anchor) of each."""
    import tomlkit  # only a write-back needs it, not every read of the format

    doc = tomlkit.parse(text)
    lines = header_lines(text, _MEMORY_HEADER)
    changed = []
    for index, table in enumerate(_memories(doc)):
        anchors = table.get("anchors")
        own = {c.get("anchor") for c in table.get("citation", []) if hasattr(c, "get")}
        if anchors is None:
            continue
        for position, anchor in enumerate(list(anchors)):
            if anchor in renames and anchor not in own:
                anchors[position] = renames[anchor]
                changed.append((lines[index] if index < len(lines) else 1, anchor))
    return (tomlkit.dumps(doc) if changed else text), changed


def insert_native(path: str, text: str, additions: Mapping[str, Sequence[tuple[str, str | None]]]) -> str:
    """Append anchors to the `anchors` array of the memories with those ids (creating it if absent)."""
    import tomlkit

    doc = tomlkit.parse(text)
    touched = False
    for table in _memories(doc):
        wanted = [anchor for anchor, _ in additions.get(str(table.get("id")), ())]
        if not wanted:
            continue
        if table.get("anchors") is None:
            table["anchors"] = tomlkit.array()
        table["anchors"].extend(wanted)
        touched = True
    return tomlkit.dumps(doc) if touched else text


def _memories(doc: Any) -> list[Any]:
    memories = doc.get("memory")
    return [m for m in memories if hasattr(m, "get")] if isinstance(memories, list) else []
