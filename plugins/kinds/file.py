"""`file:PATH` — the path exists inside the repository.

The simplest kind, and the model for the others: parse the value, resolve it
through the Repository (which refuses paths outside the root), and answer.
"""

from __future__ import annotations

from anchorcheck import AnchorKind, AnchorResult, Evidence, Verdict, hookimpl
from anchorcheck.plugin import Anchor, AnchorSyntaxError, Context, Repository, decode_path, git_renames, is_object_id


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
    # An ignored path was never git's to rename; asking history also makes the run's report depend on it
    # (a stored report is not replayed), which a build output named in a memory is not worth.
    renamed = _renamed_by_git(context, path) if context.repo.ignored_because(path) is None else None
    if renamed is not None:
        reason += f"; git records it renamed to {renamed}"
    else:
        similar = _same_name_elsewhere(context, path)
        if similar:
            reason += f"; a file of that name is at {', '.join(similar)}"
    return AnchorResult(shown, Verdict.REFUTED, reason, state="missing")


_MAX_RENAMES = 8  # a chain of renames followed; past it, the hint is left to the file name
# Paths whose history one Verifier asks git about (two git runs each); past this, the hint is the file name's.
# 3,000 stale paths asked one by one took a minute; the first few are the ones a person fixes first.
MAX_HISTORY_LOOKUPS = 32


def _renamed_by_git(context: Context, path: str) -> str | None:
    """Where git says a missing path went: a staged rename, else history (within the lookups left)."""
    if not context.repo.in_git:
        return None
    staged = context.memo(("file", "staged renames"), lambda: _staged_renames(context.repo))
    if path in staged:
        return staged[path]
    left = context.memo(("file", "history lookups left"), lambda: [MAX_HISTORY_LOOKUPS])
    if not left[0]:
        return None
    left[0] -= 1
    return _renamed_in_history(context.repo, path)


def _staged_renames(repo: Repository) -> dict[str, str]:
    """Renames staged in the index (`git mv` not yet committed), old path -> new path."""
    out = repo.git("diff-index", "--cached", "-M", "--relative", "--name-status", "-z", "--no-textconv", "--no-ext-diff", operands=["HEAD"])
    return {old: new for status, old, new in git_renames(out) if status == "R"}


def _renamed_in_history(repo: Repository, path: str) -> str | None:
    """Where git's history says a missing file went: the rename in the last commit that touched the path,
    followed while the new name is gone too. Git's rename detection knows a `git mv` that a guess by file
    name gets wrong (`client/stdio.py` → `client/stdio_transport.py`, not `server/stdio.py`). Plumbing
    only, the path a literal pathspec; None without a rename."""
    current = path
    for _ in range(_MAX_RENAMES):
        last = (repo.git("rev-list", "--max-count=1", operands=["HEAD"], paths=[f":(literal){current}"]) or "").strip()
        if not is_object_id(last):
            return None
        out = repo.git("diff-tree", "-r", "-M", "--relative", "--name-status", "-z", "--no-commit-id", "--root", "--no-textconv", "--no-ext-diff", operands=[last])
        current = _renamed(out, current)
        if current is None:
            return None
        if repo.is_file(current):
            return current
    return None


def _renamed(name_status: str | None, path: str) -> str | None:
    return next((new for status, old, new in git_renames(name_status) if status == "R" and old == path), None)


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
