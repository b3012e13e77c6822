"""Repository access for every plugin: safe paths, file listing, identity and revision.

Plugins never open paths themselves: they go through `Repository`, so a
citation that names `../../etc/passwd` or a symlink out of the checkout is
refused in one place. Git is used through read-only plumbing when it is
installed and the root is inside a work tree; everything works without it.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from functools import cached_property
from pathlib import Path, PurePosixPath

from anchorcheck.repo import gitcmd, gitdir, gitview
from anchorcheck.base.gitnames import is_object_id, strip_credentials
from anchorcheck.base.globs import Patterns, gitignore, gitignore_file
from anchorcheck.base.lazyregex import later
from anchorcheck.base.memo import Memo
from anchorcheck.repo.nearest import nearest_checkout
from anchorcheck.repo.safe_read import IGNORE_CAP, NOFOLLOW, read_capped, read_in_root
from anchorcheck.repo.safe_read import FileTooLargeError as FileTooLargeError  # where plugins have always found it

TYPE_CHECKING = False  # not `typing`'s: importing it costs a replayed `check` 4-7 ms (anchorcheck.serve.replay)
if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

DEFAULT_SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        "node_modules",
        "vendor",
        "dist",
        "build",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".anchorcheck",
    }
)
DEFAULT_MAX_FILE_SIZE = 2 * 1024 * 1024
_BINARY_PEEK = 8000  # git's own heuristic: a NUL in the first 8000 bytes means binary
REGULAR_MODES = frozenset({"100644", "100755"})
GITLINK_MODE = "160000"  # a submodule's commit, in git's index
_LS_STAGED = ("ls-files", "-s", "-z")
_LS_MODIFIED = ("diff-files", "--name-only", "-z")
_LS_UNTRACKED = ("ls-files", "-z", "--others", "--exclude-standard")
_LISTING = (_LS_STAGED, _LS_MODIFIED, _LS_UNTRACKED)
_LS_CONFIG = ("config", "--null", "--name-only", "--list")
_DRIVE = re.compile(r"^[A-Za-z]:")

# Files git opens while listing or hashing: one that is a FIFO blocks it forever.
_GIT_READS = frozenset({".gitignore", ".gitattributes"})
_GLOB_CHARS = frozenset("*?[")
_INDEX_PATH = later(r"\t([^\0]*)")  # the path of each `ls-files -s -z` entry (mode, blob and stage come first)
_PACE = 4096  # paths judged between two looks at the caller's deadline


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


class Repository:
    """One checkout, seen read-only."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        skip_dirs: Iterable[str] = DEFAULT_SKIP_DIRS,
        exclude: Iterable[str] = (),
        max_file_size: int = DEFAULT_MAX_FILE_SIZE,
    ) -> None:
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise NotADirectoryError(f"{root}: not a directory")
        self.skip_dirs = frozenset(skip_dirs)
        self.exclude = Patterns(exclude)
        self.max_file_size = max_file_size
        self._text: dict[str, bool] = {}
        self._vetted: set[str] = set()
        # Vetted files edited since (`forget`): their folders stand as vetted (a folder that changes
        # lists the checkout again), the last component may have become a link: read without following one.
        self._edited: set[str] = set()
        # Listed files known to be regular files, not symlinks, as listed (git vouched for them, or the
        # listing's own lstat said so): a snapshot need not look at them again to find the links.
        self.plain: set[str] = set()
        self._root_str = str(self.root)
        self._prefetch: threading.Thread | None = None
        self._prefetched: dict[tuple[str, ...], str | None] = {}
        self._arrived = threading.Condition()  # told as each output of the prefetch comes in
        self._raw: dict[tuple[str, ...], str | None] = {}  # git's outputs of the listing commands, as the listing used them
        self._git_stopped = False
        self._memo = Memo()  # what records the reads of the computation running now (see `observe`)
        # Called between slices of a long pass over the listing: a Context makes it check its deadline.
        self.pace: Callable[[], None] = _unpaced
        # Told of directories (and of the files the index holds) before the listing looks into them: git's
        # index is read first, then what git says of the files; a walk hands each directory before scanning
        # it. A snapshot watches or signs them there, so no change after the listing began goes unseen.
        self.before_looking: Callable[[Iterable[str], Iterable[str]], None] | None = None
        self.listed_at: int | None = None  # time.time_ns() when the listing began (None: not listed yet)

    def observe(self, memo: Memo) -> None:
        """Note every path read, resolved or judged, and every listing and git command, in `memo`: what
        lets a long-lived Verifier keep what an edit did not touch (`anchorcheck.base.memo`)."""
        self._memo = memo

    def relist(self) -> None:
        """Forget the listing and git's word on the checkout (files were added or removed, git's index
        or HEAD moved): the next look lists it again. What was read of each file is kept."""
        self.join_prefetch()
        for name in ("_all_files", "_by_name", "_index_listing", "_gitlinks", "blob_ids", "staged_blob_ids", "_in_git", "_head", "_identity"):
            self.__dict__.pop(name, None)
        self.listed_at = None
        self._raw.clear()
        self._vetted.clear()
        self._edited.clear()
        self.plain.clear()

    # -- paths ---------------------------------------------------------------

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
        if real != self.root and self.root not in real.parents:
            raise UnsafePathError(path, "resolves outside the repository (symlink)")
        if real != target:  # through a symlink: the file read is the target's
            note(real.relative_to(self.root).as_posix())
        return real

    def exists(self, path: str) -> bool:
        """Whether a file or directory exists there; raises UnsafePathError for refused paths."""
        return _named(self.resolve(path, probe=True).exists)

    def is_file(self, path: str) -> bool:
        return _named(self.resolve(path, probe=True).is_file)

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

    @cached_property
    def _gitlinks(self) -> frozenset[str]:
        """The submodules git's index holds (mode 160000): folders whose files are another repository's."""
        staged = self._index_listing[0] if self.in_git else None
        return frozenset(path for path, (mode, _) in (staged or {}).items() if mode == GITLINK_MODE)

    def not_checked_out(self, path: str) -> str | None:
        """Why what is at this path may be in the repository but not on disk here: it is (or lies in) a
        submodule that is not checked out (`git clone` without `--recurse-submodules` leaves an empty
        folder), or git tracks it (or files below it) and a sparse checkout left it out, git's index
        marking it skip-worktree (which `git diff-files` does not report as deleted). None otherwise."""
        if not self.in_git:
            return None
        parts = [p for p in path.split("/") if p and p != "."]
        rel = "/".join(parts)
        for depth in range(1, len(parts) + 1):
            link = "/".join(parts[:depth])
            if link in self._gitlinks:
                try:
                    if self.exists(f"{link}/.git"):
                        return None
                except UnsafePathError:
                    return None
                return "a submodule that is not checked out here" if link == rel else f"in the submodule {link}/, which is not checked out here"
        staged, modified = self._index_listing
        # A stat first (the scan below goes over the whole index), not noted as a probe: the callers that
        # answer from it looked at the path themselves.
        try:
            if not staged or not rel or os.path.lexists(os.path.join(self._root_str, check_relative(rel))):
                return None
        except UnsafePathError:
            return None
        below = rel + "/"
        if rel in staged and rel not in modified or any(p.startswith(below) and p not in modified for p in staged):
            return "tracked by git but not checked out here (a sparse checkout)"
        return None

    def ignored_because(self, path: str) -> str | None:
        """Why a path that does not exist would be missing from any checkout anyway — under a skipped folder,
        excluded by the configuration, or matched by a `.gitignore` on its way down (or `.git/info/exclude`) —
        so its absence says nothing: a build output, a clone, a local file. None if nothing ignores it.
        Read from the files, not asked of git, so it works outside git and runs no program; what git's
        index holds but this checkout lacks is `not_checked_out`'s to say."""
        parts = [p for p in path.split("/") if p]
        skipped = [p for p in parts if p in self.skip_dirs]
        if skipped:
            return f"under {skipped[0]}/, which holds generated or vendored files"
        if self.exclude.match_file(path):
            return "excluded by the configuration"
        for depth in range(len(parts)):
            base = "/".join(parts[:depth])
            rest = "/".join(parts[depth:])
            name = f"{base}/.gitignore" if base else ".gitignore"
            sources = [(name, self._ignore_file(name))]
            if depth == 0 and self.root.joinpath(".git").is_dir():
                sources.append((".git/info/exclude", _ignore_lines(self.root, self.root / ".git" / "info" / "exclude")))
            for shown, lines in sources:
                spec = gitignore_file(lines) if lines else None
                # `dir/*` ignores what is in a folder, and so the folder itself: git lists nothing of it either
                if spec is not None and any(spec.match_file(name) for name in (rest, rest + "/", rest + "/" + _ANY_CHILD)):
                    return f"ignored by {shown}"
        return None

    def _ignore_file(self, path: str) -> list[str] | None:
        try:
            return _ignore_lines(self.root, self.resolve(path))  # resolved here so that the memo notes the read
        except UnsafePathError:
            return None

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

    # -- listing -------------------------------------------------------------

    def files(
        self, scope: str | None = None, where: Callable[[str], bool] | None = None, named: Iterable[str] | None = None
    ) -> list[str]:
        """Text files of the checkout, sorted, optionally limited to a scope, to paths `where` accepts
        and to file names in `named`.

        Honours .gitignore (through the git index when in git), skips vendored
        and generated trees, files over the size cap and binary files. A scope
        is a repo-relative file, a directory, or a gitignore-style glob. `named`
        is answered from an index and `where` is asked next, so a caller after
        a few names never pays for judging every other file's content.
        """
        listed = self.paths(scope, named)
        found: list[str] = []
        for start in range(0, len(listed), _PACE):  # a call under a deadline stops between slices
            self.pace()
            found.extend(p for p in listed[start : start + _PACE] if (where is None or where(p)) and self.is_text(p))
        return found

    def paths(self, scope: str | None = None, named: Iterable[str] | None = None) -> list[str]:
        """What `files` lists before the size cap and the binary check: for a caller that reads each
        file anyway and can judge it from those bytes (`looks_binary`, `FileTooLargeError`)."""
        self._memo.listed()
        listed = self._all_files if named is None else sorted(p for name in set(named) for p in self._by_name.get(name, ()))
        return listed if scope is None else self._in_scope(listed, scope)

    @cached_property
    def _by_name(self) -> dict[str, list[str]]:
        """The listing by file name: lookups of manifests, `__init__.py` and the like without a pass each."""
        index: dict[str, list[str]] = {}
        for path in self._all_files:
            index.setdefault(path.rsplit("/", 1)[-1], []).append(path)
        return index

    def _in_scope(self, listed: list[str], scope: str) -> list[str]:
        if _GLOB_CHARS & set(scope):
            spec = gitignore([scope.replace("\\", "/")])
            return [p for p in listed if spec.match_file(p)]
        rel = check_relative(scope)
        if rel == ".":
            return listed
        prefix = rel.rstrip("/") + "/"
        return [p for p in listed if p == rel or p.startswith(prefix)]

    @cached_property
    def _all_files(self) -> list[str]:
        self._began()
        trusted: set[str] = set()
        listed = None
        if self.in_git:
            trusted, listed = self._git_listing()
        walked = listed is None
        excluding = bool(self.exclude.patterns)
        if listed is None:
            listed = list(self._walk_files())
        keep = []
        skipped: dict[str, bool] = {}  # per folder: a listing names each one many times
        for rel in listed:
            folder = rel.rpartition("/")[0]
            skip = skipped.get(folder)
            if skip is None:
                skip = skipped[folder] = self._skipped(folder)
            if skip:
                continue
            if excluding and self.exclude.match_file(rel):
                continue
            if rel in trusted:
                self.plain.add(rel)
            elif not self._regular_file(rel, walked):
                continue
            keep.append(rel)
        self._vetted.update(keep)
        return sorted(keep)

    def _skipped(self, folder: str) -> bool:
        return any(part in self.skip_dirs for part in folder.split("/"))

    def _began(self) -> None:
        if self.listed_at is None:
            self.listed_at = time.time_ns()

    def _listing(self, run: Callable[[list[tuple[str, ...]]], Iterable[str | None]], commands: list[tuple[str, ...]]) -> list[str | None]:
        """Git's outputs for `commands` (the index read first): side by side, or, when `before_looking`
        must be told first, the index read alone, then what git says of the files it names."""
        self._began()
        if self.before_looking is None:
            return list(run(commands))
        staged = list(run(commands[:1]))
        self.before_looking(*self._to_watch(staged[0]))
        return staged + list(run(commands[1:]))

    def _to_watch(self, staged_out: str | None) -> tuple[set[str], Iterable[str]]:
        """The directories of the files git's index names, but skipped and excluded ones, and those files
        (a generator: only signatures need them). Quick, since git waits on it: paths found by one regex
        (the index itself is parsed later), skipped directories looked for by name first."""
        paths = _INDEX_PATH.findall(staged_out or "")
        if self.exclude.patterns:
            paths = [path for path in paths if not self.exclude.match_file(path)]
        directories = directories_of(paths)
        if any(d.rpartition("/")[2] in self.skip_dirs for d in directories):
            directories = {d for d in directories if not self.skip_dirs.intersection(d.split("/"))}
        return directories, (path for path in paths if path.rpartition("/")[0] in directories)

    def _regular_file(self, rel: str, walked: bool) -> bool:
        """A regular file, or a symlink to one inside the root (checked, so reads may skip resolving).

        A walk never enters a symlinked directory, so only the last component
        can be a link; a path from git may sit under a directory that was
        swapped for a link since it was tracked, so it is resolved whole.
        """
        try:
            info = os.lstat(os.path.join(self._root_str, rel))
            if stat.S_ISREG(info.st_mode):
                self.plain.add(rel)
            if not walked or stat.S_ISLNK(info.st_mode):
                info = os.stat(self.resolve(rel))
        except (OSError, UnsafePathError):
            return False
        return stat.S_ISREG(info.st_mode)

    def _git_listing(self) -> tuple[set[str], list[str] | None]:
        """Tracked and untracked paths, and which of them git already vouches are regular files.

        A tracked regular file (mode 100644/100755) that `git diff-files` does not
        report is what the index says it is: git compared its stat data, and a
        type change, a deletion or a symlinked parent would be reported. Only
        the rest is stat-ed here, which spares a syscall per file on large trees.
        """
        if "_index_listing" in vars(self):  # blob ids were asked first: only the untracked files are left
            (untracked_out,) = self._git_parallel(_LS_UNTRACKED)
        else:  # all three side by side, the index read kept for blob ids
            staged_out, modified_out, untracked_out = self._listing(self._in_parallel, list(_LISTING))
            self.__dict__["_index_listing"] = index_entries(staged_out, modified_out)
        staged, modified = self._index_listing
        untracked = None if untracked_out is None else [p for p in untracked_out.split("\0") if p]
        if staged is None or untracked is None:
            return set(), None
        trusted = {path for path, (mode, _) in staged.items() if mode in REGULAR_MODES and path not in modified}
        return trusted, sorted({*staged, *untracked})

    @cached_property
    def _index_listing(self) -> tuple[dict[str, tuple[str, str]] | None, set[str]]:
        """One read of the git index (mode and blob per stage-0 path) and the paths git reports modified.

        Blob ids need only these; the untracked files, whose listing walks the
        whole tree, are asked for by the listing alone (`_git_listing`).
        """
        return index_entries(*self._listing(self._in_parallel, [_LS_STAGED, _LS_MODIFIED]))

    def _walk_files(self) -> Iterable[str]:
        """Walk the tree without git, applying every .gitignore on the way down."""
        specs: list[tuple[str, GitIgnoreSpec]] = []
        if self.before_looking is not None:
            self.before_looking([""], ())
        for dirpath, dirnames, filenames in os.walk(self.root):
            rel_dir = os.path.relpath(dirpath, self.root).replace(os.sep, "/")
            rel_dir = "" if rel_dir == "." else rel_dir + "/"
            specs = [(base, spec) for base, spec in specs if rel_dir.startswith(base)]
            lines = _ignore_lines(self.root, os.path.join(dirpath, ".gitignore")) if ".gitignore" in filenames else None
            if lines is not None:
                specs.append((rel_dir, gitignore_file(lines)))
            dirnames[:] = sorted(
                d
                for d in dirnames
                if d not in self.skip_dirs and not _ignored(specs, rel_dir + d + "/")
            )
            if self.before_looking is not None and dirnames:  # os.walk scans them after this step
                self.before_looking([rel_dir + d for d in dirnames], ())
            for name in sorted(filenames):
                rel = rel_dir + name
                if name != ".git" and not _ignored(specs, rel):  # a worktree's `.git` file is git's, not the project's
                    yield rel

    def unlisted_directories(self, listed: set[str]) -> set[str]:
        """The directories below `listed` ones that hold no listed file (empty, or holding only ignored
        or unlisted files) and where a new file would be listed: not skipped, excluded or ignored. A
        snapshot watches them too: a file created in one later changes the listing."""
        found: set[str] = set()
        children: dict[str, int] = {}  # listed directories by parent: how many subdirectories are known
        for directory in listed:
            if directory:
                parent = directory.rpartition("/")[0]
                children[parent] = children.get(parent, 0) + 1
        todo = list(listed)
        while todo:
            directory = todo.pop()
            full = os.path.join(self._root_str, directory) if directory else self._root_str
            try:
                # A directory's link count is 2 + its subdirectories where the file system keeps it so
                # (ext4, xfs, tmpfs): a stat, not a scan of its entries, says none is unlisted.
                if os.stat(full).st_nlink == 2 + children.get(directory, 0):
                    continue
                with os.scandir(full) as entries:
                    names = [entry.name for entry in entries if entry.is_dir(follow_symlinks=False)]
            except OSError:
                continue
            for name in names:
                rel = f"{directory}/{name}" if directory else name
                if rel in listed or rel in found or name in self.skip_dirs or name == ".git" or self.ignored_because(rel):
                    continue
                found.add(rel)
                todo.append(rel)
        return found

    # -- git -------------------------------------------------------------------

    def git(self, command: str, *options: str, operands: Iterable[str] = (), paths: Iterable[str] | None = None) -> str | None:
        """Run read-only git plumbing in the root; None when git is missing, fails or is not used here.

        Values never go among the options: `operands` (revisions, object ids,
        config keys) follow `--end-of-options` and `paths` follow `--`, so a
        value that starts with a dash, such as a committed lock whose head is
        `--output=/some/file`, cannot become an option of git.
        """
        self._memo.git()
        return self._git(command, *options, operands=operands, paths=paths)

    def _git(self, command: str, *options: str, operands: Iterable[str] = (), paths: Iterable[str] | None = None) -> str | None:
        for option in options:
            if not option.startswith("-"):
                raise ValueError(f"git {command}: {option!r} is not an option; pass it as an operand or path")
        operands = tuple(operands)
        args = (command, *options, "--end-of-options", *operands) if operands else (command, *options)
        if paths is not None:
            args = (*args, "--", *paths)
        return self._git_parallel(args)[0]

    def prefetch_listing(self) -> None:
        """Start git's listing of the checkout in the background: nearly every run needs it, and on a
        large tree git takes as long as importing the plugins, which can happen meanwhile."""
        if self._prefetch is None and self._below_dotgit():
            self._prefetch = threading.Thread(target=self._fetch_listing, name="anchorcheck-git-listing", daemon=True)
            self._prefetch.start()

    def __getstate__(self) -> dict[str, object]:
        """A thread cannot be pickled: a copy takes the prefetch's results, or lists again. Nor does a
        copy record into this one's memo, keep its caller's deadline or tell its snapshot's watches (they
        hold closures)."""
        self.join_prefetch()
        return {**self.__dict__, "_memo": Memo(), "pace": _unpaced, "before_looking": None, "_arrived": None}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self._arrived = threading.Condition()

    def join_prefetch(self) -> None:
        """Wait for a prefetch still running: before its results are used, and before a fork (a child
        must not inherit a thread in the middle of a subprocess call)."""
        if self._prefetch is not None:
            self._prefetch.join()
            self._prefetch = None

    def _fetch_listing(self) -> None:
        def arrived(command: tuple[str, ...], out: str | None) -> None:
            with self._arrived:
                self._prefetched[command] = out
                self._arrived.notify_all()

        try:
            outputs = self._listing(lambda commands: self._run_git(commands, arrived), list(_LISTING))
            with self._arrived:  # the last word: None for every command when git had to be stopped
                self._prefetched.update(zip(_LISTING, outputs))
        finally:
            with self._arrived:
                self._arrived.notify_all()

    def early_output(self, which: int) -> str | None:
        """One output of the listing the prefetch is running (in `listing_outputs` order), as soon as git
        gave it, without waiting for the others: the index's listing comes long before the untracked
        files'. None when it failed, or no prefetch was started."""
        command = _LISTING[which]
        with self._arrived:
            while command not in self._prefetched and self._prefetch is not None and self._prefetch.is_alive():
                self._arrived.wait(0.1)
            return self._prefetched.get(command)

    def _git_parallel(self, *commands: tuple[str, ...]) -> list[str | None]:
        """Run several read-only git commands at once (each waits on its own I/O); None for each that fails.
        A command the prefetch ran is answered from it, once."""
        self._memo.listed()  # git's answers move with its index and HEAD
        if any(c in _LISTING for c in commands):
            self.join_prefetch()
        results = {command: self._prefetched.pop(command) for command in commands if command in self._prefetched}
        ran = self._run_git([command for command in commands if command not in results])
        outputs = [results[command] if command in results else next(ran) for command in commands]
        self._raw.update((command, out) for command, out in zip(commands, outputs) if command in _LISTING)
        return outputs

    def listing_outputs(self) -> list[str | None]:
        """Git's own outputs of the three listing commands (the index with modes and blobs, the tracked
        files that differ from it, the untracked ones; NUL-separated), as the listing used them, or listed
        now without parsing them: what `treestate.listing_key` names a checkout by."""
        missing = [command for command in _LISTING if command not in self._raw]
        if missing:
            self._git_parallel(*missing)
        return [self._raw[command] for command in _LISTING]

    def keeps(self, rel: str) -> bool:
        """Whether the listing keeps a path git does not vouch for (untracked, modified or no regular file
        in the index): not under a skipped folder, not excluded, a regular file (or a link to one inside)."""
        if self._skipped(rel.rpartition("/")[0]) or (self.exclude.patterns and self.exclude.match_file(rel)):
            return False
        return self._regular_file(rel, walked=False)

    def adopt_listing(self, other: Repository) -> bool:
        """Take the listing another Repository of this root ran (or is running) a moment ago in this
        process (a replay that found no stored report, `anchorcheck.serve.replay`) instead of asking git again.
        Only before this one listed or started to, and never where a snapshot must watch the listing
        (`before_looking`). False when it was not taken."""
        if other.root != self.root or self.before_looking is not None or self._prefetch is not None or self._raw:
            return False
        if "_index_listing" in vars(self) or "_all_files" in vars(self):
            return False
        other.join_prefetch()
        outputs = {**other._prefetched, **other._raw}
        if len(outputs) != len(_LISTING) or None in outputs.values():
            return False
        self._prefetched.update(outputs)
        self.listed_at = other.listed_at
        for name in ("_driver_overrides", "_in_git", "_located"):
            if name in vars(other):
                self.__dict__[name] = vars(other)[name]
        return True

    def _in_parallel(self, commands: list[tuple[str, ...]]) -> list[str | None]:
        return self._git_parallel(*commands)

    def _run_git(
        self, commands: Iterable[tuple[str, ...]], arrived: Callable[[tuple[str, ...], str | None], None] | None = None
    ) -> Iterator[str | None]:
        """Every git run of anchorcheck goes through here, hardened by `gitcmd` (nothing can execute).
        `arrived(command, output)` hears of each output as soon as git gave it.

        Once a run had to be stopped (a timeout, a FIFO git would wait on),
        git is not asked again for this checkout: the listing walks the tree.
        """
        commands = list(commands)
        overrides = self._driver_overrides if self._below_dotgit() and not self._git_stopped else None
        view = self._view() if overrides is not None else None
        if overrides is None or view is None:
            return iter([None] * len(commands))
        try:
            each = None if arrived is None else lambda at, out: arrived(commands[at], out)
            return iter(gitcmd.run(self.root, commands, overrides, view=view, stalled=self._blocking_file, each=each))
        except gitcmd.GitStopped:
            self._git_stopped = True
            return iter([None] * len(commands))

    def _view(self) -> dict[str, str] | None:
        """The variables pointing git at this checkout's private git directory (`anchorcheck.repo.gitview`):
        git reads none of the repository's own configuration files. None when none can be made."""
        found = self._located
        view = gitview.view_of(found) if isinstance(found, gitdir.GitDir) else None
        return None if view is None else view.environment()

    @cached_property
    def _driver_overrides(self) -> tuple[str, ...] | None:
        """The `-c` arguments that disarm the filter drivers the user's own configuration defines (a
        repository's configuration is never read); None when git must not run here."""
        view = self._view()
        if view is None:
            return None
        try:
            names = gitcmd.run(self.root, [_LS_CONFIG], view=view, stalled=self._blocking_file)[0]
        except gitcmd.GitStopped:
            return None
        return None if names is None else gitcmd.driver_overrides(names)

    def _blocking_file(self) -> str | None:
        """A `.gitignore` or `.gitattributes` that is no regular file (a FIFO): git would wait on it forever."""
        for dirpath, dirnames, filenames in os.walk(self.root):
            dirnames[:] = [d for d in dirnames if d != ".git"]
            for name in _GIT_READS.intersection(filenames):
                try:
                    mode = os.lstat(os.path.join(dirpath, name)).st_mode
                except OSError:
                    continue
                if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):  # git does not follow these links
                    return os.path.join(dirpath, name)
        return None

    def _below_dotgit(self) -> bool:
        """Whether a `.git` git may use is at the root or above it: without one, no git command is worth running."""
        return isinstance(self._located, gitdir.GitDir)

    @cached_property
    def _located(self) -> gitdir.GitDir | str | None:
        """The checkout's vetted git directory (`anchorcheck.repo.gitdir`), a refusal, or None without `.git`."""
        return gitdir.locate(self.root)

    @property
    def in_git(self) -> bool:
        """Whether the root is inside a git work tree and git is installed."""
        self._memo.listed()
        return self._in_git

    @cached_property
    def _in_git(self) -> bool:
        if not self._below_dotgit():
            return False
        return (self._git("rev-parse", "--is-inside-work-tree") or "").strip() == "true"

    @property
    def identity(self) -> str:
        """`git:<root commit>` (stable across clones and moves), else `path:<canonical root>`."""
        self._memo.git()
        return self._identity

    @cached_property
    def _identity(self) -> str:
        if self.in_git:
            roots = (self._git("rev-list", "--max-parents=0", operands=["HEAD"]) or "").split()
            if roots:
                return f"git:{sorted(roots)[0]}"
        return f"path:{self.root}"

    @property
    def shallow(self) -> bool:
        """Whether this is a shallow clone (`git clone --depth`): git takes its oldest commits for roots,
        so its `identity` is not the repository's."""
        self._memo.git()
        return self.in_git and (self._git("rev-parse", "--is-shallow-repository") or "").strip() == "true"

    @property
    def head(self) -> str | None:
        """The commit checked out (None outside git)."""
        self._memo.git()
        return self._head

    @cached_property
    def _head(self) -> str | None:
        if not self.in_git:
            return None
        out = (self._git("rev-parse", "--verify", "-q", operands=["HEAD"]) or "").strip()
        return out if is_object_id(out) else None

    @property
    def origin(self) -> str | None:
        """The origin remote URL with credentials stripped, when there is one."""
        self._memo.git()
        return self._origin

    @cached_property
    def _origin(self) -> str | None:
        if not self.in_git:
            return None
        found = self._located
        view = gitview.view_of(found) if isinstance(found, gitdir.GitDir) else None
        out = (view.settings.origin_url or "").strip() if view is not None else ""
        return strip_credentials(out) if out else None

    @cached_property
    def blob_ids(self) -> dict[str, str]:
        """Git blob ids of tracked files whose working copy matches the index: free content hashes."""
        staged = self.staged_blob_ids
        if not staged:
            return {}
        modified = self._index_listing[1]
        return {path: blob for path, blob in staged.items() if path not in modified}

    @cached_property
    def staged_blob_ids(self) -> dict[str, str]:
        """Git blob ids of every tracked file as staged, modified or not: together they name a tree state."""
        if not self.in_git:
            return {}
        return {path: blob for path, (_, blob) in (self._index_listing[0] or {}).items()}

    def forget(self, paths: Iterable[str]) -> None:
        """Files whose bytes may have changed since git listed them: git's index no longer vouches for
        them (no blob id, not trusted as regular files), and their type and location are judged anew.
        What a long-lived Verifier calls instead of listing the whole checkout again."""
        changed = set(paths)
        if "_index_listing" in vars(self):
            self._index_listing[1].update(changed)
        if "blob_ids" in vars(self):
            for path in changed:
                self.blob_ids.pop(path, None)
        if NOFOLLOW:
            self._edited |= changed & self._vetted
        self._vetted.difference_update(changed)
        self.plain.difference_update(changed)
        for path in changed:
            self._text.pop(path, None)

    def relative(self, path: str | os.PathLike[str]) -> str:
        """A path (absolute or relative to the current directory) as a repo-relative POSIX path."""
        full = Path(path).resolve()
        return PurePosixPath(full.relative_to(self.root)).as_posix()


def index_entries(staged_out: str | None, modified_out: str | None) -> tuple[dict[str, tuple[str, str]] | None, set[str]]:
    """`git ls-files -s -z` as path -> (mode, blob) for stage 0, and the paths of `git diff-files --name-only -z`
    with every symlink git tracks: its blob is the link's text, not the bytes a read through it gets, so
    it never names them (a write to the file it points to leaves the link's blob as it was)."""
    staged: dict[str, tuple[str, str]] | None = None
    modified = set((modified_out or "").split("\0")) - {""}
    if staged_out is not None:
        staged = {}
        for entry in staged_out.split("\0"):
            meta, _, path = entry.partition("\t")
            fields = meta.split()
            if path and len(fields) == 3 and fields[2] == "0":
                staged[path] = (fields[0], fields[1])
                if fields[0] not in REGULAR_MODES:
                    modified.add(path)
    return staged, modified


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


def _unpaced() -> None:
    """No deadline: a pass over the listing goes on to its end."""


_ANY_CHILD = "anchorcheck-any-child"  # a name no pattern names: matched only by what ignores a folder's every entry


def _ignore_lines(root: Path, path: str | os.PathLike[str]) -> list[str] | None:
    """An ignore file's lines (a `.gitignore`, `.git/info/exclude`), confined to the checkout, regular and capped
    like its config; None when there is none or it cannot be read."""
    try:
        return read_in_root(root, path, IGNORE_CAP).decode("utf-8", errors="replace").splitlines()
    except OSError:
        return None


def looks_binary(data: bytes) -> bool:
    """Git's own heuristic: a NUL byte in the first 8000 bytes means binary."""
    return b"\x00" in data[:_BINARY_PEEK]


def _ignored(specs: list[tuple[str, GitIgnoreSpec]], rel: str) -> bool:
    return any(spec.match_file(rel[len(base):]) for base, spec in specs)

