"""Paths and confinement: every path a plugin names is checked here before the disk is touched.

A citation that names `../../etc/passwd`, an absolute path or a symlink out of
the checkout is refused in one place (`UnsafePathError`); reads are capped, and
a path that does not exist can say why its absence means nothing (ignored,
skipped, excluded). `Paths` is the part of `Repository` that does this.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Callable, Iterable
from pathlib import Path, PurePosixPath

from anchorcheck.base.globs import Patterns, gitignore_file
from anchorcheck.base.memo import Memo
from anchorcheck.repo.nearest import nearest_checkout
from anchorcheck.repo.safe_read import IGNORE_CAP, FileTooLargeError, read_capped, read_in_root

TYPE_CHECKING = False  # not `typing`'s: importing it costs a replayed `check` 4-7 ms (anchorcheck.serve.replay)
if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

_DRIVE = re.compile(r"^[A-Za-z]:")
_BINARY_PEEK = 8000  # git's own heuristic: a NUL in the first 8000 bytes means binary
# a name no pattern names, matched only by what ignores a folder's every entry; with an extension, as the files an
# ignore file that keeps only names with one (`*`, `!*.*`, `!*/`: go-zero's) keeps, so such a folder is not "ignored"
_ANY_CHILD = "anchorcheck-any-child.anchorcheck"
_EXCLUDE = ".git/info/exclude"


class UnsafePathError(ValueError):
    """A path that anchorcheck refuses to read: it is not a plain repo-relative path inside the root."""

    def __init__(self, path: object, why: str) -> None:
        self.path = path
        self.why = why
        super().__init__(f"refused path {path!r}: {why}")


def find_root(start: str | os.PathLike[str] = ".") -> Path:
    """The nearest directory at or above `start` holding `.git`; else `start` itself."""
    return Path(nearest_checkout(os.fspath(start)))


def check_relative(path: object) -> str:
    """Validate a repo-relative path lexically and return it in POSIX form.

    Refuses non-strings, empty paths, NUL bytes, absolute paths, drive letters
    and any `..` segment (with either slash), before anything touches the disk.
    """
    if not isinstance(path, str):
        raise UnsafePathError(path, f"expected a path string, got {type(path).__name__}")
    if not path or not path.strip():
        raise UnsafePathError(path, "empty path")
    if "\x00" in path:
        raise UnsafePathError(path, "contains a NUL byte")
    if path.startswith(("/", "\\")):
        raise UnsafePathError(path, "absolute paths are not allowed; use a path relative to the repository root")
    if _DRIVE.match(path):
        raise UnsafePathError(path, "drive letters are not allowed; use a path relative to the repository root")
    parts = path.replace("\\", "/").split("/")
    if ".." in parts:
        raise UnsafePathError(path, "'..' would leave the repository")
    clean = [p for p in parts if p not in ("", ".")]
    if not clean:
        return "."
    return "/".join(clean)


class Paths:
    """The part of `Repository` that resolves, confines, reads and judges single paths."""

    root: Path
    skip_dirs: frozenset[str]
    exclude: Patterns
    max_file_size: int
    _root_str: str
    _memo: Memo
    _text: dict[str, bool]
    _vetted: set[str]
    _edited: set[str]
    # ignore file -> (its status when read, the paths the memo noted reading it, its compiled patterns)
    _ignores: dict[str, tuple[tuple[int, ...] | None, tuple[str, ...], GitIgnoreSpec | None]]

    def resolve(self, path: str, *, probe: bool = False) -> Path:
        """The real location of a repo-relative path, refused when it would leave the root. With
        `probe`, the caller asks only whether it exists and as what (see `Memo.probe`)."""
        rel = check_relative(path)
        note = self._memo.probe if probe else self._memo.read
        note(rel)
        target = self.root / rel
        try:
            real = target.resolve(strict=False)
        except (OSError, RuntimeError) as exc:
            raise UnsafePathError(path, f"cannot resolve ({exc.__class__.__name__}: symlink loop?)") from None
        if not real.is_relative_to(self.root):  # a compare of parts (`in real.parents` built a Path per ancestor: 40 µs)
            raise UnsafePathError(path, "resolves outside the repository (symlink)")
        if real != target:  # through a symlink: the file read is the target's
            note(real.relative_to(self.root).as_posix())
        return real

    def exists(self, path: str) -> bool:
        """Whether a file or directory exists there; raises UnsafePathError for refused paths."""
        return self._plain(path, probe=True) is not None or _named(self.resolve(path, probe=True).exists)

    def is_file(self, path: str) -> bool:
        return self._plain(path, probe=True) is not None or _named(self.resolve(path, probe=True).is_file)

    def file_size(self, path: str) -> int:
        """A file's size in bytes (raises OSError/UnsafePathError)."""
        plain = self._plain(path)
        return plain.st_size if plain is not None else self.resolve(path).stat().st_size

    def _plain(self, path: str, probe: bool = False) -> os.stat_result | None:
        """The status of a listed file (vetted, or vetted and edited since) that is still a regular
        file: its folders were vetted when listed (a folder that changes lists the checkout again), so
        one lstat says what resolving every component would (resolving took 6x the lstat). None
        otherwise: the caller resolves the path."""
        if path not in self._vetted and path not in self._edited:
            return None
        try:
            status = os.lstat(os.path.join(self._root_str, path))
        except OSError:
            return None
        if not stat.S_ISREG(status.st_mode):
            return None
        (self._memo.probe if probe else self._memo.read)(path)
        return status

    def is_dir(self, path: str) -> bool:
        return _named(self.resolve(path, probe=True).is_dir)

    def read_bytes(self, path: str, limit: int | None = None) -> bytes:
        """The file's bytes; raises UnsafePathError, OSError, or FileTooLargeError past `limit`."""
        return self._read(path, self.max_file_size if limit is None else limit)

    def _read(self, path: str, cap: int, amount: int = -1) -> bytes:
        """Up to `amount` bytes of a file (all by default), refused past the size cap before reading."""
        if path in self._edited:
            self._memo.read(path)
            try:  # as cheap as a vetted file's read (resolving the path took 2x the read)
                return read_capped(os.path.join(self._root_str, path), cap, amount=amount, shown=path, follow=False)
            except FileTooLargeError:
                raise
            except OSError:  # a link now, or no regular file: judged as any path is, below
                pass
        return read_capped(self._vetted_or_resolved(path), cap, amount=amount, shown=path)

    def _vetted_or_resolved(self, path: str) -> str | Path:
        """Listed files were vetted (symlinks resolved and checked) when listed: skip resolving them again."""
        if path in self._vetted:
            self._memo.read(path)
            return os.path.join(self._root_str, path)
        return self.resolve(path)

    def ignored_because(self, path: str, skipped_folders: bool = True) -> str | None:
        """Why a path that does not exist would be missing from any checkout anyway — under a skipped folder,
        excluded by the configuration, or matched by a `.gitignore` on its way down (or `.git/info/exclude`) —
        so its absence says nothing: a build output, a clone, a local file. None if nothing ignores it.
        Read from the files, not asked of git, so it works outside git and runs no program; what git's
        index holds but this checkout lacks is `not_checked_out`'s to say. Without `skipped_folders`, the
        repository's and the configuration's rules alone (a folder's name, `vendor/`, says nothing of history)."""
        parts = [p for p in path.split("/") if p]
        # a name without an extension may be a folder: it is ignored only if the folder is (`*` then `!*/` ignores
        # every such file and no folder, and a folder a text names is no build output for that)
        folder = bool(parts) and "." not in parts[-1]
        skipped = [p for p in parts if p in self.skip_dirs] if skipped_folders else []
        if skipped:
            return f"under {skipped[0]}/, which holds generated or vendored files"
        if self.exclude.match_file(path):
            return "excluded by the configuration"
        for depth in range(len(parts)):
            base = "/".join(parts[:depth])
            rest = "/".join(parts[depth:])
            if base and not os.path.isdir(os.path.join(self._root_str, base)):
                self._memo.probe(base)  # no folder, so no ignore file in it or below: a path of 400 missing folders
                break  # read 400 of them, each resolved whole (60 such paths took 2 min)
            name = f"{base}/.gitignore" if base else ".gitignore"
            sources = [name, _EXCLUDE] if depth == 0 else [name]
            for shown in sources:
                spec = self._ignore_spec(shown)
                # `dir/*` ignores what is in a folder, and so the folder itself: git lists nothing of it either
                if spec is not None and (
                    (not folder and spec.match_file(rest)) or _folder_ignored(spec, rest)
                    or spec.match_file(rest + "/" + _ANY_CHILD)
                ):
                    return f"ignored by {shown}"
        return None

    def _ignore_spec(self, name: str) -> GitIgnoreSpec | None:
        """One ignore file's compiled patterns (None: no such file, or nothing in it), kept on the Repository while
        the file's status is what it was when read: a missing path is judged against the same few `.gitignore`
        files thousands of times (3,000 missing `file:` anchors read and compiled them 6,000 times, 19 s), and a
        long-lived Verifier still sees an edited one. What was noted when it was read is noted again."""
        status = _status(os.path.join(self._root_str, name))
        cached = self._ignores.get(name)
        if cached is not None and cached[0] == status:
            for path in cached[1]:
                self._memo.read(path)
            return cached[2]
        noted, lines = self._ignore_file(name)
        spec = gitignore_file(lines) if lines else None
        if status is None or not stat.S_ISLNK(status[0]):  # a link's own status says nothing of its target's bytes
            self._ignores[name] = (status, noted, spec)
        return spec

    def _ignore_file(self, name: str) -> tuple[tuple[str, ...], list[str] | None]:
        """An ignore file's lines, and the paths noted in the memo to read them (`.git/info/exclude` is git's
        own, in no checkout: none)."""
        if name == _EXCLUDE:
            return (), ignore_lines(self.root, self.root / name) if self.root.joinpath(".git").is_dir() else None
        try:
            real = self.resolve(name)  # resolved here so that the memo notes the read
        except UnsafePathError:
            return (name,), None
        shown = real.relative_to(self.root).as_posix() if real != self.root else name
        return tuple(dict.fromkeys((name, shown))), ignore_lines(self.root, real)

    def is_text(self, path: str) -> bool:
        """Within the size cap and not binary: what `files` lists. Judged on first ask, then remembered."""
        cached = self._text.get(path)
        self._memo.read(path)
        if cached is None:
            try:
                cached = not looks_binary(self._peek(path))
            except (OSError, UnsafePathError):
                cached = False
            self._text[path] = cached
        return cached

    def _peek(self, path: str) -> bytes:
        """The first bytes of a file, enough to tell binary from text; FileTooLargeError past the cap."""
        return self._read(path, self.max_file_size, _BINARY_PEEK)

    def relative(self, path: str | os.PathLike[str]) -> str:
        """A path (absolute or relative to the current directory) as a repo-relative POSIX path."""
        full = Path(path).resolve()
        return PurePosixPath(full.relative_to(self.root)).as_posix()



def directories_of(paths: Iterable[str]) -> set[str]:
    """The directories holding these repo-relative paths, with every parent up to the root ("")."""
    found = {path.rpartition("/")[0] for path in paths}
    for directory in list(found):
        while "/" in directory:
            directory = directory.rpartition("/")[0]
            if directory in found:
                break
            found.add(directory)
    found.add("")
    return found


def _named(check: Callable[[], bool]) -> bool:
    """A pathlib existence check, False for a name longer than the file system allows (pathlib lets
    ENAMETOOLONG through: an include of a 1,000-character name in a Makefile raised OSError)."""
    try:
        return check()
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            return False
        raise


def _status(path: str) -> tuple[int, ...] | None:
    """What changes when a file is edited, replaced or turned into a link (None: nothing there)."""
    try:
        found = os.lstat(path)
    except (OSError, ValueError):
        return None
    return (found.st_mode, found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns)


def ignore_lines(root: Path, path: str | os.PathLike[str]) -> list[str] | None:
    """An ignore file's lines (a `.gitignore`, `.git/info/exclude`), confined to the checkout, regular and capped
    like its config; None when there is none or it cannot be read."""
    try:
        return read_in_root(root, path, IGNORE_CAP).decode("utf-8", errors="replace").splitlines()
    except OSError:
        return None


def looks_binary(data: bytes) -> bool:
    """Git's own heuristic: a NUL byte in the first 8000 bytes means binary."""
    return b"\x00" in data[:_BINARY_PEEK]


def _folder_ignored(spec: "GitIgnoreSpec", rest: str) -> bool:
    """Whether git ignores `rest` as a folder: the last pattern that matches it decides, `!*/` re-including every
    folder. pathspec's own answer ranks a pattern matching the path itself above a folder pattern, so it keeps
    `core/limits/` ignored under `*`, `!*.*`, `!*/` (go-zero's .gitignore), which git tracks."""
    last = None
    for pattern in spec.patterns:
        if pattern.include is not None and pattern.match_file(rest + "/"):
            last = pattern.include
    return bool(last)
