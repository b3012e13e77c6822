"""How prose reads: the mentions a memory's text is split into, and whether a word is plain English.

A suggestion is only as good as its reading of a word: "Redis" names a
package, "changes" does not; `RedisCache` names code, "APIs" does not. These
judgements are shared by the suggestion of symbols and of packages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_CAMEL_HUMP = re.compile(r"[a-z0-9][A-Z]")


@lru_cache(maxsize=1)
def english_words() -> frozenset[str]:
    """A large English word list (web2): a package name that is also a word needs code context."""
    from english_words import get_english_words_set

    return frozenset(get_english_words_set(["web2"], lower=True))


def is_english(word: str) -> bool:
    """Whether a word, or the stem of an inflected form (plural, -ing, -ed), is an English word."""
    lower = word.lower()
    return any(stem in english_words() for stem in _stems(lower))


def _stems(word: str) -> set[str]:
    """The word and what it may be inflected from (the list has few inflected forms)."""
    stems = {word}
    for suffix, restore in (("s", ""), ("es", ""), ("ies", "y"), ("ing", ""), ("ing", "e"), ("ed", ""), ("ed", "e"), ("d", "")):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            stem = word[: -len(suffix)]
            stems.add(stem + restore)
            if suffix in ("ing", "ed") and len(stem) > 2 and stem[-1] == stem[-2]:
                stems.add(stem[:-1])  # running -> run, stopped -> stop
    return stems


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
