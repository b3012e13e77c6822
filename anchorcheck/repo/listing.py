"""Listing a checkout: the text files a search may look at, from git's index or a walk.

Git's index and `git ls-files` are trusted where git vouches for a file (a
tracked regular file it does not report modified); the rest is stat-ed, and
symlinks are resolved and confined. Without git the tree is walked, every
`.gitignore` applied on the way down. Vendored and generated folders, excluded
paths, binary files and files over the size cap are left out. `Listing` is
the part of `Repository` that does this.
"""

from __future__ import annotations

import bisect
import os
import stat
from collections.abc import Callable, Iterable
from functools import cached_property
from pathlib import Path

from anchorcheck.base.globs import Patterns, gitignore, gitignore_file
from anchorcheck.repo.gitrunner import LISTING, LS_MODIFIED, LS_STAGED, LS_UNTRACKED
from anchorcheck.repo.paths import UnsafePathError, check_relative, ignore_lines

TYPE_CHECKING = False  # not `typing`'s: importing it costs a replayed `check` 4-7 ms (anchorcheck.serve.replay)
if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

REGULAR_MODES = frozenset({"100644", "100755"})
_GLOB_CHARS = frozenset("*?[")
_GIT_FILES = frozenset({".git", ".gitignore", ".gitattributes", ".gitmodules", ".mailmap"})  # a new or gone one: git's view moves
_PACE = 4096  # paths judged between two looks at the caller's deadline


class Listing:
    """The part of `Repository` that lists the checkout's files, by scope and by name."""

    root: Path
    skip_dirs: frozenset[str]
    exclude: Patterns
    plain: set[str]
    pace: Callable[[], None]
    before_looking: Callable[[Iterable[str], Iterable[str]], None] | None
    _root_str: str
    _vetted: set[str]
    _accepting: dict[tuple[str | None, frozenset[str] | None], Callable[[str], bool]]

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
        named = None if named is None else frozenset(named)
        self._memo.listed_where(self._accepts(scope, named, where))
        listed = self._listed(scope, named)
        found: list[str] = []
        for start in range(0, len(listed), _PACE):  # a call under a deadline stops between slices
            self.pace()
            found.extend(p for p in listed[start : start + _PACE] if (where is None or where(p)) and self.is_text(p))
        return found

    def paths(self, scope: str | None = None, named: Iterable[str] | None = None) -> list[str]:
        """What `files` lists before the size cap and the binary check: for a caller that reads each
        file anyway and can judge it from those bytes (`looks_binary`, `FileTooLargeError`)."""
        named = None if named is None else frozenset(named)
        self._memo.listed_where(self._accepts(scope, named, None))
        return self._listed(scope, named)

    def holds(self, scope: str | None) -> Callable[[str], bool]:
        """Whether `paths(scope)` would hold a listed path: one test per scope, the one `paths` notes, so
        that an entry noting it again holds it once (`Memo.listed_where`)."""
        return self._accepts(scope, None, None)

    def _listed(self, scope: str | None, named: frozenset[str] | None) -> list[str]:
        listed = self._all_files if named is None else sorted(p for name in named for p in self._by_name.get(name, ()))
        return listed if scope is None else self._in_scope(listed, scope)

    def _accepts(self, scope: str | None, named: frozenset[str] | None, where: Callable[[str], bool] | None) -> Callable[[str], bool]:
        """Whether a file coming or going changes what `files(scope, where, named)` lists (`Memo.listed_where`);
        one test per scope and names (without `where`), however often they are listed."""
        kept = self._accepting.get((scope, named)) if where is None else None
        if kept is not None:
            return kept

        def accepts(path: str) -> bool:
            return (
                (named is None or path.rsplit("/", 1)[-1] in named)
                and (scope is None or self.in_scope(path, scope))
                and (where is None or where(path))
            )

        if where is None:
            self._accepting[scope, named] = accepts
        return accepts

    @cached_property
    def _by_name(self) -> dict[str, list[str]]:
        """The listing by file name: lookups of manifests, `__init__.py` and the like without a pass each."""
        index: dict[str, list[str]] = {}
        for path in self._all_files:
            index.setdefault(path.rsplit("/", 1)[-1], []).append(path)
        return index

    def in_scope(self, path: str, scope: str) -> bool:
        """Whether `paths(scope)` would hold this listed path."""
        return bool(self._in_scope([path], scope))

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
            (untracked_out,) = self._git_parallel(LS_UNTRACKED)
        else:  # all three side by side, the index read kept for blob ids
            staged_out, modified_out, untracked_out = self._listing(self._in_parallel, list(LISTING))
            self.__dict__["_index_listing"] = self._unvouched_marked(index_entries(staged_out, modified_out))
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
        return self._unvouched_marked(index_entries(*self._listing(self._in_parallel, [LS_STAGED, LS_MODIFIED])))

    def _unvouched_marked(self, entries: tuple[dict[str, tuple[str, str]] | None, set[str]]) -> tuple[dict[str, tuple[str, str]] | None, set[str]]:
        """The index's entries, with those marked skip-worktree among the paths git does not vouch for: it
        never compares them with the disk, so a sparse checkout's left-out files are judged by a stat, and
        `git sparse-checkout disable` changes the listing (and the tree state named from it)."""
        entries[1].update(self.skip_worktree or ())
        return entries

    def _walk_files(self) -> Iterable[str]:
        """Walk the tree without git, applying every .gitignore on the way down."""
        specs: list[tuple[str, GitIgnoreSpec]] = []
        if self.before_looking is not None:
            self.before_looking([""], ())
        for dirpath, dirnames, filenames in os.walk(self.root):
            rel_dir = os.path.relpath(dirpath, self.root).replace(os.sep, "/")
            rel_dir = "" if rel_dir == "." else rel_dir + "/"
            specs = [(base, spec) for base, spec in specs if rel_dir.startswith(base)]
            lines = ignore_lines(self.root, os.path.join(dirpath, ".gitignore")) if ".gitignore" in filenames else None
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

    def patch(self, paths: set[str]) -> tuple[set[str], set[str]] | None:
        """Take in paths that may have come or gone (a watch saw entries of listed folders created,
        deleted or renamed) without listing the checkout again: which of them the listing now holds
        that it did not, and which it no longer holds. Judged as `_all_files` judges them: a file the
        index tracks is kept while it is a regular file, an untracked one while git does not ignore it
        (one `git ls-files --others` for those). None where only a new listing can say (outside git,
        not listed yet, a link or a folder among them, git failing): the caller lists again."""
        if "_all_files" not in vars(self) or "_index_listing" not in vars(self) or not self.in_git:
            return None
        staged = self._index_listing[0]
        if staged is None or any(rel.rsplit("/", 1)[-1] in _GIT_FILES for rel in paths):
            return None
        kept, untracked = set(), []
        for rel in paths:
            try:
                mode = os.lstat(os.path.join(self._root_str, rel)).st_mode
            except OSError:
                continue  # gone: not kept
            if not stat.S_ISREG(mode):
                return None  # a link (resolved and confined by the listing) or a folder: listed anew
            if self._skipped(rel.rpartition("/")[0]) or (self.exclude.patterns and self.exclude.match_file(rel)):
                continue
            if rel in staged:
                kept.add(rel)
            else:
                untracked.append(rel)
        if untracked:
            out = self._git(*LS_UNTRACKED, paths=[f":(literal){rel}" for rel in untracked])
            if out is None:
                return None
            kept |= set(out.split("\0")) & set(untracked)  # a nested repository shows as its folder: not kept
        listed = self._all_files
        added = {rel for rel in kept if not _holds(listed, rel)}
        removed = {rel for rel in paths - kept if _holds(listed, rel)}
        for rel in sorted(added):
            bisect.insort(listed, rel)
            if "_by_name" in vars(self):
                bisect.insort(self._by_name.setdefault(rel.rsplit("/", 1)[-1], []), rel)
        for rel in removed:
            del listed[bisect.bisect_left(listed, rel)]
            if "_by_name" in vars(self):
                self._by_name[rel.rsplit("/", 1)[-1]].remove(rel)
        self._vetted |= added
        self.plain |= added
        self._vetted -= removed
        self.plain -= removed
        self._raw.clear()  # git's outputs no longer name this listing: asked again if wanted
        return added, removed

    def keeps(self, rel: str) -> bool:
        """Whether the listing keeps a path git does not vouch for (untracked, modified or no regular file
        in the index): not under a skipped folder, not excluded, a regular file (or a link to one inside)."""
        if self._skipped(rel.rpartition("/")[0]) or (self.exclude.patterns and self.exclude.match_file(rel)):
            return False
        return self._regular_file(rel, walked=False)


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


def _holds(listed: list[str], rel: str) -> bool:
    """Whether a sorted listing holds this path."""
    at = bisect.bisect_left(listed, rel)
    return at < len(listed) and listed[at] == rel


def _ignored(specs: list[tuple[str, GitIgnoreSpec]], rel: str) -> bool:
    return any(spec.match_file(rel[len(base):]) for base, spec in specs)

