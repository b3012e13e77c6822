"""`anchorcheck mcp` — serve anchorcheck's tools to an agent over MCP (stdio).

Needs the optional extra: `pip install 'anchorcheck[mcp]'`. Started outside a git repository
without `--root`, it refuses: an agent's client often starts servers in a home folder, and a
server bound to that would answer every question about the wrong tree.
"""

from __future__ import annotations

import argparse
import os

from anchorcheck.cli.common import UsageError, add_root, root_of, seconds


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("mcp", help="run an MCP server (stdio) with check/verify/bank and memory store tools")
    add_root(parser)
    parser.add_argument(
        "--deadline", type=seconds("deadline"), metavar="SECONDS", default=None,
        help="time budget of each tool call (default 60); checks not finished by then are INCONCLUSIVE",
    )
    parser.add_argument(
        "--store", metavar="FILE", default=None,
        help="repo-relative native memory file that remember/recall/search/forget use (default: agent.memories.toml)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    root = root_of(args)
    if not args.root and not os.path.exists(os.path.join(root, ".git")):
        raise UsageError(f"{os.getcwd()} is not inside a git repository: start anchorcheck mcp in one, or pass --root DIR")
    try:
        from anchorcheck.serve.mcp_server import CALL_SECONDS, serve
        from anchorcheck.verify.memory_store import DEFAULT_STORE, StoreError, check_store_path
    except ModuleNotFoundError as exc:
        if exc.name is None or not exc.name.startswith("mcp"):
            raise
        raise UsageError("anchorcheck mcp needs the MCP Python SDK: pip install 'anchorcheck[mcp]'") from None
    try:
        store = check_store_path(args.store or DEFAULT_STORE)
    except StoreError as exc:
        raise UsageError(f"--store: {exc}") from None
    serve(root, args.deadline or CALL_SECONDS, store)
    return 0
