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

from tests._mcp_support import call as _call  # noqa: E402

CODE = "import redis\n\nclient = redis.Redis()\n\n\ndef get(key):\n    return client.get(key)\n"


def test_tools_check_verify_and_bank_over_stdio(make_repo) -> None:  # noqa: ANN001
    root = make_repo({"src/cache.py": CODE, "README.md": "x\n"})
    names, (checked, banked) = _call(
        root,
        [
            ("check_anchors", {"anchors": ["file:README.md", "file:docs/gone.md", "nope:x"]}),
            ("bank_citation", {"path": "src/cache.py", "start_line": 6, "end_line": 7}),
        ],
    )
    assert names == ["bank_citation", "check_anchors", "forget", "rebank_citation", "recall", "remember", "search", "suggest_anchors", "verify_memory"]
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
    reason = bare.structured_content["results"][0]["reason"]
    assert "call bank_citation" in reason and "anchorcheck lock" not in reason  # what an agent can do over MCP


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


def test_suggest_anchors_and_remember_type_a_memory_in_one_call(make_repo) -> None:  # noqa: ANN001
    pyproject = '[project]\nname = "app"\nversion = "1"\ndependencies = ["redis>=5"]\n'
    root = make_repo({"src/app/cache.py": CODE, "src/app/__init__.py": "", "pyproject.toml": pyproject})
    text = "Reads go through Redis; see get in src/app/cache.py."
    _, (suggested, remembered, bad) = _call(
        root,
        [
            ("suggest_anchors", {"text": text}),
            ("remember", {"text": text, "anchors": ["file:src/app/cache.py"], "spans": ["src/app/cache.py:6-7"]}),
            ("remember", {"text": text, "spans": ["src/app/cache.py:60-70"]}),
        ],
    )
    proposals = suggested.structured_content["suggestions"]
    assert [p["anchor"] for p in proposals] == ["file:src/app/cache.py", "pkg:pypi/redis", "import:redis in:src/app/cache.py"]  # the path in prose too
    assert all(p["reason"] and p["confidence"] for p in proposals)
    memory = remembered.structured_content
    assert memory["anchors"] == ["file:src/app/cache.py", "span:src/app/cache.py#L6-L7", "pkg:pypi/redis", "import:redis in:src/app/cache.py"]
    [citation] = memory["citations"]
    assert citation["anchor"] == "span:src/app/cache.py#L6-L7" and citation["sha256"]
    assert memory["verdict"] == "VERIFIED" and len(memory["results"]) == 4
    assert bad.is_error and "past the end" in bad.content[0].text
    # what remember returned is what verify_memory takes back when the memory is recalled
    (root / "src/app/cache.py").write_text(CODE.replace("client.get(key)", "None"))
    _, (recalled,) = _call(root, [("verify_memory", {"text": text, "anchors": memory["anchors"], "citations": memory["citations"]})])
    assert recalled.structured_content["verdict"] == "REFUTED"


def test_suggestion_tools_reuse_the_session_verifier_and_see_edits(make_repo, monkeypatch) -> None:  # noqa: ANN001
    """suggest_anchors and remember answer from the session's one Verifier, revalidated before each call."""
    from anchorcheck.serve import mcp_server

    built = []

    class Counted(mcp_server.Verifier):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            built.append(args)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(mcp_server, "Verifier", Counted)
    pyproject = '[project]\nname = "app"\nversion = "1"\ndependencies = ["redis>=5"]\n'
    root = make_repo({"src/app/cache.py": "import json\n", "src/app/__init__.py": "", "pyproject.toml": pyproject.replace("redis>=5", "click")})
    text = "Reads go through Redis."

    async def session() -> list[list[str]]:
        seen = []
        async with Client(mcp_server.build_server(root)) as client:
            for edit in (None, CODE):
                if edit is not None:
                    (root / "src/app/cache.py").write_text(edit)
                    (root / "pyproject.toml").write_text(pyproject)
                done = await client.call_tool("suggest_anchors", {"text": text})
                seen.append([s["anchor"] for s in done.structured_content["suggestions"]])
            remembered = await client.call_tool("remember", {"text": text})
            seen.append(remembered.structured_content["anchors"])
            checked = await client.call_tool("check_anchors", {"anchors": ["import:redis"]})
            seen.append([r["verdict"] for r in checked.structured_content["results"]])
        return seen

    before, after, remembered, checked = anyio.run(session)
    assert before == [] and after == ["pkg:pypi/redis", "import:redis in:src/app/cache.py"]
    assert remembered == after and checked == ["VERIFIED"]
    assert len(built) == 1


def test_an_invalid_configuration_is_a_one_line_tool_error_until_fixed(make_repo) -> None:  # noqa: ANN001
    """The session's Verifier raised the configuration's error through the SDK, which logged a traceback
    and told the client only that the tool failed; it is the one line naming the file, at every call."""
    from anchorcheck.serve import mcp_server

    root = make_repo({"src/cache.py": CODE})

    async def session() -> list[tuple[bool, str]]:
        seen = []
        async with Client(mcp_server.build_server(root)) as client:
            for config in ("exclude = 3\n", "exclude = 3\n", 'exclude = ["docs/"]\n'):
                (root / ".anchorcheck.toml").write_text(config)
                done = await client.call_tool("check_anchors", {"anchors": ["import:redis"]})
                seen.append((done.is_error, done.content[0].text if done.is_error else done.structured_content["results"][0]["verdict"]))
        return seen

    bad, still, fixed = anyio.run(session)
    assert bad == still and bad[0] and bad[1].endswith(": .anchorcheck.toml:1: 'exclude' must be a list of gitignore-style patterns")
    assert fixed == (False, "VERIFIED")


def test_a_call_past_its_deadline_lets_go_of_the_session(make_repo) -> None:  # noqa: ANN001
    """Issue 25: `suggest_anchors`/`remember` on 200 KB of text ran past 120 s holding the session lock, so
    the next call timed out too. Each call now keeps to `--deadline`, and the next one is answered."""
    import time

    from tests._hostile_support import LOOPING_TSX

    root = make_repo({"README.md": "x\n", "src/app.py": "import os\n"})
    (root / "src/app.tsx").write_bytes(LOOPING_TSX)  # its parse never ends by itself
    text = ("We read `os` everywhere; run `make build` in `src/` and see [notes](README.md). " * 2600)[:200_000]
    started = time.monotonic()
    _, (checked, suggested, remembered, after) = _call(
        root,
        [
            ("check_anchors", {"anchors": ["import:os", "file:README.md"]}),
            ("suggest_anchors", {"text": text}),
            ("remember", {"text": text}),
            ("check_anchors", {"anchors": ["file:README.md"]}),
        ],
        "--deadline", "3",
    )
    assert time.monotonic() - started < 4 * 3 + 25  # four calls at their deadline, plus start-up on a loaded machine
    first = checked.structured_content["results"]
    assert first[0]["verdict"] == "INCONCLUSIVE" and "budget exceeded" in first[0]["reason"]
    for answer in (suggested, remembered):  # an answer, or an error naming the deadline: never a hang
        assert answer.structured_content is not None or "deadline" in str(answer.content)
    assert after.structured_content["results"][0]["verdict"] == "VERIFIED"


def test_a_text_too_large_to_read_is_an_error_naming_why_and_the_session_goes_on(make_repo) -> None:  # noqa: ANN001
    root = make_repo({"src/app/cache.py": CODE})
    huge = "Reads go through `src/app/cache.py`.\n" * 40_000  # 1.4 MB: past what the Markdown reader parses
    _, (suggested, remembered, after) = _call(
        root,
        [
            ("suggest_anchors", {"text": huge}),
            ("remember", {"text": huge}),
            ("suggest_anchors", {"text": "Reads go through src/app/cache.py."}),
        ],
    )
    for result in (suggested, remembered):
        assert result.is_error and "not parsed" in result.content[0].text, result.content[0].text
    assert [p["anchor"] for p in after.structured_content["suggestions"]] == ["file:src/app/cache.py"]
