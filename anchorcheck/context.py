"""What a verifier plugin is handed: the checkout, the registry, settings and a shared memo.

One Context lives as long as its Verifier, so evidence that many anchors need
(the package index, the parsed imports of a tree) is computed once, lazily,
the first time an anchor asks for it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from anchorcheck.config import Config
from anchorcheck.registry import Registry
from anchorcheck.repo import Repository

T = TypeVar("T")


class BudgetExceeded(Exception):
    """Raised by `Context.check_deadline` so that a slow verifier stops where it is."""


@dataclass
class Context:
    repo: Repository
    registry: Registry
    config: Config = field(default_factory=Config)
    deadline: float | None = None
    options: dict[str, Any] = field(default_factory=dict)
    _memo: dict[Any, Any] = field(default_factory=dict, repr=False)

    def memo(self, key: Any, factory: Callable[[], T]) -> T:
        """Compute a piece of shared evidence once per Verifier."""
        if key not in self._memo:
            self._memo[key] = factory()
        return self._memo[key]  # type: ignore[no-any-return]

    def peek(self, key: Any) -> Any:
        """The shared evidence under `key` if it was computed, else None (nothing is computed)."""
        return self._memo.get(key)

    def settings(self, plugin: str) -> dict[str, Any]:
        """The `[tool.anchorcheck.plugin.NAME]` table for a plugin (empty when absent)."""
        return self.config.plugin_settings.get(plugin, {})

    def time_left(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.monotonic()

    def check_deadline(self) -> None:
        """Verifiers call this between units of work; past the deadline it raises BudgetExceeded."""
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise BudgetExceeded()
