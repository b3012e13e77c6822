"""`watch:GLOB@FINGERPRINT` — an invalidation trigger: re-check this memory when those files change.

Some facts have no structural anchor ("the lockfile's licences were
audited", "staging runs the same image"), yet we know which files would make
them worth re-reading. A watch anchor records a fingerprint of the files
that match GLOB when the memory is banked; when the files change, the
trigger fires.

A trigger is never evidence: its verdict is always INCONCLUSIVE, and
`details["trigger"]` says `quiet` (unchanged), `fired` (changed: re-check)
or `unbanked` (no fingerprint yet; the reason prints the one to write);
`details["rebank"]` is the anchor text that arms it on the files as they
are now, which `anchorcheck rebank` writes where the anchor is written.
The memory-level rules in `anchorcheck.memory.lifecycle` leave quiet triggers out
of the combination and turn a fired one into "trigger fired: re-check".

The fingerprint is the first 16 hex digits of sha256 over the sorted
`path NUL sha256(bytes) LF` records of the matching text files (the same
listing and glob rules as an `in:` scope), so it does not depend on git.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from anchorcheck import AnchorKind, AnchorResult, Evidence, Verdict, hookimpl
from anchorcheck.plugin import Anchor, AnchorSyntaxError, decode_path, encode_path, Context, Repository

FINGERPRINT_DIGITS = 16
_FINGERPRINT = re.compile(rf"[0-9a-fA-F]{{{FINGERPRINT_DIGITS}}}")
TRIGGER_QUIET, TRIGGER_FIRED, TRIGGER_UNBANKED = "quiet", "fired", "unbanked"


@dataclass(frozen=True)
class Watch:
    """The files a trigger watches and the fingerprint banked for them (None until banked)."""

    glob: str
    fingerprint: str | None


def parse_watch(value: str) -> Watch:
    """`GLOB@FINGERPRINT` or a bare `GLOB`; an `@` not followed by 16 hex digits belongs to the glob."""
    glob, at, suffix = value.rpartition("@")
    if at and _FINGERPRINT.fullmatch(suffix):
        fingerprint: str | None = suffix.lower()
    else:
        glob, fingerprint = value, None
    glob = decode_path(glob)
    if not glob.strip():
        raise AnchorSyntaxError("expected a repo-relative path or glob before '@'", column=1)
    return Watch(glob, fingerprint)


def fingerprint(repo: Repository, glob: str, context: Context | None = None) -> tuple[str, list[str]]:
    """The fingerprint of the files matching `glob` now, and those files."""
    digest = hashlib.sha256()
    paths = repo.files(glob)
    for path in paths:
        if context is not None:
            context.check_deadline()
        content = hashlib.sha256(repo.read_bytes(path)).hexdigest()
        digest.update(f"{path}\0{content}\n".encode("utf-8", errors="surrogateescape"))
    return digest.hexdigest()[:FINGERPRINT_DIGITS], paths


def bank_watch(repo: Repository, glob: str) -> str:
    """The banked anchor text for a glob: what a memory store writes when it saves the memory."""
    current, _ = fingerprint(repo, glob)
    return f"watch:{encode_path(glob)}@{current}"


def verify_watch(anchor: Anchor, context: Context) -> AnchorResult:
    watch: Watch = anchor.detail if anchor.detail is not None else parse_watch(anchor.value)
    shown = str(anchor)
    current, paths = fingerprint(context.repo, watch.glob, context)
    details = {"trigger": TRIGGER_QUIET, "fingerprint": current, "files": len(paths)}
    where = [Evidence(p, None, "watched") for p in paths[:5]]
    details["rebank"] = f"watch:{encode_path(watch.glob)}@{current}"
    if watch.fingerprint is None:
        details["trigger"] = TRIGGER_UNBANKED
        reason = f"trigger not banked: write {details['rebank']} to record the {len(paths)} matching file(s)"
        return AnchorResult(shown, Verdict.INCONCLUSIVE, reason, where, state=TRIGGER_UNBANKED, details=details)
    details["banked"] = watch.fingerprint
    if current != watch.fingerprint:
        details["trigger"] = TRIGGER_FIRED
        reason = f"trigger fired: re-check ({watch.glob} changed since banked: {len(paths)} file(s) now)"
        return AnchorResult(shown, Verdict.INCONCLUSIVE, reason, where, state=TRIGGER_FIRED, details=details)
    reason = f"trigger quiet: {watch.glob} unchanged since banked ({len(paths)} file(s)); a trigger is not evidence"
    return AnchorResult(shown, Verdict.INCONCLUSIVE, reason, where, state=TRIGGER_QUIET, details=details)


@hookimpl
def register_anchor_kinds(register):  # noqa: ANN001, ANN201 - hook signature
    register(
        AnchorKind(
            prefix="watch",
            verify=verify_watch,
            parse=parse_watch,
            summary="an invalidation trigger: INCONCLUSIVE 'trigger fired: re-check' once the watched files change",
            example="watch:uv.lock@3f1c9a0b2d4e6f81",
        )
    )
