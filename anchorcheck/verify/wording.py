"""How prose reads: the mentions a memory's text is split into, and which names no prose word has.

A suggestion is only as good as its reading of a word: "Redis" names a
package, "changes" does not; `RedisCache` names code, "APIs" does not. These
judgements are shared by the suggestion of symbols and of packages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_CAMEL_HUMP = re.compile(r"[a-z0-9][A-Z]")
FILE_EXTENSIONS = frozenset(
    "md mdx txt rst json jsonc yaml yml toml lock ini cfg sh bash py pyi js mjs cjs jsx ts mts cts tsx rs go rb java kt c h "
    "cpp hpp cs php html css scss vue svelte sql xml csv".split()
)


@dataclass(frozen=True)
class Mention:
    """A word or code span of the text: where it is, and whether it is code."""

    text: str
    start: int
    code: bool


def distinctive(name: str) -> bool:
    """snake_case (`MAX_RETRIES`) or CamelCase inside (`runVitest`, `RedisCache`): no word of prose
    (a plural acronym, "IDs", "APIs", is one)."""
    return "_" in name.strip("_") or bool(_CAMEL_HUMP.search(name))
