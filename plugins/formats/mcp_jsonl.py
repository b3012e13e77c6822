"""The knowledge graph of the MCP reference memory server (`memory.jsonl`).

The server (modelcontextprotocol/servers, `src/memory`) stores one JSON object
per line: `{"type": "entity", "name", "entityType", "observations": [str]}`
or `{"type": "relation", "from", "to", "relationType"}`. Each observation is
one memory, and its anchors are the code spans written inside it
(`"Caches with Redis `pkg:pypi/redis`"`); relations carry no claims about
code and are skipped. Results point at the entity's line.
"""

from __future__ import annotations

import json

from anchorcheck import Memory, MemoryFormat, Position, hookimpl
from anchorcheck.plugin import LimitError, brief, json_loads, MemoryFileError, code_span_anchors
from anchorcheck_plugins.formats import editor


def read_mcp_jsonl(path: str, text: str) -> list[Memory]:
    """One memory per entity observation; a malformed line is an error naming that line."""
    memories: list[Memory] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json_loads(line)
        except json.JSONDecodeError as exc:
            raise MemoryFileError(path, number, f"invalid JSON: {exc.msg} (column {exc.colno})") from None
        except LimitError as exc:
            raise MemoryFileError(path, number, f"invalid JSON: {exc.message}") from None
        if not isinstance(record, dict) or not isinstance(record.get("type"), str):
            raise MemoryFileError(path, number, "expected an object with a 'type' (entity or relation)")
        if record["type"] == "entity":
            memories.extend(_entity(path, number, line, record))
        elif record["type"] != "relation":
            raise MemoryFileError(path, number, f"unknown record type {brief(record['type'])} (expected entity or relation)")
    return memories


def _entity(path: str, number: int, raw: str, record: dict) -> list[Memory]:
    name, observations = record.get("name"), record.get("observations", [])
    if not isinstance(name, str) or not name:
        raise MemoryFileError(path, number, "an entity needs a 'name' string")
    if not isinstance(observations, list) or not all(isinstance(o, str) for o in observations):
        raise MemoryFileError(path, number, f"entity {brief(name)}: 'observations' must be a list of strings")
    memories = []
    for index, observation in enumerate(observations):
        anchors, positions = [], []
        for content, _ in code_span_anchors(observation):
            anchors.append(content)
            positions.append(Position(number, _column(raw, content)))
        memories.append(
            Memory(
                text=f"{name}: {observation}",
                anchors=anchors,
                id=f"{name}#{index + 1}",
                metadata={"entity": name, "entityType": record.get("entityType"), "observation": index + 1},
                source=path,
                position=Position(number),
                anchor_positions=positions,
            )
        )
    return memories


def _column(raw: str, content: str) -> int:
    """Where the anchor sits in the raw JSON line (1-based), or 1 when escaping hides it."""
    found = raw.find(json.dumps(content)[1:-1])
    return found + 1 if found >= 0 else 1


@hookimpl
def register_memory_formats(register):  # noqa: ANN001, ANN201 - hook signature
    register(
        MemoryFormat(
            name="mcp-memory",
            rename=editor("mcp_jsonl_edit", "rename_jsonl"),
            insert=editor("mcp_jsonl_edit", "insert_jsonl"),
            read=read_mcp_jsonl,
            patterns=("memory.jsonl", "*/memory.jsonl"),
            matches=lambda path: path.endswith(".jsonl"),
            summary="MCP reference memory server knowledge graph: one memory per entity observation",
            prose_anchors=True,
        )
    )
