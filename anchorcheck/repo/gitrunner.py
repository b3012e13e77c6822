"""Running git for a Repository: every git command anchorcheck runs, and the listing's prefetch.

Git runs hardened (`gitcmd`: nothing it can be told to execute) against a
private view of the checkout's git directory (`gitview`: none of the
repository's own configuration is read). The three listing commands nearly
every run needs are started in the background (`prefetch_listing`) and their
outputs handed over as they arrive. `GitRunner` is the part of `Repository`
that does this.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from functools import cached_property
from pathlib import Path

from anchorcheck.base.globs import Patterns
from anchorcheck.base.lazyregex import later
from anchorcheck.base.memo import Memo
from anchorcheck.repo import gitcmd, gitdir, gitview
from anchorcheck.repo.paths import directories_of
from anchorcheck.repo.safe_read import open_regular

TYPE_CHECKING = False  # not `typing`'s: importing it costs a replayed `check` 4-7 ms (anchorcheck.serve.replay)
if TYPE_CHECKING:
    from anchorcheck.repo.checkout import Repository

LS_STAGED = ("ls-files", "-s", "-z")
LS_MODIFIED = ("diff-files", "--name-only", "-z")
LS_UNTRACKED = ("ls-files", "-z", "--others", "--exclude-standard")
LISTING = (LS_STAGED, LS_MODIFIED, LS_UNTRACKED)
LS_TAGGED = ("ls-files", "-z", "-t")  # each path after a tag: `S ` for an entry marked skip-worktree
# Commands that read git's own state (objects, refs, HEAD, configuration) and never the work tree's files:
# a file that comes or goes leaves their answers as they were (`Memo.git_state`).
_TREE_BLIND = frozenset({"log", "rev-list", "rev-parse", "cat-file", "ls-tree", "diff-tree", "show", "merge-base", "for-each-ref", "show-ref", "name-rev", "describe", "config"})
_LS_CONFIG = ("config", "--null", "--name-only", "--list")

# Files git opens while listing or hashing: one that is a FIFO blocks it forever.
_GIT_READS = frozenset({".gitignore", ".gitattributes"})
_INDEX_PATH = later(r"\t([^\0]*)")  # the path of each `ls-files -s -z` entry (mode, blob and stage come first)


class GitRunner:
    """The part of `Repository` that runs git: plumbing on demand, the listing in the background."""

    root: Path
    skip_dirs: frozenset[str]
    exclude: Patterns
    listed_at: int | None
    before_looking: Callable[[Iterable[str], Iterable[str]], None] | None
    _memo: Memo
    _prefetch: threading.Thread | None
    _prefetched: dict[tuple[str, ...], str | None]
    _arrived: threading.Condition
    _raw: dict[tuple[str, ...], str | None]
    _git_stopped: bool

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
        return self._git_parallel(_arguments(command, options, operands, paths))[0]

    def keyed_by_head(self) -> AbstractContextManager[None]:
        """git run in this block answers from the commit checked out alone (`Memo.keyed_by_head`)."""
        return self._memo.keyed_by_head()

    def note_head(self, state: str) -> None:
        """Name the commit the git answers of the running computation were read at (`Memo.head`)."""
        self._memo.head(state)

    def git_stream(
        self, command: str, *options: str, operands: Iterable[str] = (), paths: Iterable[str] | None = None, seconds: float
    ) -> gitcmd.Stream | None:
        """Run read-only git plumbing as `git` does, its output read as it comes (`gitcmd.Stream`: a walk of
        history stopped once it has its answers), stopped after `seconds`; None when git is not used here."""
        self._memo.git()
        args = _arguments(command, options, operands, paths)
        hardened = self._hardened()
        return None if hardened is None else gitcmd.Stream(self.root, args, hardened[0], view=hardened[1], seconds=seconds)

    def prefetch_listing(self) -> None:
        """Start git's listing of the checkout in the background: nearly every run needs it, and on a
        large tree git takes as long as importing the plugins, which can happen meanwhile."""
        if self._prefetch is None and self._below_dotgit():
            self._prefetch = threading.Thread(target=self._fetch_listing, name="anchorcheck-git-listing", daemon=True)
            self._prefetch.start()

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
            outputs = self._listing(lambda commands: self._run_git(commands, arrived), list(LISTING))
            with self._arrived:  # the last word: None for every command when git had to be stopped
                self._prefetched.update(zip(LISTING, outputs))
        finally:
            with self._arrived:
                self._arrived.notify_all()

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

    def early_output(self, which: int) -> str | None:
        """One output of the listing the prefetch is running (in `listing_outputs` order), as soon as git
        gave it, without waiting for the others: the index's listing comes long before the untracked
        files'. None when it failed, or no prefetch was started."""
        command = LISTING[which]
        with self._arrived:
            while command not in self._prefetched and self._prefetch is not None and self._prefetch.is_alive():
                self._arrived.wait(0.1)
            return self._prefetched.get(command)

    def _git_parallel(self, *commands: tuple[str, ...]) -> list[str | None]:
        """Run several read-only git commands at once (each waits on its own I/O); None for each that fails.
        A command the prefetch ran is answered from it, once."""
        if all(command[0] in _TREE_BLIND or (command[0] == "diff-index" and "--cached" in command) for command in commands):
            self._memo.git_state()  # their answers move with git's own state alone
        else:
            self._memo.listed()  # git's answers move with its index, HEAD and the work tree's files
        if any(c in LISTING for c in commands):
            self.join_prefetch()
        results = {command: self._prefetched.pop(command) for command in commands if command in self._prefetched}
        ran = self._run_git([command for command in commands if command not in results])
        outputs = [results[command] if command in results else next(ran) for command in commands]
        self._raw.update((command, out) for command, out in zip(commands, outputs) if command in LISTING)
        return outputs

    @cached_property
    def skip_worktree(self) -> frozenset[str] | None:
        """The index's entries marked skip-worktree (a sparse checkout left them out, or `git update-index
        --skip-worktree` did): git compares none of them with the disk, so it vouches for none, and which
        they are decides what is checked out. None when git could not say. Only an index of version 3 or
        more can mark one: the common version 2 is told by its first bytes, and no git runs."""
        found = self._located
        if not isinstance(found, gitdir.GitDir) or index_version(found.own("index")) < 3:
            return frozenset()
        out = self._git_parallel(LS_TAGGED)[0]
        return None if out is None else frozenset(entry[2:] for entry in out.split("\0") if entry.startswith("S "))

    def listing_outputs(self) -> list[str | None]:
        """Git's own outputs of the three listing commands (the index with modes and blobs, the tracked
        files that differ from it, the untracked ones; NUL-separated), as the listing used them, or listed
        now without parsing them: what `treestate.listing_key` names a checkout by."""
        missing = [command for command in LISTING if command not in self._raw]
        if missing:
            self._git_parallel(*missing)
        return [self._raw[command] for command in LISTING]

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
        if len(outputs) != len(LISTING) or None in outputs.values():
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
        hardened = self._hardened()
        if hardened is None:
            return iter([None] * len(commands))
        try:
            each = None if arrived is None else lambda at, out: arrived(commands[at], out)
            return iter(gitcmd.run(self.root, commands, hardened[0], view=hardened[1], stalled=self._blocking_file, each=each))
        except gitcmd.GitStopped:
            self._git_stopped = True
            return iter([None] * len(commands))

    def _hardened(self) -> tuple[tuple[str, ...], dict[str, str]] | None:
        """The filter drivers' overrides and the private git directory's variables a git run here needs; None
        when git must not run (no `.git`, a refusal, a run that had to be stopped)."""
        overrides = self._driver_overrides if self._below_dotgit() and not self._git_stopped else None
        view = self._view() if overrides is not None else None
        return None if overrides is None or view is None else (overrides, view)

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

    def relocate(self) -> None:
        """Look for the checkout's git directory again (the listing is being redone): a `git init`, a
        `.git` deleted or pointed elsewhere under a long-lived Verifier makes the checkout one in git, or
        out of it, as a new Verifier would find it. The filter drivers are asked again only then."""
        if "_located" in vars(self) and gitdir.locate(self.root) != self._located:
            for name in ("_located", "_driver_overrides"):
                self.__dict__.pop(name, None)


def index_version(path: Path) -> int:
    """The version in a git index's header (2, 3 or 4); 0 when there is none or it cannot be read."""
    try:
        with open_regular(path) as index:
            head = index.read(8)
    except OSError:
        return 0
    return int.from_bytes(head[4:8], "big") if head[:4] == b"DIRC" else 0


def _arguments(command: str, options: Iterable[str], operands: Iterable[str], paths: Iterable[str] | None) -> tuple[str, ...]:
    """A git command line whose values cannot become options: operands after `--end-of-options`, paths after `--`."""
    for option in options:
        if not option.startswith("-"):
            raise ValueError(f"git {command}: {option!r} is not an option; pass it as an operand or path")
    operands = tuple(operands)
    args = (command, *options, "--end-of-options", *operands) if operands else (command, *options)
    return (*args, "--", *paths) if paths is not None else args
