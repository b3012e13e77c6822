"""History of a name a configuration defines: a script, target, recipe, task or alias that an earlier revision had.

A `cmd:` anchor that a runner REFUTED ("no script lint in package.json") is
already certain: the configuration is a closed world. History adds when and
how it went: the last revisions of the configuration file the runner read
(`git log --max-count=N -- :(literal)FILE`) are checked in turn, by the same
runner, at that revision (a read-only `RevisionRepository`); the first one
that defines the command gives the commit that removed it (the next newer
revision of the file). When that commit's change to the file replaced the
name by exactly one other one, and the command with the new name holds now,
that is where it went: `details["fix"]` then says so, for `anchorcheck fix`.

A command read from prose (`in_prose`) is a claim only where history says it
held: never defined in any revision of that configuration (its history read
whole), it is an example, another project's command or a hallucination, not
a stale one (`never-existed`, INCONCLUSIVE); looked at only in part (the last
MAX_REVISIONS revisions, a shallow clone, the deadline), it may have been, and
the reason says how far the look went. A typed `cmd:` anchor is an explicit
claim and stays REFUTED.

A name several files may define (a cargo target: any Cargo.toml of the
workspace, or a file where cargo finds one, `benches/NAME.rs`) comes with
`details["defined_by"]`: their histories are read as one, the configurations
by content and the files by path history (gone → the commit, and the name a
moved file gives).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from typing import Any

from anchorcheck.evidence.cache import open_cache
from anchorcheck.evidence.history import (
    UNCOMMITTED,
    Added,
    Change,
    Paths,
    added_text,
    at_head,
    changing,
    created,
    diff_lines,
    history_of,
    literal,
    revision_count,
    revisions,
)
from anchorcheck.memory.implicit import NEVER_EXISTED
from anchorcheck.model.anchors import Anchor
from anchorcheck.model.results import NOT_IN_CONFIG, AnchorResult, Evidence, Verdict
from anchorcheck.repo.context import Context
from anchorcheck.repo.gitcmd import GIT_TIMEOUT

MAX_REVISIONS = 10  # revisions of one configuration file looked at, newest first
MIN_SECONDS = 3.0  # left of the deadline below which no revision is checked
_CACHE_KEY = "cmd-history-v5"
UNSURE = "unsure"  # not defined in the revisions looked at, which are not all of them: not known to be stale
_DEADLINE = "the deadline came first"
_NAME = re.compile(r"[\w.:/-]+")

CheckAt = Callable[[str | None, str], Verdict]  # (revision or None for now, anchor text) -> verdict


def on_undefined_command(anchor: Anchor, result: AnchorResult, context: Context, check_at: CheckAt) -> AnchorResult:
    """A REFUTED `cmd:` result with what the history of its configuration says; an INCONCLUSIVE one whose name the
    configuration does not define now (`NOT_IN_CONFIG`: a dependency may provide it) REFUTED where that history
    shows the configuration defined it and a commit removed it (was true, is gone); others as they are."""
    if anchor.kind == "cmd" and stands_in(result):
        return _script_gone(anchor, result, context, check_at)
    undefined = result.verdict is Verdict.REFUTED and result.state == "undefined"
    if anchor.kind != "cmd" or not (undefined or result.state == NOT_IN_CONFIG) or not result.evidence:
        return result
    with at_head(context.repo) as head:  # the configuration's past revisions: named by HEAD, a report stays replayable
        return result if head is None else _with_history(anchor, result, result.evidence[0].path, head, context, check_at)


def stands_in(result: AnchorResult) -> bool:
    """Whether a VERIFIED command is a dependency's binary run because no script has its name (`pnpm prettier`): the
    runner says which package.json lacks the script (`details["stands_in"]`), whose history may show it renamed away."""
    return result.verdict is Verdict.VERIFIED and isinstance(result.details.get("stands_in"), dict)


def _script_gone(anchor: Anchor, result: AnchorResult, context: Context, check_at: CheckAt) -> AnchorResult:
    """`result`, or REFUTED where the package.json defined a script of the name and a commit renamed or removed it: the
    text named the script, and pnpm now runs the binary in its place (`prettier` bare, not `prettier --check .`). A
    warning, not an error: the binary still runs, and whether it does what the text meant is not known."""
    found = result.details.pop("stands_in")
    name, config, runs = str(found["name"]), str(found["config"]), str(found["runs"])
    options = r"(?:\s+-\S+(?:\s+[^-\s]\S*)?)*?"  # `pnpm -C web prettier`, `pnpm --silent prettier`
    script = re.sub(rf"(?<!\S)(pnpm{options}\s+){re.escape(name)}(?!\S)", rf"\g<1>run {name}", anchor.value, count=1)
    if script == anchor.value:
        return result
    missing = f"no script {name} in {config}"
    asked = AnchorResult(result.anchor, Verdict.INCONCLUSIVE, missing, [Evidence(config, None, "package.json scripts")], NOT_IN_CONFIG, {"decided_by": script})
    asked = on_undefined_command(anchor, asked, context, check_at)
    if asked.state != "gone":
        return result
    result.verdict, result.severity, result.state = Verdict.REFUTED, "warning", "gone"
    result.reason = f"script {name} of {config}{asked.reason.removeprefix(missing).replace(';', '', 1)}; {runs} now, in its place"
    result.evidence = [*asked.evidence, *result.evidence]
    result.details = {**result.details, **{k: v for k, v in asked.details.items() if k in ("history", "fix")}}
    return result


def _with_history(anchor: Anchor, result: AnchorResult, config: str, head: str, context: Context, check_at: CheckAt) -> AnchorResult:
    # The part of the call the configuration decides, when the runner says it is not the call itself (an external
    # `cargo nextest --features f` is decided by what `cargo check --features f` would find): asked at each revision.
    decided_by = result.details.get("decided_by")
    anchor = Anchor(anchor.kind, decided_by, False, anchor.scope) if isinstance(decided_by, str) else anchor.positive()
    text = str(anchor)
    # A name several configurations or files may define (a cargo target: any Cargo.toml of the workspace, or a file
    # where cargo finds one): their histories together, as one (`defined_by`).
    defined_by = result.details.get("defined_by")
    by = defined_by if isinstance(defined_by, dict) else {}
    configs: Paths = tuple(by.get("configs") or ()) or config
    config = _label(configs)
    paths = tuple(by.get("paths") or ())
    walked: Paths = (*configs, *paths) if paths and not isinstance(configs, str) else configs  # one walk for both
    cache = open_cache(context.options, context.repo.root, context.time_left)
    clone = "shallow" if history_of(context).shallow else "full"  # a shallow clone of a commit sees less of its history
    asked = hashlib.sha1(json.dumps(by, sort_keys=True).encode()).hexdigest()[:16] if by else ""
    key = f"{_CACHE_KEY}:{head}:{clone}:{config}:{asked}:{text}"
    found = cache.get_many([key]).get(key) if cache is not None else None
    if found is None:
        name = by.get("name")
        found = _by_files(name, list(paths), walked, head, context) if isinstance(name, str) else {}
        if "removed" not in found and "looked" not in found:
            names = [name] if isinstance(name, str) else _names(anchor, result.reason, config)
            limit = found.get("limit")
            found = _by_content(anchor, names, walked, head, context, check_at) or _look(anchor, text, walked, head, context, check_at)
            if limit and not found.get("removed") and not found.get("cut"):
                found["cut"] = limit  # the files a target would be were not seen whole in history
            if not found.get("removed") and not found.get("cut") and found.get("looked") and isinstance(configs, str):
                found = _before_created(found, text, configs, head, context, check_at)
        if cache is not None and found.get("cut") != _DEADLINE:
            cache.put(key, found)
            cache.flush()
    if found.get("removed"):
        change = Change(*found["removed"])
        result.verdict, result.severity = Verdict.REFUTED, "error"
        to = _holding(text, found, check_at)
        if found.get("created"):
            result.reason += (f"; it held until {change} added {config}, which never defined it: before that commit the "
                              "command ran by a configuration further up")
        else:
            result.reason += f"; renamed to `{to}` in {change}" if to else f"; removed in {change}"
        result.state = "gone"
        result.details = {**result.details, "history": found}
        if to:
            result.details["fix"] = {"from": found["name"], "to": to, "name": True}
    elif result.state == NOT_IN_CONFIG:
        return result  # never the configuration's in the revisions looked at: a dependency's, maybe
    else:
        result.details = {**result.details, "history": {**found, "config": config}}
        if found.get("cut") != _DEADLINE:
            result.reason += _not_defined(found, config)
    return result


def _before_created(found: dict[str, Any], text: str, config: str, head: str, context: Context, check_at: CheckAt) -> dict[str, Any]:
    """A configuration that never defined the command, added to the folder after the command held there by another
    one further up (`just` and `npm` look up the tree: martin's `martin-ui/justfile`, added in the commit that moved the
    root's `test-frontend` recipe into a module): the command held at the parent of the commit that added it, so
    that commit took it away ({"removed": the commit, "created": True}). `found` as it is when it did not hold then,
    and marked cut by the deadline when the walk for the commit that added it did not finish."""
    left = context.time_left()
    if left is not None and left < MIN_SECONDS:
        return {**found, "cut": _DEADLINE}
    came = context.memo(("anchorcheck.config-created", head, config), lambda: created(context.repo, head, config, _git_seconds(context)))  # once per run
    if came is False:
        return {**found, "cut": _DEADLINE}  # not known when the configuration came: nothing concluded, nothing kept
    if came is None or came[1] is None or check_at(came[1], text) is not Verdict.VERIFIED:
        return found
    return {"removed": list(came[0]), "name": None, "renamed": [], "created": True}


def in_prose(result: AnchorResult) -> AnchorResult:
    """A command read from prose that its configuration does not define (REFUTED, `undefined`), as what history says
    it is: never defined in that configuration's whole history → INCONCLUSIVE `never-existed` (an example, another
    project's command, a hallucination: not stale); history looked at only in part → INCONCLUSIVE (it may have been
    defined before). Removed (`gone`), defined at the last commit, or no history to ask: as it is."""
    history = result.details.get("history")
    if result.verdict is not Verdict.REFUTED or result.state != "undefined" or not isinstance(history, dict) or not history.get("looked"):
        return result
    config, looked, cut = history["config"], history["looked"], history.get("cut")
    typed = _not_defined(history, config)
    reason = result.reason.replace(typed, "", 1) if typed else result.reason
    result.severity = "warning"
    if cut:
        result.verdict, result.state = Verdict.INCONCLUSIVE, UNSURE
        result.reason = f"{reason}; not defined in the {_revisions(looked)} of {config} looked at ({cut}): it may have been before, so it is not known to be stale"
    else:
        result.state = NEVER_EXISTED  # INCONCLUSIVE where a reference's never-existed state is (`Dispatch._check_reference`)
        whole = "its one revision" if looked == 1 else f"all {looked} revisions of it"
        result.reason = (f"{reason}; never defined in {config} ({whole} looked at): an example, another project's "
                         "command or a hallucination, not a stale one")
    return result


def _label(configs: Paths) -> str:
    """How the reason names the configurations looked at: the one file, or how many (`any of 146 Cargo.toml files`)."""
    if isinstance(configs, str) or len(configs) == 1:
        return configs if isinstance(configs, str) else configs[0]
    names = {c.rsplit("/", 1)[-1] for c in configs}
    return f"any of {len(configs)} {names.pop()} files" if len(names) == 1 else f"any of {len(configs)} files"


def _by_files(name: str, paths: list[str], walked: Paths, head: str, context: Context) -> dict[str, Any]:
    """What path history says of the files whose presence would define `name` (`benches/NAME.rs`): one gone →
    {"removed": its change, "name", "renamed": [the name its new place gives]}; one deleted
    in the work tree only → {"looked": 0}; none ever there → {"limit": why history may be incomplete, "" if read whole}.
    The walk of the configurations' added lines, which asks these paths too, names those some revision changed; only
    they are asked of path history (one walk for them all, beside the run's other missing paths: `History.want`)."""
    history = history_of(context)
    added = None if history.shallow else _added(context, head, walked)
    missing = [p for p in paths if (added is None or p in added.paths) and not context.repo.exists(p)]
    if not missing:
        return {"limit": ""}  # the whole history read, and no revision had one of them
    history.want(missing)
    fates = [history.fate(p) for p in missing]
    if any(f is None for f in fates):
        return {"looked": 0, "cut": _DEADLINE}  # no time left to walk: nothing concluded, nothing kept
    gone = [f for f in fates if f is not None and f.existed]
    if any(f.change == UNCOMMITTED for f in gone):
        return {"looked": 0}  # there at the last commit: removed by an edit not committed yet
    if gone:
        fate = gone[0]
        to = _moved_name(name, fate.path, fate.moved_to) if fate.moved_to else None
        return {"removed": list(fate.change), "name": name, "renamed": [to] if to else []}  # type: ignore[arg-type]
    return {"limit": next((f.limit for f in fates if f is not None and f.limit), "")}


def _moved_name(name: str, path: str, moved_to: str) -> str | None:
    """The name a moved file gives the target it made: `crates/a/benches/x.rs` → `crates/b/benches/y.rs` is `y`
    (the same folder name before it and the same ending after it)."""
    at = path.rfind(name)
    before, after = path[:at], path[at + len(name) :]
    folder = before.rstrip("/").rsplit("/", 1)[-1]
    match = re.fullmatch(rf"(?:.*/)?{re.escape(folder)}/([\w.-]+){re.escape(after)}", moved_to)
    return match.group(1) if match and _NAME.fullmatch(match.group(1)) else None


def _not_defined(found: dict[str, Any], config: str) -> str:
    """The clause a typed anchor's reason ends with when no revision looked at defined the command."""
    return "" if found.get("cut") == _DEADLINE else f"; not defined in the last {_revisions(found['looked'])} of {config} either"


def _revisions(count: int) -> str:
    return f"{count} revision{'s' if count != 1 else ''}"


def _names(anchor: Anchor, reason: str, config: str) -> list[str]:
    """The words of the command that the runner's reason names as undefined ("no script claim in package.json"):
    the configuration's text must hold each for it to define the command. Options, assignments and the
    configuration's own path (`make -f sub.mk`) are not among them."""
    parts = set(config.replace("/", " ").split())
    words = [w for w in anchor.value.split()[1:] if _NAME.fullmatch(w) and not w.startswith("-") and w not in parts]
    return [w for w in dict.fromkeys(words) if re.search(rf"(?<![\w:./-]){re.escape(w)}(?![\w:./-])", reason)]


def _by_content(anchor: Anchor, names: list[str], config: Paths, head: str, context: Context, check_at: CheckAt) -> dict[str, Any] | None:
    """What the whole history of `config` says, read by content (git's pickaxe) rather than revision by revision: a
    name no revision's text ever held was never defined ({"looked": all revisions}); else the commits that changed
    how often it occurs are the ones that may have removed the command, checked newest first (the command held
    just before one and not after it → removed there). None when this cannot tell: a shallow clone, no name,
    more such commits than are looked at, or the command went by a change that kept the name's count."""
    if not names or history_of(context).shallow:
        return None
    added = _added(context, head, config)
    changes = []
    for name in names:  # never held: the one walk of the file's added lines says so; else git's pickaxe, for this name
        found = [] if added is not None and name not in added.text else changing(context.repo, head, config, name, MAX_REVISIONS + 1)
        if found is None:
            return None
        if not found:
            count = added.revisions if added is not None else revision_count(context.repo, head, config)
            return None if count is None else {"looked": count, "by": "content"}
        changes.append(found)
    text = str(anchor)
    for change, parent in min(changes, key=len)[:MAX_REVISIONS]:
        left = context.time_left()
        if (left is not None and left < MIN_SECONDS) or check_at(change.commit, text) is Verdict.VERIFIED:
            return None  # held after this change: removed by another one (or no time): the walk decides
        if parent is not None and check_at(parent, text) is Verdict.VERIFIED:
            name, renamed = _renamed(anchor, config, parent, change.commit, context)
            return {"removed": list(change), "name": name, "renamed": renamed}
    return None


def _added(context: Context, head: str, config: Paths) -> Added | None:
    """The lines the revisions of `config` added (one walk per configuration and run, whichever names ask)."""
    return context.memo(("anchorcheck.config-added", head, config), lambda: added_text(context.repo, head, config, _git_seconds(context)))


def _git_seconds(context: Context) -> float:
    """How long one git run of a history question may take: its own timeout, within what the deadline leaves."""
    left = context.time_left()
    return GIT_TIMEOUT if left is None else min(GIT_TIMEOUT, left)


def _look(anchor: Anchor, text: str, config: Paths, head: str, context: Context, check_at: CheckAt) -> dict[str, Any]:
    """What the revisions of `config` say: {"removed": change, "name", "renamed": [names]}, or {"looked": N} with "cut" saying why
    the revisions looked at are not all of them (MAX_REVISIONS reached, a shallow clone, the deadline)."""
    # One `git log` per configuration and run, whichever of its commands ask.
    past = context.memo(("anchorcheck.config-revisions", head, config), lambda: revisions(context.repo, head, config, MAX_REVISIONS + 1))
    more, past = len(past) > MAX_REVISIONS, past[:MAX_REVISIONS]
    newer: Change | None = None
    for looked, revision in enumerate(past):
        left = context.time_left()
        if left is not None and left < MIN_SECONDS:
            return {"looked": looked, "cut": _DEADLINE}
        if check_at(revision.commit, text) is Verdict.VERIFIED:
            if newer is None:
                return {"looked": 0}  # defined at the last commit: removed by an edit not committed yet
            name, renamed = _renamed(anchor, config, revision.commit, newer.commit, context)
            return {"removed": list(newer), "name": name, "renamed": renamed}
        newer = revision
    if more:
        return {"looked": len(past), "cut": f"the newest {MAX_REVISIONS}; it has more"}
    if past and history_of(context).shallow:  # (the cache key tells the two clones apart)
        return {"looked": len(past), "cut": "a shallow clone; fetch the whole history (CI: fetch-depth: 0)"}
    return {"looked": len(past)}


def _holding(text: str, found: dict[str, Any], check_at: CheckAt) -> str | None:
    """The new name of a renamed word when exactly one of the names history gives it makes the command hold now. Judged
    at each use against the tree as it is, not kept with history's answer (which is kept by HEAD: an edit of the
    configuration since changes what holds, and a long-lived Verifier would show a rename the tree no longer has)."""
    word, names = found.get("name"), found.get("renamed") or []
    if not isinstance(word, str):
        return None
    holding = [n for n in names if isinstance(n, str) and check_at(None, _with_word(text, word, n)) is Verdict.VERIFIED]
    return holding[0] if len(holding) == 1 else None


def _renamed(anchor: Anchor, config: Paths, old: str, new: str, context: Context) -> tuple[str | None, list[str]]:
    """The word of the command the removing commit renamed in `config`, and the names the commit gave it there (the
    one that holds now is found at each use: `_holding`); (None, []) when the change is no plain rename."""
    diff = context.repo.git("diff", "--no-ext-diff", "--no-textconv", "-U0", operands=[old, new], paths=literal(config)) or ""
    removed, added = diff_lines(diff.splitlines(), "-"), diff_lines(diff.splitlines(), "+")
    words = [w for w in anchor.value.split()[1:] if _NAME.fullmatch(w)]
    for word in words:
        pattern = re.compile(rf"(?<![\w:-]){re.escape(word)}(?![\w-]|:[\w-])")  # `docs:` and `docs::` end a rule's name; `docs:dev` is another
        names = {_replacement(line, match, added) for line in removed for match in pattern.finditer(line)} - {None, word}
        if names:
            return word, sorted(n for n in names if n is not None)
    return None, []


def _replacement(line: str, match: re.Match[str], added: list[str]) -> str | None:
    """The name an added line has where the removed `line` had the match (all else on the line the same)."""
    prefix, suffix = line[: match.start()], line[match.end() :]
    for other in added:
        if other.startswith(prefix) and other.endswith(suffix) and len(other) > len(prefix) + len(suffix):
            name = other[len(prefix) : len(other) - len(suffix)]
            if _NAME.fullmatch(name):
                return name
    return None


def _with_word(text: str, word: str, new: str) -> str:
    return re.sub(rf"(?<![\w:-]){re.escape(word)}(?![\w:-])", new, text, count=1)
