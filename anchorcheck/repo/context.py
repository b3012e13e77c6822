"""What a verifier plugin is handed: the checkout, the registry, settings and a shared memo.

One Context lives as long as its Verifier, so evidence that many anchors need
(the package index, the parsed imports of a tree) is computed once, lazily,
the first time an anchor asks for it, and kept while the files it was
computed from are unchanged (`anchorcheck.base.memo`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

from anchorcheck.repo.config import Config
from anchorcheck.base.memo import Memo
from anchorcheck.model.registry import Registry
from anchorcheck.repo.checkout import Repository

T = TypeVar("T")


class BudgetExceeded(Exception):
    """Raised by `Context.check_deadline` so that a slow verifier stops where it is; its text, when
    there is one, says what was being done (`while reading Makefile`), for the INCONCLUSIVE reason."""


class Context:
    """What a verifier is handed: the checkout, the registry, the settings, the deadline and the evidence
    shared between anchors. A plain class, not a dataclass: nothing compares or copies it, and a
    dataclass's generated methods cost every check ~0.5 ms at import."""

    def __init__(
        self,
        repo: Repository,
        registry: Registry,
        config: Config | None = None,
        deadline: float | None = None,
        options: dict[str, Any] | None = None,
        shared: Memo | None = None,
    ) -> None:
        self.repo = repo
        self.registry = registry
        self.config = Config() if config is None else config
        self.deadline = deadline
        self.options = {} if options is None else options
        self.shared = Memo() if shared is None else shared
        # Only whether an anchor holds (VERIFIED) is asked here: a past revision's checkout, where the history of a
        # command looks for the last revision that defined it. Work that can only tell REFUTED from INCONCLUSIVE
        # (which lockfile may lock a binary of that name) may be skipped.
        self.holds_only = False
        observe = getattr(self.repo, "observe", None)
        if observe is not None:  # a checkout at a revision reads what cannot change
            observe(self.shared)
        if hasattr(self.repo, "pace"):
            self.repo.pace = self.check_deadline  # long passes over the listing stop at the deadline

    def memo(self, key: Any, factory: Callable[[], T]) -> T:
        """Compute a piece of shared evidence once, and again only after a file it read changed."""
        return self.shared.get(key, factory)

    def ignored_because(self, path: str, skipped_folders: bool = True) -> str | None:
        """`Repository.ignored_because`, judged once per path and kept while the ignore files it read are
        unchanged: a missing path is asked about by its kind's plugin and again by the history it is looked
        up in. Raises as that method does (UnsafePathError for a refused path)."""
        return self.memo(("anchorcheck.ignored", path, skipped_folders), lambda: self.repo.ignored_because(path, skipped_folders))

    def peek(self, key: Any) -> Any:
        """The shared evidence under `key` if it was computed, else None (nothing is computed)."""
        return self.shared.peek(key)

    def settings(self, plugin: str) -> dict[str, Any]:
        """The `[tool.anchorcheck.plugin.NAME]` table for a plugin (empty when absent)."""
        return self.config.plugin_settings.get(plugin, {})

    def time_left(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.monotonic()

    def check_deadline(self, doing: str = "") -> None:
        """Verifiers call this between units of work; past the deadline it raises BudgetExceeded,
        saying what was being done (`while reading Makefile`) when `doing` says so."""
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise BudgetExceeded(doing)
