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

The walk (`anchorcheck.evidence.historywalk`) is limited to the asked paths by
literal pathspecs, read as git writes it and stopped as soon as every path is
answered; it is bounded by `WALK_SECONDS`, by the deadline (it leaves the rest
of the run `MIN_SECONDS`) and by `MAX_COMMITS`. Its answers are kept by HEAD (and
shallow or full clone) in the facts cache, so a warm run runs no `git log`:
one `git rev-parse` names HEAD. A shallow clone, or a walk cut short, says how
far it looked: nothing is concluded from history that is not there.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from anchorcheck.base.gitnames import is_object_id
from anchorcheck.evidence.cache import FactsCache, open_cache
from anchorcheck.repo.checkout import Repository
from anchorcheck.repo.gitcmd import GIT_TIMEOUT
from anchorcheck.repo.paths import UnsafePathError
from anchorcheck.repo.context import Context
from anchorcheck.repo.gitdir import head_key

if TYPE_CHECKING:
    from anchorcheck.evidence import historywalk

MAX_COMMITS = 1_000_000  # commits one walk reads, newest first; past it, what was not seen says where history was cut
# paths one walk asks about; past it (a table of 20,000 names) history stays silent. Each token a reader cannot place
# is asked at every place it may be (the memory file's folder, the root, the folders its sentence names), so 17
# AGENTS.md files of a C++ repository (workerd) asked 1,125 in one run and a stale folder fell past 1,000; 4,000
# costs that run 8 % more git CPU (38.0 -> 41.2 s).
MAX_PATHS = 4_000
MAX_HOPS = 4  # renames followed past the first (a -> b -> c ...), one small walk each
MAX_RECURRING = 8  # commits whose deletions are looked up again further back (was the path deleted before?)
MAX_EMPTIED = 64  # commits that deleted some files of a folder, asked (one `ls-tree` each) whether they emptied it
MIN_SECONDS = 3.0  # of the deadline, what a walk leaves to the rest of the run; with less left, no walk starts
WALK_SECONDS = GIT_TIMEOUT  # what a walk may take at most (a run with no deadline): any git run's bound
_CACHE_KEY = "history-v5"


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
    followed lead to one path that exists; `copies` the other places that
    exist now which the same commit copied it to as it went (then it has no
    single destination); `limit` says why history may be incomplete (a shallow
    clone, a walk cut short), "" when it was read whole. `left` is the commit
    that took it from the place written, when renames were followed from there
    (`change` is then where the trail ended): a text written after it left
    never named it where it was.
    """

    path: str
    change: Change | None = None
    moved_to: str | None = None
    limit: str = ""
    removals: int = 0  # commits walked that deleted or moved this very path (counted up to 2)
    copies: tuple[str, ...] = ()
    left: Change | None = None

    @property
    def destination(self) -> str | None:
        """Where it went when history gives exactly one place (what `anchorcheck fix` may write), else None."""
        return None if self.copies else self.moved_to

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
        """The clause a reason ends with: "moved to `x` in 1a2b3c4 (...)", "deleted in ...", or what was not seen;
        after renames followed, the commit that first moved it leads ("moved in 1a2b3c4 (...), then deleted in ...")."""
        if self.left is not None and self.change not in (None, self.left):
            return f"moved in {self.left}, then {self._replace(left=None).describe()}"
        if self.change == UNCOMMITTED:
            return "deleted in the work tree, not committed yet"
        if self.change is None:
            if self.limit:
                return f"not in the history looked at ({self.limit})"
            return "never in this repository's history"
        if self.moved_to is not None and self.copies:
            places = ", ".join(f"`{p}`" for p in sorted((self.moved_to, *self.copies)))
            return f"went to {places} in {self.change} (copies of it: which one is meant is for a person)"
        if self.moved_to is not None:
            return f"moved to `{self.moved_to}` in {self.change}"
        if self.recurring:
            return f"deleted in {self.change}, and made and deleted again before that: a file that comes and goes"
        return f"deleted in {self.change}"

    def to_dict(self) -> dict[str, Any]:
        change = list(self.change) if self.change is not None else None
        return {"path": self.path, "change": change, "moved_to": self.moved_to, "limit": self.limit, "removals": self.removals,
                "copies": list(self.copies), "left": list(self.left) if self.left is not None else None}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Fate:
        change, left = data.get("change"), data.get("left")
        return cls(str(data["path"]), Change(*map(str, change)) if change else None, data.get("moved_to"), str(data.get("limit", "")),
                   int(data.get("removals", 1 if change else 0)), tuple(map(str, data.get("copies", ()))), Change(*map(str, left)) if left else None)


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
        self.walks = 0  # git log walks made (tests and benchmarks look)
        self.commits = 0  # commits those walks read
        self.emptied_asked = 0  # folders asked whether a commit emptied them (`_emptied_at`)
        self._known: dict[str, Fate] = {}  # for the HEAD in `_state`
        self._wanted: dict[str, None] = {}
        self._state: tuple[str, bool] | None | object = _UNASKED  # HEAD and whether the clone is shallow

    @property
    def head(self) -> str | None:
        """HEAD, asked of git only when a path is: a run with nothing missing runs no git for history (and a
        `check` that ran none can be replayed, `anchorcheck.serve.replay`). In a Verifier it is kept in the
        memo, marked as fed by git, so what asked it is dropped when git's state changes; the answers
        known for another HEAD are forgotten then."""
        state = self._asked()
        return None if state is None else state[0]

    @property
    def shallow(self) -> bool:
        """Whether the checkout is a shallow clone: a history read whole there is not the repository's whole history."""
        state = self._asked()
        return state is not None and state[1]

    def _asked(self) -> tuple[str, bool] | None:
        """HEAD and whether the clone is shallow (one `git rev-parse`), as `head` says."""
        if self.context is None:
            if self._state is _UNASKED:
                self._state = _noted_state(self.repo)
            elif self._state is not None:
                self.repo.note_head(head_key(*self._state))  # type: ignore[misc]
            return self._state  # type: ignore[return-value]
        context, repo = self.context, self.repo

        def ask() -> tuple[str, bool] | None:  # its reads, the commit noted, go to every caller of `head`
            return _noted_state(repo)

        state = context.memo(("anchorcheck.history.head", repo.root), ask)
        if state != self._state:
            self._known.clear()
            self._state = state
        return state

    def want(self, paths: Iterable[str]) -> None:
        """Paths some reference of this run may need: those missing when a walk is due join it. (Judged
        then, not now: a worker handed its chunk's paths, all present, looks at none of them again.)"""
        for path in paths:
            path = path.rstrip("/")
            if path and path not in self._known:
                self._wanted[path] = None

    def settle(self) -> None:
        """Walk now for the paths wanted (before a batch goes to other processes, which read the cache)."""
        missing = self._missing_wanted()
        if missing and self.head is not None:  # HEAD asked only when a path is missing
            self._answer(missing)

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
            self._answer(self._missing_wanted())
        return self._known.get(path)

    def _missing_wanted(self) -> list[str]:
        """The paths wanted that are missing now, taken from the wanted ones; a path no file system could
        hold (a lone surrogate) counts as there: history is not asked about it."""
        wanted, self._wanted = list(self._wanted), {}
        return [path for path in wanted if not self._exists(path, unholdable=True)]

    # -- the walk ------------------------------------------------------------

    def _answer(self, paths: list[str]) -> None:
        with self.repo.keyed_by_head():  # a walk of HEAD's history: named by HEAD (`_asked` notes it)
            self._answer_at_head(paths)

    def _answer_at_head(self, paths: list[str]) -> None:
        cached = self._from_cache(paths)
        self._known.update(cached)
        todo = [p for p in paths if p not in cached]
        for path in todo[MAX_PATHS:]:
            self._known[path] = Fate(path, limit=f"more than {MAX_PATHS:,} missing paths in one run")
        todo = todo[:MAX_PATHS]
        walked = self._walk(todo) if todo else None
        if walked is None:
            return
        from anchorcheck.evidence.historywalk import Found  # loaded by the walk

        seen = dict(walked.found)
        for path in self._at_head([p for p in todo if p not in seen]):
            seen[path] = Found(UNCOMMITTED, None, "")
        limit = walked.cut or self._shallow(walked.commits)
        again = self._deleted_before({path: found.commit for path, found in seen.items() if found.moved_to is None and found.commit})
        for path in todo:
            found = seen.get(path)
            removals = 2 if path in again else 1
            fate = Fate(path, limit=limit) if found is None else Fate(path, found.change, found.moved_to, removals=removals,
                                                                      copies=self._standing(found.copies))
            if found is not None and found.moved_to is not None and not self._exists(found.moved_to):
                fate = self._follow(fate, found.commit)
            self._known[path] = fate
        # Not what a walk cut for time did not see: a run on a quieter machine, or with more time, sees more.
        self._to_cache([p for p in todo if not walked.timed or self._known[p].existed])

    def _deleted_before(self, deleted: dict[str, str]) -> set[str]:
        """Of the deleted paths, those an older commit removed too (so one made them again in between: a file
        that comes and goes with a workflow), each batch walked from the parent of the commit that deleted
        it last; the first `MAX_RECURRING` such commits only (a table of deletions: the rest count once)."""
        by_commit: dict[str, list[str]] = {}
        for path, commit in deleted.items():
            by_commit.setdefault(commit, []).append(path)
        again: set[str] = set()
        for commit, paths in list(by_commit.items())[:MAX_RECURRING]:
            # none for a root commit: git fails, nothing before it
            walked = self._walk(paths, start=f"{commit}^", emptied=self._emptied_at)
            again.update(walked.found if walked is not None else ())
        return again

    def _emptied_at(self, commit: str, folder: str) -> bool:
        """Whether nothing is at `folder` after `commit` (one `ls-tree`, literal path); after `MAX_EMPTIED` such
        questions in a run, yes: a folder that lost files in that many commits counts as made again, as it did."""
        self.emptied_asked += 1
        if self.emptied_asked > MAX_EMPTIED:
            return True
        return not self.repo.git("ls-tree", "--name-only", operands=[commit], paths=literal(folder))

    def _follow(self, fate: Fate, commit: str) -> Fate:
        """A path moved somewhere that is gone too: follow the renames (a -> b -> c) to where it is now, each
        walk reading only the commits after the last rename."""
        at = fate.moved_to
        for _ in range(MAX_HOPS):
            if at is None or self._exists(at):
                break
            found = (walked.found.get(at) if (walked := self._walk([at], since=commit)) else None)
            if found is None:
                break
            fate = fate._replace(change=found.change, moved_to=found.moved_to, copies=self._standing(found.copies), left=fate.left or fate.change)
            at, commit = found.moved_to, found.commit
        if fate.moved_to is not None and not self._exists(fate.moved_to):
            fate = fate._replace(moved_to=None)  # the trail ends in nothing that exists: gone
        return fate

    def _standing(self, copies: tuple[str, ...]) -> tuple[str, ...]:
        """The copies a commit made of a path that are still here (a destination a fix may name)."""
        return tuple(c for c in copies if self._exists(c))

    def _walk(self, paths: list[str], since: str | None = None, start: str | None = None,
              emptied: Callable[[str, str], bool] | None = None) -> historywalk.Walk | None:
        """One walk (`historywalk.walk`) from HEAD (or `start`) in the time the deadline leaves it; None when there
        is none, or git failed."""
        from anchorcheck.evidence import historywalk  # (imported here: a run whose paths all exist never walks)

        seconds = self._budget()
        if self.head is None or seconds <= 0:
            return None
        self.walks += 1
        walked = historywalk.walk(self.repo, start or self.head, paths, seconds, MAX_COMMITS, since, emptied)
        self.commits += walked.commits if walked is not None else 0
        return walked

    def _budget(self) -> float:
        """The seconds a walk may take now: `WALK_SECONDS`, or less when the deadline leaves less past
        `MIN_SECONDS` (0 and below: no walk)."""
        left = self.context.time_left() if self.context is not None else None
        return WALK_SECONDS if left is None else min(WALK_SECONDS, left - MIN_SECONDS)

    def _at_head(self, paths: list[str]) -> list[str]:
        """Those of the paths HEAD still has: deleted in the work tree, not committed yet. (`ls-tree` matches
        its paths literally, relative to the root: no pathspec magic to turn off.)"""
        if not paths:
            return []
        out = self.repo.git("ls-tree", "-z", "--name-only", operands=[self.head or "HEAD"], paths=paths) or ""
        there = set(out.split("\0"))
        return [p for p in paths if p in there]

    def _shallow(self, commits: int) -> str:
        """Why the history read whole may not be all of it: "" for a full clone."""
        if not self.shallow:
            return ""
        return f"a shallow clone of {commits:,} commits; fetch the whole history (CI: fetch-depth: 0)"

    def _exists(self, path: str, unholdable: bool = False) -> bool:
        """Whether the path is there (a refused one is not); `unholdable`: what one that no file system could
        hold counts as (else ValueError)."""
        try:
            return self.repo.exists(path)
        except UnsafePathError:
            return False
        except (ValueError, OSError):  # UnicodeEncodeError is a ValueError
            if unholdable:
                return True
            raise

    # -- the cache -------------------------------------------------------------

    def _key(self, path: str) -> str:
        """A shallow clone of a commit sees less of its history than a full clone of it: not one answer."""
        state = self._asked()
        clone = "shallow" if state is not None and state[1] else "full"
        return f"{_CACHE_KEY}:{self.head}:{clone}:{path}"

    def _from_cache(self, paths: list[str]) -> dict[str, Fate]:
        """The answers kept for this HEAD; not one whose new place is gone from the work tree since (an edit
        not committed yet: the walk says again where the trail ends)."""
        if self.cache is None:
            return {}
        rows = self.cache.get_many(self._key(p) for p in paths)
        fates = (Fate.from_dict(rows[self._key(p)]) for p in paths if self._key(p) in rows)
        return {fate.path: fate for fate in fates if fate.moved_to is None or self._exists(fate.moved_to)}

    def _to_cache(self, paths: list[str]) -> None:
        if self.cache is None:
            return
        for path in paths:
            if path in self._known:
                self.cache.put(self._key(path), self._known[path].to_dict())
        self.cache.flush()


_UNASKED = object()


Paths = str | tuple[str, ...]  # one file, or several read as one history (the Cargo.toml files of a workspace)


def literal(paths: Paths) -> list[str]:
    """Literal pathspecs (no glob or magic can be injected) for one path or several."""
    return [f":(literal){p}" for p in ((paths,) if isinstance(paths, str) else paths)]


def revisions(repo: Repository, head: str, path: Paths, count: int) -> list[Change]:
    """The last `count` commits of `head` that changed `path` (literal pathspecs), newest first: the
    revisions of one configuration or manifest whose past definitions are compared with now."""
    out = repo.git("log", f"--max-count={count}", "--format=%h%x00%cs%x00%s", operands=[head], paths=literal(path))
    return [Change(*line.split("\0", 2)) for line in (out or "").splitlines() if line.count("\0") == 2]


_GLOB_CHARS = re.compile(r"([*?\[\]\\])")  # what `glob` pathspec magic reads as a pattern, escaped with a backslash


def emptied(repo: Repository, head: str, folder: str, suffix: str) -> Change | None | bool:
    """The last commit of `head` that deleted (or moved away) a file ending in `suffix` right in `folder`, for a folder
    that holds none now (a Go package folder whose .go files went): None when no commit ever did, False when git
    failed. The one glob pathspec is made here, its folder's glob characters escaped: `*` alone is a wildcard, and
    under `glob` magic it stops at `/`."""
    spec = _GLOB_CHARS.sub(r"\\\1", f"{folder}/" if folder not in (".", "") else "") + "*" + _GLOB_CHARS.sub(r"\\\1", suffix)
    out = repo.git("log", "-1", "--full-history", "--no-renames", "--diff-filter=D", "--format=%h%x00%cs%x00%s", operands=[head], paths=[f":(glob){spec}"])
    if out is None:
        return False
    found = [line.split("\0", 2) for line in out.splitlines() if line.count("\0") == 2]
    return Change(*found[0]) if found else None


def changing(repo: Repository, head: str, path: Paths, text: str, count: int) -> list[tuple[Change, str | None]] | None:
    """The last `count` commits of `head` that changed how often `text` occurs in `path` (git's pickaxe, `-S`,
    the text one argument: never an option), newest first, each with its first parent (None: a root commit).
    [] when no revision of the file ever held `text`, so none defined a name spelled so; None when git fails."""
    out = repo.git("log", f"-S{text}", f"--max-count={count}", "--format=%h%x00%cs%x00%p%x00%s", operands=[head], paths=literal(path))
    if out is None:
        return None
    found = [line.split("\0", 3) for line in out.splitlines() if line.count("\0") == 3]
    return [(Change(short, date, subject), parents.split()[0] if parents else None) for short, date, parents, subject in found]


def created(repo: Repository, head: str, path: str, seconds: float) -> tuple[Change, str | None] | None | Literal[False]:
    """The commit of `head` that first added `path` (literal pathspec), with its first parent (None: a root commit);
    None when no commit did, False when git fails or `seconds` pass first (the walk reads all of the path's history,
    as the oldest addition is the last line): where a configuration came into a folder that ran its commands by another."""
    stream = repo.git_stream("log", "--diff-filter=A", "--format=%h%x00%cs%x00%p%x00%s", operands=[head], paths=literal(path), seconds=seconds)
    if stream is None:
        return False
    with stream:
        out = "".join(stream)
    if stream.cut or stream.failed:
        return False
    found = [line.split("\0", 3) for line in out.splitlines() if line.count("\0") == 3]
    if not found:
        return None
    short, date, parents, subject = found[-1]  # the oldest: a file deleted and added again came first then
    return Change(short, date, subject), (parents.split()[0] if parents else None)


def diff_lines(lines: Iterable[str], sign: str) -> list[str]:
    """The lines of a file that a diff's `lines` add (`sign` "+") or remove ("-"), without the sign; the
    headers that name the file (`+++ b/x`, `--- a/x`) are none of its lines."""
    return [line[1:] for line in lines if line.startswith(sign) and not line.startswith(sign * 3)]


MAX_ADDED = 16 << 20  # characters of a configuration's added lines kept for the names it ever held (else: git's pickaxe, name by name)


class Added(NamedTuple):
    """What one walk of a configuration's history read: every line its revisions added, how many revisions, and the
    paths asked that some revision changed (so were there once: a path no revision changed never existed)."""

    text: str
    revisions: int
    paths: frozenset[str] = frozenset()


def added_text(repo: Repository, head: str, path: Paths, seconds: float) -> Added | None:
    """Every line any revision of `path` added, from one walk of the file's history (`git log -p -U0`), and the number
    of revisions: a name in none of them was never in the file, which one walk tells for every name a run asks (a
    pickaxe, `-S`, walks once per name). None when git fails, the walk is cut by time, or the added lines pass MAX_ADDED."""
    options = ("-p", "-U0", "--format=%x01", "--no-ext-diff", "--no-textconv")  # a line of its own for each revision
    stream = repo.git_stream("log", *options, operands=[head], paths=literal(path), seconds=seconds)
    if stream is None:
        return None
    added: list[str] = []
    size, rest, revisions, changed = 0, "", 0, set()
    with stream:
        for piece in itertools.chain(stream, ["\n"]):  # (the last line may end without one)
            lines = (rest + piece).split("\n")
            rest = lines.pop()
            for line in lines:
                if line == "\x01":
                    revisions += 1
                elif line.startswith(("diff --git a/", "rename from ", "rename to ")):  # a revision changed this path: it was there
                    changed.update(_diff_paths(line))
            for line in diff_lines(lines, "+"):
                added.append(line)
                size += len(line) + 1
            if size > MAX_ADDED:
                return None
    return None if stream.cut or stream.failed else Added("\n".join(added), revisions, frozenset(changed))


def _diff_paths(line: str) -> tuple[str, ...]:
    """The paths a diff header line names (`diff --git a/P b/P`, even for an empty file, which has no `+++` line;
    `rename from P`, `rename to P`); a `diff --git` line of two paths with spaces, which cannot be split, names none."""
    if line.startswith("rename "):
        return (line.split(" ", 2)[2],)
    rest = line[len("diff --git a/") :]
    half = (len(rest) - 3) // 2
    return (rest[:half],) if rest == f"{rest[:half]} b/{rest[:half]}" else tuple(p for p in rest.split(" b/") if " " not in p)[:2]


def revision_count(repo: Repository, head: str, path: Paths) -> int | None:
    """How many commits of `head` changed `path`: the revisions a look at all of them reads (when `added_text` could
    not read them whole)."""
    out = (repo.git("rev-list", "--count", operands=[head], paths=literal(path)) or "").strip()
    return int(out) if out.isdigit() else None


def _noted_state(repo: Repository) -> tuple[str, bool] | None:
    """`state_of`, noted as the commit what git answers next depends on (`Memo.keyed_by_head`)."""
    with repo.keyed_by_head():
        state = state_of(repo)
    if state is not None:
        repo.note_head(head_key(*state))
    return state


@contextmanager
def at_head(repo: Repository) -> Iterator[str | None]:
    """The commit checked out (None outside git), for a block whose git runs read only its history: what
    they feed is named by that commit, so a report made of it can be replayed while it stays checked out."""
    with repo.keyed_by_head():
        state = _noted_state(repo)
        yield None if state is None else state[0]


def text_before(repo: Repository, commit: str, path: str) -> str | None:
    """The file `path` in the revision just before `commit` (its blob, read with `git cat-file`, where it was
    then if it moved since): "" when it was not there yet; None when that revision cannot be read (a shallow
    clone's boundary)."""
    with repo.keyed_by_head():
        if repo.git("cat-file", "-e", operands=[f"{commit}^"]) is None:
            return None
        text = repo.git("cat-file", "-p", operands=[f"{commit}^:{path}"])
        if text is None:  # not there before: written later, or the memory file moved since (a package moved whole)
            was = _path_before(repo, commit, path)
            text = repo.git("cat-file", "-p", operands=[f"{commit}^:{was}"]) if was not in (None, path) else None
    return text or ""


def names(text: str, written: str) -> bool:
    """Whether a memory file's text writes `written` as a token of its own (not inside a longer path or name)."""
    return re.search(rf"(?<![\w/.-]){re.escape(written)}(?![\w-])", text) is not None


def wrote_before(repo: Repository, commit: str, path: str, written: str) -> bool | None:
    """Whether the file `path` wrote `written` in the revision just before `commit`: False when it did not, or was
    not there yet; None when that revision cannot be read. Was a memory true when written? Only if it named the
    thing while the thing was there."""
    text = text_before(repo, commit, path)
    return None if text is None else names(text, written)


def _path_before(repo: Repository, commit: str, path: str) -> str | None:
    """The path the file at `path` had just before `commit`, following its renames from HEAD back to that
    commit (`git log --follow` of that one file): a memory file moved since (or by that commit) is read
    where it was then. None when it did not exist then."""
    out = repo.git("log", "--follow", "-M", "--name-status", "-z", "--relative", "--format=%x01",
                   operands=["HEAD", f"^{commit}^"], paths=[f":(literal){path}"]) or ""
    for entry in out.split("\x01")[1:]:
        fields = entry.strip("\n\x00").split("\x00")
        if len(fields) >= 3 and fields[0].startswith("R") and fields[2] == path:
            path = fields[1]
        elif fields and fields[0] == "A" and fields[-1] == path:
            return None  # made in the range: not there before it
    return path


def state_of(repo: Repository) -> tuple[str, bool] | None:
    """The commit checked out now and whether the clone is shallow, in one git run; None outside git."""
    if not repo.in_git:
        return None
    out = (repo.git("rev-parse", "--is-shallow-repository", "--verify", "-q", operands=["HEAD"]) or "").split()
    if len(out) != 2 or out[0] not in ("true", "false") or not is_object_id(out[1]):
        return None
    return out[1], out[0] == "true"


def history_of(context: Context) -> History:
    """The History of the context's checkout, made once per Verifier and kept until git's state changes."""
    repo = context.repo

    def make() -> History:  # made without asking git: `History.head` is asked, and marked, only when needed
        return History(repo, open_cache(context.options, repo.root, context.time_left), context)

    return context.memo(("anchorcheck.history", repo.root), make)
