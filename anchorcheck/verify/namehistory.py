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
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from anchorcheck.evidence.cache import open_cache
from anchorcheck.evidence.history import Change, at_head, revisions
from anchorcheck.model.anchors import Anchor
from anchorcheck.model.results import NOT_IN_CONFIG, AnchorResult, Verdict
from anchorcheck.repo.context import Context

MAX_REVISIONS = 10  # revisions of one configuration file looked at, newest first
MIN_SECONDS = 3.0  # left of the deadline below which no revision is checked
_CACHE_KEY = "cmd-history-v1"
_NAME = re.compile(r"[\w.:/-]+")

CheckAt = Callable[[str | None, str], Verdict]  # (revision or None for now, anchor text) -> verdict


def on_undefined_command(anchor: Anchor, result: AnchorResult, context: Context, check_at: CheckAt) -> AnchorResult:
    """A REFUTED `cmd:` result with what the history of its configuration says; an INCONCLUSIVE one whose name the
    configuration does not define now (`NOT_IN_CONFIG`: a dependency may provide it) REFUTED where that history
    shows the configuration defined it and a commit removed it (was true, is gone); others as they are."""
    undefined = result.verdict is Verdict.REFUTED and result.state == "undefined"
    if anchor.kind != "cmd" or not (undefined or result.state == NOT_IN_CONFIG) or not result.evidence:
        return result
    with at_head(context.repo) as head:  # the configuration's past revisions: named by HEAD, a report stays replayable
        return result if head is None else _with_history(anchor, result, result.evidence[0].path, head, context, check_at)


def _with_history(anchor: Anchor, result: AnchorResult, config: str, head: str, context: Context, check_at: CheckAt) -> AnchorResult:
    # The part of the call the configuration decides, when the runner says it is not the call itself (an external
    # `cargo nextest --features f` is decided by what `cargo check --features f` would find): asked at each revision.
    decided_by = result.details.get("decided_by")
    anchor = Anchor(anchor.kind, decided_by, False, anchor.scope) if isinstance(decided_by, str) else anchor.positive()
    text = str(anchor)
    cache = open_cache(context.options, context.repo.root, context.time_left)
    key = f"{_CACHE_KEY}:{head}:{config}:{text}"
    found = cache.get_many([key]).get(key) if cache is not None else None
    if found is None:
        found = _look(anchor, text, config, head, context, check_at)
        if found is None:
            return result
        if cache is not None:
            cache.put(key, found)
            cache.flush()
    if found.get("removed"):
        change = Change(*found["removed"])
        result.verdict, result.severity = Verdict.REFUTED, "error"
        to = found.get("to")
        result.reason += f"; renamed to `{to}` in {change}" if to else f"; removed in {change}"
        result.state = "gone"
        result.details = {**result.details, "history": found}
        if to:
            result.details["fix"] = {"from": found["name"], "to": to, "name": True}
    elif result.state == NOT_IN_CONFIG:
        return result  # never the configuration's in the revisions looked at: a dependency's, maybe
    else:
        looked = found["looked"]
        result.reason += f"; not defined in the last {looked} revision{'s' if looked != 1 else ''} of {config} either"
    return result


def _look(anchor: Anchor, text: str, config: str, head: str, context: Context, check_at: CheckAt) -> dict[str, Any] | None:
    """What the revisions of `config` say: {"removed": change, "name", "to"} or {"looked": N}; None when no time."""
    # One `git log` per configuration and run, whichever of its commands ask.
    past = context.memo(("anchorcheck.config-revisions", head, config), lambda: revisions(context.repo, head, config, MAX_REVISIONS))
    newer: Change | None = None
    for revision in past:
        left = context.time_left()
        if left is not None and left < MIN_SECONDS:
            return None
        if check_at(revision.commit, text) is Verdict.VERIFIED:
            if newer is None:
                return {"looked": 0}  # defined at the last commit: removed by an edit not committed yet
            name, to = _renamed(anchor, text, config, revision.commit, newer.commit, context, check_at)
            return {"removed": list(newer), "name": name, "to": to}
        newer = revision
    return {"looked": len(past)}


def _renamed(anchor: Anchor, text: str, config: str, old: str, new: str, context: Context, check_at: CheckAt) -> tuple[str | None, str | None]:
    """The word of the command the removing commit renamed in `config`, and its new name when exactly one new
    name makes the command hold now; (None, None) when the change is no plain rename."""
    diff = context.repo.git("diff", "--no-ext-diff", "--no-textconv", "-U0", operands=[old, new], paths=[f":(literal){config}"]) or ""
    removed = [line[1:] for line in diff.splitlines() if line.startswith("-") and not line.startswith("---")]
    added = [line[1:] for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
    words = [w for w in anchor.value.split()[1:] if _NAME.fullmatch(w)]
    for word in words:
        pattern = re.compile(rf"(?<![\w:-]){re.escape(word)}(?![\w-]|:[\w-])")  # `docs:` and `docs::` end a rule's name; `docs:dev` is another
        names = {_replacement(line, match, added) for line in removed for match in pattern.finditer(line)} - {None, word}
        holding = [n for n in names if n is not None and check_at(None, _with_word(text, word, n)) is Verdict.VERIFIED]
        if len(holding) == 1:
            return word, holding[0]
        if names:
            return word, None
    return None, None


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
