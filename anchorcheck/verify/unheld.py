"""A command the text runs in a folder this checkout does not hold: answered by history, never from another folder.

`cd my-app` in a block after `npx create-thing my-app` (or a `git clone`, a
copied example) enters a project the block makes; the commands after it
(`pnpm migrate`) are that project's, and the root's configuration or the
headings above say nothing of them. History tells the cases apart, with no
list of scaffolders: a folder that never was in this repository's history is
another project (INCONCLUSIVE, state `unheld-folder`, naming it); one that
was and is gone makes the `cd` (or "run from `DIR/`") a stale path, REFUTED
where it is written, and its commands are not checked elsewhere either (the
same state, the reason says where the folder went). With no history to ask
(not a git checkout), the commands are read as before: from the root.

The same holds for a folder or file a command names itself (`go test ./x/...`,
`pnpm -C web`, `make -C docs`, `cargo --manifest-path x/Cargo.toml`): a runner
that finds it missing says which (`missing_path`), and for a command read from
prose history decides: gone → REFUTED with the commit; never there → an
example or a hallucination, INCONCLUSIVE `never-existed`. So it does for the
configuration a command needs and no folder where it runs or above holds (a
package.json, a go.mod: each place one was looked for), and for a Go package
folder with no .go file (was there one, and when did the last go).
"""

from __future__ import annotations

from anchorcheck.evidence.cache import open_cache
from anchorcheck.evidence.history import Change, at_head, emptied, history_of
from anchorcheck.memory import implicit
from anchorcheck.memory.outside import is_outside
from anchorcheck.model.reference import Reference
from anchorcheck.model.results import AnchorResult, Verdict
from anchorcheck.repo.checkout import Repository
from anchorcheck.repo.context import Context
from anchorcheck.repo.paths import UnsafePathError
from anchorcheck.verify.namehistory import MIN_SECONDS, UNSURE
from anchorcheck.verify.staleness import GONE, judge_by_fate

_EMPTIED_KEY = "emptied-v1"  # the facts cache's key for what history says of a folder's files of one kind
UNHELD = "unheld-folder"  # runs in a folder the checkout does not hold: another project's command, or a gone folder's
UNKNOWN_FOLDER = "unknown-folder"  # runs in a folder written from outside the repository that is none of its folders


def runs_unheld(reference: Reference, context: Context) -> AnchorResult | None:
    """INCONCLUSIVE for a command whose text places it in a folder that is not here, history saying whether it
    ever was; None when the text places it nowhere, the folder is here, or there is no history to ask."""
    folders = implicit.placed_folders(reference)
    if not folders or is_outside(reference.placed) or implicit.placed_in(reference, context.repo) is not None:
        return None  # (a folder written from outside the repository that is none here: `unknown_folder`)
    written = reference.placed.rstrip("/") + "/"
    elsewhere = next((why for folder in folders if (why := context.repo.not_checked_out(folder))), None)
    if elsewhere is not None:  # a submodule or sparse folder: in the repository, not in this checkout
        return AnchorResult(reference.anchor, Verdict.INCONCLUSIVE, f"it runs in {written}, which is {elsewhere}", state=UNHELD)
    history = history_of(context)
    fates = [fate for folder in folders if (fate := history.fate(folder + "/")) is not None]
    if not fates:
        return None
    gone = next((f for f in fates if f.existed), None)
    if gone is not None:
        why = (f"it runs in {written}, {gone.describe()}: the folder is stale where the text names it, and the command is not "
               "checked in another folder")
    elif all(f.never_existed for f in fates):
        why = (f"it runs in {written}, a folder this checkout does not hold and its history never had: a project the text "
               "creates, copies or clones (or a folder a build makes), not this checkout's")
    else:
        why = f"it runs in {written}, which is not here ({fates[0].describe()}): the command is not checked in another folder"
    # a warning where the folder went (the text is stale there); another project's command is no fault of the text
    return AnchorResult(reference.anchor, Verdict.INCONCLUSIVE, why, state=UNHELD, severity="warning" if gone is not None else None)


def runs_unknown(reference: Reference, repo: Repository) -> bool:
    """Whether a command runs after a `cd` into a folder written from outside the repository (`cd ~/projects/REPO/DIR`)
    none of whose trailing parts is a folder here: it is read where the text stands, which is not where it runs."""
    return is_outside(reference.placed) and implicit.placed_in(reference, repo) is None


def unknown_folder(reference: Reference, result: AnchorResult, repo: Repository) -> AnchorResult:
    """`result`, INCONCLUSIVE instead of REFUTED for a command that `runs_unknown`: where it runs is unknown, so it
    was read where the text stands, and is not wrong for failing there."""
    if result.verdict is not Verdict.REFUTED or not runs_unknown(reference, repo):
        return result
    why = (f"{result.reason}; but it runs after `cd {reference.placed}`, a folder outside the repository that is no folder "
           "of it by any trailing part: where it runs is unknown")
    return AnchorResult(result.anchor, Verdict.INCONCLUSIVE, why, result.evidence, state=UNKNOWN_FOLDER, details=result.details)


def names_missing(result: AnchorResult, context: Context) -> AnchorResult:
    """A command read from prose that a runner REFUTED for a folder or file it names that is not here
    (`details["missing_path"]`), as history has it: gone → REFUTED (an error) with the commit; never in
    history → INCONCLUSIVE `never-existed` (a warning); history seen in part → INCONCLUSIVE. No history: as it is."""
    path = result.details.get("missing_path")
    if result.verdict is not Verdict.REFUTED or not isinstance(path, str):
        return result
    fate = history_of(context).fate(path)
    if fate is not None:
        judge_by_fate(result, fate, claimed=False)
    return result


def config_history(result: AnchorResult, context: Context, *, gone_only: bool = False) -> AnchorResult:
    """A command read from prose that a runner REFUTED for having no configuration where it runs or above
    (`details["missing_path"]`, a list: each place one was looked for), as history has it: one of them there and gone →
    stale (an error), naming it and where it went; none ever there → not this checkout's command, INCONCLUSIVE
    `never-existed` (inspect_ai's skill runs `pnpm test` "from the ts-mono root", a submodule: the repository never
    had a package.json); history seen in part → INCONCLUSIVE. No history: as it is. `gone_only`: the stale answer
    alone, asked before other folders are (a configuration gone from here is stale even where another defines the
    command); the rest is asked after them, so "defined in python/Makefile" says more than "never a Makefile here"."""
    if result.verdict is not Verdict.REFUTED or result.state == GONE:  # (asked already, `gone_only`, and answered)
        return result
    places, emptied = result.details.get("missing_path"), result.details.get("emptied")
    if isinstance(emptied, list) and len(emptied) == 2 and all(isinstance(w, str) for w in emptied):
        return _emptied(result, emptied[0], emptied[1], context, gone_only)
    if not isinstance(places, list) or not places:
        return result
    history = history_of(context)
    history.want(places)  # one walk for all of them
    fates = {place: fate for place in places if (fate := history.fate(place)) is not None}
    if not fates or len(fates) < len(places):
        return result  # no history, or one of them is here after all
    gone = next((place for place, fate in fates.items() if fate.existed), None)
    local = _local(context, gone) if gone is not None else None
    if gone is not None and local is not None:  # untracked on purpose: `./configure` writes the Makefile now
        result.verdict, result.state, result.severity = Verdict.INCONCLUSIVE, UNSURE, "warning"
        result.reason += f"; {gone} {fates[gone].describe()}, but it is {local}: a build output or a local file, not a stale one"
    elif gone is not None:
        judge_by_fate(result, fates[gone], claimed=False, subject=f"{gone} ")
        # the commit that took it away, so a memory file written after it (martin's 2026 CLAUDE.md, a root
        # package.json moved in 2018) is judged `written-after` as a path is: it never held here as written
        result.details = {**result.details, "history": fates[gone].to_dict()}
    elif not gone_only:
        shown = ", ".join(places[:4]) + (" ..." if len(places) > 4 else "")
        unsure = next((fate for fate in fates.values() if not fate.never_existed), None)
        judge_by_fate(result, unsure or next(iter(fates.values())), claimed=False, subject=f"{shown}: ")
    return result


def _local(context: Context, place: str) -> str | None:
    """Why the repository keeps a configuration that history shows deleted out of git now (a .gitignore names it: an
    autotools Makefile that `./configure` writes), so its absence in this checkout is no staleness; None if nothing."""
    try:
        return context.ignored_because(place)
    except UnsafePathError:
        return None


def _emptied(result: AnchorResult, folder: str, suffix: str, context: Context, gone_only: bool) -> AnchorResult:
    """A command that needs files of a kind in a folder that holds none (`go test` where no .go file is): stale when
    history shows such a file there and deleted; never one there → the text does not run that folder's package
    (toolhive's "the global `go test` timeout", "never run `go test`, `go build`" at a root that never held Go)."""
    history = history_of(context)
    left = context.time_left()
    if left is not None and left < MIN_SECONDS:
        return result  # no time to look: nothing is concluded from history not read
    with at_head(context.repo) as head:
        if head is None:
            return result
        cache = open_cache(context.options, context.repo.root, context.time_left)
        key = f"{_EMPTIED_KEY}:{head}:{'shallow' if history.shallow else 'full'}:{folder}:{suffix}"
        stored = cache.get_many([key]).get(key) if cache is not None else None
        if stored is None:
            found = emptied(context.repo, head, folder, suffix)
            if found is False:
                return result
            stored = {"change": list(found) if found is not None else None}
            if cache is not None:
                cache.put(key, stored)
                cache.flush()
    found = Change(*stored["change"]) if stored.get("change") else None
    if found is None and gone_only:
        return result
    shown = "the repository root" if folder in (".", "") else f"{folder}/"
    if found is not None:
        result.state, result.severity = GONE, "error"
        result.reason += f"; its last {suffix} file was deleted in {found}"
        # the commit, so a memory file written after it is judged `written-after` as a path is: ddev's 2026 AGENTS.md
        # says "never `go build` directly", and its root lost its last .go file in 2017
        result.details = {**result.details, "history": {"change": list(found)}}
    elif history.shallow:
        result.verdict, result.state, result.severity = Verdict.INCONCLUSIVE, UNSURE, "warning"
        result.reason += f"; {shown} held no {suffix} file in the history of this shallow clone: it may have before"
    else:
        result.verdict, result.state, result.severity = Verdict.INCONCLUSIVE, implicit.NEVER_EXISTED, "warning"
        result.reason += f"; {shown} never held a {suffix} file in this repository's history: not a package the text runs, not a stale one"
    return result
