"""History as evidence on the results of a run: a missing path says when and where it went, or that it never was.

A `file:` anchor (typed, or an implicit path resolved to one) that is missing
now is REFUTED by the file plugin; history tells a stale path (deleted or
renamed: the commit, and the new place a `fix` can write back) from one that
never existed (an example or a hallucination, still REFUTED as a typed claim,
but a warning, not an error). The paths a run may ask about are handed to
the History first (`want`), so that the whole run makes one `git log` walk.
Where history names the new place, it replaces the plugin's guess by file name
(`details["hint"]`); a rename staged in the index, which no commit holds yet,
is the plugin's to say (state `gone` already, left as it is).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import replace
from functools import cache

from anchorcheck.evidence.cache import open_cache
from anchorcheck.evidence.history import Fate, history_of, names, text_before
from anchorcheck.memory import implicit
from anchorcheck.memory.dependencies import Dependencies, Removal
from anchorcheck.memory.outside import is_outside
from anchorcheck.model.results import Evidence
from anchorcheck.model.anchors import Anchor, decode_path
from anchorcheck.model.reference import Reference
from anchorcheck.model.results import AnchorResult, Memory, Verdict
from anchorcheck.repo.paths import UnsafePathError
from anchorcheck.repo.context import Context
from anchorcheck.verify.namehistory import UNSURE

GONE = "gone"  # the state of a path that existed and was deleted or moved
WRITTEN_AFTER = "written-after"  # gone before the memory file named it: never true as written, so not stale


def want(memories: Iterable[Memory], context: Context, now: bool = False) -> None:
    """Hand every path the memories name and the checkout lacks to the History, for one walk; `now` walks at
    once (before the memories go to other processes, which then read its answers from the cache)."""
    paths: list[str] = []
    for memory in memories:
        for anchor in memory.anchors:
            if isinstance(anchor, Reference):
                if anchor.kind == "file":
                    paths += implicit.history_paths(anchor)
                elif anchor.kind == "cmd" and not is_outside(anchor.placed):  # the folder its text says it runs in (`verify.unheld`)
                    paths += implicit.placed_folders(anchor)
            elif isinstance(anchor, str) and anchor.startswith("file:"):
                paths.append(decode_path(anchor[len("file:"):].split(" in:", 1)[0]))
    history = history_of(context)
    history.want(dict.fromkeys(paths))
    if now:
        history.settle()


def on_missing_file(anchor: Anchor, result: AnchorResult, context: Context) -> AnchorResult:
    """A REFUTED `file:` anchor (or a command whose program file is missing) with what history says: gone (error, with the commit and new place) or never
    there (warning). Other results are returned as they are."""
    if result.verdict is not Verdict.REFUTED or result.state != "missing":
        return result
    if anchor.kind == "file":
        path = anchor.detail if isinstance(anchor.detail, str) else decode_path(anchor.value)
    elif isinstance(result.details.get("missing_path"), str):  # a command's program file (`python x.py`)
        path = result.details["missing_path"]
    else:
        return result
    if _ignored(context, path):  # a local file (`.gitignore`): history is no place to look for it
        return result
    fate = history_of(context).fate(path)
    if fate is None:
        return result
    result.details = {**result.details, "history": fate.to_dict()}
    hint = result.details.pop("hint", None)
    if fate.moved_to is not None and isinstance(hint, str):  # git's word on where it went, not a guess by its name
        result.reason = result.reason.replace(hint, "", 1)
    judge_by_fate(result, fate, claimed=True)
    if fate.existed and fate.destination is not None:
        result.details["fix"] = {"from": path.rstrip("/"), "to": fate.destination}
    return result


def judge_by_fate(result: AnchorResult, fate: Fate, claimed: bool, subject: str = "") -> None:
    """The one ladder for a REFUTED result whose path is missing, on what history says of it (the reason ends with
    it): gone → state `gone`, an error; never in history → `never-existed`, a warning; history seen in part → a
    warning. A path the memory `claimed` (a `file:` anchor, a program file) stays REFUTED, as written it is false;
    a path a command only names is not the claim, so there a path not known to be gone leaves it INCONCLUSIVE,
    saying why (state `unsure` where history was cut). A result judged once already (a command's program file, then
    the path it names: the same path, or the same path again after a fallback reading) does not say it twice. `subject` names the path the clause is about, where the
    reason does not (a configuration looked for in several places)."""
    said = f"; {subject}{fate.describe()}"
    if said not in result.reason:  # (a fallback reading, "(nor as …)", may stand between)
        result.reason += said
    if fate.existed:
        result.state, result.severity = GONE, "error"
        return
    result.severity = "warning"
    if fate.never_existed:
        result.state = implicit.NEVER_EXISTED
    if claimed:
        return  # history cut short: it may have been there before, the state stays as the plugin said
    result.verdict = Verdict.INCONCLUSIVE
    if fate.never_existed:
        result.reason += ": an example, another project's path or a hallucination, not a stale one"
    else:
        result.state = UNSURE
        result.reason += ": it may have been there before, so it is not known to be stale"


def dropped_dependency(reference: Reference, context: Context) -> AnchorResult:
    """A package name in inline code that a manifest's history dropped (it was read for that alone): REFUTED with
    the commit; INCONCLUSIVE when the history read now says otherwise (a manifest declares it again)."""
    repo = context.repo

    def look() -> Removal | None:  # in the memo: the manifests it reads are watched, and it is asked again once one changes
        dependencies = Dependencies(repo, lambda: open_cache(context.options, repo.root, context.time_left), context.memo)
        return dependencies.removal(reference.written, reference.folder, reference.sections)

    removal = context.memo(("anchorcheck.dropped", reference.written, reference.folder, reference.sections), look)
    if removal is None:
        return AnchorResult(reference.anchor, Verdict.INCONCLUSIVE, f"{reference.written} is declared by a manifest, or no longer known to be dropped")
    anchor = f"pkg:{removal.ecosystem}/{reference.anchor.removeprefix('pkg:')}"
    return AnchorResult(anchor, Verdict.REFUTED, removal.reason(), [Evidence(removal.manifest, None, "direct dependencies")], state=GONE,
                        severity="error", details={"history": {"manifest": removal.manifest, "change": list(removal.change)}})


def written_after(memory: Memory, results: list[AnchorResult], context: Context) -> list[AnchorResult]:
    """Stale means "was true, is gone": a name read from a tracked memory file that history shows gone is stale
    only if that file named it in the revision before the commit that removed it. Written after (the file did
    not name it then, or did not exist), the text never held here as written: an old name copied from
    elsewhere, a file the text says a tool makes in its user's project, a short form of a path that moved
    long before. INCONCLUSIVE, a warning naming the commit; no fix is offered. A memory not tracked by git
    (a store's) has no such history: its verdicts stand, but for a path whose new place the same memory names."""
    results = [_unless_beside_its_place(result, memory.text) for result in results]
    if memory.source is None:
        return results
    repo = context.repo
    path = implicit.in_repo(memory.source, repo)
    if path not in repo.staged_blob_ids:
        return results
    text_at = cache(lambda commit: text_before(repo, commit, path))  # read once per removing commit, however many it removed
    return [_unless_written_after(result, path, text_at) for result in results]


def _unless_written_after(result: AnchorResult, path: str, text_at: Callable[[str], str | None]) -> AnchorResult:
    commit = _removed_by(result) if result.implicit and result.verdict is Verdict.REFUTED and result.state == GONE else None
    written = result.details.get("written")
    if commit is None or not isinstance(written, str):
        return result
    text = text_at(commit)
    if text is None or names(text, written):
        return result
    return _not_stale(result, WRITTEN_AFTER, f"{path} did not name `{written}` before {commit}: written after it went, so it "
                      "never held here as written (an old name, or another place's): not stale")


def _unless_beside_its_place(result: AnchorResult, text: str) -> AnchorResult:
    """A path history shows moved, in a memory that names where it went too (Folo's release skill lists
    `apps/mobile/app.config.ts`, `apps/mobile/app.config.base.ts` among the paths whose change needs a store build):
    the text was written knowing the move, and the old name beside the new is a choice, not staleness. INCONCLUSIVE,
    a warning; no fix (it would write the new name twice). Paths only: a command's new name beside the old one is
    a choice of two commands, each a claim."""
    fix = result.details.get("fix")
    to = fix.get("to") if isinstance(fix, dict) and result.anchor.startswith("file:") else None
    # a path of folders (a lone word, `documentation`, is prose as often as a path)
    if not (result.implicit and result.verdict is Verdict.REFUTED and result.state == GONE and isinstance(to, str) and "/" in to
            and re.search(rf"(?<![\w/.-]){re.escape(to)}(?![\w/.-])", text)):  # whole: `scripts/deploy` is no part of `scripts/deploy.sh`
        return result
    return _not_stale(result, WRITTEN_AFTER, f"the text names `{to}` beside it, where it went: written knowing the move, not stale")


def hedged(result: AnchorResult) -> AnchorResult:
    """A REFUTED path of a sentence that says "used to" (a past, or a purpose: "the script `x` used to deploy"), as a
    warning: "`deploy.sh` used to be how we deployed", written while the file was there, stays true once it is
    deleted, and the words cannot tell that from "`x` is used to deploy". INCONCLUSIVE, no fix; others as they are."""
    if result.verdict is not Verdict.REFUTED:
        return result
    return _not_stale(result, UNSURE, 'its sentence says "used to": it may tell what was, not what is, so it is not known to be stale')


def _not_stale(result: AnchorResult, state: str, why: str) -> AnchorResult:
    """A gone name that the text's own history or words say is no stale one: INCONCLUSIVE, a warning saying why after
    what history found, and no fix (a rewrite would change a text that is not wrong)."""
    return replace(result, verdict=Verdict.INCONCLUSIVE, state=state, severity="warning", reason=f"{result.reason}; {why}",
                   details={k: v for k, v in result.details.items() if k != "fix"})


def dated(result: AnchorResult, day: str) -> AnchorResult:
    """A gone name in a sentence that dates itself to `day` (YYYY-MM-DD) before the commit that took it away: the
    sentence tells what was that day ("Hit 2026-05-07 in `docs/x.md`", an incident's record), which stays true after
    the move. INCONCLUSIVE, a warning, no fix. Gone on or before that day, the sentence was not true on the day it
    names: as it is. Others as they are."""
    went = _removal(result, 1) if result.verdict is Verdict.REFUTED and result.state == GONE else None
    if went is None or went <= day:
        return result
    return _not_stale(result, UNSURE, f"its sentence dates itself {day}, before that change: it tells what was then, so it is not known to be stale")


def _removed_by(result: AnchorResult) -> str | None:
    """The commit history says removed or renamed what a result names from where the text names it (the first of
    the renames followed, not where their trail ended); None for a change not committed yet."""
    return _removal(result, 0)


def _removal(result: AnchorResult, field: int) -> str | None:
    """A field (0 the commit, 1 its date) of the change history says removed or renamed what a result names from
    where the text names it; None for none, or a change not committed yet."""
    history = result.details.get("history")
    change = (history.get("left") or history.get("change") or history.get("removed")) if isinstance(history, dict) else None
    value = change[field] if isinstance(change, (list, tuple)) and len(change) > field else None
    return value if isinstance(value, str) and value else None


def _ignored(context: Context, path: str) -> bool:
    """Whether the repository's rules keep the path out (`.gitignore`, the configuration): a local file, which history
    is no place to look for. A folder skipped by its name alone (`vendor/`, `build/`) says nothing of a file git
    tracked there once (`implicit.resolve` reads it so too): kubebuilder deleted its vendored copy of a library in
    2019, and a skill written in 2025 names that library's files in a scratch module's `vendor/`."""
    try:
        return bool(context.ignored_because(path.rstrip("/"), skipped_folders=False))
    except UnsafePathError:
        return False
    except (ValueError, OSError):  # not a path a file system holds: nothing for history to say
        return True
