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
- `remember(text, anchors, spans)`: types a memory (the anchors given plus
  those suggested, the banked citations of its spans) and stores it in the
  repository's memory store (`--store`, a native `*.memories.toml` file),
  returning its id and verdict now; an anchor that can never be checked
  (`imprt:anyio`) is refused with a one-line error, not stored;
- `recall(id)`, `search(query)`: stored memories, each verified as it is read;
- `forget(id)`: removes a stored memory.

Every parameter carries its description (the anchor grammar, with examples)
and every result a typed output schema (`anchorcheck.serve.mcp_schema`); the
read-only tools say so (`readOnlyHint`), `forget` says it destroys
(`destructiveHint`); arguments that do not fit the schema are one sentence.

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
from mcp.types import ToolAnnotations
from pydantic import ValidationError

from anchorcheck import __version__
from anchorcheck.model.anchors import AnchorSyntaxError, anchor_text, decode_path
from anchorcheck.model.mistakes import UNBANKED
from anchorcheck.spans.citation import BankError, bank
from anchorcheck.repo.config import ConfigError
from anchorcheck.repo.context import BudgetExceeded
from anchorcheck.memory.lockfile import attach, load_lock
from anchorcheck.memory.commonmark import MarkdownTooLarge
from anchorcheck.memory.memoryfiles import MemoryFileError
from anchorcheck.model.results import Memory, MemoryReport, Verdict
from anchorcheck.serve import mcp_schema as schema
from anchorcheck.verify.memory_store import DEFAULT_STORE, MemoryStore, StoreError
from anchorcheck.verify.verifier import Verifier

INSTRUCTIONS = (
    "anchorcheck verifies memories about the repository at {root} against its current code. "
    "To store a memory, call remember with its text (and the lines it is about as spans): it is kept in "
    "{store} with anchors that hold now. To get memories back, call search with a few words, or recall "
    "with an id; each comes back verified: treat REFUTED memories as stale (re-read the code), "
    "INCONCLUSIVE ones as unchecked. Call forget to delete one that is wrong. For memories kept elsewhere, "
    "call verify_memory with their text, anchors and citations before relying on them. "
    "When you write a memory from lines you just read, call bank_citation and keep the returned citation; "
    "rebank_citation refuses a changed span until you accept it, since the memory may now be false. "
    "Paths are relative to {root}."
)
READ_ONLY = ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False)
WRITES = ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=False, openWorldHint=False)
DESTROYS = ToolAnnotations(readOnlyHint=False, destructiveHint=True, idempotentHint=True, openWorldHint=False)


CALL_SECONDS = 60.0  # what one tool call may take by default: an agent's client gives up not much later


class _Server(MCPServer):
    """The SDK's server, with arguments that fail a tool's schema answered in one sentence (the SDK
    sends the validation library's multi-line dump, which a model reads as noise)."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(schema.argument_error(name, exc.__cause__)) from None
            raise


def build_server(root: str | Path, deadline: float = CALL_SECONDS, store: str = DEFAULT_STORE) -> MCPServer:
    """The MCP server for one checkout (not started: call `.run()` for stdio); `deadline` is the
    seconds one tool call may take, `store` the repo-relative native memory file `remember` writes."""
    root = Path(root).resolve()
    server = _Server("anchorcheck", version=__version__, instructions=INSTRUCTIONS.format(root=root, store=store))
    resident = _Resident(root, deadline)

    @server.tool(annotations=READ_ONLY)
    def check_anchors(anchors: schema.Anchors) -> schema.CheckResult:
        """Verify anchors such as 'pkg:pypi/redis', 'import:redis in:src/', 'file:docs/adr/0003.md'.

        Returns one result per anchor (verdict VERIFIED, REFUTED or INCONCLUSIVE, a reason
        and evidence locations) and counts per verdict.
        """
        with resident.session() as verifier:
            results = [_for_agent(verifier.check(anchor).to_dict()) for anchor in anchors]
        counts = Counter(r["verdict"] for r in results)
        return {"results": results, "summary": {v.value: counts[v.value] for v in Verdict}}

    @server.tool(annotations=READ_ONLY)
    def verify_memory(text: schema.MemoryText, anchors: schema.Anchors, citations: schema.Citations = None) -> schema.MemoryVerdict:
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

    @server.tool(annotations=READ_ONLY)
    def bank_citation(path: schema.RepoPath, start_line: schema.StartLine, end_line: schema.EndLine) -> schema.BankResult:
        """Bank lines start_line..end_line (1-based, inclusive) of a repo-relative file.

        Store the returned citation with the memory; pass it back to verify_memory later.
        """
        try:
            citation = bank(root, path, start_line, end_line)
        except BankError as exc:
            raise ToolError(str(exc)) from None
        return {"anchor": citation.anchor_text(), "citation": citation.to_dict()}

    @server.tool(annotations=READ_ONLY)
    def rebank_citation(citation: schema.BankedCitation, accept: schema.Accept = False) -> schema.Rebanked:
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

    @server.tool(annotations=READ_ONLY)
    def suggest_anchors(text: schema.MemoryText) -> schema.Suggestions:
        """Propose typed anchors for a memory's text ('we cache with Redis' -> pkg:pypi/redis, ...).

        Only anchors that verify now are proposed, each with why (reason, evidence) and a
        confidence class (high: an explicit code form; medium: read from words).
        """
        from anchorcheck.verify.suggestions import suggest

        with resident.session() as verifier:
            return {"suggestions": [s.to_dict() for s in suggest(verifier, text)]}

    @server.tool(annotations=WRITES)
    def remember(text: schema.MemoryText, anchors: schema.OptionalAnchors = None, spans: schema.Spans = None) -> schema.Remembered:
        """Store a memory about this repository, typed with anchors that hold now, so it can be checked later.

        The anchors given are kept, the spans banked from the code as it is now, and the anchors
        that verify now are suggested from the text and added. The memory is written to the
        repository's memory store with a new id; returns that id, the anchors and citations
        stored, and the verdict now. Get it back with recall(id) or search(query).
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
            kept = [*typed, *(s.anchor for s in suggested)]
            with _store_errors():
                memories = MemoryStore(verifier, store)
                report = memories.verify([memories.add(text, kept, records)])[0]
        return {
            "id": str(report.memory.id),
            "store": store,
            "text": text,
            "anchors": kept,
            "citations": records,
            "suggested": [s.to_dict() for s in suggested],
            "verdict": str(report.verdict),
            "results": [r.to_dict() for r in report.results],
        }

    @server.tool(annotations=READ_ONLY)
    def recall(id: schema.MemoryId) -> schema.Recalled:  # noqa: A002 - the name the model sees
        """Get one stored memory back by id, verified against the code as it is now.

        verdict VERIFIED: every anchor holds; REFUTED: the code contradicts it (re-read the code
        before relying on it); INCONCLUSIVE: nothing could be checked.
        """
        with resident.session() as verifier, _store_errors():
            return _recalled(MemoryStore(verifier, store).recall(id))

    @server.tool(annotations=READ_ONLY)
    def search(query: schema.Query, limit: schema.Limit = 10) -> schema.Found:
        """Find stored memories by words of their text or anchors, best matches first, each verified now.

        Use it before working on a part of the code, e.g. search('cache redis'); treat REFUTED
        memories as stale.
        """
        with resident.session() as verifier, _store_errors():
            return {"store": store, "memories": [_recalled(r) for r in MemoryStore(verifier, store).search(query, limit)]}

    @server.tool(annotations=DESTROYS)
    def forget(id: schema.MemoryId) -> schema.Forgotten:  # noqa: A002 - the name the model sees
        """Delete one stored memory by id (for one that is wrong or no longer useful); returns what was deleted."""
        with resident.session() as verifier, _store_errors():
            gone = MemoryStore(verifier, store).forget(id)
        return {"id": str(gone.id), "store": store, "text": gone.text}

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
        except MarkdownTooLarge as exc:  # a memory's text is a sentence or two: this one is refused, not read
            raise ToolError(f"the text was not read: {exc}") from None
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


@contextmanager
def _store_errors() -> Iterator[None]:
    """A store's refusal (no such id, a broken store file) as the tool's one-line error."""
    try:
        yield
    except StoreError as exc:
        raise ToolError(str(exc)) from None


def _recalled(report: MemoryReport) -> dict[str, Any]:
    """A stored memory as recall and search return it: its id, text and stored anchors, and its verdict now."""
    memory = report.memory
    return {
        "id": str(memory.id),
        "text": memory.text,
        "anchors": [anchor_text(a) for a in memory.anchors],
        "verdict": str(report.verdict),
        "reason": report.reason,
        "results": [r.to_dict() for r in report.results],
    }


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


def serve(root: str | Path, deadline: float = CALL_SECONDS, store: str = DEFAULT_STORE) -> None:
    """Run the server on stdin/stdout until the client disconnects; `deadline`: seconds per call,
    `store`: the memory store file."""
    build_server(root, deadline, store).run("stdio")


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
