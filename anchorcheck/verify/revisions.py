"""The checkouts at past revisions that one Verifier reads, each made once and shared by every anchor that asks.

The history of a command (`anchorcheck.verify.namehistory`) checks it at the
last revisions of its configuration, by the same plugins, in a read-only view
of each revision. The anchors of a run ask about the same few configurations,
so about the same revisions: a view made per anchor lists the revision's tree
again (`git ls-tree -r`) and reads and parses again every manifest and lockfile
its plugins need there (a pnpm monorepo's 1.7 MB lockfile: a second each).
Here each revision gets one view and one Context, whose memo keeps what its
plugins worked out for the next anchor; the last `KEPT` are kept. Blobs are
named by their content, so the views share one store of the bytes read
(`SHARED_BYTES` at most): a package.json unchanged across ten revisions is read
from git once.
"""

from __future__ import annotations

from collections import OrderedDict

from anchorcheck.repo.context import Context
from anchorcheck.repo.revision import RevisionError, RevisionRepository

KEPT = 16  # revisions whose view is kept: more than one configuration's revisions looked at (namehistory's 10)
SHARED_BYTES = 64 << 20  # blob bytes the views share at most; past it the store starts again


class Revisions:
    """Views of past revisions of one checkout, with their Contexts, made on first use and kept (the last KEPT)."""

    def __init__(self) -> None:
        self._contexts: OrderedDict[str, Context] = OrderedDict()
        self._blobs: dict[str, bytes] = {}

    def context(self, home: Context, revision: str) -> Context | None:
        """A Context for `home`'s checkout at `revision` (None when it names no commit), whose deadline is `home`'s now."""
        past = self._contexts.get(revision)
        if past is None:
            if sum(map(len, self._blobs.values())) > SHARED_BYTES:
                self._blobs.clear()
            try:
                repo = RevisionRepository(home.repo, revision, blobs=self._blobs)
            except RevisionError:
                return None
            past = Context(repo, home.registry, home.config, options=dict(home.options))
            past.holds_only = True  # namehistory asks a revision only whether the command held there
            self._contexts[revision] = past
            while len(self._contexts) > KEPT:
                self._contexts.popitem(last=False)
        self._contexts.move_to_end(revision)
        past.deadline = home.deadline
        return past
