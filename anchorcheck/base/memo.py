"""The shared memo of a Context, with what each entry was computed from: what keeps it true and fast.

A long-lived Verifier answers a recall from what it already worked out, and
after an edit recomputes only what the edited files fed. So every entry
records what its computation looked at, as it ran: the files it read (each
read through `Repository` is noted; a search's thousands of candidates held
as one set, not copied), whether it depended on which files exist (a listing
of a scope or of some names, a probe of one path: a file that comes or goes
matters only where they take it in) or on git's state (a git command, apart
from those that look at the work tree), and, for a prefiltered
search, a *watch*: a test that says whether a changed file now matters to it
(a file the search ruled out by its bytes matters again only if its new bytes
hold a needle). An entry computed while another one was in use inherits that
one's record, so dropping a file's entries drops everything built on them.

An entry that read a path the checkout's snapshot does not watch (a file no
listing holds, such as an ignored one) is *volatile*: it is kept for one call
only, since nothing would say when it changed.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import contextmanager

TYPE_CHECKING = False  # not `typing`'s: importing it costs a replayed `check` 4-7 ms (anchorcheck.serve.replay)
if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")


class Reads:
    """What one computation looked at. (A plain class: `dataclasses` would cost a replayed `check`,
    which imports this module through `Repository`, a tenth of its time.)"""

    __slots__ = ("paths", "probed", "listing", "lists", "git", "gitstate", "heads", "headbound", "watches", "held")

    def __init__(self) -> None:
        self.paths: set[str] = set()  # repo-relative paths read, resolved or stat-ed
        # Paths only asked whether they exist and as what (file, directory): a new listing alone changes
        # those answers (adding, removing or retyping a path relists), not an edit of their bytes.
        self.probed: set[str] = set()
        self.listing = False  # which files exist, or git's state (index, HEAD), fed it, however they change
        # Which files exist fed it through these tests of a path (a listing of a scope, of some names, of
        # the files a test of their path accepts): a file that comes or goes matters where one accepts it.
        self.lists: list[Callable[[str], bool]] = []
        self.git = False  # git's history or HEAD fed it (a span followed through history, the commit checked out)
        # git's own state fed it (HEAD, the index, refs, objects, its configuration), not the work tree's files:
        # what changes it changes git's directory, which lists the checkout again.
        self.gitstate = False
        # git answered from the commit checked out alone (its history, its tree: `Memo.keyed_by_head`), at
        # these commits: a stored report may be replayed while the same one is checked out.
        self.headbound = False
        self.heads: set[str] = set()
        self.watches: list[Callable[[str], bool]] = []  # changed path -> whether it now matters
        # Sets of listed paths read, held by reference (`Memo.read_held`): a search's thousands of
        # candidates are not copied into each entry that uses it, nor indexed path by path.
        self.held: list[Collection[str]] = []

    def to_dict(self) -> dict[str, Any]:
        """What another process needs to know of these reads to key a stored report (`anchorcheck.serve.replay`)
        and to watch for changes: the paths and the flags. The tests of paths (`lists`, `watches`) and the held
        sets are not sent: they are sent as `listing` (which files exist fed it), what they stand for."""
        listing = self.listing or bool(self.lists or self.watches or self.held)
        return {"paths": sorted(self.paths), "probed": sorted(self.probed), "heads": sorted(self.heads), "listing": listing,
                **{flag: getattr(self, flag) for flag in ("git", "gitstate", "headbound")}}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Reads:
        reads = cls()
        reads.paths, reads.probed, reads.heads = set(data["paths"]), set(data["probed"]), set(data["heads"])
        reads.listing, reads.git, reads.gitstate, reads.headbound = (bool(data[f]) for f in ("listing", "git", "gitstate", "headbound"))
        return reads

    def add(self, other: Reads) -> None:
        self.paths |= other.paths
        self.probed |= other.probed
        self.listing = self.listing or other.listing
        if other.lists:  # by identity: an entry that listed many folders holds as many tests
            mine = set(map(id, self.lists))
            self.lists.extend(test for test in other.lists if id(test) not in mine)
        self.git = self.git or other.git
        self.gitstate = self.gitstate or other.gitstate
        self.headbound = self.headbound or other.headbound
        self.heads |= other.heads
        self.watches.extend(w for w in other.watches if w not in self.watches)
        self.held.extend(h for h in other.held if not any(h is mine for mine in self.held))


class Memo:
    """Values by key, each with the `Reads` it was computed from (see the module's docstring)."""

    def __init__(self) -> None:
        self._values: dict[Any, Any] = {}
        self._reads: dict[Any, Reads] = {}
        # The keys by each path they read and each watch they hold: an edit of one file visits only
        # the entries it fed and asks each distinct watch once, not every entry (154 on Django). Built
        # at the first `forget` for what was computed since (`_unindexed`): a one-shot Verifier's memo,
        # never told of a change, does not pay for it.
        self._by_path: dict[str, set[Any]] = {}
        self._by_watch: dict[Callable[[str], bool], set[Any]] = {}
        self._by_held: dict[int, tuple[Collection[str], set[Any]]] = {}  # id of a held set -> it, the keys
        self._unindexed: set[Any] = set()
        self._open: list[Reads] = []  # the computations running now, innermost last
        self._at_head = 0  # inside `keyed_by_head` blocks
        self._volatile: set[Any] = set()  # keys to drop at the next call, whatever changed
        self._unwatched: set[str] = set()  # the paths they read that no change would be seen in
        # Of these paths, those a change of which would not be seen (`Snapshot.uncovered`); None for a
        # one-shot Verifier, whose memo lives as long as one call.
        self.uncovered: Callable[[set[str]], set[str]] | None = None

    def get(self, key: Any, factory: Callable[[], T], keep: Callable[[T], bool] | None = None) -> T:
        """The value under `key`, computed by `factory` on first use and kept while what it read holds
        (and, with `keep`, only when `keep(value)`: a result cut short by a deadline is not kept)."""
        if key in self._values:
            self._inherit(self._reads[key])
            return self._values[key]  # type: ignore[no-any-return]
        reads = Reads()
        self._open.append(reads)
        try:
            value = factory()
        finally:
            self._open.pop()
            self._inherit(reads)  # also when it raised: a caller that goes on has still seen these
        if keep is None or keep(value):
            self._values[key] = value
            self._reads[key] = reads
            self._unindexed.add(key)
            unwatched = self.uncovered(reads.paths | reads.probed) if self.uncovered is not None else ()
            if unwatched:
                self._volatile.add(key)
                self._unwatched |= unwatched
        return value

    def peek(self, key: Any) -> Any:
        """The value under `key` if it was computed, else None (nothing is computed or recorded)."""
        return self._values.get(key)

    def _inherit(self, reads: Reads) -> None:
        if self._open:
            self._open[-1].add(reads)

    # -- what the running computations look at ----------------------------------

    def read(self, path: str) -> None:
        if self._open:
            self._open[-1].paths.add(path)

    def probe(self, path: str) -> None:
        if self._open:
            self._open[-1].probed.add(path)

    def read_all(self, paths: set[str] | list[str]) -> None:
        if self._open:
            self._open[-1].paths.update(paths)

    def read_held(self, paths: Collection[str]) -> None:
        """Every path of `paths` read, the collection held by reference, not copied: what a kept goal
        search's candidates cost an edit then does not grow with them. The caller vouches that every
        path is a listed file of the checkout (a change of which a snapshot sees) and that it changes
        the collection only for paths a `forget` was told of first (which drops every entry holding it)."""
        if self._open:
            held = self._open[-1].held
            if not any(paths is mine for mine in held):
                held.append(paths)

    def listed(self) -> None:
        if self._open:
            self._open[-1].listing = True

    def listed_where(self, accepts: Callable[[str], bool]) -> None:
        """Which files exist fed the running computation, as far as `accepts` (a test of a path alone)
        says: a file that came or went matters to it only where `accepts` takes it."""
        if self._open:
            lists = self._open[-1].lists
            if not any(test is accepts for test in lists):  # a search's counts note theirs at each read
                lists.append(accepts)

    def git(self) -> None:
        if self._open:
            top = self._open[-1]
            top.gitstate = True
            if self._at_head:
                top.headbound = True  # named by the commit `head` notes (none noted: treated as fed by git)
            else:
                top.git = True

    @contextmanager
    def keyed_by_head(self) -> Iterator[None]:
        """git run in this block reads only what the commit checked out holds (its history, its tree), so what
        it feeds is named by that commit, which the block notes with `head`, not marked as fed by git's
        whole state: a check whose missing paths history answered can still be replayed at the same HEAD."""
        self._at_head += 1
        try:
            yield
        finally:
            self._at_head -= 1

    def head(self, state: str) -> None:
        """The commit (and clone depth) the git answers of the running computation were read at."""
        if self._open:
            top = self._open[-1]
            top.gitstate = top.headbound = True
            top.heads.add(state)

    def git_state(self) -> None:
        """git's own state fed the running computation (a command that does not look at the work tree)."""
        if self._open:
            self._open[-1].gitstate = True

    def took(self, reads: Reads) -> None:
        """What another process read for the running computation (a worker's chunk of a batch): as if read here."""
        self._inherit(reads)

    def current(self) -> Reads | None:
        """What the innermost computation running now has read so far (None outside any)."""
        return self._open[-1] if self._open else None

    def watch(self, matters: Callable[[str], bool]) -> None:
        if self._open:
            self._open[-1].watches.append(matters)

    @contextmanager
    def unrecorded(self) -> Iterator[None]:
        """Reads in this block are not recorded: the caller declares what its result depends on."""
        with self.recording():
            yield

    @contextmanager
    def recording(self) -> Iterator[Reads]:
        """What this block reads, also through entries it computes or reuses (what a whole run read),
        kept from any enclosing record."""
        reads = Reads()
        self._open.append(reads)
        try:
            yield reads
        finally:
            self._open.pop()

    # -- keeping it true ----------------------------------------------------------

    def drop_volatile(self) -> set[str]:
        """Drop the entries that read a path no change would be seen in: they lived for one call.
        Returns those paths, whose per-file facts the caller forgets too."""
        for key in self._volatile:
            if key in self._values:
                self._drop(key)
        unwatched, self._volatile, self._unwatched = self._unwatched, set(), set()
        return unwatched

    def forget(self, stale: set[str], relisted: bool, unlisted: Callable[[str], bool], came: set[str] | None = None) -> int:
        """Drop the entries that `stale` paths (changed, added or removed) fed, and with `relisted`
        those that depended on the listing or read a path that was no listed file (`unlisted`: a
        directory, or a file that did not exist); with `came` as well, the listing changed by these
        paths alone (files that came or went), and of the entries that depended on it only those it
        could change go: by git's state or any change of it, by a probe or a listing test of one of
        them. How many were dropped."""
        self._index()
        doomed: set[Any] = set()
        if relisted:
            doomed.update(key for key, reads in self._reads.items() if _relisted(reads, unlisted, came))
        for path in stale:
            doomed |= self._by_path.get(path, set())
        for held, keys in self._by_held.values():
            if not keys <= doomed and any(path in held for path in stale):
                doomed |= keys
        # Last: a watch may read the changed file (do its new bytes hold a needle?), which is wasted on
        # entries already doomed (a search whose candidates held the file).
        for watch, keys in self._by_watch.items():
            if not keys <= doomed and any(watch(path) for path in stale):
                doomed |= keys
        for key in doomed:
            self._drop(key)
        return len(doomed)

    def _index(self) -> None:
        """Index the entries computed since the last call by the paths they read and the watches they hold."""
        for key in self._unindexed:
            reads = self._reads.get(key)
            if reads is not None:
                for path in reads.paths:
                    self._by_path.setdefault(path, set()).add(key)
                for watch in reads.watches:
                    self._by_watch.setdefault(watch, set()).add(key)
                for held in reads.held:
                    self._by_held.setdefault(id(held), (held, set()))[1].add(key)
        self._unindexed.clear()

    def _drop(self, key: Any) -> None:
        """Take an entry out, and out of the indexes by path and by watch."""
        del self._values[key]
        reads = self._reads.pop(key)
        if key in self._unindexed:  # not indexed yet: nothing to take out there
            self._unindexed.discard(key)
            return
        _unindex(self._by_path, reads.paths, key)
        _unindex(self._by_watch, reads.watches, key)
        for held in reads.held:
            keys = self._by_held[id(held)][1]
            keys.discard(key)
            if not keys:
                del self._by_held[id(held)]


def _relisted(reads: Reads, unlisted: Callable[[str], bool], came: set[str] | None) -> bool:
    """Whether a new listing (or, with `came`, these paths come or gone) can change what these reads fed.
    Only the paths that came or went changed what exists (a folder that comes or goes lists the checkout
    again): a path read that was no listed file matters then only if it is one of them (it is stale too)."""
    if reads.listing:
        return True
    if came is None:
        return bool(reads.probed or reads.lists or reads.gitstate) or any(map(unlisted, reads.paths))
    return not reads.probed.isdisjoint(came) or any(accepts(path) for accepts in reads.lists for path in came)


def _unindex(index: dict[Any, set[Any]], parts: Iterable[Any], key: Any) -> None:
    for part in parts:
        keys = index[part]
        keys.discard(key)
        if not keys:
            del index[part]
