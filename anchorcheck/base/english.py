"""Whether a word is plain English: a package name that is also a word ("click", "rich") needs code context.

The list is Webster's Second International (the `web2` list of Unix systems, public domain),
lower-cased: 234,450 words, packaged as one gzip'd text file of 0.7 MB. It replaced the
`english-words` distribution, which installed 17 MB (eight pickled variants of two lists) for
the one list read here; the words, and so every answer, are the same.
"""

from __future__ import annotations

import gzip
from functools import lru_cache
from importlib.resources import files


@lru_cache(maxsize=1)
def english_words() -> frozenset[str]:
    """The word list, read once on first use (about a quarter of a second)."""
    data = files("anchorcheck.base").joinpath("english_words.txt.gz").read_bytes()
    return frozenset(gzip.decompress(data).decode("ascii").split())


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
