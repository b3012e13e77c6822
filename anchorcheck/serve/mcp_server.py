"""`anchorcheck mcp`: anchorcheck as an MCP server (stdio), so an agent can check what it recalls.

Six tools, each returning JSON (structured content):

- `check_anchors(anchors)`: verify ad-hoc anchors → `{"results": [...], "summary": {...}}`;
- `verify_memory(text, anchors, citations)`: verify one memory as a store
  recalls it → the MemoryReport dict (`verdict`, `results`, `reason`); span
  anchors take the citations passed in, else the repository's lock;
- `bank_citation(path, start_line, end_line)`: bank a span when writing a
  memory → the citation record and its `span:` anchor;
- `rebank_citation(citation, accept)`: bank a stored citation again where its
  content is now; a changed span is refused unless accepted (`anchorcheck.verify.rebanking`);
- `suggest_anchors(text)`: the typed anchors that hold now for a memory's
  text, each with its reason, evidence and confidence;
- `remember(text, anchors, spans)`: the memory as it should be stored —
  its text, the anchors given plus those suggested, and the banked
  citations of its spans — verified, so an agent writing a memory gets it
  typed and verifiable in one call; an anchor that can never be checked
  (`imprt:anyio`) is refused with a one-line error, not stored.

The server is bound to one checkout (`--root`) and keeps one Verifier for
the whole session, the suggestion tools included: before each call it revalidates what it cached
(`Verifier.refresh`), so it sees the code as it is now while a recall costs
what changed, not a new index. Calls take turns on it (a lock): tools may run
in worker threads. Each call has a deadline (`--deadline`, CALL_SECONDS by
default): its checks end INCONCLUSIVE ("budget exceeded") at it, other work
past it ends the call with an error, and the lock is waited for only that
long, so a call on hostile text never holds the session past its deadline
and the next call is answered. Needs the `mcp` extra (the official MCP
Python SDK, 2.x).
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from anchorcheck import __version__
from anchorcheck.model.anchors import AnchorSyntaxError, decode_path
from anchorcheck.model.mistakes import UNBANKED
from anchorcheck.spans.citation import BankError, bank
from anchorcheck.repo.config import ConfigError
from anchorcheck.repo.context import BudgetExceeded
from anchorcheck.memory.lockfile import attach, load_lock
from anchorcheck.memory.memoryfiles import MemoryFileError
from anchorcheck.model.results import Memory, Verdict
from anchorcheck.verify.verifier import Verifier

INSTRUCTIONS = (
    "anchorcheck verifies memories about this repository against its current code. "
    "Before relying on a recalled memory, call verify_memory with its text and anchors; "
    "treat REFUTED memories as stale (re-read the code; rebank_citation refuses a changed span "
    "until you accept it, since the memory may now be false). When you write a memory from "
    "lines you just read, call bank_citation and store the returned citation with it. "
    "To write a new memory, call remember with its text and store what it returns."
)


CALL_SECONDS = 60.0  # what one tool call may take by default: an agent's client gives up not much later


def build_server(root: str | Path, deadline: float = CALL_SECONDS) -> MCPServer:
    """The MCP server for one checkout (not started: call `.run()` for stdio); `deadline` is the
    seconds one tool call may take."""
    root = Path(root).resolve()
    server = MCPServer("anchorcheck", version=__version__, instructions=INSTRUCTIONS)
    resident = _Resident(root, deadline)

    @server.tool()
    def check_anchors(anchors: list[str]) -> dict[str, Any]:
        """Verify anchors such as 'pkg:pypi/redis', 'import:redis in:src/', 'file:docs/adr/0003.md'.

        Returns one result per anchor (verdict VERIFIED, REFUTED or INCONCLUSIVE, a reason
        and evidence locations) and counts per verdict.
        """
        with resident.session() as verifier:
            results = [_for_agent(verifier.check(anchor).to_dict()) for anchor in anchors]
        counts = Counter(r["verdict"] for r in results)
        return {"results": results, "summary": {v.value: counts[v.value] for v in Verdict}}

    @server.tool()
    def verify_memory(text: str, anchors: list[str], citations: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """Verify one recalled memory: REFUTED if any anchor is contradicted, VERIFIED only if all hold.

        `citations` are the results of bank_citation as it returned them ({anchor, citation}),
        or their bare citation records; a citation that no anchor names is checked as an
        anchor of its own.
        """
        records = [_record(c) for c in citations or []]
        memory = Memory(text=text, anchors=list(anchors), metadata={"citations": records} if records else {})
        with resident.session() as verifier:
            try:
                attach([memory], load_lock(root), verifier.registry.kinds)
            except MemoryFileError as exc:
                raise ToolError(str(exc)) from None
            report = verifier.verify(memory).to_dict()
        report["results"] = [_for_agent(r) for r in report["results"]]
        return report

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

    @server.tool()
    def rebank_citation(citation: dict[str, Any], accept: bool = False) -> dict[str, Any]:
        """Bank a stored citation again where its lines are now; pass a bank_citation result or its record.

        Unchanged: returned as it is. Moved intact: banked at the new lines. Changed: refused
        (status 'refused', with the banked and the current lines): the memory may now be
        false; re-read the code, and call again with accept=true only if the memory still holds.
        """
        from anchorcheck.model.citation import Citation
        from anchorcheck.verify.rebanking import SpanChanged, rebank

        old = Citation.from_dict({k: v for k, v in _record(citation).items() if k != "anchor"})
        with resident.session() as verifier:
            try:
                new = rebank(verifier, old, accept=accept)
            except SpanChanged as exc:
                reason = f"{exc.message}; store the new citation only after re-reading the memory (accept=true)"
                return {"status": "refused", "reason": reason, "banked": _lines(exc.banked), "current": _lines(exc.current)}
            except BankError as exc:
                raise ToolError(str(exc)) from None
        status = "unchanged" if new is old else "moved" if new.sha256 == old.sha256 else "accepted"
        return {"status": status, "anchor": new.anchor_text(), "citation": new.to_dict()}

    @server.tool()
    def suggest_anchors(text: str) -> dict[str, Any]:
        """Propose typed anchors for a memory's text ('we cache with Redis' -> pkg:pypi/redis, ...).

        Only anchors that verify now are proposed, each with why (reason, evidence) and a
        confidence class (high: an explicit code form; medium: read from words).
        """
        from anchorcheck.verify.suggestions import suggest

        with resident.session() as verifier:
            return {"suggestions": [s.to_dict() for s in suggest(verifier, text)]}

    @server.tool()
    def remember(text: str, anchors: list[str] | None = None, spans: list[str] | None = None) -> dict[str, Any]:
        """Type a memory before storing it: returns {text, anchors, citations, suggested, verdict, results}.

        `anchors` are kept as given; `spans` ('src/app.py:10-20' or 'span:src/app.py#L10-L20')
        and span anchors are banked from the code as it is now; the suggested anchors are
        added. Store text, anchors and citations; pass them to verify_memory when recalled.
        """
        from anchorcheck.verify.suggestions import Suggester

        given = [a.strip() for a in anchors or []]
        with resident.session() as verifier:
            try:
                verifier.validate(given)  # a typo'd anchor stored now would stay INCONCLUSIVE for ever
            except AnchorSyntaxError as exc:
                raise ToolError(f"not stored: {exc}") from None
        citations = {}
        for target in [*(spans or []), *(a for a in given if a.startswith("span:"))]:
            citation = _bank_target(root, target)
            citations[citation.anchor_text()] = citation.to_dict()
        typed = given + [key for key in citations if key not in given]
        with resident.session() as verifier:
            suggested = Suggester(verifier).suggest(text, typed)
            for s in suggested:
                if s.citation is not None:
                    citations[s.anchor] = s.citation
            records = [{"anchor": key, **record} for key, record in citations.items()]
            memory = Memory(text=text, anchors=typed + [s.anchor for s in suggested], metadata={"citations": records})
            attach([memory], load_lock(root), verifier.registry.kinds)
            report = verifier.verify(memory)
        return {
            "text": text,
            "anchors": [*typed, *(s.anchor for s in suggested)],
            "citations": records,
            "suggested": [s.to_dict() for s in suggested],
            "verdict": str(report.verdict),
            "results": [r.to_dict() for r in report.results],
        }

    return server


class _Resident:
    """The session's Verifier, built at the first call (a server that is never asked costs nothing)."""

    def __init__(self, root: Path, seconds: float = CALL_SECONDS) -> None:
        self.root = root
        self.seconds = seconds
        self.lock = threading.Lock()
        self._verifier: Verifier | None = None

    @contextmanager
    def session(self) -> Iterator[Verifier]:
        """The session's Verifier for one call, within the call's deadline: the lock is waited for at
        most that long (every holder lets go by its own deadline), every check inside keeps to it, and
        other work past it (a suggestion's reading of the index) ends the call with a ToolError."""
        if not self.lock.acquire(timeout=self.seconds):
            raise ToolError(f"anchorcheck is busy with another call for more than {self.seconds:g} s; try again")
        try:
            verifier = self.verifier()
            with verifier.within(self.seconds):
                yield verifier
        except BudgetExceeded as exc:
            raise ToolError(f"the call ran past its deadline of {self.seconds:g} s{' ' + str(exc) if str(exc) else ''}") from None
        finally:
            self.lock.release()

    def verifier(self) -> Verifier:
        """The session's Verifier, revalidated: the suggestion tools read its index directly, not only through checks.
        A write of several files that a killed command left half done is completed first (`anchorcheck.memory.journal`)."""
        from anchorcheck.memory.journal import finish_interrupted_write

        try:
            if self._verifier is None:
                self._verifier = Verifier(self.root)
            finish_interrupted_write(self.root, self._verifier.registry)
            self._verifier.refresh()
        except ConfigError as exc:  # at every call until the configuration is fixed, as one line
            raise ToolError(str(exc)) from None
        return self._verifier


def _bank_target(root: Path, target: str) -> Any:
    """Bank 'PATH:START-END' or 'span:PATH#Lx-Ly'; a ToolError names what is wrong."""
    text = target.strip()
    match = re.fullmatch(r"span:(.+)#L(\d+)(?:-L(\d+))?", text) or re.fullmatch(r"(.+):(\d+)(?:-(\d+))?", text)
    if match is None:
        raise ToolError(f"{target!r}: expected PATH:START-END or span:PATH#Lstart-Lend")
    path, start, end = match.group(1), int(match.group(2)), int(match.group(3) or match.group(2))
    try:
        return bank(root, decode_path(path), start, end)
    except BankError as exc:
        raise ToolError(f"{target!r}: {exc}") from None


def _record(item: dict[str, Any]) -> dict[str, Any]:
    """A citation record as verify_memory takes it: bank_citation's result ({anchor, citation}) is
    flattened, so what the tool returned can be passed back as it is."""
    nested = item.get("citation")
    if isinstance(nested, dict):
        return {**nested, **({"anchor": item["anchor"]} if isinstance(item.get("anchor"), str) else {})}
    return dict(item)


def _lines(citation: Any) -> dict[str, Any]:
    return {"path": citation.path, "start_line": citation.start_line, "end_line": citation.end_line, "lines": list(citation.lines or ())}


def _for_agent(result: dict[str, Any]) -> dict[str, Any]:
    """A result's reason in what an agent can do over MCP: a span anchor without a banked record is
    banked with bank_citation (an agent cannot run `anchorcheck lock`)."""
    if result.get("state") == UNBANKED:
        result["reason"] = (
            f"{result['anchor']} is not banked: call bank_citation with its path and lines after reading them, "
            "and pass the result in verify_memory's citations"
        )
    return result


def serve(root: str | Path, deadline: float = CALL_SECONDS) -> None:
    """Run the server on stdin/stdout until the client disconnects; `deadline`: seconds per call."""
    build_server(root, deadline).run("stdio")
