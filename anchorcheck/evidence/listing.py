"""The listing of a scope: its source files, each with the language that parses it, and what every
search of it needs worked out once; and which kind of code a file is, by its path."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from anchorcheck.base import digests

if TYPE_CHECKING:
    from anchorcheck.evidence.prefilter import Recorded
    from anchorcheck.model.registry import Language
    from anchorcheck.repo.context import Context

_VENDORED = frozenset({"vendor", "vendored", "third_party", "third-party", "_vendor", "node_modules", "external"})
_TESTS = frozenset({"test", "tests", "testing", "__tests__", "spec", "specs", "testdata", "fixtures"})
_TEST_AFFIXES = ("test_", "tests_", "test-", "tests-", "_test", "_tests", "-test", "-tests")  # tests_integ/, e2e-tests/
_EXAMPLES = frozenset({"example", "examples", "sample", "samples", "demo", "demos", "docs", "doc"})


@lru_cache(maxsize=1 << 16)
def classify(path: str) -> str:
    """Which kind of code a file is — production, test, example or vendored — judged by its path."""
    parts = path.lower().split("/")
    dirs, name = parts[:-1], parts[-1]
    if _VENDORED & set(dirs):
        return "vendored"
    if _TESTS & set(dirs) or any(d.startswith(_TEST_AFFIXES) or d.endswith(_TEST_AFFIXES) for d in dirs) or name.startswith("test_") or ".test." in name or ".spec." in name or name.endswith(("_test.go", "_test.py", "_spec.rb")) or name == "conftest.py":
        return "test"
    if _EXAMPLES & set(dirs):
        return "example"
    return "production"


WALK_KIND = {"production": 0, "test": 1}  # the order a lazy prefilter walks a scope in
CITED = ("production", "test", "example", "vendored")  # the order `cite` reads candidates in
ASIDE_KIND = 2  # examples and vendored code, together
# One step of a lazy prefilter: its files in walk order (kind, path, language), and in listing order.
Block = tuple[list[tuple[int, str, "Language"]], list[tuple[str, "Language"]]]


def walk_key(path: str, data: bytes) -> tuple[int, int, str]:
    """The order a lazy prefilter walks files in (`Walks.order`): how the arena lays out what it holds, so
    that each block a walk judges is one run of its bytes."""
    return WALK_KIND.get(classify(path), ASIDE_KIND), len(data), path


class Listing:
    """The source files of one scope, with what every search of it needs worked out once."""

    def __init__(
        self, files: list[tuple[str, Language]], others: int, staged: Mapping[str, str], clean: Mapping[str, str], holds: Callable[[str], bool]
    ) -> None:
        self.files = files
        self.holds = holds  # whether a listed file of the checkout is in this scope: one that comes or goes changes it
        self.others = others
        self.clean = clean
        self._staged = staged
        self._named: str | None = None
        self.unclean = [(path, language) for path, language in files if path not in clean]
        self.language = dict(files)
        self._counts: dict[str, int] | None = None  # files per language name, once files come or go
        self.languages = {language.name: language for _, language in files}
        self._under: dict[str, set[str]] | None = None
        # What a lazy prefilter walks (`Walks.order`), worked out on first use; dropped
        # when a file changes, and worked out anew while a file is unreadable.
        self.walk_order: list[Block] | None = None
        self.walk_skipped: list[str] = []
        self.walk_unreadable: list[str] = []
        self.walk_whole = False  # its bytes do not fit in memory: searches judge every file at one read
        self.read = False  # a search judged every file (and kept their bytes, as far as they fit)

    @property
    def staged(self) -> str | None:
        """Names the tree state of the scope's tracked files (as staged); None outside git."""
        if self._named is None and self._staged:
            tracked = [f"{path}\0{self._staged[path]}" for path, _ in self.files if path in self._staged]
            self._named = digests.sha1("\0".join(tracked).encode("utf-8", "surrogateescape")).hexdigest()
        return self._named

    def came(self, path: str, language: Language | None) -> None:
        """A file the checkout's listing took in since (`Scopes.patch`); `language` None: none parses it."""
        if language is None:
            self.others += 1
            return
        counts = self._counted()  # before the file is in
        bisect.insort(self.files, (path, language), key=_path_of)
        self.language[path] = language
        counts[language.name] = counts.get(language.name, 0) + 1
        self.languages.setdefault(language.name, language)
        if path not in self.clean:
            bisect.insort(self.unclean, (path, language), key=_path_of)
        if self._under is not None:
            for part in path.split("/")[:-1]:
                self._under.setdefault(part, set()).add(path)
        self._changed()

    def went(self, path: str) -> None:
        """A file the checkout's listing no longer holds (`Scopes.patch`)."""
        counts = self._counted()  # before the file is out
        language = self.language.pop(path, None)
        if language is None:
            self.others -= 1
            return
        del self.files[bisect.bisect_left(self.files, path, key=_path_of)]
        at = bisect.bisect_left(self.unclean, path, key=_path_of)
        if at < len(self.unclean) and self.unclean[at][0] == path:
            del self.unclean[at]
        counts[language.name] -= 1
        if not counts[language.name]:  # its last file went: searches no longer ask for its needles
            del counts[language.name], self.languages[language.name]
        if self._under is not None:
            for part in path.split("/")[:-1]:
                self._under[part].discard(path)
        self._changed()

    def _counted(self) -> dict[str, int]:
        if self._counts is None:
            self._counts = {}
            for _, language in self.files:
                self._counts[language.name] = self._counts.get(language.name, 0) + 1
        return self._counts

    def _changed(self) -> None:
        self._named = None
        self.walk_order = None

    def forget(self, paths: Iterable[str]) -> None:
        """Files edited since git listed them: git no longer vouches for them (`Repository.forget`)."""
        paths = {path for path in paths if path in self.language}
        if paths:
            self.walk_order = None  # sizes and readability may have changed
        known = {path for path, _ in self.unclean}
        edited = {path for path in paths if path not in self.clean and path not in known}
        if edited:
            self.unclean = [(path, language) for path, language in self.files if path in known or path in edited]

    def matters(self, path: str, wanted: Mapping[str, Sequence[bytes]], data: Callable[[str], bytes | None]) -> bool:
        """Whether a changed file could change a search of this listing that ruled it out by its
        bytes: it is in scope and its new bytes (`data`, None when unreadable) hold one of its
        language's needles, or the search asked none of its language (the first file of it came since)."""
        language = self.language.get(path)
        if language is None:
            return False
        needles = wanted.get(language.name)
        if needles is None:
            return True
        content = data(path)
        return content is None or any(needle in content for needle in needles)

    def under(self, directory: str) -> set[str]:
        """The paths with a directory of this name among their parents (an index built on first use)."""
        if self._under is None:
            self._under = {}
            for path, _ in self.files:
                for part in path.split("/")[:-1]:
                    self._under.setdefault(part, set()).add(path)
        return self._under.get(directory, set())

    def forced(self, inside: Callable[[Language], str | None] | None) -> set[str]:
        """The files a search's `inside` rule forces in: those of each language under the directory it names."""
        found: set[str] = set()
        for language in self.languages.values():
            directory = inside(language) if inside is not None else None
            if directory:
                found |= {path for path in self.under(directory) if self.language[path] is language}
        return found

    def forces(self, inside: Callable[[Language], str | None] | None, every: bool) -> Callable[[str], bool]:
        """A test of a file that came or went: whether a search of this listing takes it whatever its bytes
        (`every` source file, or one `forced` by `inside`), so that its coming changes the search."""

        def forced(path: str) -> bool:
            language = self.language.get(path)
            if language is None or every:
                return language is not None
            directory = inside(language) if inside is not None else None
            return bool(directory) and directory in path.split("/")[:-1]

        return forced

    def still_clean(self, paths: Iterable[str]) -> set[str]:
        """Those of `paths` in this listing whose working copy git still vouches for."""
        return {path for path in paths if path in self.clean and path in self.language}

    def undecided(self, known: Recorded | None) -> list[tuple[str, Language]]:
        """The files a remembered prefilter does not speak for (all of them without one), in listing order."""
        if known is None:
            return self.files
        stale = [(path, self.language[path]) for path in self.still_clean(known.uncovered)]
        return sorted([*self.unclean, *stale]) if stale else self.unclean


def _path_of(entry: tuple[str, Language]) -> str:
    return entry[0]


class Scopes:
    """The listings of a checkout's scopes, each worked out once, and which language parses a path."""

    def __init__(self, context: Context) -> None:
        self.context = context
        self.listings: dict[str | None, Listing] = {}

    def kept_from(self, old: Scopes) -> None:
        """Take over `old`'s listings of a checkout not listed again, with git's new word on which files are clean."""
        repo = self.context.repo
        self.listings = {
            scope: Listing(listing.files, listing.others, repo.staged_blob_ids, repo.blob_ids, listing.holds) for scope, listing in old.listings.items()
        }

    def forget(self, stale: set[str], relisted: bool) -> None:
        if relisted:
            self.listings = {}
        else:
            for listing in self.listings.values():
                listing.forget(stale)

    def patch(self, added: set[str], removed: set[str]) -> None:
        """Files the checkout's listing took in or let go one by one (`Listing.patch` of the checkout):
        each listing of a scope that holds them follows."""
        for listing in self.listings.values():
            for path in sorted(added):
                if listing.holds(path):
                    listing.came(path, self.language(path))
            for path in removed:
                if listing.holds(path):
                    listing.went(path)

    def language(self, path: str) -> Language | None:
        language = self.context.registry.language_for(path)
        return language if language is not None and language.extract is not None else None

    def listing(self, scope: str | None) -> Listing:
        if scope not in self.listings:
            # Listed paths, not `files`: the search reads each candidate anyway and tells binary
            # and oversized files from those bytes, instead of opening every file twice.
            supported, others = [], 0
            for at, path in enumerate(self.context.repo.paths(scope)):
                if not at % 4096:
                    self.context.check_deadline()  # a language lookup per path: 50,000 of them take a while
                language = self.language(path)
                if language is None:
                    others += 1
                else:
                    supported.append((path, language))
            repo = self.context.repo
            self.listings[scope] = Listing(supported, others, repo.staged_blob_ids, repo.blob_ids, repo.holds(scope))
        return self.listings[scope]
