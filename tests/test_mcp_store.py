"""Issue 28 finding 10: an MCP client (the official SDK) can bank, store, recall, search and forget memories
from the tool descriptions alone, every read verified; schemas, hints, errors and the root are what a model needs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the optional 'mcp' extra is not installed (pip install -e '.[mcp]')")
anyio = pytest.importorskip("anyio")

from mcp import Client  # noqa: E402

from anchorcheck.serve.mcp_server import build_server  # noqa: E402
from tests._mcp_support import call  # noqa: E402

CODE = "import redis\n\nclient = redis.Redis()\n\n\ndef get(key):\n    return client.get(key)\n"
PYPROJECT = '[project]\nname = "app"\nversion = "1"\ndependencies = ["redis>=5"]\n'


def _session(root: Path, steps: Any) -> Any:
    """Run `steps(client)` against the server of `root`, in process."""

    async def run() -> Any:
        async with Client(build_server(root)) as client:
            return await steps(client)

    return anyio.run(run)


def test_tool_descriptions_carry_the_grammar_schemas_hints_and_the_root(make_repo) -> None:  # noqa: ANN001
    root = make_repo({"src/app/cache.py": CODE})

    async def steps(client: Client) -> Any:
        return client.instructions, (await client.list_tools()).tools

    instructions, tools = _session(root, steps)
    assert str(root.resolve()) in instructions and "agent.memories.toml" in instructions
    by_name = {t.name: t for t in tools}
    for tool in tools:
        assert tool.description, tool.name
        for name, prop in tool.input_schema.get("properties", {}).items():
            assert prop.get("description"), f"{tool.name}.{name} has no description"
        assert tool.output_schema and tool.output_schema.get("properties"), f"{tool.name} has a generic output schema"
    anchors = by_name["check_anchors"].input_schema["properties"]["anchors"]["description"]
    for example in ("pkg:pypi/redis", "span:PATH#Lstart-Lend", "import:redis in:src/", "sym:src/cache.py::RedisCache.get", "'!pkg:pypi/celery'"):
        assert example in anchors
    assert set(by_name["check_anchors"].output_schema["properties"]) == {"results", "summary"}
    read_only = {n for n, t in by_name.items() if t.annotations and t.annotations.read_only_hint}
    assert read_only == {"check_anchors", "verify_memory", "bank_citation", "rebank_citation", "suggest_anchors", "recall", "search"}
    assert by_name["forget"].annotations.destructive_hint is True
    assert by_name["remember"].annotations.destructive_hint is False


def test_bank_remember_recall_search_forget_round_trip(make_repo) -> None:  # noqa: ANN001
    """What a model would do from the descriptions: bank lines, store memories, find them again,
    see one go stale when the code changes, and delete it."""
    root = make_repo({"src/app/cache.py": CODE, "src/app/__init__.py": "", "pyproject.toml": PYPROJECT})

    async def steps(client: Client) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        banked = (await client.call_tool("bank_citation", {"path": "src/app/cache.py", "start_line": 6, "end_line": 7})).structured_content
        seen["first"] = (await client.call_tool("remember", {"text": "get() reads through Redis.", "spans": [banked["anchor"]]})).structured_content
        seen["second"] = (await client.call_tool("remember", {"text": "The docs live in the wiki."})).structured_content
        seen["search"] = (await client.call_tool("search", {"query": "Redis reads"})).structured_content
        (root / "src/app/cache.py").write_text(CODE.replace("client.get(key)", "None"))
        seen["stale"] = (await client.call_tool("recall", {"id": seen["first"]["id"]})).structured_content
        seen["forgot"] = (await client.call_tool("forget", {"id": seen["first"]["id"]})).structured_content
        seen["after"] = (await client.call_tool("search", {"query": "redis"})).structured_content
        seen["gone"] = await client.call_tool("recall", {"id": seen["first"]["id"]})
        return seen

    seen = _session(root, steps)
    first, second = seen["first"], seen["second"]
    assert (first["id"], second["id"]) == ("m1", "m2")
    assert "span:src/app/cache.py#L6-L7" in first["anchors"] and "pkg:pypi/redis" in first["anchors"]
    assert first["verdict"] == "VERIFIED" and second["verdict"] == "INCONCLUSIVE"
    [found] = seen["search"]["memories"]
    assert found["id"] == "m1" and found["verdict"] == "VERIFIED" and found["text"] == "get() reads through Redis."
    assert seen["stale"]["verdict"] == "REFUTED" and "span:src/app/cache.py#L6-L7" in seen["stale"]["anchors"]
    assert seen["forgot"] == {"id": "m1", "store": "agent.memories.toml", "text": "get() reads through Redis."}
    assert seen["after"]["memories"] == []
    assert seen["gone"].is_error and seen["gone"].content[0].text.endswith("agent.memories.toml: no memory with id 'm1'")
    stored = (root / "agent.memories.toml").read_text()
    assert 'id = "m2"' in stored and "m1" not in stored
    # the store is an ordinary memory file: `check` reads it, the banked span with its citation
    (root / "src/app/cache.py").write_text(CODE)
    checked = subprocess.run([sys.executable, "-m", "anchorcheck", "check", "--root", str(root), "agent.memories.toml"], cwd=root, capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_arguments_that_do_not_fit_are_one_sentence(make_repo) -> None:  # noqa: ANN001
    root = make_repo({"src/app.py": "x = 1\n"})

    async def steps(client: Client) -> list[Any]:
        return [
            await client.call_tool("bank_citation", {"path": "src/app.py", "start_line": "ten", "end_line": 1}),
            await client.call_tool("check_anchors", {}),
            await client.call_tool("recall", {"id": "m9"}),
        ]

    wrong_type, missing, unknown = _session(root, steps)
    for result in (wrong_type, missing, unknown):
        assert result.is_error
        text = result.content[0].text
        assert "\n" not in text and "pydantic" not in text and "validation error" not in text, text
    assert "argument 'start_line' should be a valid integer" in wrong_type.content[0].text
    assert "argument 'anchors' is required" in missing.content[0].text
    assert "no memory with id 'm9'" in unknown.content[0].text


def test_refuses_to_start_outside_a_repository_without_root(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "anchorcheck", "mcp"], cwd=tmp_path, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert done.stderr.strip().endswith("is not inside a git repository: start anchorcheck mcp in one, or pass --root DIR")
    bad = subprocess.run([sys.executable, "-m", "anchorcheck", "mcp", "--root", str(tmp_path), "--store", "../x.memories.toml"], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert bad.returncode == 2 and "--store: memory store '../x.memories.toml'" in bad.stderr


def test_the_store_is_named_over_stdio(make_repo) -> None:  # noqa: ANN001
    root = make_repo({"src/app.py": "import os\n"})
    names, (stored,) = call(root, [("remember", {"text": "The app reads os."})], "--store", "notes/team.memories.toml")
    assert {"remember", "recall", "search", "forget"} <= set(names)
    assert stored.structured_content["store"] == "notes/team.memories.toml"
    assert (root / "notes/team.memories.toml").exists()
