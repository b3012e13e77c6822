"""Whether git may be run on a checkout at all, decided before git starts.

The `-c` overrides of `gitcmd` keep git from starting any program, but git
still opens what the checkout's `.git` points it at, before any override
applies: a `.git` file naming another repository's git directory (an
unpacked archive may carry one: `gitdir: /elsewhere`) would make git read
that repository's index and configuration; a configuration that includes a
file outside the repository makes git read it (a FIFO there blocks git, a
device never ends); a FIFO for the configuration or the exclude file
blocks it. So the nearest `.git` is read here first, as data, and git is
used only when:

- it is a directory, or a `.git` file of a worktree whose git directory
  names it back, or of a submodule whose git directory lies in an enclosing
  repository's `.git/modules`;
- the files git reads from that directory are regular files (or absent);
- the paths its configuration makes git read (`include.path`,
  `includeIf.*.path`, `core.excludesFile`, `core.attributesFile`) stay
  inside the checkout or its git directory.

Otherwise `refusal` says why in one line: the CLI stops with it, and a
`Repository` treats the checkout as one without git.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from anchorcheck.repo.safe_read import CONFIG_CAP, open_regular, read_capped

_GITFILE_CAP = 4096
_READ_BY_GIT = ("config", "config.worktree", "info/exclude", "info/attributes", "HEAD", "commondir", "index", "packed-refs")
_SECTION = re.compile(r'\s*\[\s*([A-Za-z0-9.-]+)\s*(?:"(?:[^"\\]|\\.)*"\s*)?\](.*)')
_ENTRY = re.compile(r"\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?")
_PATH_KEYS = frozenset({("include", "path"), ("includeif", "path"), ("core", "excludesfile"), ("core", "attributesfile")})


def refusal(start: str | os.PathLike[str] = ".") -> str | None:
    """Why anchorcheck will not run git on the checkout at `start`; None when it may, or when there is no `.git`."""
    here = Path(start).resolve()
    for dotgit in (d / ".git" for d in (here, *here.parents)):
        if not os.path.lexists(dotgit):
            continue
        if dotgit.is_dir():
            return _directory_problem(dotgit, dotgit.parent)
        return _not_regular(dotgit) or _gitfile_problem(dotgit)
    return None


def _not_regular(path: Path) -> str | None:
    """Why git would block on (or fail to read) a file it opens, when that is no regular file."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        return f"{path}: cannot read ({exc.strerror or exc}); anchorcheck does not run git on this checkout"
    if not stat.S_ISREG(mode):
        return f"{path}: not a regular file, and git would wait on it; anchorcheck does not run git on this checkout"
    return None


def _gitfile_problem(dotgit: Path) -> str | None:
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
    return _directory_problem(gitdir, dotgit.parent)


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


def _directory_problem(gitdir: Path, checkout: Path) -> str | None:
    """What in a git directory (and its common directory, for a worktree) git would block on or read outside."""
    dirs = [gitdir.resolve()]
    try:
        common = _small(gitdir / "commondir").strip() if os.path.lexists(gitdir / "commondir") else ""
    except OSError as exc:
        return f"{gitdir / 'commondir'}: cannot read ({exc.strerror or exc}); anchorcheck does not run git on this checkout"
    if common:
        dirs.append((gitdir / common).resolve())
    allowed = (checkout.resolve(), *dirs)
    for directory in dirs:
        for name in _READ_BY_GIT:
            problem = _not_regular(directory / name) if os.path.lexists(directory / name) else None
            if problem:
                return problem
        for config in (directory / "config", directory / "config.worktree"):
            problem = _config_reads_outside(config, allowed) if config.is_file() else None
            if problem:
                return problem
    return None


def _config_reads_outside(config: Path, allowed: tuple[Path, ...]) -> str | None:
    """The first path setting of a repository's configuration that makes git read a file outside `allowed`."""
    try:
        text = read_capped(config, CONFIG_CAP).decode("utf-8", errors="replace")
    except OSError as exc:
        return f"{config}: cannot read ({exc.strerror or exc}); anchorcheck does not run git on this checkout"
    section = ""
    for number, line in enumerate(text.splitlines(), 1):
        header = _SECTION.match(line)
        if header:
            section, line = header.group(1).lower(), header.group(2)
        entry = _ENTRY.match(line)
        if not entry or entry.group(2) is None:
            continue
        key = (section.split(".", 1)[0], entry.group(1).lower())
        if key not in _PATH_KEYS:
            continue
        value = _value(entry.group(2))
        target = Path(os.path.expanduser(value)) if value.startswith("~") else config.parent / value
        real = target.resolve()
        if not any(real == a or a in real.parents for a in allowed):
            name = f"{key[0]}.{key[1]}" if key[0] != "includeif" else "includeIf.path"
            return (
                f"{config}:{number}: {name} = {value} makes git read a file outside the repository; "
                "anchorcheck does not run git on this checkout"
            )
    return None


def _value(raw: str) -> str:
    """A git config value: quotes removed, escapes kept literal, an unquoted `#` or `;` starts a comment."""
    out, quoted, escaped = [], False, False
    for char in raw.strip():
        if escaped:
            out.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == '"':
            quoted = not quoted
        elif char in "#;" and not quoted:
            break
        else:
            out.append(char)
    return "".join(out).strip()


def _small(path: Path) -> str:
    with open_regular(path) as handle:
        return handle.read(_GITFILE_CAP).decode("utf-8", errors="replace")
