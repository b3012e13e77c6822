"""Verdicts kept on disk per tree state: a new process answers an anchor it saw before without searching.

A warm `anchorcheck check` (pre-commit, CI, a new MCP session) would otherwise
redo every search from the cached per-file facts: look up and decode the facts
of every candidate, judge every candidate again for the evidence it cites. A
result depends on nothing but the checkout's files, its configuration and the
code that judged it, so it is stored under a key naming exactly those: every
listed path with its content id (git's blob id for a file git vouches for, the
same hash of the bytes for any other), the configuration, and the anchorcheck
and plugin code (their source files' signatures and the plugins' versions).
Any change to any of them is another key: nothing is reused that might differ.

Only results that read nothing outside that key are stored: none that ran git
(a span followed through history), read a file no listing holds or looked for
one that does not exist, and none cut short by a deadline.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anchorcheck.base import digests
from anchorcheck.model.anchors import Anchor
from anchorcheck.evidence.cache import FactsCache
from anchorcheck.base.codesig import code_signature, plugin_sources
from anchorcheck.model.results import AnchorResult
from anchorcheck.repo.checkout import Repository
from anchorcheck.repo.treestate import TreeState, name_tree

if TYPE_CHECKING:
    from anchorcheck.base.memo import Reads
    from anchorcheck.verify.loading import PluginSet

RESULTS_VERSION = "3"  # 3: stored in the order worked out (2 sorted the keys of `details`)


class ResultStore:
    """The results of one checkout's tree state, read and written through the shared facts cache."""

    def __init__(self, cache: FactsCache, key: str, tree: TreeState) -> None:
        self.cache = cache
        self.key = key
        self.tree = tree

    @classmethod
    def open(cls, repo: Repository, plugins: PluginSet, config: object, cache: FactsCache) -> ResultStore | None:
        """The store of the checkout as it is now; None where no key can name its state (outside git,
        or plugins given as objects, whose code has no signature to take) or naming it would read
        more than `treestate.MAX_UNCLEAN` files git does not vouch for."""
        if not repo.in_git:
            return None
        code = _code(plugins)
        if code is None:
            return None
        tree = name_tree(repo)
        if tree is None:
            return None
        key = digests.sha1(f"{RESULTS_VERSION}\0{code}\0{config!r}\0{tree.digest}".encode("utf-8", "surrogateescape"))
        return cls(cache, key.hexdigest(), tree)

    def _key(self, anchor: Anchor) -> str:
        text = f"{self.key}\0{anchor.kind}\0{anchor.value}\0{anchor.scope}"
        return "result:" + digests.sha1(text.encode("utf-8", "surrogateescape")).hexdigest()

    def get(self, anchor: Anchor) -> tuple[AnchorResult, list[str]] | None:
        """The stored result and the paths it found absent, when they are all still absent."""
        key = self._key(anchor)
        found = self.cache.get_many([key]).get(key)
        if found is None:
            return None
        try:
            absent = [str(path) for path in found["absent"]]
            if not self.tree.still_absent(absent):
                return None  # a file it looked for is there now, where no listing shows it (an ignored one)
            return AnchorResult.from_dict(found["result"]), absent
        except (KeyError, TypeError, ValueError):
            return None  # a well-formed row of the wrong shape: work it out again

    def put(self, anchor: Anchor, result: AnchorResult, reads: Reads) -> None:
        """Keep a result whose every read the state names: listed files and their directories, and
        paths that do not exist (checked again when it is read back)."""
        if reads.git or reads.headbound:  # git's history fed it: the tree state does not name that
            return
        absent = self.tree.absent(reads.paths | reads.probed)
        if absent is not None:  # else one is there, but no listing holds it: its content is not in the key
            self.cache.put(self._key(anchor), {"result": result.to_dict(), "absent": absent})

    def flush(self) -> None:
        self.cache.flush()


def _code(plugins: PluginSet) -> str | None:
    """Names the code that judges (`codesig`); None for a plugin that is no module."""
    key = [(info.name, info.module) for info in plugins.infos]
    places = plugin_sources([module for _, module in key])
    return None if places is None else code_signature(key, places)
