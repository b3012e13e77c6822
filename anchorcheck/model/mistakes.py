"""Mistakes in a memory file's own anchors: a static checker must not pass its own input errors.

A typo'd kind (`imprt:redis`), a malformed anchor (`pkg:pypi/`, a span
`#L20-L10`) and a span anchor nobody banked all used to pass quietly. Each is
now a result in a state of its own, with a one-line fix in its reason, and
fails the run (see `anchorcheck.cli.common.exit_code`).
"""

from __future__ import annotations

from collections.abc import Iterable

from anchorcheck.base.lazyregex import later

UNKNOWN_KIND = "unknown-kind"
MALFORMED = "malformed"
UNBANKED = "unbanked"
MISTAKES = frozenset({UNKNOWN_KIND, MALFORMED, UNBANKED})
# A code span of prose that is written like an anchor but is none (a near-miss kind, a value its kind cannot
# parse): a warning, not a mistake that fails the run, unless `--strict` (anchorcheck.verify.prose).
LOOKS_LIKE_ANCHOR = "looks-like-anchor"
# Results in these states can never be REFUTED as written: the evidence that absence is judged in is
# open (the environment read whole, a computed key, a dynamic manifest...) or missing altogether.
OPEN_WORLD = frozenset(
    {"unsupported", "no-manifest", "incomplete", "not-first-party", "no-source", "computed-key",
     "whole-environment", "unfollowed", "unread"}
)
KIND_PREFIX = later(r"\s*!?([a-z][a-z0-9_-]*):(?=\S)")  # `[!]kind:` with its value right after the colon
# How close a code span's prefix must be to a registered kind to be read as a typo of it, not as prose
# (`imprt:` 0.91, `files:` 0.89, `spam:` 0.75 stays prose).
NEAR_MISS = 0.8


def near_miss(kind: str, kinds: Iterable[str]) -> str | None:
    """The registered kind that `kind` is a typo of, if one is close enough."""
    import difflib  # imported here: a check whose anchors all have registered kinds never needs it

    close = difflib.get_close_matches(kind, list(kinds), n=1, cutoff=NEAR_MISS)
    return close[0] if close else None


def typo_kind(text: str, kinds: Iterable[str]) -> str | None:
    """For a code span written like an anchor with an unregistered kind, the kind it was meant to be."""
    match = KIND_PREFIX.match(text)
    if match is None:
        return None
    known = list(kinds)
    return None if match.group(1) in known else near_miss(match.group(1), known)


def unknown_kind_reason(text: str, kinds: Iterable[str]) -> str | None:
    """`unknown anchor kind 'imprt': did you mean `import:`?` for an anchor whose kind is not registered."""
    match = KIND_PREFIX.match(text)
    if match is None:
        return None
    known = sorted(kinds)
    if match.group(1) in known:
        return None
    meant = near_miss(match.group(1), known)
    fix = f"did you mean `{meant}:`?" if meant else f"known kinds: {', '.join(known)}"
    return f"unknown anchor kind {match.group(1)!r}: {fix}"
