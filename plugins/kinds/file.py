"""`file:PATH` — the path exists inside the repository.

The simplest kind, and the model for the others: parse the value, resolve it
through the Repository (which refuses paths outside the root), and answer.
"""

from __future__ import annotations

from anchorcheck import AnchorKind, AnchorResult, Evidence, Verdict, hookimpl
from anchorcheck.plugin import Anchor, AnchorSyntaxError, decode_path, Context


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
    similar = _same_name_elsewhere(context, path)
    if similar:
        reason += f"; a file of that name is at {', '.join(similar)}"
    return AnchorResult(shown, Verdict.REFUTED, reason, state="missing")


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
