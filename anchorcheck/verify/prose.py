"""Code spans of prose that look like anchors: which are anchors, and how loudly a wrong one fails.

In a Markdown memory file, `` `pkgs:sync` `` and `` `docs:dev` `` are far more
often npm script names than anchors, and `` `file:gen` `` may be a script that
happens to share a kind's name. A loud failure on ordinary text is one a user
learns to ignore, so the rule is calibrated by where a token is written:

- a token that a runner of the repository knows as a name (a package.json
  script, a Taskfile task: `cmd:pnpm docs:dev` verifies) and that does not
  verify as an anchor is no anchor: dropped before the memory is checked,
  whatever kinds are installed (a third-party `doc:` kind must not turn the
  `docs:dev` script into an error);
- a near miss of a kind (`imprt:anyio`) or a value its kind cannot parse is
  a warning in prose (`looks-like-anchor`: INCONCLUSIVE, the fix in its
  reason, not counted as written wrongly), and an error, as before, in a
  typed anchor list (`*.memories.toml`) or with `--strict`.

Which formats write anchors in prose is the format's `prose_anchors`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from anchorcheck.memory.memoryfiles import format_for
from anchorcheck.model.mistakes import LOOKS_LIKE_ANCHOR, MALFORMED, UNKNOWN_KIND
from anchorcheck.model.registry import Registry
from anchorcheck.model.results import Memory, MemoryReport, Verdict
from anchorcheck.verify.verifier import Verifier

_NAME = re.compile(r"[A-Za-z0-9_][\w.@+-]*(?::[\w.@+-]+)+")  # one shell word, `group:name` (a script, a task)
_WARNING = "; written in prose, so a warning (`--strict` makes it an error)"


def drop_runner_names(memories: Iterable[Memory], verifier: Verifier) -> None:
    """Take out of prose memories the tokens that a runner knows as a name and that do not verify as anchors."""
    programs: list[str] | None = None
    for memory in memories:
        if not in_prose(memory, verifier.registry):
            continue
        keep = []
        for index, anchor in enumerate(memory.anchors):
            if isinstance(anchor, str) and _NAME.fullmatch(anchor) and verifier.check(anchor).verdict is not Verdict.VERIFIED:
                programs = _programs(verifier.registry) if programs is None else programs
                if _known_name(anchor, programs, verifier):
                    continue
            keep.append((anchor, memory.anchor_position(index)))
        if len(keep) != len(memory.anchors):
            memory.anchors = [a for a, _ in keep]
            memory.anchor_positions = [p for _, p in keep]


def soften(reports: list[MemoryReport], registry: Registry) -> None:
    """Turn the anchors written wrongly in prose (a near-miss kind, an unparseable value) into warnings."""
    for report in reports:
        if not in_prose(report.memory, registry):
            continue
        for index, result in enumerate(report.results):
            if result.state in (UNKNOWN_KIND, MALFORMED) and not result.implicit:
                report.results[index] = replace(result, state=LOOKS_LIKE_ANCHOR, reason=result.reason + _WARNING)


def in_prose(memory: Memory, registry: Registry) -> bool:
    """Whether the memory was read from a format whose anchors are code spans of prose."""
    fmt = format_for(memory.source, registry) if memory.source else None
    return fmt is not None and fmt.prose_anchors


def _programs(registry: Registry) -> list[str]:
    """Every program a runner claims, declared or registered (no runner plugin is imported to list them)."""
    return list(dict.fromkeys(p for _, runner in registry.runners.entries() for p in runner.programs))


def _known_name(token: str, programs: list[str], verifier: Verifier) -> bool:
    """Whether some runner's configuration defines `token` as a name it runs (`pnpm docs:dev` verifies)."""
    if "cmd" not in verifier.registry.kinds:
        return False
    return any(verifier.check(f"cmd:{program} {token}").verdict is Verdict.VERIFIED for program in programs)
