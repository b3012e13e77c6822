"""The MCP reference memory server's knowledge graph (memory.jsonl)."""

from __future__ import annotations

import json

import pytest

from anchorcheck.memory.memoryfiles import MemoryFileError, format_for
from anchorcheck.verify.loading import default_registry
from anchorcheck_plugins.formats.mcp_jsonl import read_mcp_jsonl

GRAPH = "\n".join(
    json.dumps(record)
    for record in [
        {"type": "entity", "name": "tracker-service", "entityType": "project",
         "observations": ["Caches incidents in Redis `pkg:pypi/redis`", "Has an on-call rota"]},
        {"type": "entity", "name": "cache", "entityType": "module",
         "observations": ["Defined in `file:src/tracker/cache.py`, reads `env:REDIS_URL`"]},
        {"type": "relation", "from": "tracker-service", "to": "cache", "relationType": "uses"},
        {"type": "entity", "name": "ci", "entityType": "system", "observations": []},
    ]
) + "\n"


def test_each_observation_is_a_memory_pointing_at_its_entity_line() -> None:
    memories = read_mcp_jsonl("memory.jsonl", GRAPH)
    assert [m.id for m in memories] == ["tracker-service#1", "tracker-service#2", "cache#1"]
    redis, rota, cache = memories
    assert redis.text == "tracker-service: Caches incidents in Redis `pkg:pypi/redis`"
    assert redis.anchors == ["pkg:pypi/redis"] and rota.anchors == []
    assert cache.position.line == 2 and cache.metadata["entityType"] == "module"
    assert cache.anchors == ["file:src/tracker/cache.py", "env:REDIS_URL"]
    raw = GRAPH.splitlines()[1]
    assert raw[cache.anchor_positions[0].column - 1 :].startswith("file:src/tracker/cache.py")


def test_jsonl_files_pick_this_format() -> None:
    assert format_for(".mcp/memory.jsonl", default_registry()).name == "mcp-memory"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "invalid JSON"),
        ('["a list"]', "expected an object with a 'type'"),
        ('{"type": "note"}', "unknown record type 'note'"),
        ('{"type": "entity", "observations": []}', "needs a 'name'"),
        ('{"type": "entity", "name": "x", "observations": [1]}', "list of strings"),
    ],
)
def test_bad_lines_are_errors_naming_the_line(line: str, message: str) -> None:
    with pytest.raises(MemoryFileError) as raised:
        read_mcp_jsonl("memory.jsonl", GRAPH + "\n" + line + "\n")
    assert raised.value.line == 6
    assert message in raised.value.message
