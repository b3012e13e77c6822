"""`anchorcheck mcp` — serve anchorcheck's tools to an agent over MCP (stdio).

Needs the optional extra: `pip install 'anchorcheck[mcp]'`.
"""

from __future__ import annotations

import argparse

from anchorcheck.cli.common import UsageError, add_root, root_of, seconds


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("mcp", help="run an MCP server (stdio) with check/verify/bank tools")
    add_root(parser)
    parser.add_argument(
        "--deadline", type=seconds("deadline"), metavar="SECONDS", default=None,
        help="time budget of each tool call (default 60); checks not finished by then are INCONCLUSIVE",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    root = root_of(args)
    try:
        from anchorcheck.serve.mcp_server import CALL_SECONDS, serve
    except ModuleNotFoundError as exc:
        if exc.name is None or not exc.name.startswith("mcp"):
            raise
        raise UsageError("anchorcheck mcp needs the MCP Python SDK: pip install 'anchorcheck[mcp]'") from None
    serve(root, args.deadline or CALL_SECONDS)
    return 0
