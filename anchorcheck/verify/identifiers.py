"""Identifiers named in prose, judged on evidence: defined now, defined once and gone, or not a claim at all.

`anchorcheck.memory.identifiers` reads the code spans shaped like identifiers
(`parse_config()`, `SourceIndex`, `CACHE_DIR`) and the variables a shell command
sets (`FOO_BAR=1 pnpm test`). Before a run is checked, `settle` decides what
each is, for every memory of the run at once:

- a file of the repository defines it now (the facts a language plugin
  extracts), or reads the variable (`env:`): the reference becomes that
  anchor (`sym:src/cfg.py::load_config`, `env:CACHE_DIR`), checked as any
  typed one, VERIFIED with the file and line;
- nothing defines it now, and history shows a definition removed
  (`anchorcheck.verify.identhistory`, one walk for the run): it becomes the
  anchor of its last definition (`sym:src/cfg.py::parse_config`), REFUTED
  now, and `on_result` adds the commit that removed it, and its new name when
  that commit renamed it;
- shown gone, but listed in a sentence whose other names (two or more) are mostly
  names this repository never defined (`foreign`): another project's list, so
  INCONCLUSIVE, a warning naming them, never REFUTED;
- nothing defines it, now or in the history walked (an example, another
  project's name, a word that looks like code), or the look at it was not
  complete (a candidate that did not parse): it is dropped. Silence, never a
  wrong verdict;
- the deadline came first: it stays unresolved, and its result is
  INCONCLUSIVE, saying so.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from contextlib import nullcontext
from typing import TYPE_CHECKING

from anchorcheck.base.lazyregex import later
from anchorcheck.evidence.goals import Goal, classify
from anchorcheck.evidence.index import SourceIndex
from anchorcheck.memory import identifiers
from anchorcheck.memory.memoryfiles import format_for
from anchorcheck.model.anchors import encode_path
from anchorcheck.model.reference import Reference
from anchorcheck.model.results import AnchorResult, Memory, Verdict
from anchorcheck.repo.context import BudgetExceeded, Context
from anchorcheck.repo.paths import UnsafePathError

if TYPE_CHECKING:
    from anchorcheck.model.registry import Registry
    from anchorcheck.verify.identhistory import Gone, IdentHistory
    from anchorcheck.verify.verifier import Verifier

UNSURE = "unsure"  # the look at a name was not complete: not read
LATE = "late"  # the deadline came before the look: INCONCLUSIVE
UNFOLLOWED = "unfollowed"  # a `sym:` result whose class inherits from a base that cannot be followed (a gem's module)
FOREIGN = "foreign"  # a name once defined here, listed among names of another project: INCONCLUSIVE, a warning
_MEMO = "anchorcheck.identifier-history"
Check = Callable[[str], AnchorResult]
Holding = list[str] | None | str  # the files that write a name (None: too many to read), or "ask"
MAX_CANDIDATE_BYTES = 1024 * 1024  # bytes of the files that may define a name, past which it is not read
MAX_RUN_BYTES = 8 * 1024 * 1024  # bytes of such files one run parses; the names past it are not read
_WORDS = later(rb"[\w$]+")
_LIST_ONLY = Goal(lambda path, facts: False, files=0)  # met before any file is parsed: the candidates, listed


def settle(memories: Iterable[Memory], verifier: Verifier, deadline: float | None = None) -> None:
    """Resolve the identifier references of a run (see the module's docstring), within `deadline` seconds."""
    memories = list(memories)
    names = {
        identifiers.name_of(a): a.kind
        for m in memories for a in m.anchors if isinstance(a, Reference) and a.implicit and identifiers.unresolved(a)
    }
    if not names:
        return
    with verifier.within(deadline) if deadline is not None else nullcontext():
        try:
            holding = holders(verifier.context, names)
        except BudgetExceeded:
            holding = {}
        now = {name: _now(name, kind, verifier, verifier.check, holding[name]) if name in holding else LATE for name, kind in names.items()}
        missing = [name for name, found in now.items() if found is None]
        # No source file writes it now first: only such a name can be shown gone (one still written comes from
        # elsewhere, `on_result`), so the walk's bounds on names and confirmations go to them before a
        # framework's method the code calls everywhere (`belongsTo`, `mock`).
        missing.sort(key=lambda name: holding.get(name) != [])
        fates = _fates(missing, lambda name: names[name] == "env", verifier, verifier.check) if missing else {}
    for memory in memories:
        anchors, positions = [], []
        for index, anchor in enumerate(memory.anchors):
            if isinstance(anchor, Reference) and anchor.implicit and identifiers.unresolved(anchor):
                anchor = _resolved(anchor, now, fates)
                if anchor is None:
                    continue
            anchors.append(anchor)
            positions.append(memory.anchor_position(index))
        memory.anchors, memory.anchor_positions = anchors, positions


def _resolved(reference: Reference, now: dict[str, str | None], fates: dict[str, Gone | None]) -> Reference | None:
    """The reference as the anchor it amounts to; None when it is no claim; itself when not looked at in time.
    Its `siblings` become those of them never defined here, when `foreign` says the sentence is another project's."""
    name = identifiers.name_of(reference)
    found = now[name]
    if found == LATE or found is None and name not in fates:
        return reference
    strangers: tuple[str, ...] = ()
    if found is None:
        gone = fates[name]
        if gone is None:
            return None
        found = f"env:{name}" if gone.env else f"sym:{encode_path(gone.path)}::{gone.qualified}"
        strangers = foreign(reference.siblings, now, fates)
    if found == UNSURE:
        return None
    return reference._replace(kind=found.split(":", 1)[0], anchor=found, siblings=strangers)


MIN_SIBLINGS = 2  # other names of the sentence needed before they may say whose names it lists


def foreign(siblings: Iterable[str], now: dict[str, str | None], fates: dict[str, Gone | None]) -> tuple[str, ...]:
    """The names of a sentence this repository never defined (nothing defines them now, every candidate file
    read cleanly, and the history walked shows no definition removed), when there are at least MIN_SIBLINGS
    other names and more than half of them are such: the sentence lists another project's names ("the
    reference repo also offers (`DurableCodeBridge`, `register_durable_codeact`, `wait_for_external_event`)"),
    and one of them that this repository once defined too is not its stale name. Else () — a renamed helper
    listed beside names defined now, or beside names not looked at in time, is judged alone."""
    siblings = list(siblings)
    never = tuple(s for s in siblings if s in now and now[s] is None and s in fates and fates[s] is None)
    return never if len(siblings) >= MIN_SIBLINGS and 2 * len(never) > len(siblings) else ()


def on_result(reference: Reference, result: AnchorResult, verifier: Verifier, check: Check) -> AnchorResult:
    """An identifier reference's result with what history says: a REFUTED one names the commit that removed
    it (an error); one nothing defines that history does not show gone is no finding of its own (a warning,
    when `settle` did not drop it); an unresolved one was not looked at in time. `check` checks an anchor
    inside the check under way (its deadline kept).

    One INCONCLUSIVE only because its class inherits from a base that cannot be followed (a gem's
    `ActiveSupport::Concern`: state `unfollowed`) is judged on history as well: its own definition removed, the
    same commit taking the name from other lines of the code too (its callers), and no file but prose writing it
    now, the repository stopped using a name of its own, and a base that supplied it would have kept its callers:
    REFUTED with the commit (and the new name). A definition removed alone (an override gone, the base's member
    left) or a name still written stays INCONCLUSIVE, a warning saying what history showed."""
    if reference.kind == "sym" and identifiers.unresolved(reference):
        said = f"budget exceeded before `{identifiers.name_of(reference)}` was looked up: whether this repository defines it, or did, is not known"
        return AnchorResult(reference.anchor, Verdict.INCONCLUSIVE, said, state="budget")
    doubted = result.verdict is Verdict.INCONCLUSIVE and result.state == UNFOLLOWED
    if result.verdict is not Verdict.REFUTED and not doubted:
        return result
    name = identifiers.name_of(reference)
    fates = _fates([name], lambda _: reference.kind == "env", verifier, check)
    gone = fates.get(name)
    if gone is None and doubted:
        return result  # no definition of it removed here: the base may well be where it comes from
    if gone is None:
        said = "history was not read in time" if name not in fates else "no removal of it in the history looked at"
        result.verdict, result.severity, result.state = Verdict.INCONCLUSIVE, "warning", "unsure"
        result.reason += f"; {said}: maybe not a name of this repository"
        return result
    user = _written_in_source(name.rsplit(".", 1)[-1], verifier)
    if user != "":  # the code still writes it: it comes from elsewhere now (a dependency), or was not looked for
        said = f"but {user} still writes `{name}`" if user else "but the sources could not all be searched for it in time"
        result.verdict, result.severity, result.state = Verdict.INCONCLUSIVE, "warning", "unsure"
        result.reason += f"; {gone.describe()}, {said}: defined elsewhere now, maybe by a dependency"
        return result
    if reference.siblings:  # (settled: the names beside it this repository never defined)
        listed = ", ".join(f"`{s}`" for s in reference.siblings)
        result.verdict, result.severity, result.state = Verdict.INCONCLUSIVE, "warning", FOREIGN
        result.reason += f"; {gone.describe()}, but it is listed beside {listed}, which this repository never defined: read as another project's name"
        return result
    if doubted:
        beside = _history(verifier).used_beside(gone)
        if beside is None:  # the definition went alone: an override of the base's member looks the same
            result.severity = "warning"
            result.reason += f"; {gone.describe()}, but no other line of the code wrote it then: the base may still supply it"
            return result
        result.verdict = Verdict.REFUTED
        result.reason += (f"; {gone.describe()}; the same commit took it from {beside} too, and no file but prose writes it now: "
                          "the code stopped using a name of its own, which no base supplies in its stead")
    else:
        result.reason += f"; {gone.describe()}"
    result.state, result.severity = "gone", "error"
    result.details = {**result.details, "history": gone.to_dict()}
    if gone.to:
        result.details["fix"] = {"from": name, "to": gone.to, "name": True}
    return result


def _written_in_source(name: str, verifier: Verifier) -> str | None:
    """A source file that still writes the name a commit removed the definition of ("" when none does; None
    when the deadline came first): code that uses a name no file here defines gets it from elsewhere (a
    package it imports), or defines it in a form the facts do not record (an interface member, an object
    literal's method), so the name is not gone, whatever its old definition. The name whole: the new name
    of a rename that kept the old one as its start (`parse` -> `parse_v2`) is no use of it; nor is the name
    right after a slash, a path's part (`from "../utils/safeWriteJson"`: the module file kept its name)."""
    context, needle = verifier.context, name.encode("utf-8", "surrogateescape")
    whole = re.compile(rb"(?<![\w$/])" + re.escape(needle) + rb"(?![\w$])")
    index = SourceIndex.of(context)
    indexed = index.sources(None)[0]
    for path, _ in indexed:
        left = context.time_left()
        if left is not None and left <= 0:
            return None
        if index.contains(path, needle) and _writes(index, path, whole):
            return path
    return _written_elsewhere(context, needle, whole, {path for path, _ in indexed})


def _written_elsewhere(context: Context, needle: bytes, whole: re.Pattern[bytes], looked: set[str]) -> str | None:
    """A tracked file the source index left out (`looked`) that writes the name: one no language plugin
    parses (Kotlin, Zig, a shell script, a config), or one of a folder the index skips (`build/`); it may
    define it now, so its old definition's removal proves nothing. Prose is not a place of definitions: a
    memory or instruction file, a document, or a link to one (`.cursorrules` -> `AGENTS.md`) writes the
    very names it is checked for. A file past MAX_UNPARSED_BYTES is data. "" when none does, None past the
    deadline."""
    repo, registry = context.repo, context.registry
    for at, path in enumerate(dict.fromkeys([*repo.paths(None), *repo.staged_blob_ids])):  # tracked under `build/` too
        if not at % 256:
            left = context.time_left()
            if left is not None and left <= 0:
                return None
        if path in looked or _prose(path, registry):
            continue
        try:
            data = repo.read_bytes(path, MAX_UNPARSED_BYTES)
            if needle in data and whole.search(data) is not None:  # (the bytes first: a search that starts in a look-behind tries every offset)
                if not _prose(repo.resolve(path).relative_to(repo.root).as_posix(), registry):
                    return path
        except (OSError, UnsafePathError, ValueError):  # too large, gone, or a link out: data, not a definition
            continue
    return ""


def _prose(path: str, registry: Registry) -> bool:
    """Whether a file is prose: a memory or instruction file a format reads, or a document."""
    return path.lower().endswith(_PROSE_SUFFIXES) or format_for(path, registry) is not None


MAX_UNPARSED_BYTES = 1_000_000  # a file no plugin parses, past this size, is data (a dump, a lockfile), not code
_PROSE_SUFFIXES = (".md", ".mdx", ".mdc", ".markdown", ".rst", ".adoc")


def _writes(index: SourceIndex, path: str, whole: re.Pattern[bytes]) -> bool:
    try:
        return whole.search(index.read(path)) is not None
    except (OSError, UnsafePathError):
        return False


def _fates(names: list[str], env: Callable[[str], bool], verifier: Verifier, check: Check) -> dict[str, Gone | None]:
    """What history says of names nothing defines now."""
    return _history(verifier).fates(names, env, verifier.context, lambda name: _now(name, _kind(name), verifier, check) not in (None, UNSURE, LATE))


def _history(verifier: Verifier) -> IdentHistory:
    """The checkout's one IdentHistory (made once)."""
    from anchorcheck.verify.identhistory import IdentHistory  # (imported here: a run whose names are all defined never asks)

    context = verifier.context
    return context.memo((_MEMO, context.repo.root), lambda: IdentHistory(context))


def _kind(name: str) -> str:
    found = identifiers.identifier(name)
    return found[0] if found is not None else "sym"


def _now(name: str, kind: str, verifier: Verifier, check: Check, holding: Holding = "ask") -> str | None:
    """The anchor a name amounts to now (`env:NAME`, `sym:PATH::Q`); None when nothing defines it, as far as
    every candidate file shows; UNSURE when that cannot be told; LATE past the deadline. `holding`: what
    `holders` found for it, or "ask" to look now."""
    context = verifier.context
    left = context.time_left()
    if left is not None and left <= 0:
        return LATE
    complete = True
    if kind == "env":
        result = check(f"env:{name}")
        if result.verdict is Verdict.VERIFIED:
            return f"env:{name}"
        if result.state == "budget":
            return LATE
        complete = result.verdict is Verdict.REFUTED  # a computed key or an unparsed file may read it
    try:
        context = verifier.context  # (a check may have made a new one)
        found, clean = _definers(context, name, holders(context, [name])[name] if holding == "ask" else holding)
    except BudgetExceeded:
        return LATE
    if found:
        path, qualified = found
        return f"sym:{encode_path(path)}::{qualified}"
    return None if complete and clean else UNSURE


def holders(context: Context, names: Iterable[str]) -> dict[str, list[str] | None]:
    """For each name, the source files that write it as a word (`ToolRenderer`, not `ToolRendererRenamed`), from
    one look at the bytes of the files that hold any of them (one pattern, each file read once); None for a
    name whose files hold more than MAX_CANDIDATE_BYTES together (a word every file writes, `NaN`,
    `node_modules`: the look would not be complete, and it is not read), and for the names, in reading
    order, past MAX_RUN_BYTES of such files in all (by size, so a cold and a warm run read the same)."""
    index = SourceIndex.of(context)
    needles = {name: max(name.split("."), key=len).encode() for name in names}
    wanted = sorted(set(needles.values()))
    listed = index.search(None, lambda language: wanted, goal=_LIST_ONLY)
    found: dict[bytes, list[str]] = {}
    try:
        for path in listed.candidates:  # the words of each file, intersected: an alternation of 300 names took 6x longer
            context.check_deadline()
            for word in set(_WORDS.findall(index.read(path))).intersection(wanted):
                found.setdefault(word, []).append(path)
        sizes = {path: index.size(path) for paths in found.values() for path in paths}
    except (OSError, UnsafePathError):
        return dict.fromkeys(needles)
    answer: dict[str, list[str] | None] = {}
    counted: set[str] = set()
    total = 0
    for name, needle in needles.items():  # in reading order: the run's parsing stops at MAX_RUN_BYTES
        paths = found.get(needle, [])
        more = sum(sizes[p] for p in paths if p not in counted)
        if sum(sizes[p] for p in paths) > MAX_CANDIDATE_BYTES or total + more > MAX_RUN_BYTES:
            answer[name] = None
            continue
        counted.update(paths)
        total += more
        answer[name] = paths
    return answer


def _definers(context: Context, name: str, holding: Holding) -> tuple[tuple[str, str] | None, bool]:
    """The first of the `holding` files that defines `name` now (production first) and its qualified name there,
    and whether every one was read and parsed cleanly (None: too many to look at). A definition of exactly that
    name comes before a member that shares it in any file (`enum AdminAction` in one file, a variant
    `Action::AdminAction` in another): the member only when no file defines the name itself. (Every holding
    file may be parsed then: `holders` counted all of their bytes in the run's budget.)"""
    if not isinstance(holding, list):
        return None, False
    from anchorcheck.verify.identhistory import defines  # with the history walk: a run with no name to look up never loads it

    index = SourceIndex.of(context)
    clean, member = True, None
    try:
        for path in sorted(holding, key=lambda path: classify(path) != "production"):
            context.check_deadline()
            facts = index.facts(path)
            found = defines(facts, name, False) if facts is not None else []
            if found and found[0][0] == name:
                return (path, name), True
            member = member or ((path, found[0][0]) if found else None)
            clean = clean and (facts is None or facts.error is None)
    except (OSError, UnsafePathError):
        return member, False
    return member, clean
