"""Which git directory belongs to a checkout, decided before git starts, and whether git may use it.

Git follows what a checkout's `.git` points it at: a `.git` file naming
another repository's git directory (an unpacked archive may carry one), a
`commondir` naming another repository, `objects/info/alternates` borrowing
another repository's objects. Any of these would let a memory be answered
from a repository that is not the one checked out, and leak what exists
there. So the nearest `.git` is read here first, as data, and `locate`
returns the checkout's git directory only when:

- `.git` is a directory, or a `.git` file of a worktree whose git directory
  names it back, or of a submodule whose git directory lies in an enclosing
  repository's `.git/modules`;
- a `commondir` is only that of a linked worktree (`<common>/worktrees/NAME`);
- no object directory is borrowed (`objects/info/alternates`,
  `objects/info/http-alternates`);
- every file and folder git will be pointed at (`anchorcheck.repo.gitview`), and the
  configuration anchorcheck reads values from, is of
  the right type and resolves inside that git directory or its common one,
  so no FIFO blocks git and no link leads it elsewhere.

Git never reads the repository's own configuration files at all
(`anchorcheck.repo.gitview` gives it a private one), so nothing in them is vetted
here: their includes are never followed by anyone.

Otherwise `refusal` says why in one line: the CLI stops with it, and a
`Repository` treats the checkout as one without git.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from anchorcheck.repo.safe_read import open_regular

_GITFILE_CAP = 4096
_HEAD = re.compile(r"(?:ref: refs/[^\s\0]+|[0-9a-f]{40}|[0-9a-f]{64})\n?")
_NOT_RUN = "anchorcheck does not run git on this checkout"
# What git is pointed at, by where it lives: (name, is a folder, must exist).
_PER_WORKTREE = (("HEAD", False, True), ("index", False, False))
_SHARED = (
    ("objects", True, True),
    ("refs", True, False),
    ("packed-refs", False, False),
    ("shallow", False, False),
    ("reftable", True, False),
    ("info/exclude", False, False),
    ("info/attributes", False, False),
    ("config", False, False),  # read by anchorcheck only (`anchorcheck.repo.gitconfig`), never by git
)
_BORROWED = ("objects/info/alternates", "objects/info/http-alternates")


class GitDir:
    """A vetted git directory: the work tree's top folder, its own git directory and the common one
    (the same folder except for a linked worktree). A plain class: a replayed `check` imports no
    `dataclasses`."""

    __slots__ = ("common", "gitdir", "top")

    def __init__(self, top: Path, gitdir: Path, common: Path) -> None:
        self.top, self.gitdir, self.common = top, gitdir, common

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GitDir) and (self.top, self.gitdir, self.common) == (other.top, other.gitdir, other.common)

    def __hash__(self) -> int:
        return hash((self.top, self.gitdir, self.common))

    def __repr__(self) -> str:
        return f"GitDir(top={self.top!r}, gitdir={self.gitdir!r}, common={self.common!r})"

    def shared(self, name: str) -> Path:
        return self.common / name

    def own(self, name: str) -> Path:
        return self.gitdir / name


def locate(start: str | os.PathLike[str] = ".") -> GitDir | str | None:
    """The vetted git directory of the checkout at `start`; a one-line refusal when git must not use
    it; None when there is no `.git` at `start` or above."""
    here = Path(start).resolve()
    for dotgit in (d / ".git" for d in (here, *here.parents)):
        if not os.path.lexists(dotgit):
            continue
        if dotgit.is_dir() and not dotgit.is_symlink():
            found: GitDir | str = _vetted(dotgit.resolve(), dotgit.parent)
        elif dotgit.is_symlink():
            found = f"{dotgit}: a symbolic link; {_NOT_RUN}"
        else:
            found = _not_regular(dotgit) or _from_gitfile(dotgit)
        return found
    return None


def top_of(start: str | os.PathLike[str]) -> Path:
    """The top folder of the work tree around `start` (where code scanning places files from), else `start`:
    a `--root` in a subfolder of a monorepo is not where GitHub resolves an annotation's path."""
    found = locate(start)
    return found.top.resolve() if isinstance(found, GitDir) else Path(start).resolve()


def refusal(start: str | os.PathLike[str] = ".") -> str | None:
    """Why anchorcheck will not run git on the checkout at `start`; None when it may, or when there is no `.git`."""
    found = locate(start)
    return found if isinstance(found, str) else None


def _not_regular(path: Path) -> str | None:
    """Why git would block on (or fail to read) a file it opens, when that is no regular file."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        return f"{path}: cannot read ({exc.strerror or exc}); {_NOT_RUN}"
    if not stat.S_ISREG(mode):
        return f"{path}: not a regular file, and git would wait on it; {_NOT_RUN}"
    return None


def _from_gitfile(dotgit: Path) -> GitDir | str:
    try:
        text = _small(dotgit).strip()
    except OSError as exc:
        return f"{dotgit}: cannot read ({exc.strerror or exc}), so git cannot read this checkout"
    target = text.removeprefix("gitdir:").strip()
    if not text.startswith("gitdir:") or not target or "\n" in target:
        return f"{dotgit}: not a 'gitdir: PATH' file, so git cannot read this checkout"
    gitdir = (dotgit.parent / target).resolve()
    if not gitdir.is_dir():
        return f"{dotgit}: gitdir {target} does not exist (a moved or removed worktree or submodule?)"
    if not (_names_back(gitdir, dotgit) or _submodule_of_enclosing(gitdir, dotgit.parent)):
        return (
            f"{dotgit}: gitdir {target} is not a worktree or submodule of this checkout (it does not name it back); "
            "anchorcheck does not run git on another repository's git directory"
        )
    return _vetted(gitdir, dotgit.parent)


def _names_back(gitdir: Path, dotgit: Path) -> bool:
    """A worktree: `git worktree add` writes the path of the `.git` file into `<gitdir>/gitdir`."""
    try:
        named = _small(gitdir / "gitdir").strip()
    except OSError:
        return False
    return bool(named) and Path(named).resolve() == dotgit.resolve()


def _submodule_of_enclosing(gitdir: Path, checkout: Path) -> bool:
    """A submodule: its git directory is inside `.git/modules` of a repository enclosing the checkout."""
    for above in checkout.resolve().parents:
        if (above / ".git").is_dir() and (above / ".git" / "modules") in gitdir.parents:
            return True
    return False


def _vetted(gitdir: Path, top: Path) -> GitDir | str:
    """The git directory with its common one, when nothing in them leads git elsewhere or blocks it."""
    common = _common(gitdir)
    if isinstance(common, str):
        return common
    found = GitDir(top.resolve(), gitdir, common)
    inside = (gitdir, common)
    for names, base in ((_PER_WORKTREE, gitdir), (_SHARED, common)):
        for name, folder, needed in names:
            problem = _badly_placed(base / name, folder, needed, inside)
            if problem:
                return problem
    for name in _BORROWED:
        problem = _borrows(common / name)
        if problem:
            return problem
    head = _head_problem(gitdir / "HEAD")
    return head or found


def _common(gitdir: Path) -> Path | str:
    """The common git directory: the git directory itself, or for a linked worktree
    (`<common>/worktrees/NAME`) the one its `commondir` names; anything else is refused."""
    named = gitdir / "commondir"
    if not os.path.lexists(named):
        return gitdir
    try:
        text = _small(named).strip()
    except OSError as exc:
        return f"{named}: cannot read ({exc.strerror or exc}); {_NOT_RUN}"
    common = (gitdir / text).resolve() if text else gitdir
    if common != gitdir and not (gitdir.parent.name == "worktrees" and gitdir.parent.parent == common):
        return (
            f"{named}: names {text}, which is not the repository this worktree belongs to; "
            "anchorcheck does not run git on another repository's git directory"
        )
    return common


def _badly_placed(path: Path, folder: bool, needed: bool, inside: tuple[Path, ...]) -> str | None:
    """Why git must not be pointed at `path`: missing when needed, of the wrong type (a FIFO git would
    wait on), or a link that leads out of the git directories."""
    if not os.path.lexists(path):
        return f"{path}: missing, so this is no git directory; {_NOT_RUN}" if needed else None
    real = path.resolve()
    if not any(real == base or base in real.parents for base in inside):
        return f"{path}: leads outside the repository's git directory (to {real}); {_NOT_RUN}"
    try:
        mode = os.stat(real).st_mode
    except OSError as exc:
        return f"{path}: cannot read ({exc.strerror or exc}); {_NOT_RUN}"
    if folder and not stat.S_ISDIR(mode):
        return f"{path}: not a folder; {_NOT_RUN}"
    if not folder and not stat.S_ISREG(mode):
        return f"{path}: not a regular file, and git would wait on it; {_NOT_RUN}"
    return None


def _borrows(path: Path) -> str | None:
    """Why an alternates file makes git read another repository's objects (any entry at all does)."""
    if not os.path.lexists(path):
        return None
    try:
        lines = _small(path).splitlines()
    except OSError as exc:
        return f"{path}: cannot read ({exc.strerror or exc}); {_NOT_RUN}"
    entries = [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]
    if entries:
        return (
            f"{path}: borrows objects from {entries[0]}; "
            "anchorcheck does not run git on another repository's objects"
        )
    return None


def _head_problem(head: Path) -> str | None:
    try:
        text = _small(head)
    except OSError as exc:
        return f"{head}: cannot read ({exc.strerror or exc}); {_NOT_RUN}"
    if not _HEAD.fullmatch(text):
        return f"{head}: not a branch name or a commit id; {_NOT_RUN}"
    return None


def read_head(found: GitDir) -> str | None:
    """The checkout's HEAD as git stores it (`ref: refs/heads/x` or a commit id), read anew; None when it
    is no longer one."""
    try:
        text = _small(found.own("HEAD"))
    except OSError:
        return None
    return text if _HEAD.fullmatch(text) else None


def _small(path: Path) -> str:
    with open_regular(path) as handle:
        return handle.read(_GITFILE_CAP).decode("utf-8", errors="replace")


_PACKED_REFS_CAP = 64 << 20  # a packed-refs file past this is not read for a replay's HEAD (git is asked instead)


def head_key(commit: str, shallow: bool) -> str:
    """How a commit checked out, and whether the clone is shallow, names what history answers depend on."""
    return f"{commit} {'shallow' if shallow else 'full'}"


def head_now(found: GitDir) -> str | None:
    """`head_key` of the checkout now, read from git's files without running git (a replayed report compares
    it with the one its answers were read at); None where the files say no plain commit (a reftable, a
    ref that leads nowhere, an unreadable file): then nothing is replayed."""
    head = read_head(found)
    for _ in range(5):  # a symbolic ref may name another
        if head is None or not head.startswith("ref: "):
            break
        head = _ref_target(found, head[len("ref: "):].strip())
    if head is None or not _HEAD.fullmatch(head) or head.startswith("ref: "):
        return None
    try:
        shallow = found.shared("shallow").stat().st_size > 0
    except FileNotFoundError:
        shallow = False
    except OSError:
        return None
    return head_key(head.strip(), shallow)


def _ref_target(found: GitDir, ref: str) -> str | None:
    """What a ref holds (a commit id, or `ref: ...`): its loose file, else its line in packed-refs."""
    if found.shared("reftable").exists() or ".." in ref.split("/"):
        return None
    try:
        return _small(found.shared(ref))
    except FileNotFoundError:
        pass
    except OSError:
        return None
    try:
        with open_regular(found.shared("packed-refs")) as handle:
            packed = handle.read(_PACKED_REFS_CAP + 1).decode("utf-8", errors="replace")
    except OSError:
        return None
    if len(packed) > _PACKED_REFS_CAP:
        return None
    suffix = f" {ref}"
    for line in packed.splitlines():
        if line.endswith(suffix) and not line.startswith(("#", "^")):
            return line[: -len(suffix)]
    return None
