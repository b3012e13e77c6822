"""The public entry point: `Verifier(root).check(anchor)` and `.verify(memory)`.

The Verifier owns one Context, so evidence is gathered lazily (only what the
anchors ask for) and shared between anchors. Dispatch goes through the
`verify_anchor` hook, then the kind's own verifier; any exception a plugin
raises is contained to the anchor it was checking.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from anchorcheck.memory import implicit, lifecycle
from anchorcheck.repo.revision import RevisionError, RevisionRepository
from anchorcheck.verify import namehistory, staleness
from anchorcheck.model.anchors import Anchor, AnchorSyntaxError, anchor_text, encode_path, format_anchor, parse_anchor
from anchorcheck.repo.config import Config, ConfigError, load_config
from anchorcheck.repo.context import BudgetExceeded, Context
from anchorcheck.model.mistakes import MALFORMED, UNKNOWN_KIND, unknown_kind_reason
from anchorcheck.model.results import AnchorResult, Memory, MemoryReport, Verdict, default_severity
from anchorcheck.verify.loading import PluginSet, default_plugins, load_plugins, only_from_env
from anchorcheck.model.reference import Reference
from anchorcheck.model.registry import Registry
from anchorcheck.repo.checkout import Repository, UnsafePathError, check_relative

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from anchorcheck.evidence.freshness import Lookout, Snapshot

    from anchorcheck.evidence.stored import ResultStore
    from anchorcheck.repo.treestate import TreeState

PARALLEL_THRESHOLD = 200  # below this many memories a pool costs more than it saves
_CONFIG_FILES = frozenset({".anchorcheck.toml", "pyproject.toml"})  # where `load_config` looks

class Verifier:
    """Checks anchors and memories against one checkout.

    `plugins` adds plugin objects (modules or instances with hookimpls) beside
    the installed ones; `only_plugins` restricts which installed plugins load
    (default: ANCHORCHECK_PLUGINS, then the config's `plugins` key).
    """

    def __init__(
        self,
        root: str | os.PathLike[str] = ".",
        *,
        plugins: Sequence[object] = (),
        only_plugins: Sequence[str] | None = None,
        config: Config | None = None,
        options: dict[str, Any] | None = None,
    ) -> None:
        root_path = Path(root)
        self.config = config if config is not None else load_config(root_path.resolve())
        self.repo = Repository(
            root_path,
            skip_dirs=self.config.skip_dirs,
            exclude=self.config.exclude,
            max_file_size=self.config.max_file_size,
        )
        # What the checkout looked like when this Verifier last answered; None before the first call,
        # and always for a one-shot Verifier (the CLI's `check`: nothing can change between its calls).
        self._resident = bool((options or {}).get("resident", True))
        self._snapshot: Snapshot | None = None
        # On before anything lists the checkout (a caller's own `repo.paths()`, a listing fetched in the
        # background): whatever the first snapshot's listing saw, a change after it began is seen.
        self._lookout = _lookout(self.repo) if self._resident else None
        if (options or {}).get("prefetch_listing"):
            # Only where the first check follows at once (the CLI): the listing is a snapshot, and
            # one taken long before a library caller's first check would judge later edits wrongly.
            self.repo.prefetch_listing()
        self.plugins = _plugin_set(only_plugins, self.config, plugins)
        self._chosen_plugins = (only_plugins, plugins)  # the config's `plugins` key may choose again (`_rebuild`)
        self.context = Context(self.repo, self.plugins.registry, self.config, options=dict(options or {}))
        self._own_config = config is None  # read from the checkout: read again when it changes there
        self._looked_yet = False  # whether the first look at the checkout was taken (see `_looked`)
        self._looking: threading.Thread | None = None
        self._ceiling: float | None = None  # a `within` block's deadline (time.monotonic()): no call inside passes it
        # Results on disk per tree state (anchorcheck.evidence.stored): None until first needed, False when not
        # used (no cache, plugins given as objects, or this resident Verifier saw a change since).
        self._results: ResultStore | None | bool = None if not plugins else False
        # What a worker process needs to build the same Verifier (modules travel by name).
        self._spec = (
            str(self.repo.root),  # resolved: a worker started elsewhere must check this tree, not its cwd's
            [p.__name__ if isinstance(p, ModuleType) else p for p in plugins],
            None if only_plugins is None else list(only_plugins),
            self.config,
            dict(options or {}),
        )

    @property
    def root(self) -> Path:
        return self.repo.root

    @property
    def registry(self) -> Registry:
        return self.plugins.registry

    def parse(self, text: str) -> Anchor:
        """Parse an anchor against the kinds this Verifier's plugins registered."""
        return parse_anchor(text, self.plugins.registry.kinds)

    def check(self, anchor: Any, *, deadline: float | None = None) -> AnchorResult:
        """Verify one anchor: a string, an `Anchor` or a `Citation`. Never raises for bad input.

        `deadline` is a budget in seconds for this call; past it the anchor is
        INCONCLUSIVE ("budget exceeded").
        """
        self.context.deadline = self._deadline(deadline)
        try:
            if not self._looked():
                return _budget(anchor_text(anchor), _LISTING)
            self.refresh()
            return self._check(anchor)
        finally:
            self.context.deadline = self._ceiling
            self._flush()

    @contextmanager
    def within(self, seconds: float) -> Iterator[None]:
        """Every call inside the block, and any work on this Verifier's context (a suggestion's index
        lookups), keeps to one deadline `seconds` from now; a call's own sooner deadline still wins.
        A server answering one request with many checks bounds the request so, not each check."""
        outer = self._ceiling
        self._ceiling = self.context.deadline = _sooner(outer, time.monotonic() + seconds)
        try:
            yield
        finally:
            self._ceiling = self.context.deadline = outer

    def _deadline(self, seconds: float | None) -> float | None:
        """The deadline of a call given `seconds` (None: none of its own) inside the current `within` block."""
        return _sooner(self._ceiling, time.monotonic() + seconds if seconds is not None else None)

    def verify(
        self, memory: Memory, *, deadline: float | None = None, now: datetime | None = None
    ) -> MemoryReport:
        """Verify every anchor of a memory and combine their verdicts under the lifecycle rules.

        The memory's `expires`, `resolve_after` and `as_of` fields (see
        `anchorcheck.memory.lifecycle`) are judged against `now` (default: the clock);
        `as_of` anchors are checked at that git revision.
        """
        self.context.deadline = self._deadline(deadline)
        try:
            if not self._looked():
                return _unchecked(memory)
            self.refresh()
            return self._verify_one(memory, now)
        finally:
            self.context.deadline = self._ceiling
            self._flush()

    def _verify_one(self, memory: Memory, now: datetime | None) -> MemoryReport:
        how = lifecycle.plan(memory, self.context)
        if how.problem is not None:
            return lifecycle.conclude(memory, [lifecycle.unchecked(a, how.problem) for a in memory.anchors], how, now)
        home = self.context
        how.context.deadline, self.context = home.deadline, how.context
        try:
            results = [self._check(anchor) for anchor in memory.anchors]
        finally:
            self.context = home
            if how.context is not home:
                how.context.deadline = None
        return lifecycle.conclude(memory, results, how, now)

    def verify_many(
        self,
        memories: Iterable[Memory],
        executor: Executor | None = None,
        *,
        deadline: float | None = None,
        now: datetime | None = None,
    ) -> list[MemoryReport]:
        """Verify many memories, in order; `deadline` is a budget in seconds for the whole call.

        `executor` is any `concurrent.futures.Executor` (a process pool, or
        Dask's / Ray's executors): memories go to it in chunks, and each
        worker builds its own Verifier for this root once, sharing the on-disk
        cache. Without one, a large batch gets a process pool and a small one
        runs here, where the in-memory index is warm. A memory that repeats
        an earlier one but for where it was written (a byte copy of a memory
        file) is checked once: its report is the earlier one's, placed there.
        """
        batch = list(memories)
        keys = [_copy_key(memory) for memory in batch]
        distinct: dict[object, Memory] = {}
        for key, memory in zip(keys, batch):
            distinct.setdefault(key, memory)
        reports = dict(zip(distinct, self._verify_distinct(list(distinct.values()), executor, deadline, now)))
        placed = (reports[key] for key in keys)
        return [report if report.memory is memory else _placed(report, memory) for memory, report in zip(batch, placed)]

    def _verify_distinct(
        self, batch: list[Memory], executor: Executor | None, deadline: float | None, now: datetime | None
    ) -> list[MemoryReport]:
        until = time.time() + deadline if deadline is not None else None
        if executor is None and len(batch) < PARALLEL_THRESHOLD:
            self.context.deadline = time.monotonic() + deadline if deadline is not None else None
            try:
                looked = self._looked()
            finally:
                self.context.deadline = None
            if not looked:
                return [_unchecked(memory) for memory in batch]
            self.refresh()
            staleness.want(batch, self.context)
            return _verify_here(self, batch, until, now)
        owned = executor is None
        self._looked()  # a process pool forks: no thread may be mid-call then
        self.refresh()  # a configuration changed since is the one the workers must check under
        staleness.want(batch, self.context, now=True)
        self.repo.join_prefetch()
        if executor is None:
            from concurrent.futures import ProcessPoolExecutor  # only large batches need it: spare the import

            executor = ProcessPoolExecutor(max_workers=min(os.cpu_count() or 1, 8))
        from anchorcheck.verify.fleet import submit_batches  # only batches sent to other processes need it

        try:
            return submit_batches(executor, [(self._spec, batch)], until, now)[0]
        finally:
            if owned:
                executor.shutdown()

    def refresh(self) -> bool:
        """Bring what this Verifier has cached up to date with the disk; every call does this first.

        Cheap when nothing changed: one read of the kernel's queue of file
        events, or one stat per listed file and directory where there is none
        (`anchorcheck.evidence.freshness`). Exact when something did: a file whose bytes
        changed loses its facts and is read again when an anchor needs it, an
        added or removed file makes git list the checkout again, and of what
        the Verifier worked out (search results, parsed manifests, verdicts)
        only what the changed files fed is computed again (`anchorcheck.base.memo`).
        Whether anything changed since the last call.
        """
        if not self._resident:
            return False
        if not self._looked():
            return False
        if self._snapshot is None:  # the first look could not take it: take it now; what the listing taken
            self._watch(_snapshot(self.repo))  # before it may have missed is reported by its first `changes()`
        changes = self._snapshot.changes()
        unwatched = self.context.shared.drop_volatile()
        if unwatched:  # read outside what the snapshot watches (an ignored file): read again at each call
            self._forget(unwatched)
        if not changes:
            return False
        self._results = False  # from now on this Verifier's own records say what is still true
        stale = set(changes.modified)
        relist = changes.relist
        if self._own_config and (relist or stale & _CONFIG_FILES):
            try:
                config = load_config(self.repo.root)
            except ConfigError:  # as a new Verifier would raise; the changes wait for a valid configuration
                self._snapshot.keep(changes)
                raise
            if config != self.config:  # skipped directories, excluded files, size cap: judged anew throughout
                self._rebuild(config, stale, self._snapshot)
                return True
        if not relist:
            self._forget(stale)
            self.context.shared.forget(stale, False, self._snapshot.listed.__contains__)
            return True
        old = self._snapshot
        listed = set(self.repo.paths())
        self.repo.relist()
        self._watch(_snapshot(self.repo))  # before the new listing is judged: a change from now on is seen
        stale |= listed ^ self._snapshot.listed
        stale |= self._snapshot.changed_since(old)  # between the look that found the change and the new watches
        self._forget(stale, relisted=True)
        self.context.shared.forget(stale, True, lambda path: path not in old.listed)
        return True

    def unwatched(self, paths: set[str]) -> set[str]:
        """Of these repo-relative paths, those a change of which `refresh` would not see (a file no
        listing holds, such as an ignored one): a caller that read them must read them again itself."""
        return paths if self._snapshot is None else self._snapshot.uncovered(paths)

    def _looked(self) -> bool:
        """Whether the first look at the checkout is done: git's listing, the snapshot a resident
        Verifier keeps (taken before anything is read, so a later change is seen) and the tree state
        results are stored under. Without a deadline it is done here. Under one, it runs in a thread
        this call waits on until the deadline, and a later call waits on the same thread: a large
        tree is listed once, however short each call's budget, and no call overruns its own."""
        if self._looking is None:
            if self._looked_yet:
                return True
            if self.context.deadline is None:
                self._first_look()
                return True
            self._looking = threading.Thread(target=self._first_look, name="anchorcheck-first-look", daemon=True)
            self._looking.start()
        left = self.context.time_left()
        self._looking.join(None if left is None else max(0.0, left))
        if self._looking.is_alive():
            return False
        self._looking = None
        return True

    def _first_look(self) -> None:
        try:
            if self._resident:  # the snapshot lists the checkout, its watches on before git looks at the files
                self._watch(_snapshot(self.repo, self._lookout))
            self.repo.paths()
            self._store()
        except Exception:  # noqa: BLE001 - what failed is done again where it is needed, and reported there
            return
        finally:
            self._looked_yet = True
            self._lookout = None

    def _forget(self, stale: set[str], relisted: bool = False) -> None:
        """What the checkout and the source index knew of these files goes: they are read again."""
        self.repo.forget(stale)
        index = self.context.peek("anchorcheck.evidence.index")
        if index is not None:
            index.forget(stale, relisted=relisted)

    def _watch(self, snapshot: Snapshot) -> None:
        self._snapshot = snapshot
        self.context.shared.uncovered = snapshot.uncovered

    def _rebuild(self, config: Config, stale: set[str], old: Snapshot) -> None:
        """The configuration changed: a new view of the checkout, keeping the facts of unchanged files."""
        from anchorcheck.evidence.index import SourceIndex

        known = self.context.peek("anchorcheck.evidence.index")
        if config.max_file_size != self.config.max_file_size:
            known = None  # which files are too large to parse changed: every file's facts are judged anew
        if config.plugins != self.config.plugins:  # the plugins to load, as a new Verifier would choose them
            only, extra = self._chosen_plugins
            self.plugins = _plugin_set(only, config, extra)
            known = None
        listed = set(self.repo.paths())
        self.config = config
        self._spec = (*self._spec[:3], config, self._spec[4])  # a worker builds its Verifier under this one
        self.repo = Repository(self.repo.root, skip_dirs=config.skip_dirs, exclude=config.exclude, max_file_size=config.max_file_size)
        # The call that saw the change keeps its deadline on the new context.
        self.context = Context(self.repo, self.plugins.registry, self.config, deadline=self.context.deadline, options=self.context.options)
        self._watch(_snapshot(self.repo))
        stale |= listed ^ set(self.repo.paths())
        stale |= self._snapshot.changed_since(old)  # between the look that found the change and the new watches
        if known is not None:
            SourceIndex.succeeding(known, self.context, stale)

    # -- dispatch --------------------------------------------------------------

    def _check(self, raw: Any) -> AnchorResult:
        try:
            return self._check_within(raw)
        except BudgetExceeded:  # out of a plugin's reach: resolving an implicit path, a scope
            return _budget(anchor_text(raw.anchor if isinstance(raw, Reference) else raw), "before this anchor's check finished")

    def _check_within(self, raw: Any) -> AnchorResult:
        if isinstance(raw, Reference):
            return self._check_reference(raw)
        text = anchor_text(raw)
        try:
            anchor = self._as_anchor(raw)
        except AnchorSyntaxError as exc:
            unknown = unknown_kind_reason(text, self.registry.kinds) if isinstance(raw, str) else None
            if unknown is not None:
                return AnchorResult(text, Verdict.INCONCLUSIVE, unknown, state=UNKNOWN_KIND)
            return AnchorResult(text, Verdict.INCONCLUSIVE, f"malformed anchor: {exc}", state=MALFORMED)
        shown = format_anchor(anchor)
        if self.context.time_left() is not None and self.context.time_left() <= 0:
            return _budget(shown)
        refused = self._refused_scope(anchor)
        if refused is not None:
            return AnchorResult(shown, Verdict.INCONCLUSIVE, refused, state="unverifiable")
        result = self._answer(anchor, described=isinstance(raw, str) or anchor.detail is None)
        if not anchor.negated:  # what history says of a claim that does not hold: gone, or never there
            result = staleness.on_missing_file(anchor, result, self.context)
            result = namehistory.on_undefined_command(anchor, result, self.context, self._verdict_at)
        result.anchor = shown
        if anchor.negated:
            result = _negate(result)
        return result

    def _verdict_at(self, revision: str | None, text: str) -> Verdict:
        """An anchor's verdict now (None) or at a past revision, by the same plugins (`namehistory`)."""
        anchor = self.parse(text)
        if revision is None:
            return self._answer(anchor, described=True).verdict
        home = self.context
        try:
            past = RevisionRepository(home.repo, revision)
        except RevisionError:
            return Verdict.INCONCLUSIVE
        self.context = Context(past, home.registry, home.config, deadline=home.deadline, options=dict(home.options))
        try:
            return self._dispatch(anchor).verdict
        finally:
            self.context = home

    def _check_reference(self, reference: Reference) -> AnchorResult:
        """An implicit reference: a path is first resolved as a reader would (see anchorcheck.memory.implicit)."""
        if reference.kind == "file":
            where = implicit.resolve(reference, self.context)
            if where.path is None:
                likely = where.state in (implicit.NEVER_EXISTED, implicit.AMBIGUOUS)
                result = AnchorResult(reference.anchor, Verdict.INCONCLUSIVE, where.unsure or "", state=where.state, severity="warning" if likely else None)
            else:
                result = self._check(f"file:{encode_path(where.path)}")
                result.reason += where.note
        elif reference.kind == "cmd":
            result = self._first_reading(implicit.command_readings(reference, self.context.repo))
        else:
            result = self._check(reference.anchor)
        result.implicit = True
        result.details = {**result.details, "written": reference.written, "form": reference.form}
        return result

    def _first_reading(self, anchors: list[str]) -> AnchorResult:
        """The first reading that verifies; REFUTED only when every reading is; else the first INCONCLUSIVE one.

        When every reading is REFUTED, the one shown is the first that found its configuration and cites it
        ("no target x in Makefile"), rather than one refuted for having none in its folder ("no Makefile in
        .claude/skills/x/"), which says nothing about the command."""
        results = []
        for anchor in anchors:
            result = self._check(anchor)
            if result.verdict is Verdict.VERIFIED:
                return result
            results.append(result)
        unsure = [r for r in results if r.verdict is not Verdict.REFUTED]
        if unsure:
            return unsure[0]
        shown = next((r for r in results if r.evidence), results[0])
        if len(results) > 1:
            shown.reason += f" (nor as {', '.join(r.anchor for r in results if r is not shown)})"
        return shown

    def _as_anchor(self, raw: Any) -> Anchor:
        if isinstance(raw, Anchor):
            return raw
        as_anchor = getattr(raw, "as_anchor", None)
        if callable(as_anchor):
            return as_anchor()
        if isinstance(raw, str):
            return self.parse(raw)
        raise AnchorSyntaxError(f"expected an anchor string, Anchor or Citation, got {type(raw).__name__}")

    def _refused_scope(self, anchor: Anchor) -> str | None:
        if anchor.scope is None or set("*?[") & set(anchor.scope):
            return None
        try:
            check_relative(anchor.scope)
            self.context.repo.resolve(anchor.scope)
        except UnsafePathError as exc:
            return f"scope refused: {exc.why}"
        return None

    def _answer(self, anchor: Anchor, described: bool) -> AnchorResult:
        """The positive claim's result: kept in the memo while what it was worked out from holds, when
        the anchor's text `described` it whole (a citation carries its banked lines beside the text).
        A copy each time: callers adorn results (negation, implicit marks)."""
        positive = anchor.positive()
        if not described:
            return self._dispatch(positive)
        key = ("anchorcheck.result", positive.kind, positive.value, positive.scope)
        kept = self.context.shared.get(key, lambda: self._work_out(positive), keep=_finished)
        return replace(kept, evidence=list(kept.evidence), details=dict(kept.details))

    def _work_out(self, anchor: Anchor) -> AnchorResult:
        """A result from the disk when this tree state was judged before, else from the plugins (and kept)."""
        store = self._store()
        if store is None:
            return self._dispatch(anchor)
        memo = self.context.shared
        found = store.get(anchor)
        if found is not None:  # no record of the files it read: it goes at the first change of any
            result, absent = found
            memo.read_all(absent)
            memo.listed()
            memo.watch(_anything)
            return result
        result = self._dispatch(anchor)
        reads = memo.current()
        if _finished(result) and reads is not None:
            store.put(anchor, result, reads)
        return result

    def _store(self) -> ResultStore | None:
        """The result store of this checkout's tree state, in this Verifier's own context only (not at a
        past revision); opened on first use, outside any entry's record (it lists and hashes the tree)."""
        if self._results is False or self.context.repo is not self.repo:
            return None
        if self._results is None:
            from anchorcheck.evidence.cache import open_cache
            from anchorcheck.evidence.stored import ResultStore

            cache = open_cache(self.context.options, self.repo.root, self.context.time_left)
            with self.context.shared.unrecorded():
                opened = ResultStore.open(self.repo, self.plugins, self.config, cache) if cache is not None else None
            self._results = opened if opened is not None else False
        return self._results or None

    def tree(self) -> TreeState | None:
        """The tree state this Verifier's stored verdicts are keyed by (`anchorcheck.repo.treestate`); None where
        none is used (no cache, outside git, a tree too unclean to name, or a change seen since)."""
        store = self._store()
        return store.tree if store is not None else None

    def _flush(self) -> None:
        if self._results:
            self._results.flush()

    def _dispatch(self, anchor: Anchor) -> AnchorResult:
        shown = format_anchor(anchor)
        for impl in self.plugins.hook_impls("verify_anchor"):
            result = self._guarded(impl.plugin_name, shown, impl.function, anchor=anchor, context=self.context)
            if result is not None:
                return result
        kind = self.plugins.registry.kinds.get(anchor.kind)
        if kind is None:
            return AnchorResult(
                shown, Verdict.INCONCLUSIVE, f"no loaded plugin verifies '{anchor.kind}:' anchors"
            )
        result = self._guarded(kind.plugin, shown, kind.verify, anchor, self.context)
        return result if result is not None else AnchorResult(
            shown, Verdict.INCONCLUSIVE, f"plugin {kind.plugin!r} returned no result"
        )

    def _guarded(self, plugin: str, shown: str, function: Any, *args: Any, **kwargs: Any) -> AnchorResult | None:
        try:
            result = function(*args, **kwargs)
        except BudgetExceeded as exc:
            return _budget(shown, str(exc) or "before this anchor's check finished")
        except UnsafePathError as exc:
            return AnchorResult(shown, Verdict.INCONCLUSIVE, f"refused path {exc.path!r}: {exc.why}", state="unverifiable", plugin=plugin)
        except Exception as exc:  # a plugin bug costs one anchor, not the run
            return AnchorResult(
                shown,
                Verdict.INCONCLUSIVE,
                f"plugin {plugin!r} failed: {type(exc).__name__}: {exc}",
                state="error",
                plugin=plugin,
            )
        if result is not None and result.plugin is None:
            result.plugin = plugin
        return result


def _lookout(repo: Repository) -> Lookout:
    from anchorcheck.evidence.freshness import Lookout  # a one-shot Verifier (the CLI's `check`) never watches

    return Lookout(repo)


def _snapshot(repo: Repository, lookout: Lookout | None = None) -> Snapshot:
    """What the checkout looks like now (`anchorcheck.evidence.freshness`), for a Verifier that answers again later."""
    from anchorcheck.evidence.freshness import Snapshot

    return Snapshot(repo, lookout)


def _verify_here(
    verifier: Verifier, memories: list[Memory], until: float | None, now: datetime | None = None
) -> list[MemoryReport]:
    """Verify in this process against one wall-clock deadline (`time.time()` based, so it crosses processes)."""
    verifier.context.deadline = time.monotonic() + (until - time.time()) if until is not None else None
    try:
        return [verifier._verify_one(m, now) for m in memories]
    finally:
        verifier.context.deadline = None
        verifier._flush()


def _copy_key(memory: Memory) -> object:
    """What the report of a memory read from a file follows from: all of it but where it was written
    (`source`, `id`, the positions). A memory handed over without a file is its own key: a store's
    memories are checked as given, each one."""
    if memory.source is None:
        return id(memory)  # alive as long as the batch: no other memory has it meanwhile
    return repr((memory.text, memory.anchors, memory.metadata))


def _placed(report: MemoryReport, memory: Memory) -> MemoryReport:
    """The report of a memory checked before, for a copy of it written elsewhere."""
    return replace(report, memory=memory, results=list(report.results))


def _plugin_set(only: Sequence[str] | None, config: Config, extra: Sequence[object]) -> PluginSet:
    if only is None:
        env = only_from_env()
        only = env if env is not None else config.plugins
    if not extra:
        return default_plugins(only)
    return load_plugins(only, extra)


_LISTING = "while the checkout was still being listed (a later call goes on from where this one stopped)"


def _unchecked(memory: Memory) -> MemoryReport:
    """A memory whose checkout could not even be listed within the call's budget."""
    results = [_budget(anchor_text(anchor), _LISTING) for anchor in memory.anchors]
    return MemoryReport(memory, results, Verdict.INCONCLUSIVE, f"budget exceeded {_LISTING}")


def _finished(result: AnchorResult) -> bool:
    """A result worth keeping: not one a deadline cut short."""
    return result.state != "budget"


def _anything(path: str) -> bool:
    """The watch of a result read from the disk: any change may matter to it."""
    return True


def _sooner(first: float | None, second: float | None) -> float | None:
    """The earlier of two deadlines, either of which may be None (none)."""
    return second if first is None else first if second is None else min(first, second)


def _budget(shown: str, when: str = "before this anchor was checked") -> AnchorResult:
    return AnchorResult(shown, Verdict.INCONCLUSIVE, f"budget exceeded {when}", state="budget")


def _negate(result: AnchorResult) -> AnchorResult:
    flipped = result.verdict.negated()
    if flipped is not result.verdict:
        claim = "holds" if result.verdict is Verdict.VERIFIED else "does not hold"
        result.reason = f"negated anchor, and the positive claim {claim}: {result.reason}"
    result.verdict = flipped
    result.severity = default_severity(flipped)  # what was certain of the claim says nothing of its negation
    return result
