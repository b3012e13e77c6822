"""What git history says about a path that is missing now: where and when it went, or that it never was.

A missing path is "stale" only if it was true once. Wording ("generated",
"build output") and guesses from the first folder cannot tell a deleted source
file from an example or another project's path; the history of the repository
can. For the missing paths of a run, ONE `git log` walk answers:

- it was deleted, or renamed (a chain a -> b -> c followed to where it is
  now), by which commit (short id, date, subject) -> a stale reference;
- it never appeared in the commits walked -> not stale: an example, a path of
  another project, a hallucination;
- it was deleted more than once (so made again in between: `.changeset/pre.json`
  that each pre-release adds and each release deletes) -> a file the project's
  workflow makes and removes, whose absence now is one phase of it, not staleness.

The walk is limited to the asked paths by literal pathspecs (no glob or magic
can be injected) and shows the whole diff of the commits it finds
(`--full-diff`), so a rename out of the pathspec is still seen as a rename;
paths are relative to the checkout's root (`--relative`: a root below the
top of its git repository sees its own part of the history). `--full-history`:
git's simplification follows, at a merge, a parent the asked paths are the same
in, all of them together, so a batch of paths would hide a deletion that the
same path asked alone shows (a changeset deleted on main, merged into next).
Its answers are kept by HEAD in the facts cache, so a warm run runs no git. A
shallow clone, or a walk cut short, says how far it looked: nothing is
concluded from history that is not there.
"""

from __future__ import annotations

import posixpath
from collections import Counter
from collections.abc import Iterable
from typing import Any, NamedTuple

from anchorcheck.base.gitnames import is_object_id
from anchorcheck.evidence.cache import FactsCache, open_cache
from anchorcheck.repo.checkout import Repository
from anchorcheck.repo.paths import UnsafePathError
from anchorcheck.repo.context import Context

MAX_COMMITS = 20_000  # commits touching the asked paths that one walk reads, newest first
MAX_PATHS = 1_000  # paths one walk asks about; past it (a table of 20,000 names) history stays silent
MAX_HOPS = 4  # renames followed past the first (a -> b -> c ...), one small walk each
MIN_SECONDS = 3.0  # left of the deadline below which no walk starts: silence, not a verdict
_CACHE_KEY = "history-v2"
_FORMAT = "%x01%h%x00%cs%x00%s"
# Renames with edits need the blobs' bytes; a partial clone (or a mirror) may lack some, and git fails
# rather than fetch them (no transport): then exact renames only, which compare object ids.
_RENAMES = ("-M", "-M100%")


class Change(NamedTuple):
    """The commit that removed or moved a path."""

    commit: str  # short id
    date: str  # YYYY-MM-DD (committer date)
    subject: str

    def __str__(self) -> str:
        return f"{self.commit} ({self.date} '{self.subject}')"


UNCOMMITTED = Change("", "", "")  # the change of a path HEAD has and the work tree lacks


class Fate(NamedTuple):
    """What history says about one path missing now.

    `change` is the last commit that deleted or moved it (None: not seen in
    the commits walked); `moved_to` where it lives now when the renames that
    followed lead to one path that exists; `limit` says why history may be
    incomplete (a shallow clone, a walk cut short), "" when it was read whole.
    """

    path: str
    change: Change | None = None
    moved_to: str | None = None
    limit: str = ""
    removals: int = 0  # commits walked that deleted or moved this very path (counted up to 2)

    @property
    def existed(self) -> bool:
        return self.change is not None

    @property
    def recurring(self) -> bool:
        """Removed more than once, so made again in between: a file that comes and goes with a workflow
        (a pre-release's `.changeset/pre.json`), whose absence now is no proof that a text naming it is stale."""
        return self.removals > 1

    @property
    def never_existed(self) -> bool:
        """Known never to have been in this repository's history (which was read whole)."""
        return self.change is None and not self.limit

    def describe(self) -> str:
        """The clause a reason ends with: "moved to `x` in 1a2b3c4 (...)", "deleted in ...", or what was not seen."""
        if self.change == UNCOMMITTED:
            return "deleted in the work tree, not committed yet"
        if self.change is None:
            if self.limit:
                return f"not in the history looked at ({self.limit})"
            return "never in this repository's history"
        if self.moved_to is not None:
            return f"moved to `{self.moved_to}` in {self.change}"
        if self.recurring:
            return f"deleted in {self.change}, and made and deleted again before that: a file that comes and goes"
        return f"deleted in {self.change}"

    def to_dict(self) -> dict[str, Any]:
        change = list(self.change) if self.change is not None else None
        return {"path": self.path, "change": change, "moved_to": self.moved_to, "limit": self.limit, "removals": self.removals}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Fate:
        change = data.get("change")
        return cls(str(data["path"]), Change(*map(str, change)) if change else None, data.get("moved_to"), str(data.get("limit", "")),
                   int(data.get("removals", 1 if change else 0)))


class History:
    """The fates of missing paths in one checkout at one HEAD: asked in a batch (`want`), walked once.

    `want(paths)` adds paths to the next walk; `fate(path)` walks once for every
    path wanted and not yet answered (this one included) and answers from then
    on from memory, and from the facts cache in the next run.
    """

    def __init__(self, repo: Repository, cache: FactsCache | None = None, context: Context | None = None) -> None:
        self.repo = repo
        self.cache = cache
        self.context = context
        self.walks = 0  # git log runs made (tests and benchmarks look)
        self._known: dict[str, Fate] = {}  # for the HEAD in `_head`
        self._wanted: dict[str, None] = {}
        self._head: str | None | object = _UNASKED
        self._clone: str | None = None  # "shallow" or "full", for the HEAD in `_head`

    @property
    def head(self) -> str | None:
        """HEAD, asked of git only when a path is: a run with nothing missing runs no git for history (and a
        `check` that ran none can be replayed, `anchorcheck.serve.replay`). In a Verifier it is kept in the
        memo, marked as fed by git, so what asked it is dropped when git's state changes; the answers
        known for another HEAD are forgotten then."""
        if self.context is None:
            if self._head is _UNASKED:
                self._head = head_of(self.repo)
            return self._head  # type: ignore[return-value]
        context, repo = self.context, self.repo

        def ask() -> str | None:
            context.shared.git()
            return head_of(repo)

        head = context.memo(("anchorcheck.history.head", repo.root), ask)
        if head != self._head:
            self._known.clear()
            self._head, self._clone = head, None
        return head

    def want(self, paths: Iterable[str]) -> None:
        """Paths some reference of this run may need: they join the next walk."""
        for path in paths:
            path = path.rstrip("/")
            if path and path not in self._known:
                self._wanted[path] = None

    def settle(self) -> None:
        """Walk now for the paths wanted (before a batch goes to other processes, which read the cache)."""
        if self._wanted and self.head is not None:
            self._answer(list(self._wanted))
            self._wanted.clear()

    def known(self, path: str) -> Fate | None:
        """What a walk already said of `path` (None: not asked yet); runs nothing."""
        return self._known.get(path.rstrip("/"))

    def fate(self, path: str) -> Fate | None:
        """What history says about `path`; None outside git, or when no time was left to look."""
        path = path.rstrip("/")
        if self.head is None:
            return None
        if path not in self._known:
            self._wanted[path] = None
            self._answer(list(self._wanted))
            self._wanted.clear()
        return self._known.get(path)

    # -- the walk ------------------------------------------------------------

    def _answer(self, paths: list[str]) -> None:
        cached = self._from_cache(paths)
        self._known.update(cached)
        todo = [p for p in paths if p not in cached]
        for path in todo[MAX_PATHS:]:
            self._known[path] = Fate(path, limit=f"more than {MAX_PATHS:,} missing paths in one run")
        todo = todo[:MAX_PATHS]
        if not todo or not self._time_for_a_walk():
            return
        limit = self._limit()
        seen = self._walk(todo)
        if seen is None:
            return
        for path in self._at_head([p for p in todo if p not in seen]):
            seen[path] = (UNCOMMITTED, None, 1)
        for path in todo:
            change, to, removals = seen.get(path, (None, None, 0))
            fate = Fate(path, change, to, "" if change else limit, removals)
            if to is not None and not self._exists(to):
                fate = self._follow(fate, limit)
            self._known[path] = fate
        self._to_cache(todo)

    def _follow(self, fate: Fate, limit: str) -> Fate:
        """A path moved somewhere that is gone too: follow the renames (a -> b -> c) to where it is now."""
        at = fate.moved_to
        for _ in range(MAX_HOPS):
            if at is None or self._exists(at) or not self._time_for_a_walk():
                break
            change, to, _ = (self._walk([at]) or {}).get(at, (None, None, 0))
            if change is None:
                break
            fate = fate._replace(change=change, moved_to=to)
            at = to
        if fate.moved_to is not None and not self._exists(fate.moved_to):
            fate = fate._replace(moved_to=None)  # the trail ends in nothing that exists: gone
        return fate

    def _walk(self, paths: list[str]) -> dict[str, tuple[Change, str | None, int]] | None:
        """One `git log` over the paths: for each, the newest commit that deleted or moved it, where to, and how
        many commits removed the path itself (up to 2: one more after the newest says it was made again)."""
        self.walks += 1
        out = None
        for renames in _RENAMES:
            out = self.repo.git(
                "log", "-z", "--full-history", "--relative", "--name-status", renames, "--full-diff", "--diff-filter=DR", f"--format={_FORMAT}",
                f"--max-count={MAX_COMMITS}", operands=[self.head or "HEAD"], paths=[f":(literal){p}" for p in paths],
            )
            if out is not None:
                break
        if out is None:
            return None
        found: dict[str, tuple[Change, str | None, int]] = {}
        for change, entries in _commits(out):
            for path in paths:
                if path not in found:
                    hit = _removal(path, entries)
                    if hit is not None:
                        found[path] = (change, hit or None, 1 if _itself(path, entries) else 0)
                elif found[path][2] == 1 and _itself(path, entries):
                    found[path] = (*found[path][:2], 2)
        return found

    def _at_head(self, paths: list[str]) -> list[str]:
        """Those of the paths HEAD still has: deleted in the work tree, not committed yet. (`ls-tree` matches
        its paths literally, relative to the root: no pathspec magic to turn off.)"""
        if not paths:
            return []
        out = self.repo.git("ls-tree", "-z", "--name-only", operands=[self.head or "HEAD"], paths=paths) or ""
        there = set(out.split("\0"))
        return [p for p in paths if p in there]

    def _limit(self) -> str:
        """Why the history walked may not be all of it: "" for a full clone."""
        if not self.repo.shallow:
            return ""
        depth = (self.repo.git("rev-list", "--count", operands=[self.head or "HEAD"]) or "?").strip()
        return f"a shallow clone of {depth} commits; fetch the whole history (CI: fetch-depth: 0)"

    def _time_for_a_walk(self) -> bool:
        left = self.context.time_left() if self.context is not None else None
        return left is None or left > MIN_SECONDS

    def _exists(self, path: str) -> bool:
        try:
            return self.repo.exists(path)
        except UnsafePathError:
            return False

    # -- the cache -------------------------------------------------------------

    def _key(self, path: str) -> str:
        """A shallow clone of a commit sees less of its history than a full clone of it: not one answer."""
        if self._clone is None:  # asked of git once per HEAD, not once per path
            self._clone = "shallow" if self.repo.shallow else "full"
        return f"{_CACHE_KEY}:{self.head}:{self._clone}:{path}"

    def _from_cache(self, paths: list[str]) -> dict[str, Fate]:
        if self.cache is None:
            return {}
        rows = self.cache.get_many(self._key(p) for p in paths)
        return {p: Fate.from_dict(rows[self._key(p)]) for p in paths if self._key(p) in rows}

    def _to_cache(self, paths: list[str]) -> None:
        if self.cache is None:
            return
        for path in paths:
            if path in self._known:
                self.cache.put(self._key(path), self._known[path].to_dict())
        self.cache.flush()


_UNASKED = object()


def head_of(repo: Repository) -> str | None:
    """The commit checked out now, None outside git (asked of git each time: `Repository.head` is read once)."""
    if not repo.in_git:
        return None
    out = (repo.git("rev-parse", "--verify", "-q", operands=["HEAD"]) or "").strip()
    return out if is_object_id(out) else None


def history_of(context: Context) -> History:
    """The History of the context's checkout, made once per Verifier and kept until git's state changes."""
    repo = context.repo

    def make() -> History:  # made without asking git: `History.head` is asked, and marked, only when needed
        return History(repo, open_cache(context.options, repo.root, context.time_left), context)

    return context.memo(("anchorcheck.history", repo.root), make)


def _commits(out: str) -> Iterable[tuple[Change, list[tuple[str, str, str]]]]:
    """The commits of `git log -z --name-status --format=_FORMAT` output, each with its (status, old, new) entries."""
    tokens = iter(out.split("\0"))
    change: Change | None = None
    entries: list[tuple[str, str, str]] = []
    for token in tokens:
        token = token.lstrip("\n")
        if token.startswith("\x01"):
            if change is not None:
                yield change, entries
            change, entries = Change(token[1:], next(tokens, ""), next(tokens, "")), []
        elif token[:1] in ("R", "C"):
            old, new = next(tokens, ""), next(tokens, "")
            entries.append((token[0], old, new))
        elif token[:1] == "D":
            entries.append(("D", next(tokens, ""), ""))
    if change is not None:
        yield change, entries


def _itself(path: str, entries: list[tuple[str, str, str]]) -> bool:
    """Whether these entries delete or move the path itself (a file), not only files under it."""
    return any(status in ("D", "R") and old == path for status, old, _ in entries)


def _removal(path: str, entries: list[tuple[str, str, str]]) -> str | None:
    """Whether these entries remove `path` (a file, or every file under a folder): "" when deleted, the new place
    when moved (a folder's new place is where most of its files went), None when they do not touch it."""
    if any(status == "R" and old == path for status, old, _ in entries):
        return next(new for status, old, new in entries if status == "R" and old == path)
    if any(status == "D" and old == path for status, old, _ in entries):
        return ""
    prefix = path + "/"
    under = [(status, old, new) for status, old, new in entries if old.startswith(prefix)]
    if not under:
        return None
    places: Counter[str] = Counter()
    for status, old, new in under:
        rest = old[len(prefix):]
        if status == "R" and new.endswith("/" + rest):
            places[new[: -len(rest) - 1]] += 1
    if places:
        place, count = places.most_common(1)[0]
        if count * 2 > len(under):
            return posixpath.normpath(place)
    return ""
