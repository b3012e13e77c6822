"""`env:KEY` — code reads the variable, or committed configuration defines it.

Code reads come from the language plugins; configuration from
`env_config`. Absence is REFUTED only over a complete world: every file in
scope that could read the environment was parsed and none reads the
environment with a computed key (`os.environ[name]`), which could be KEY, or reads the whole
environment (`dict(os.environ)`, `{...process.env}`, `os.Environ()`, the
environment handed to a call): the reason names the line that opened the world.
A write (`os.environ[k] = v`) reads nothing and opens nothing.
"""

from __future__ import annotations

import re

from anchorcheck import AnchorKind, AnchorResult, Verdict, hookimpl
from anchorcheck.plugin import Anchor, AnchorSyntaxError, Context, Evidence, Facts, Goal, Language, Search, SourceIndex, plural
from anchorcheck_plugins.kinds._source import (
    ENOUGH_EVIDENCE,
    MAX_EVIDENCE,
    cite,
    coverage,
    evidence,
    mark_only_in,
    nothing_to_search,
    places,
    production,
    scope_words,
    settling,
    spells_word,
)
from anchorcheck_plugins.kinds.env_config import config_kind, defined_names, is_yaml, unparsed_names

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")


def parse_env(value: str) -> str:
    if not _KEY.fullmatch(value):
        raise AnchorSyntaxError("expected an environment variable name such as REDIS_URL", column=1)
    return value


def verify_env(anchor: Anchor, context: Context) -> AnchorResult:
    key = anchor.detail or parse_env(anchor.value)
    shown, where = str(anchor), scope_words(anchor.scope)
    seen = context.memo(("anchorcheck.env-evidence", key, anchor.scope), lambda: _look(key, anchor.scope, context))
    if seen.found:
        reason = f"{key} is read or defined{where} {places(seen.found, None, seen.cited_all)}"
        details: dict[str, object] = {"places": len(seen.found)}
        reason = mark_only_in(reason, details, [e.path for e in seen.found])
        return AnchorResult(shown, Verdict.VERIFIED, reason, seen.found[:MAX_EVIDENCE], state="present", details=details)
    if seen.search.searched == 0 and not seen.configs:
        reason = nothing_to_search(context, anchor.scope, f"no source or configuration file{where} that anchorcheck reads")
        return AnchorResult(shown, Verdict.INCONCLUSIVE, reason, state="no-source")
    if seen.computed:
        return AnchorResult(
            shown,
            Verdict.INCONCLUSIVE,
            f"{key} is not read by name{where}, but the environment is read with a computed key at {', '.join(seen.computed[:3])}",
            state="computed-key",
        )
    if seen.whole:
        return AnchorResult(
            shown,
            Verdict.INCONCLUSIVE,
            f"{key} is not read by name{where}, but the whole environment is read or handed on at {', '.join(seen.whole[:3])}, which may read it",
            state="whole-environment",
        )
    if seen.unreadable or seen.shaky:
        bad = [*seen.unreadable, *(f"{s} (syntax error)" for s in seen.shaky)]
        return AnchorResult(shown, Verdict.INCONCLUSIVE, f"{key} not found{where}, but some files could not be read or parsed: {', '.join(bad[:3])}", state="unparsed")
    return AnchorResult(
        shown,
        Verdict.REFUTED,
        f"nothing{where} reads or defines {key}; {coverage(seen.search)}; {plural(seen.configs, 'configuration file')} read",
        state="absent",
    )


class _Seen:
    """What the files in scope say of a key: the places that read or define it, else what opens the
    world. Kept apart from the verdict, which reads how many files were searched: a file that comes or
    goes elsewhere in scope changes that count alone (`Search.follow`), and the verdict is then built
    again from this, without going over every candidate again."""

    __slots__ = ("search", "found", "cited_all", "computed", "whole", "unreadable", "shaky", "configs")

    def __init__(self, search: Search, configs: int) -> None:
        self.search = search
        self.configs = configs  # configuration files read
        self.found: list[Evidence] = []
        self.cited_all = True  # every candidate was looked at: `found` holds every place in code
        self.computed: list[str] = []  # path:line of reads with a computed key
        self.whole: list[str] = []  # path:line of reads of the whole environment
        self.unreadable: list[str] = list(search.unreadable)
        self.shaky: list[str] = []  # path:error of candidates that spell the key but did not parse cleanly


def _look(key: str, scope: str | None, context: Context) -> _Seen:
    index = SourceIndex.of(context)

    def needles(language: Language) -> list[bytes]:
        # Every read of the environment holds one of its language's markers (`environ`, `getenv`): a
        # file that spells the key without one (`request.environ` does, `META["PATH_INFO"]` does not)
        # reads nothing and cannot open the world, so it is no candidate; the key alone only for a
        # language that names no markers. Every `env:` search of a scope then shares one prefilter.
        return list(language.env_markers) or [key.encode()]

    def reads_key(path: str, facts: Facts) -> bool:
        # Reads in production code end the search early; reads in tests alone must be known to be alone.
        return production(path) and any(name == key for name, _ in facts.env)

    def names_key(language: Language, data: bytes) -> bool:
        # As a whole token (`"PATH"`, `.PATH`): every read by name spells it so, and PATH_INFO does not.
        return spells_word(data, key.encode())

    def opens_world(path: str, facts: Facts) -> bool:
        return bool(facts.env_computed or facts.env_whole)

    # A read by name needs the name in the file's bytes; the other candidates only matter for a
    # computed key, and the first one found makes absence unprovable.
    goal = Goal(reads_key, ENOUGH_EVIDENCE, names_key, likely_required=True, settles=opens_world, label=("env", key))
    search = context.memo(("anchorcheck.env-search", key, scope), lambda: index.search(scope, needles, goal=goal))
    configs = context.memo(("anchorcheck.env-configs", scope), lambda: context.repo.files(scope, where=config_kind))
    seen = _Seen(search, len(configs))
    cited, seen.cited_all = cite(context, search, names_key, lambda path, facts: any(name == key for name, _ in facts.env), required=True, label=("env", key))
    for path, facts in cited:  # the same files whatever the cache holds (see `cite`)
        seen.found.extend(evidence(path, line, f"reads {key}") for name, line in facts.env if name == key)
    for path, facts in search.hits:
        if facts.error is not None and index.contains(path, key.encode()):
            seen.shaky.append(f"{path}:{facts.error}")
    for path in configs:
        context.check_deadline()
        # A YAML file is parsed only if it spells the key (every name it defines is written in it).
        unparsed = is_yaml(path) and index.contains(path, key.encode()) is False
        defined = unparsed_names(context, path) if unparsed else defined_names(context, path)
        if defined is None or defined.unread:
            seen.unreadable.append(path if defined is None else f"{path}:{defined.error} ({defined.unread})")
            continue
        seen.found.extend(Evidence(path, line, what) for name, line, what in defined.names if name == key)
        if defined.error is not None and index.contains(path, key.encode()):
            seen.shaky.append(f"{path}:{defined.error}")
    if not seen.found:
        for path, facts in settling(context, search, names_key, opens_world, label=("env", key)):
            seen.computed.extend(f"{path}:{line}" for line in facts.env_computed)
            seen.whole.extend(f"{path}:{line}" for line in facts.env_whole)
    return seen


@hookimpl
def register_anchor_kinds(register):  # noqa: ANN001, ANN201 - hook signature
    register(
        AnchorKind(
            prefix="env",
            verify=verify_env,
            parse=parse_env,
            scoped=True,
            summary="code reads the environment variable, or committed configuration defines it",
            example="env:REDIS_URL",
        )
    )
