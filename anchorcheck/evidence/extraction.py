"""Facts of one file's bytes: parsed with its language's grammar under a time budget, and named by
what made them (the fingerprint a cached fact is filed under).

Per process and free of I/O on the repository: worker processes run `extract_chunk`
(`anchorcheck.evidence.facts_store` hands them their share).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from anchorcheck.base import digests
from anchorcheck.base.entrypoints import installed
from anchorcheck.evidence import grammars, trees
from anchorcheck.evidence.facts import Facts, Parsed, first_error_line, too_broken_to_query
from anchorcheck.repo.context import BudgetExceeded

if TYPE_CHECKING:
    from tree_sitter import Query

    from anchorcheck.model.registry import Language

FACTS_VERSION = "1"
_CHUNK_BYTES = 256 * 1024  # a worker's share per round trip: about 25 ms of parsing


_FINGERPRINTS: dict[tuple[str, str], str] = {}


def fingerprint(language: Language) -> str:
    """Changes when the language's queries or extract code change, so stale facts are never reused."""
    known = (language.name, getattr(language.extract, "__module__", ""))
    if known not in _FINGERPRINTS:
        _FINGERPRINTS[known] = _compute_fingerprint(language)
    return _FINGERPRINTS[known]


def _grammar_versions() -> str:
    """The installed tree-sitter distributions, listed once per process (kept beside the fingerprints
    they feed, and forgotten with them): sys.path is listed once, not once per language. The binding
    and grammars a process parses with are those it loaded, so an upgrade installed while it runs is
    named by the next process, which lists them again."""
    key = ("", "tree_sitter")
    if key not in _FINGERPRINTS:
        _FINGERPRINTS[key] = "\0".join(installed("tree_sitter"))
    return _FINGERPRINTS[key]


def _compute_fingerprint(language: Language) -> str:
    import inspect  # 20 ms of start-up, for one lookup per language

    digest = digests.sha1(f"{FACTS_VERSION}\0{language.name}\0{language.grammar}".encode())
    # The parser and grammars that made the tree: an upgraded grammar may name nodes differently.
    digest.update(_grammar_versions().encode())
    for name in sorted(language.queries):
        digest.update(f"\0{name}\0{language.queries[name]}".encode())
    # The extract code and what it leans on: its package's modules (TypeScript reuses the
    # JavaScript walk) and the facts helpers. Any change there re-extracts, never a stale fact.
    try:
        home = Path(inspect.getsourcefile(language.extract) or "") if language.extract else None
    except TypeError:
        home = None
    sources = sorted(home.parent.glob("*.py")) if home is not None and home.is_file() else []
    for source in [*sources, Path(__file__).with_name("facts.py")]:
        try:
            digest.update(source.read_bytes())
        except OSError:
            digest.update(source.name.encode())
    if not sources:
        digest.update(getattr(language.extract, "__qualname__", "").encode())
    return digest.hexdigest()[:16]


class _Queries:
    """Compiled queries of one language, compiled on first use."""

    def __init__(self, language: Language) -> None:
        self.language = language
        self._ts_language = None
        self._compiled: dict[str, Query] = {}

    def __call__(self, name: str) -> Query:
        query = self._compiled.get(name)
        if query is None:
            if self._ts_language is None:
                grammar = self.language.grammar
                self._ts_language = grammars.language(grammar) if isinstance(grammar, str) else grammar()
            from tree_sitter import Query  # with the first query run: a check that parses nothing never imports it

            query = Query(self._ts_language, self.language.queries[name])
            self._compiled[name] = query
        return query


def chunked(pending: Iterable[tuple[str, Language, bytes]]) -> Iterator[list[tuple[str, Language, bytes]]]:
    chunk: list[tuple[str, Language, bytes]] = []
    size = 0
    for item in pending:
        chunk.append(item)
        size += len(item[2])
        if size >= _CHUNK_BYTES:
            yield chunk
            chunk, size = [], 0
    if chunk:
        yield chunk


def extract_chunk(chunk: list[tuple[str, Language, bytes]], until: float | None) -> list[Facts]:
    """A worker's share: `until` is a `time.monotonic()` deadline, the same clock in every process of
    this machine (CLOCK_MONOTONIC, mach_absolute_time, QueryPerformanceCounter are system-wide)."""
    return [extract_or_broken(language, data, until) for _, language, data in chunk]


def extract_or_broken(language: Language, data: bytes, until: float | None = None, name: str | None = None) -> Facts:
    """A language plugin that fails on one file makes that file unparseable, not the search; a file
    the deadline cut short raises BudgetExceeded, and nothing about it is remembered."""
    try:
        return extract_facts(language, data, until, name)
    except BudgetExceeded:
        raise
    except Exception:  # noqa: BLE001 - contained to the file, reported as its error line
        return Facts(error=1)


_QUERIES: dict[str, _Queries] = {}


def extract_facts(language: Language, data: bytes, until: float | None = None, name: str | None = None) -> Facts:
    """Parse bytes with the language's grammar and run its extract function (per process, no I/O).

    With `until` (a `time.monotonic()` deadline) the parse stops at that time and
    raises BudgetExceeded (`anchorcheck.evidence.trees`). Queries cannot be
    stopped from here (see `anchorcheck.evidence.parsepool`): the caller runs
    this in a worker process it can kill. Without a deadline nothing may hang
    either: a parse past the per-file budget, or a tree whose error recovery would
    make queries quadratic, gives a file that does not parse cleanly (absence
    claims about it are INCONCLUSIVE), not a stuck process.
    """
    tree = trees.parse(language.grammar, data, until, name)
    if tree is None:
        return Facts(error=1)  # the grammar itself loops (a 1 KB TSX input did): unparseable, not a hang
    if too_broken_to_query(tree.root_node):
        return Facts(error=first_error_line(tree.root_node))
    facts: Facts = language.extract(Parsed(tree.root_node, data, _queries(language)))  # type: ignore[misc]
    facts.error = first_error_line(tree.root_node)
    return facts


def definitions_only(
    language: Language, data: bytes, until: float | None = None, name: str | None = None
) -> list[tuple[str, int]] | None:
    """What the language's `extract` puts first in a file's `Facts.defs`, from the tree alone
    (`Language.definitions`), without the rest of the extraction: a name found there is one the full
    facts define, at the same first line, so a `sym:` question about a file whose facts are not known
    (one just edited) costs its parse and one walk. None where the language cannot say them so, or
    the tree is too broken to query (`extract_facts` then keeps no definitions): ask for the facts.
    The tree stays in `trees`' store, so extracting the rest afterwards does not parse again. `name`
    (the file's path) lets `trees` parse an edited file from its last content's tree."""
    if language.definitions is None:
        return None
    tree = trees.parse(language.grammar, data, until, name)
    if tree is None or too_broken_to_query(tree.root_node):
        return None
    try:
        return list(language.definitions(Parsed(tree.root_node, data, _queries(language))))
    except Exception:  # noqa: BLE001 - as `extract_or_broken` contains it: the full facts say what this file is
        return None


def _queries(language: Language) -> _Queries:
    queries = _QUERIES.get(language.name)
    if queries is None or queries.language is not language:
        queries = _QUERIES[language.name] = _Queries(language)
    return queries
