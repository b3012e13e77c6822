"""Starting `anchorcheck mcp` under the official MCP SDK's client, for the MCP tests."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters


def call(root: Path, calls: list[tuple[str, dict[str, Any]]], *options: str) -> tuple[list[str], list[Any]]:
    """Start `python -m anchorcheck mcp --root ROOT [OPTIONS]`, list the tools, make the calls in order."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "anchorcheck", "mcp", "--root", str(root), *options],
        cwd=str(root),
        env={"PATH": os.environ.get("PATH", "")},
    )

    async def session() -> tuple[list[str], list[Any]]:
        async with Client(params) as client:
            tools = await client.list_tools()
            results = [await client.call_tool(name, arguments) for name, arguments in calls]
            return sorted(t.name for t in tools.tools), results

    return anyio.run(session)
