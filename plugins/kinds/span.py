"""`span:PATH#Lstart-Lend` — the banked lines of a file are still there, byte for byte.

The anchor text names the lines; the fingerprint comes from a banked
`Citation` (the anchor's `detail`: `Verifier.check(citation)`, or a lock
entry attached by the memory-file readers). States and verdicts:

- fresh → VERIFIED: the recorded window holds the same bytes;
- relocated → VERIFIED: the bytes moved (within the file under the context
  or uniqueness rule, or with the file itself when it was renamed), and the
  evidence names the new path and lines;
- stale → REFUTED: the bytes are gone or changed; `details["diff"]` holds a
  capped unified diff and the banked and current revisions;
- unverifiable → INCONCLUSIVE: not banked, a malformed record, another
  repository, a refused, binary or oversized file.

Files are read through the Repository only; renames come from read-only
`git diff-index --cached -M` between the banked HEAD and the index (blob to
blob, so no filter or textconv driver can run), or else from an
exact-content search of the checkout's text files.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from anchorcheck import AnchorKind, AnchorResult, Citation, Evidence, Verdict, hookimpl
from anchorcheck.plugin import (
    Anchor,
    AnchorSyntaxError,
    decode_path,
    MAX_LINE_NUMBER,
    split_lines,
    window,
    Context,
    FileTooLargeError,
    Repository,
    UnsafePathError,
    is_object_id,
    Found,
    current_region,
    locate,
    unified_diff,
)

_VALUE = re.compile(r"#L(\d+)(?:-L(\d+))?$")
NOT_BANKED = "not banked, run anchorcheck lock"


@dataclass(frozen=True)
class SpanRef:
    """The lines an anchor names: `path` lines `start`..`end`, 1-based inclusive."""

    path: str
    start: int
    end: int


def parse_span(value: str) -> SpanRef:
    """Parse `PATH#Lstart-Lend` or `PATH#Ln`; the path is percent-decoded."""
    match = _VALUE.search(value)
    if not match:
        raise AnchorSyntaxError("expected PATH#Lstart-Lend or PATH#Ln (for example src/app.py#L10-L20)", column=len(value) + 1)
    path = decode_path(value[: match.start()])
    if not path.strip():
        raise AnchorSyntaxError("expected a repo-relative path before '#L'", column=1)
    for digits, at in ((match.group(1), 1), (match.group(2) or "", 2)):
        if len(digits.lstrip("0")) > len(str(MAX_LINE_NUMBER)):  # checked before int(): 5,000 digits would raise ValueError
            raise AnchorSyntaxError(f"line numbers start at 1 and stop at {MAX_LINE_NUMBER}", column=match.start(at) + 1)
    start = int(match.group(1))
    end = int(match.group(2)) if match.group(2) is not None else start
    if not 1 <= start <= MAX_LINE_NUMBER:
        raise AnchorSyntaxError(f"line numbers start at 1 and stop at {MAX_LINE_NUMBER}", column=match.start(1) + 1)
    if end > MAX_LINE_NUMBER:
        raise AnchorSyntaxError(f"line numbers start at 1 and stop at {MAX_LINE_NUMBER}", column=match.start(2) + 1)
    if end < start:
        raise AnchorSyntaxError(f"end line {end} is before start line {start}", column=match.start(2) + 1)
    return SpanRef(path, start, end)


def _validate(value: str) -> None:
    """The kind's parser: validates the text and leaves `detail` empty until a citation is attached."""
    parse_span(value)


def span_lines(value: str) -> tuple[str, int, int]:
    """The file and lines a span value names: what `anchorcheck lock` banks (the kind's `lines`)."""
    ref = parse_span(value)
    return ref.path, ref.start, ref.end


def verify_span(anchor: Anchor, context: Context) -> AnchorResult:
    """Check the citation the anchor carries; a bare `span:` anchor was never banked."""
    shown = str(anchor)
    citation = anchor.detail
    if not isinstance(citation, Citation):
        return AnchorResult(shown, Verdict.INCONCLUSIVE, f"{_ref_text(anchor.value)}: {NOT_BANKED}", state="unbanked")
    problem = citation.problem()
    if problem is not None:
        return _unverifiable(shown, f"malformed citation for {citation.path!r}: {problem}")
    repo = context.repo
    foreign = _binding(citation, repo)
    if foreign is not None and foreign[0] == "other-repository":
        return _unverifiable(shown, foreign[1])
    check = _Check(citation, repo, shown, foreign[1] if foreign else None)
    return check.run()


class _Check:
    """One citation against one checkout: read, locate, follow a rename, explain."""

    def __init__(self, citation: Citation, repo: Repository, shown: str, foreign: str | None) -> None:
        self.c, self.repo, self.shown, self.foreign = citation, repo, shown, foreign

    def run(self) -> AnchorResult:
        c = self.c
        data = self._read(c.path)
        if isinstance(data, AnchorResult):
            return data
        if data is None:
            elsewhere = self.repo.not_checked_out(c.path)
            if elsewhere is not None:
                return _unverifiable(self.shown, f"{c.path} is {elsewhere}")
            moved = self._follow_rename()
            if moved is not None:
                return moved
            return self._stale(f"{c.path} no longer exists and the cited lines were not found elsewhere", None)
        note = ""
        fresh = _fresh_window(data, c)
        if not fresh:
            committed = self._as_committed(c.path, data)
            if committed is not None:
                data, note = committed, " as git stores them (this checkout writes CRLF line endings)"
                fresh = _fresh_window(data, c)
        if fresh:  # the common case, no split
            detail = f"lines {c.start_line}-{c.end_line} unchanged (sha256 {c.sha256[:12]})"
            found = Found("fresh", c.start_line, c.end_line, "window", copies=1)
            return self._verified("fresh", f"{c.path} lines {c.start_line}-{c.end_line} are unchanged{note}", c.path, found, detail)
        if _lfs_pointer(data):
            return _unverifiable(self.shown, f"{c.path} is a Git LFS pointer: the file's content is not fetched here")
        lines = split_lines(data)
        found = locate(c, lines)
        if found.state == "relocated":
            return self._relocated(c.path, found)
        twins = f"; {found.copies} identical cop{'y' if found.copies == 1 else 'ies'} elsewhere lack the banked context" if found.copies else ""
        return self._stale(f"{c.path} lines {c.start_line}-{c.end_line} changed since they were banked{twins}", lines)

    # -- reading ------------------------------------------------------------------

    def _read(self, path: str) -> bytes | AnchorResult | None:
        """The file's bytes; None when it is gone; an INCONCLUSIVE result when it cannot be read."""
        try:
            data = self.repo.read_bytes(path)
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None
        except UnsafePathError as exc:
            return _unverifiable(self.shown, f"refused path {path!r}: {exc.why}")
        except FileTooLargeError as exc:
            return _unverifiable(self.shown, f"{path} is {exc.size} bytes, over the {exc.cap}-byte cap")
        except OSError as exc:
            return _unverifiable(self.shown, f"cannot read {path}: {exc.strerror or exc}")
        if b"\x00" in data[:8000]:
            return _unverifiable(self.shown, f"{path} is now a binary file")
        return data

    def _as_committed(self, path: str, data: bytes) -> bytes | None:
        """The bytes git would store for a work-tree file with CRLF line endings that git converts: its blob
        has LF only and `git add` turns CRLF back into LF (`core.autocrlf`, the default of CI runners on
        Windows, or a `text`/`eol` attribute). The checkout's CRs are then no change to the repository,
        edited or not. None when git keeps the bytes as they are, or cannot say."""
        if b"\r\n" not in data or not self.repo.in_git:
            return None
        listed = (self.repo.git("ls-files", "--eol", paths=[path]) or "").partition("\t")[0].split()
        if len(listed) < 2 or listed[0] != "i/lf":  # the blob holds CRLF itself, is binary, or is not tracked
            return None
        attributes = listed[2][len("attr/") :] if len(listed) > 2 and listed[2].startswith("attr/") else ""
        if "-text" in attributes.split():
            return None
        if not ("text" in attributes or "eol=" in attributes):
            autocrlf = (self.repo.git("config", "--get", operands=["core.autocrlf"]) or "").strip().lower()
            if autocrlf not in ("true", "input"):
                return None
        return data.replace(b"\r\n", b"\n")

    # -- renames --------------------------------------------------------------------

    def _follow_rename(self) -> AnchorResult | None:
        for path in self._renamed_to():
            data = self._read(path)
            if isinstance(data, bytes):
                found = locate(self.c, split_lines(data))
                if found.state in ("fresh", "relocated"):
                    return self._relocated(path, found, rule="git rename")
        return self._content_search()

    def _renamed_to(self) -> list[str]:
        """Where git's rename detection says the cited file went since the banked HEAD (committed or staged)."""
        if not is_object_id(self.c.head, abbreviated=True) or not self.repo.in_git:
            return []
        out = self.repo.git(
            "diff-index", "--cached", "--name-status", "-M", "-z", "--no-textconv", "--no-ext-diff",
            operands=[str(self.c.head)], paths=[],
        )
        if not out:
            return []
        fields = out.split("\0")
        targets, i = [], 0
        while i < len(fields) - 1:
            status = fields[i]
            if status.startswith(("R", "C")) and i + 2 < len(fields):
                if fields[i + 1] == self.c.path:
                    targets.append(fields[i + 2])
                i += 3
            else:
                i += 2
        return targets

    def _content_search(self) -> AnchorResult | None:
        """The exact banked bytes, with their banked context, in exactly one other text file.

        Stricter than within a file: neither the recorded line numbers nor
        uniqueness vouch for a passage in another file, because the same
        boilerplate may well have stood in both files all along.
        """
        banked = self.c.banked_bytes()
        if banked is None:
            return None
        first = banked[0]
        hits: list[tuple[str, Found]] = []
        for path in self.repo.files():
            try:
                data = self.repo.read_bytes(path)
            except (OSError, UnsafePathError):
                continue
            if first in data:
                found = locate(self.c, split_lines(data), window=False)
                if found.rule == "context":
                    hits.append((path, found))
        return self._relocated(*hits[0], rule="moved file") if len(hits) == 1 else None

    # -- results ----------------------------------------------------------------------

    def _relocated(self, path: str, found: Found, rule: str | None = None) -> AnchorResult:
        c = self.c
        how = rule or {"context": "banked context matches", "unique": "unique span, context edited"}.get(found.rule, found.rule)
        where = f"{path} lines {found.start}-{found.end}"
        origin = f"{c.path} lines {c.start_line}-{c.end_line}"
        detail = f"moved from {origin} ({how})"
        if found.matching > 1:
            detail += f"; {found.matching} places match, nearest taken"
        result = self._verified("relocated", f"the cited lines moved intact: {origin} → {where}", path, found, detail)
        result.details.update(
            path=path,
            start_line=found.start,
            end_line=found.end,
            banked={"path": c.path, "start_line": c.start_line, "end_line": c.end_line},
            rule=rule or found.rule,
        )
        return result

    def _verified(self, state: str, reason: str, path: str, found: Found, detail: str) -> AnchorResult:
        evidence = [Evidence(path, found.start, detail)]
        details: dict[str, object] = {}
        if self.foreign:
            reason += f"; {self.foreign}"
            details["checkout"] = "different"
            evidence.append(Evidence(path, None, self.foreign))
        return AnchorResult(self.shown, Verdict.VERIFIED, reason, evidence, state=state, details=details)

    def _stale(self, reason: str, lines: list[bytes] | None) -> AnchorResult:
        c = self.c
        now = self.repo.head
        details: dict[str, object] = {"path": c.path, "banked_head": c.head, "current_head": now}
        banked = c.banked_bytes()
        if lines is not None and banked is not None:
            first, region = current_region(c, lines)
            at = f" at {c.head[:12]}" if c.head else ""
            labels = (f"{c.path} (banked{at})", f"{c.path} (now{' at ' + now[:12] if now else ''})")
            details["diff"] = unified_diff(banked, region, labels, (c.start_line, first))
            details["current_lines"] = [first, first + len(region) - 1] if region else []
        elif banked is None:
            reason += " (the record has no banked lines, so no diff can be shown)"
        if c.head and now and c.head != now:
            reason += f" (banked at {c.head[:12]}, now {now[:12]})"
        evidence = [Evidence(c.path, c.start_line, f"banked sha256 {c.sha256[:12]} no longer at lines {c.start_line}-{c.end_line}")]
        return AnchorResult(self.shown, Verdict.REFUTED, reason, evidence, state="stale", details=details)


def _binding(citation: Citation, repo: Repository) -> tuple[str, str] | None:
    """Whether this checkout is the one the citation was banked in.

    Different root commits mean another repository (INCONCLUSIVE). The same
    history under a different origin is a different checkout: it still
    verifies, and the evidence says so. A path identity (banked outside git)
    binds the citation to that directory: anywhere else is another tree, even
    with the same bytes (INCONCLUSIVE), since nothing shows it is the same.
    """
    banked, here = citation.identity, repo.identity
    if isinstance(banked, str) and banked.startswith("git:") and here.startswith("git:") and banked != here:
        if repo.shallow:
            return "other-repository", (
                f"banked in the repository whose first commit is {banked[4:16]}; this checkout is a shallow clone, "
                "whose first commit is not here: a full clone (`git fetch --unshallow`, or `fetch-depth: 0` in CI) can check it"
            )
        return "other-repository", f"banked in a different repository ({banked[:16]}), this checkout is {here[:16]}"
    if isinstance(banked, str) and banked.startswith("path:") and banked != f"path:{repo.root}":
        # Outside git nothing ties two directories together: the same bytes elsewhere are another tree.
        return "other-repository", f"banked in another directory ({banked[5:]}, not a git repository), this is {repo.root}"
    if citation.origin and repo.origin and citation.origin != repo.origin:
        return "other-checkout", f"checked in a different checkout (origin {repo.origin}; banked from {citation.origin})"
    return None


def _fresh_window(data: bytes, c: Citation) -> bool:
    """Whether the banked lines are where they were banked, byte for byte (one hash of the window)."""
    span = window(data, c.start_line, c.end_line)
    return span is not None and hashlib.sha256(span).hexdigest() == c.sha256


def _lfs_pointer(data: bytes) -> bool:
    """A Git LFS pointer file (its spec: under 1024 bytes, the version line first), which a clone without
    git-lfs, or with GIT_LFS_SKIP_SMUDGE, holds in place of the content that was banked."""
    return len(data) < 1024 and data.startswith((b"version https://git-lfs.github.com/spec/", b"version https://hawser.github.com/spec/"))


def _unverifiable(shown: str, reason: str) -> AnchorResult:
    return AnchorResult(shown, Verdict.INCONCLUSIVE, reason, state="unverifiable")


def _ref_text(value: str) -> str:
    try:
        ref = parse_span(value)
    except AnchorSyntaxError:
        return value
    return f"{ref.path} lines {ref.start}-{ref.end}"


@hookimpl
def register_anchor_kinds(register):  # noqa: ANN001, ANN201 - hook signature
    register(
        AnchorKind(
            prefix="span",
            verify=verify_span,
            parse=_validate,
            lines=span_lines,
            summary="banked lines are still there byte for byte, or moved intact (a banked citation)",
            example="span:src/cache.py#L10-L20",
        )
    )
