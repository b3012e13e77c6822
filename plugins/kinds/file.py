"""`file:PATH` — the path exists inside the repository.

The simplest kind, and the model for the others: parse the value, resolve it
through the Repository (which refuses paths outside the root), and answer.
"""

from __future__ import annotations

from anchorcheck import AnchorKind, AnchorResult, Evidence, Verdict, hookimpl
from anchorcheck.plugin import Anchor, AnchorSyntaxError, Context, Repository, at_head, decode_path, git_renames


def parse_file(value: str) -> str:
    path = decode_path(value)
    if not path.strip():
        raise AnchorSyntaxError("expected a repo-relative path", column=1)
    return path


def verify_file(anchor: Anchor, context: Context) -> AnchorResult:
    path: str = anchor.detail if anchor.detail is not None else parse_file(anchor.value)
    shown = str(anchor)
    # Through the Repository only: it refuses escaping paths (INCONCLUSIVE, handled by the core).
    if context.repo.is_file(path):
        return AnchorResult(shown, Verdict.VERIFIED, f"{path} exists", [Evidence(path, None, "file exists")], state="present")
    if context.repo.is_dir(path):
        return AnchorResult(shown, Verdict.VERIFIED, f"{path} exists (a directory)", [Evidence(path, None, "directory exists")], state="present")
    elsewhere = context.repo.not_checked_out(path)
    if elsewhere is not None:
        return AnchorResult(shown, Verdict.INCONCLUSIVE, f"{path} is {elsewhere}", state="not-checked-out")
    reason = f"{path} does not exist in the repository"
    # An ignored path was never git's to rename; asking git also makes the run's report depend on it
    # (a stored report is not replayed), which a build output named in a memory is not worth.
    staged = _staged_rename(context, path) if context.ignored_because(path.rstrip("/")) is None else None
    if staged is not None:
        # The core's history (`anchorcheck.verify.staleness`) sees committed renames; one in the index is this
        # plugin's to say: it is gone, to a place a `fix` can write back.
        reason += f"; renamed to `{staged}` in git's index, not committed yet"
        return AnchorResult(shown, Verdict.REFUTED, reason, state="gone", severity="error", details={"fix": {"from": path.rstrip("/"), "to": staged}})
    similar = _same_name_elsewhere(context, path)
    if not similar:
        return AnchorResult(shown, Verdict.REFUTED, reason, state="missing")
    # A guess by file name, which where git's history says the file went supersedes (`hint`).
    hint = f"; a file of that name is at {', '.join(similar)}"
    return AnchorResult(shown, Verdict.REFUTED, reason + hint, state="missing", details={"hint": hint})


def _staged_rename(context: Context, path: str) -> str | None:
    """Where a `git mv` not committed yet took a missing path, when it is there now."""
    if not context.repo.in_git:
        return None
    staged = context.memo(("file", "staged renames"), lambda: _staged_renames(context.repo))
    to = staged.get(path.rstrip("/"))
    return to if to is not None and context.repo.exists(to) else None


def _staged_renames(repo: Repository) -> dict[str, str]:
    """Renames staged in the index (`git mv` not yet committed), old path -> new path. The index against the
    commit checked out: what the tree state and that commit name, so a report stays replayable."""
    with at_head(repo) as head:
        if head is None:
            return {}
        out = repo.git("diff-index", "--cached", "-M", "--relative", "--name-status", "-z", "--no-textconv", "--no-ext-diff", operands=[head])
    return {old: new for status, old, new in git_renames(out) if status == "R"}


# Names that many directories have by convention: another file of that name says nothing about where
# this one went (`src/index.js` gone, `test/index.js` present), so no hint is given for them.
_GENERIC_STEMS = frozenset({"index", "main", "mod", "lib", "__init__", "__main__", "conftest", "setup", "readme", "makefile", "dockerfile", "build"})
_GENERIC_NAMES = frozenset({"package.json", "cargo.toml", "go.mod", "pyproject.toml", "tsconfig.json", ".gitignore", "cmakelists.txt", "build.bazel"})


def _same_name_elsewhere(context: Context, path: str, limit: int = 3) -> list[str]:
    """Files with the same base name: a hint for the person fixing a moved path, not evidence;
    none for a conventional name such as `index.js`, `__init__.py` or `mod.rs`."""
    name = path.rstrip("/").rsplit("/", 1)[-1]
    if name.lower() in _GENERIC_NAMES or name.lower().partition(".")[0] in _GENERIC_STEMS:
        return []
    matches = context.repo.files(named=[name])
    return matches[:limit]


@hookimpl
def register_anchor_kinds(register):  # noqa: ANN001, ANN201 - hook signature
    register(
        AnchorKind(
            prefix="file",
            verify=verify_file,
            parse=parse_file,
            summary="the path exists inside the repository",
            example="file:docs/adr/0003.md",
        )
    )
