"""`anchorcheck mcp` end to end: the MCP SDK's own client starts the server as a subprocess over stdio."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

mcp = pytest.importorskip("mcp", reason="the optional 'mcp' extra is not installed (pip install -e '.[mcp]')")
anyio = pytest.importorskip("anyio")

from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

CODE = "import redis\n\nclient = redis.Redis()\n\n\ndef get(key):\n    return client.get(key)\n"


def _call(root: Path, calls: list[tuple[str, dict[str, Any]]]) -> tuple[list[str], list[Any]]:
    """Start `python -m anchorcheck mcp --root ROOT`, list the tools, make the calls in order."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "anchorcheck", "mcp", "--root", str(root)],
        cwd=str(root),
        env={"PATH": os.environ.get("PATH", "")},
    )

    async def session() -> tuple[list[str], list[Any]]:
        async with Client(params) as client:
            tools = await client.list_tools()
            results = [await client.call_tool(name, arguments) for name, arguments in calls]
            return sorted(t.name for t in tools.tools), results

    return anyio.run(session)


def test_tools_check_verify_and_bank_over_stdio(make_repo) -> None:  # noqa: ANN001
    root = make_repo({"src/cache.py": CODE, "README.md": "x\n"})
    names, (checked, banked) = _call(
        root,
        [
            ("check_anchors", {"anchors": ["file:README.md", "file:docs/gone.md", "nope:x"]}),
            ("bank_citation", {"path": "src/cache.py", "start_line": 6, "end_line": 7}),
        ],
    )
    assert names == ["bank_citation", "check_anchors", "verify_memory"]
    data = checked.structured_content
    assert [r["verdict"] for r in data["results"]] == ["VERIFIED", "REFUTED", "INCONCLUSIVE"]
    assert data["summary"] == {"VERIFIED": 1, "REFUTED": 1, "INCONCLUSIVE": 1}
    citation = banked.structured_content
    assert citation["anchor"] == "span:src/cache.py#L6-L7"
    assert citation["citation"]["lines"] == ["def get(key):\n", "    return client.get(key)\n"]

    (root / "src/cache.py").write_text(CODE.replace("client.get(key)", "client.get(key) or b''"))
    _, (fresh_text, stale, bare) = _call(
        root,
        [
            ("verify_memory", {"text": "README exists", "anchors": ["file:README.md"]}),
            ("verify_memory", {"text": "get() reads redis", "anchors": [citation["anchor"]], "citations": [citation["citation"] | {"anchor": citation["anchor"]}]}),
            ("verify_memory", {"text": "unbanked", "anchors": ["span:src/cache.py#L1"]}),
        ],
    )
    assert fresh_text.structured_content["verdict"] == "VERIFIED"
    report = stale.structured_content
    assert report["verdict"] == "REFUTED" and report["results"][0]["state"] == "stale"
    assert "not banked, run anchorcheck lock" in bare.structured_content["results"][0]["reason"]


def test_bank_errors_are_tool_errors(make_repo) -> None:  # noqa: ANN001
    root = make_repo({"src/cache.py": CODE})
    _, (result,) = _call(root, [("bank_citation", {"path": "../etc/passwd", "start_line": 1, "end_line": 2})])
    assert result.is_error
    assert "refused" in result.content[0].text


def test_one_session_sees_edits_between_calls(make_repo) -> None:  # noqa: ANN001
    """The server keeps one Verifier for the session, and it answers from the code as it is now."""
    root = make_repo({"src/app.py": "import json\n", "README.md": "x\n"})
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "anchorcheck", "mcp", "--root", str(root)], cwd=str(root),
        env={"PATH": os.environ.get("PATH", "")},
    )

    async def session() -> list[str]:
        verdicts = []
        async with Client(params) as client:
            for edit in (None, "import json\nimport redis\n", "import json\n"):
                if edit is not None:
                    (root / "src/app.py").write_text(edit)
                done = await client.call_tool("verify_memory", {"text": "we use Redis", "anchors": ["import:redis"]})
                verdicts.append(done.structured_content["verdict"])
        return verdicts

    assert anyio.run(session) == ["REFUTED", "VERIFIED", "REFUTED"]
