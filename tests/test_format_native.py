"""The native `*.memories.toml` format: ids, metadata, citations, and errors that name the line."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import tomllib

from anchorcheck.memory.memoryfiles import MemoryFileError
from anchorcheck_plugins.formats.native import read_native
from tests.conftest import REPO_ROOT

STORE = """\
version = 1

[[memory]]
id = "cache-backend"
text = "The cache is Redis."
anchors = ["pkg:pypi/redis", "import:redis in:src/service/cache/"]
status = "active"
created = 2026-11-01T10:00:00Z
expires = 2027-01-01T00:00:00Z

[[memory]]
id = "version-location"
text = "The version lives at the top of src/version.py."
anchors = ["span:src/version.py#L1-L3"]
resolve_after = 2027-01-01
as_of = "v2.0"
metadata = { author = "agent-7", confidence = 0.9 }

[[memory.citation]]
anchor = "span:src/version.py#L1-L3"
path = "src/version.py"
start_line = 1
end_line = 3
sha256 = "ddd4ff8fafe1f15cbfb0e99fd172dcea7636ff459b024bf6eb2cec487fe66f87"
"""


def test_reads_ids_anchors_and_metadata() -> None:
    first, second = read_native("team.memories.toml", STORE)
    assert first.id == "cache-backend" and first.position.line == 3
    assert first.anchors == ["pkg:pypi/redis", "import:redis in:src/service/cache/"]
    assert first.metadata == {"status": "active", "created": "2026-11-01T10:00:00Z", "expires": "2027-01-01T00:00:00Z"}
    assert second.position.line == 11
    assert second.metadata["resolve_after"] == "2027-01-01" and second.metadata["as_of"] == "v2.0"
    assert second.metadata["author"] == "agent-7"
    assert second.metadata["citations"][0]["anchor"] == "span:src/version.py#L1-L3"
    json.dumps([m.to_dict() for m in (first, second)])  # JSON-safe all the way down


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("version = 2\n", 1, "'version' must be 1"),
        ("version = 1\n[[memory]]\ntext = 'x'\n", 2, "needs an 'id'"),
        ("version = 1\n[[memory]]\nid = 'a'\n", 2, "needs a 'text'"),
        ("version = 1\n[[memory]]\nid = 'a'\ntext = 'x'\nanchors = 'pkg:x'\n", 2, "list of strings"),
        ("version = 1\n[[memory]]\nid = 'a'\ntext = 'x'\nstatus = 3\n", 2, "'status' has the wrong type"),
        ("version = 1\n[[memory]]\nid = 'a'\ntext = 'x'\ncolour = 'red'\n", 2, "unknown key 'colour'"),
        ("version = 1\n\n[[memory]]\nid = 'a'\ntext = 'x'\n\n[[memory]]\nid = 'a'\ntext = 'y'\n", 7, "duplicate memory id 'a'"),
        ("version = 1\n[[memory]\n", 2, "invalid TOML"),
    ],
)
def test_bad_files_name_the_line(text: str, line: int, message: str) -> None:
    with pytest.raises(MemoryFileError) as raised:
        read_native("bad.memories.toml", text)
    assert raised.value.line == line
    assert message in raised.value.message
    assert str(raised.value).startswith(f"bad.memories.toml:{line}: ")


def test_the_documented_schema_accepts_the_example_and_rejects_a_typo() -> None:
    schema = json.loads((REPO_ROOT / "docs" / "memory-format.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    as_json = json.loads(json.dumps(tomllib.loads(STORE), default=str))
    jsonschema.validate(as_json, schema)
    as_json["memory"][0]["colour"] = "red"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(as_json, schema)


def test_the_example_in_the_docs_reads(tmp_path: Path) -> None:
    doc = (REPO_ROOT / "docs" / "memory-format.md").read_text(encoding="utf-8")
    example = doc.split("```toml\n", 1)[1].split("```", 1)[0]
    memories = read_native("example.memories.toml", example)
    assert memories and all(m.id for m in memories)
