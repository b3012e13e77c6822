"""How one anchor becomes a result: parsed, scoped, answered from the memo or the disk, else by a plugin.

Dispatch goes through the `verify_anchor` hook, then the kind's own verifier;
any exception a plugin raises is contained to the anchor it was checking, and
a deadline passed inside a plugin is an INCONCLUSIVE result, never an error.
An implicit reference read from prose is resolved first, as a reader would.
Results are kept while what they were worked out from holds (the memo) and
stored on disk per tree state. `Dispatch` is the part of `Verifier` that does this.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from anchorcheck.memory import implicit
from anchorcheck.model.anchors import Anchor, AnchorSyntaxError, anchor_text, encode_path, format_anchor
from anchorcheck.model.mistakes import MALFORMED, UNKNOWN_KIND, unknown_kind_reason
from anchorcheck.model.reference import Reference
from anchorcheck.model.results import LEAVES_CHECKOUT, NOT_IN_CONFIG, AnchorResult, Memory, Verdict, default_severity
from anchorcheck.repo.context import BudgetExceeded, Context
from anchorcheck.repo.paths import UnsafePathError, check_relative
from anchorcheck.verify import namehistory
from anchorcheck.verify.elsewhere import Readings, defined_elsewhere, gone_from_own
from anchorcheck.verify.staleness import dated, dropped_dependency, hedged, on_missing_file
from anchorcheck.verify.unheld import config_history, names_missing, runs_unheld, runs_unknown, unknown_folder
from anchorcheck.memory.references import INSTALL, MENTION

if TYPE_CHECKING:
    from anchorcheck.evidence.stored import ResultStore
    from anchorcheck.model.registry import Registry
    from anchorcheck.repo.checkout import Repository
    from anchorcheck.repo.config import Config
    from anchorcheck.repo.treestate import TreeState
    from anchorcheck.verify.loading import PluginSet


class Dispatch:
    """The part of `Verifier` that checks one anchor, implicit reference or citation."""

    repo: Repository
    config: Config
    context: Context
    plugins: PluginSet
    _results: ResultStore | None | bool

    @property
    def registry(self) -> Registry:
        return self.plugins.registry

    def parse(self, text: str) -> Anchor:
        """Parse an anchor against the kinds this Verifier's plugins registered (`PluginSet.parse`)."""
        return self.plugins.parse(text)


    def validate(self, anchors: Memory | Iterable[Any]) -> None:
        """Refuse, before a memory is stored, an anchor that can never be checked: a kind no plugin
        registered (`imprt:anyio`, with the kind it was meant to be), a value its kind cannot parse,
        a malformed citation. Such an anchor would stay INCONCLUSIVE for ever; at write time the
        writer can still fix it. Raises AnchorSyntaxError naming the anchor; a Memory's anchors or
        any iterable of anchors (strings, `Anchor`s, `Citation`s)."""
        for raw in anchors.anchors if isinstance(anchors, Memory) else anchors:
            text = anchor_text(raw)
            try:
                anchor = self._as_anchor(raw)
            except AnchorSyntaxError as exc:
                unknown = unknown_kind_reason(text, self.registry.kinds) if isinstance(raw, str) else None
                raise AnchorSyntaxError(unknown or exc.message, text, 1 if unknown else exc.column) from None
            problem = getattr(anchor.detail, "problem", None)
            why = problem() if callable(problem) else None
            if why is not None:
                raise AnchorSyntaxError(f"malformed citation: {why}", text)

    def _check(self, raw: Any, history: bool = True) -> AnchorResult:
        try:
            return self._check_within(raw, history)
        except BudgetExceeded:  # out of a plugin's reach: resolving an implicit path, a scope
            return budget_exceeded(anchor_text(raw.anchor if isinstance(raw, Reference) else raw), "before this anchor's check finished")

    def _holds(self, raw: str) -> AnchorResult:
        """An anchor checked for a caller that asks only whether it holds (VERIFIED): what history adds to a
        claim that does not hold (when and where it went) never makes it hold, so none is looked up. (A probe
        of sixteen other folders for a command, each asking the history of its own configuration, was four
        fifths of a `check` on a pnpm monorepo.)"""
        return self._check(raw, history=False)

    def _check_within(self, raw: Any, history: bool = True) -> AnchorResult:
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
        if self._past_deadline():
            return budget_exceeded(shown)
        refused = self._refused_scope(anchor)
        if refused is not None:
            return AnchorResult(shown, Verdict.INCONCLUSIVE, refused, state="unverifiable")
        result = self._answer(anchor, described=isinstance(raw, str) or anchor.detail is None)
        # What history says of a claim that does not hold, or of a name its configuration does not define now.
        if history and not anchor.negated and (result.verdict is Verdict.REFUTED or result.state == NOT_IN_CONFIG or namehistory.stands_in(result)):
            result = on_missing_file(anchor, result, self.context)
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
        from anchorcheck.verify.revisions import Revisions  # only a command gone from its config needs it

        home = self.context
        past = home.memo(("anchorcheck.revisions",), Revisions).context(home, revision)
        if past is None:
            return Verdict.INCONCLUSIVE
        self.context = past
        try:
            return self._dispatch(anchor).verdict
        finally:
            self.context = home

    def _check_reference(self, reference: Reference) -> AnchorResult:
        """An implicit reference: a path is first resolved as a reader would (see anchorcheck.memory.implicit)."""
        if self._past_deadline():  # before the resolving, which alone took a minute for a table of 3,000 paths
            result = budget_exceeded(reference.anchor)
        elif reference.kind == "file":
            where = implicit.resolve(reference, self.context)
            if where.path is None:
                likely = where.state in (implicit.NEVER_EXISTED, implicit.AMBIGUOUS, implicit.RECURRING)
                result = AnchorResult(reference.anchor, Verdict.INCONCLUSIVE, where.unsure or "", state=where.state, severity="warning" if likely else None)
            else:
                result = self._check(f"file:{encode_path(where.path)}")
                result.reason += where.note
                if result.verdict is Verdict.REFUTED and implicit.route_like(reference, self.context.repo):
                    result.severity = "warning"
                    result.reason += f"; `{reference.written}` may be a URL route too, written the same way"
        elif reference.kind == "cmd":
            unheld = runs_unheld(reference, self.context)
            result = unheld if unheld is not None else self._check_command(reference)
        elif reference.form == MENTION:
            result = dropped_dependency(reference, self.context)
        else:
            result = self._check(reference.anchor)
            if reference.form == INSTALL:
                result = installed(result)
            elif reference.kind in ("sym", "env"):  # a name read from prose
                from anchorcheck.verify import identifiers  # (imported here: a check with no such name never asks)

                result = identifiers.on_result(reference, result, self, self._check)  # type: ignore[arg-type]
        if reference.hedged:
            result = hedged(result)
        if reference.dated:
            result = dated(result, reference.dated)
        result.implicit = True
        result.details = {**result.details, "written": reference.written, "form": reference.form}
        return result

    def _check_command(self, reference: Reference) -> AnchorResult:
        """A command read from prose, in a folder here: tried where the text places it, else where it may run."""
        readings = Readings.of(reference, self.context.repo)
        result = gone_from_own(reference, self._first_reading(readings.tried), readings, self._check)
        # after `cd ~/elsewhere`, the folder read is not where it runs: what history says of paths there is no evidence
        placed = not runs_unknown(reference, self.context.repo)
        if result.verdict is Verdict.REFUTED and placed:
            result = config_history(result, self.context, gone_only=True)  # before other folders are asked: a configuration gone from here is stale
        if result.verdict is Verdict.REFUTED:
            result = namehistory.in_prose(defined_elsewhere(reference, result, readings, self._holds, self.registry, self.context.repo))
            if placed:
                result = names_missing(config_history(result, self.context), self.context)  # none here ever: an example, not stale
            result = unknown_folder(reference, result, self.context.repo)
        if result.state == implicit.NEVER_EXISTED:  # a program file or a name its configuration never had: an example, not stale
            result.verdict = Verdict.INCONCLUSIVE
        return result

    def _past_deadline(self) -> bool:
        left = self.context.time_left()
        return left is not None and left <= 0

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
        # a reading whose `cd ../..` leaves the checkout is not where the text runs it, while another stays inside
        results = [r for r in results if r.state != LEAVES_CHECKOUT] or results
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
        return kept.copy()

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
            return budget_exceeded(shown, str(exc) or "before this anchor's check finished")
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


def _finished(result: AnchorResult) -> bool:
    """A result worth keeping: not one a deadline cut short."""
    return result.state != "budget"


def _anything(path: str) -> bool:
    """The watch of a result read from the disk: any change may matter to it."""
    return True


def installed(result: AnchorResult) -> AnchorResult:
    """A package an install command names (`pnpm add date-fns`): the command adds it, so it claims nothing of the
    manifests declaring it now. Declared: VERIFIED as it is; not declared: INCONCLUSIVE (a note), never REFUTED,
    whether the text shows an example, a step to come or one already taken."""
    if result.verdict is Verdict.REFUTED:
        result.verdict, result.state = Verdict.INCONCLUSIVE, "installed"
        result.severity = default_severity(Verdict.INCONCLUSIVE)
        result.reason += "; the install command adds it: it need not be declared before it runs"
    return result


def budget_exceeded(shown: str, when: str = "before this anchor was checked") -> AnchorResult:
    return AnchorResult(shown, Verdict.INCONCLUSIVE, f"budget exceeded {when}", state="budget")


def _negate(result: AnchorResult) -> AnchorResult:
    flipped = result.verdict.negated()
    if flipped is not result.verdict:
        claim = "holds" if result.verdict is Verdict.VERIFIED else "does not hold"
        result.reason = f"negated anchor, and the positive claim {claim}: {result.reason}"
    result.verdict = flipped
    result.severity = default_severity(flipped)  # what was certain of the claim says nothing of its negation
    return result
