"""`anchorcheck mcp`: anchorcheck as an MCP server (stdio), so an agent can check what it recalls.

Three tools, each returning JSON (structured content):

- `check_anchors(anchors)`: verify ad-hoc anchors → `{"results": [...], "summary": {...}}`;
- `verify_memory(text, anchors, citations)`: verify one memory as a store
  recalls it → the MemoryReport dict (`verdict`, `results`, `reason`); span
  anchors take the citations passed in, else the repository's lock;
- `bank_citation(path, start_line, end_line)`: bank a span when writing a
  memory → the citation record and its `span:` anchor.

The server is bound to one checkout (`--root`) and keeps one Verifier for
the whole session: before each call it revalidates what it cached
(`Verifier.refresh`), so it sees the code as it is now while a recall costs
what changed, not a new index. Calls take turns on it (a lock): tools may run
in worker threads. Needs the `mcp` extra (the official MCP Python SDK, 2.x).
"""

from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from anchorcheck import __version__
from anchorcheck.citation import BankError, bank
from anchorcheck.lockfile import attach, load_lock
from anchorcheck.memoryfiles import MemoryFileError
from anchorcheck.model import Memory, Verdict
from anchorcheck.verifier import Verifier

INSTRUCTIONS = (
    "anchorcheck verifies memories about this repository against its current code. "
    "Before relying on a recalled memory, call verify_memory with its text and anchors; "
    "treat REFUTED memories as stale (re-read the code). When you write a memory from "
    "lines you just read, call bank_citation and store the returned citation with it."
)


def build_server(root: str | Path) -> MCPServer:
    """The MCP server for one checkout (not started: call `.run()` for stdio)."""
    root = Path(root).resolve()
    server = MCPServer("anchorcheck", version=__version__, instructions=INSTRUCTIONS)
    resident = _Resident(root)

    @server.tool()
    def check_anchors(anchors: list[str]) -> dict[str, Any]:
        """Verify anchors such as 'pkg:pypi/redis', 'import:redis in:src/', 'file:docs/adr/0003.md'.

        Returns one result per anchor (verdict VERIFIED, REFUTED or INCONCLUSIVE, a reason
        and evidence locations) and counts per verdict.
        """
        with resident.lock:
            verifier = resident.verifier()
            results = [verifier.check(anchor).to_dict() for anchor in anchors]
        counts = Counter(r["verdict"] for r in results)
        return {"results": results, "summary": {v.value: counts[v.value] for v in Verdict}}

    @server.tool()
    def verify_memory(text: str, anchors: list[str], citations: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """Verify one recalled memory: REFUTED if any anchor is contradicted, VERIFIED only if all hold.

        `citations` are banked span records (from bank_citation); a citation without an
        'anchor' key is checked as an anchor of its own.
        """
        records = [dict(c) for c in citations or []]
        memory = Memory(text=text, anchors=list(anchors), metadata={"citations": records} if records else {})
        with resident.lock:
            verifier = resident.verifier()
            try:
                attach([memory], load_lock(root), verifier.registry.kinds)
            except MemoryFileError as exc:
                raise ToolError(str(exc)) from None
            return verifier.verify(memory).to_dict()

    @server.tool()
    def bank_citation(path: str, start_line: int, end_line: int) -> dict[str, Any]:
        """Bank lines start_line..end_line (1-based, inclusive) of a repo-relative file.

        Store the returned citation with the memory; pass it back to verify_memory later.
        """
        try:
            citation = bank(root, path, start_line, end_line)
        except BankError as exc:
            raise ToolError(str(exc)) from None
        return {"anchor": citation.anchor_text(), "citation": citation.to_dict()}

    return server


class _Resident:
    """The session's Verifier, built at the first call (a server that is never asked costs nothing)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.lock = threading.Lock()
        self._verifier: Verifier | None = None

    def verifier(self) -> Verifier:
        if self._verifier is None:
            self._verifier = Verifier(self.root)
        return self._verifier


def serve(root: str | Path) -> None:
    """Run the server on stdin/stdout until the client disconnects."""
    build_server(root).run("stdio")
