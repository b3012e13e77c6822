"""A Verifier that answers again later: what it cached is brought up to date with the disk first.

The first look at the checkout (git's listing, a snapshot of what it looks
like, the tree state stored verdicts are keyed by) is taken once, in a thread
a call under a deadline waits on no longer than its budget. Each later call
asks the snapshot what changed (`anchorcheck.evidence.freshness`) and forgets
only what the changed files fed; a changed configuration gives a new view of
the checkout that keeps the facts of unchanged files. `Resident` is the part
of `Verifier` that does this.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from anchorcheck.repo.checkout import Repository
from anchorcheck.repo.config import Config, ConfigError, load_config
from anchorcheck.repo.context import Context
from anchorcheck.verify.loading import PluginSet, plugins_for

if TYPE_CHECKING:
    from anchorcheck.evidence.freshness import Lookout, Snapshot

_CONFIG_FILES = frozenset({".anchorcheck.toml", "pyproject.toml"})  # where `load_config` looks


class Resident:
    """The part of `Verifier` that keeps its caches true to the disk between calls."""

    repo: Repository
    config: Config
    context: Context
    plugins: PluginSet
    _resident: bool
    _snapshot: Snapshot | None
    _lookout: Lookout | None
    _own_config: bool
    _looked_yet: bool
    _looking: threading.Thread | None
    _chosen_plugins: tuple[Any, Any]
    _spec: tuple[Any, ...]
    _results: Any

    def refresh(self) -> bool:
        """Bring what this Verifier has cached up to date with the disk; every call does this first.

        Cheap when nothing changed: one read of the kernel's queue of file
        events, or one stat per listed file and directory where there is none
        (`anchorcheck.evidence.freshness`). Exact when something did: a file whose bytes
        changed loses its facts and is read again when an anchor needs it, an
        added, removed or renamed file is taken into the listing by itself where
        the kernel's events name it (git lists the checkout again where they do
        not, or where git's own state, a folder or an ignore file changed), and
        of what the Verifier worked out (search results, parsed manifests,
        verdicts) only what the changed files fed is computed again
        (`anchorcheck.base.memo`).
        Whether anything changed since the last call.
        """
        if not self._resident:
            return False
        if not self._looked():
            return False
        if self._snapshot is None:  # the first look could not take it: take it now; what the listing taken
            self._watch(_snapshot(self.repo))  # before it may have missed is reported by its first `changes()`
        changes = self._snapshot.changes()
        unwatched = self.context.shared.drop_volatile()
        if unwatched:  # read outside what the snapshot watches (an ignored file): read again at each call
            self._forget(unwatched)
        if not changes:
            return False
        self._results = False  # from now on this Verifier's own records say what is still true
        stale = changes.modified | changes.came
        relist = changes.relist
        if self._own_config and (relist or stale & _CONFIG_FILES):
            try:
                config = load_config(self.repo.root)
            except ConfigError:  # as a new Verifier would raise; the changes wait for a valid configuration
                self._snapshot.keep(changes)
                raise
            if config != self.config:  # skipped directories, excluded files, size cap: judged anew throughout
                self._rebuild(config, stale, self._snapshot)
                return True
        if not relist and not changes.came:
            self._forget(stale)
            self.context.shared.forget(stale, False, self._snapshot.listed.__contains__)
            return True
        if not relist and self._moved(stale, changes.came):
            return True
        old = self._snapshot
        listed = set(self.repo.paths())
        self.repo.relist()
        self._watch(_snapshot(self.repo))  # before the new listing is judged: a change from now on is seen
        stale |= listed ^ self._snapshot.listed
        stale |= self._snapshot.changed_since(old)  # between the look that found the change and the new watches
        self._forget(stale, relisted=True)
        self.context.shared.forget(stale, True, lambda path: path not in old.listed)
        return True

    def unwatched(self, paths: set[str]) -> set[str]:
        """Of these repo-relative paths, those a change of which `refresh` would not see (a file no
        listing holds, such as an ignored one): a caller that read them must read them again itself."""
        return paths if self._snapshot is None else self._snapshot.uncovered(paths)

    def _looked(self) -> bool:
        """Whether the first look at the checkout is done: git's listing, the snapshot a resident
        Verifier keeps (taken before anything is read, so a later change is seen) and the tree state
        results are stored under. Without a deadline it is done here. Under one, it runs in a thread
        this call waits on until the deadline, and a later call waits on the same thread: a large
        tree is listed once, however short each call's budget, and no call overruns its own."""
        if self._looking is None:
            if self._looked_yet:
                return True
            if self.context.deadline is None:
                self._first_look()
                return True
            self._looking = threading.Thread(target=self._first_look, name="anchorcheck-first-look", daemon=True)
            self._looking.start()
        left = self.context.time_left()
        self._looking.join(None if left is None else max(0.0, left))
        if self._looking.is_alive():
            return False
        self._looking = None
        return True

    def _first_look(self) -> None:
        try:
            if self._resident:  # the snapshot lists the checkout, its watches on before git looks at the files
                self._watch(_snapshot(self.repo, self._lookout))
            self.repo.paths()
            self._store()
        except Exception:  # noqa: BLE001 - what failed is done again where it is needed, and reported there
            return
        finally:
            self._looked_yet = True
            self._lookout = None

    def _moved(self, stale: set[str], came: set[str]) -> bool:
        """Files came or went (created, deleted or renamed in watched folders): the listing, the snapshot
        and the source index's listings take them in one by one, instead of git listing the whole checkout
        again. What depended on which files exist is worked out again only where these paths matter to it
        (`Memo.forget`: a search where it could take them, a count of a scope where they are in it). False
        where only a new listing can say (`Listing.patch`, `Snapshot.patch`): nothing was changed."""
        moved = self.repo.patch(came)
        if moved is None or not self._snapshot.patch(*moved):
            return False
        self._forget(stale, moved=moved)
        self.context.shared.forget(stale, True, _nothing_else, came)  # what exists changed at `came` alone
        return True

    def _forget(self, stale: set[str], relisted: bool = False, moved: tuple[set[str], set[str]] | None = None) -> None:
        """What the checkout and the source index knew of these files goes: they are read again."""
        self.repo.forget(stale)
        index = self.context.peek("anchorcheck.evidence.index")
        if index is not None:
            index.forget(stale, relisted=relisted, moved=moved)

    def _watch(self, snapshot: Snapshot) -> None:
        self._snapshot = snapshot
        self.context.shared.uncovered = snapshot.uncovered

    def _rebuild(self, config: Config, stale: set[str], old: Snapshot) -> None:
        """The configuration changed: a new view of the checkout, keeping the facts of unchanged files."""
        from anchorcheck.evidence.index import SourceIndex

        known = self.context.peek("anchorcheck.evidence.index")
        if config.max_file_size != self.config.max_file_size:
            known = None  # which files are too large to parse changed: every file's facts are judged anew
        if config.plugins != self.config.plugins:  # the plugins to load, as a new Verifier would choose them
            only, extra = self._chosen_plugins
            self.plugins = plugins_for(only, config, extra)
            known = None
        listed = set(self.repo.paths())
        self.config = config
        self._spec = (*self._spec[:3], config, self._spec[4])  # a worker builds its Verifier under this one
        self.repo = Repository(self.repo.root, skip_dirs=config.skip_dirs, exclude=config.exclude, max_file_size=config.max_file_size)
        # The call that saw the change keeps its deadline on the new context.
        self.context = Context(self.repo, self.plugins.registry, self.config, deadline=self.context.deadline, options=self.context.options)
        self._watch(_snapshot(self.repo))
        stale |= listed ^ set(self.repo.paths())
        stale |= self._snapshot.changed_since(old)  # between the look that found the change and the new watches
        if known is not None:
            SourceIndex.succeeding(known, self.context, stale)


def _nothing_else(path: str) -> bool:
    return False


def lookout(repo: Repository) -> Lookout:
    """The watch a resident Verifier sets before its first look, so a change while it lists is seen."""
    from anchorcheck.evidence.freshness import Lookout  # a one-shot Verifier (the CLI's `check`) never watches

    return Lookout(repo)


def _snapshot(repo: Repository, lookout: Lookout | None = None) -> Snapshot:
    """What the checkout looks like now (`anchorcheck.evidence.freshness`), for a Verifier that answers again later."""
    from anchorcheck.evidence.freshness import Snapshot

    return Snapshot(repo, lookout)
