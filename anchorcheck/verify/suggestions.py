"""From prose to typed anchors: propose, for a memory's text, the anchors that hold now.

The verify-on-read experiments ended on one lesson: anchors must be typed
when the memory is written, because guessing from prose at read time gives
false verdicts. This module is that write path. It reads a memory's text
for forms that name code, turns each into a typed anchor, and proposes it
only when the Verifier says VERIFIED now, so that later drift refutes it:

- inline code `path::Name`, or a qualified name (`RedisCache.get`, in code
  or CamelCase/dotted in prose) that exactly one file defines → `sym:`
  (the module form `sym:py:` for Python when it resolves);
- an environment variable name that code reads or config defines → `env:`;
- a package the manifests declare, named in the text ("Redis", "zod") →
  `pkg:ECOSYSTEM/NAME` (with `@VERSION` when the text states one the lock
  agrees with), plus `import:MODULE in:SCOPE` where SCOPE is the production
  code that imports it, never tests or examples (the present trap);
- an explicit negation ("we do not use Celery") of a package absent from
  complete manifests → `!pkg:…`;
- `path:L10-L20` (or `path#L10-L20`), or a quoted code passage found at
  exactly one place → a banked `span:` (its citation rides along);
- paths, commands and install commands, read by the implicit-reference
  reader (`anchorcheck.memory.references`) as `check` reads them → `file:` (when
  exactly one reading of the path exists), `cmd:` (from the first folder
  it verifies in), `pkg:`.

Precision first: nothing ambiguous is proposed (two files define the name,
the word is also an English word with no code context, a package name two
ecosystems share is proposed only as the any-ecosystem shorthand). Only
public capabilities are used: the Verifier, the registry's ecosystems and
the source index's facts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from anchorcheck.memory import implicit
from anchorcheck.model.anchors import AnchorSyntaxError, encode_path, format_anchor
from anchorcheck.model.citation import Citation
from anchorcheck.spans.citation import BankError, bank
from anchorcheck.evidence.goals import Goal
from anchorcheck.evidence.index import SourceIndex
from anchorcheck.evidence.listing import classify
from anchorcheck.memory.memoryfiles import code_spans, looks_like_anchor
from anchorcheck.model.results import HIGH, MEDIUM, AnchorResult, Suggestion, Verdict
from anchorcheck.evidence.packages import LOCKED, PROJECT, PackageIndex
from anchorcheck.memory.references import read_references, runner_claims
from anchorcheck.repo.paths import UnsafePathError
from anchorcheck.verify.verifier import Verifier

_WORD = re.compile(r"[A-Za-z@][\w@/.+-]*\w|[A-Za-z]")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_ENV_IN_PROSE = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")
_ENV_IN_CODE = re.compile(r"\$?\{?([A-Z][A-Z0-9_]{2,})\}?")
_LINES = re.compile(r"^(?P<path>[^\s:#`]+?)(?::L?|#L)(?P<start>\d+)(?:-L?(?P<end>\d+))?$")
_LINES_AFTER = re.compile(r"\s*,?\s*lines?\s+(?P<start>\d+)(?:\s*(?:-|–|to|and)\s*(?P<end>\d+))?")
_VERSION = re.compile(r"(?:\s*(?:==|@|:)\s*|\s+(?:v|version\s+)?)v?(\d+(?:\.\d+){1,3})\b")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\(\s*|[-*]\s+)$")
_USE_VERB = r"use|uses|using|need|needs|depend\s+on|depends\s+on|rely\s+on|relies\s+on"
_DEPENDENCY_VERB = r"add|adds|install|installs|import|imports|require|requires|pull\s+in|pulls\s+in"
# "do not use Celery", "never add `lodash`": the verb is required, so "never inlined", "not ovbious" are no cue.
_NEGATION = re.compile(
    r"\b(?:(?:(?:do|does|did|must|should|will)\s+not|(?:do|does|did|must|should)n['’]t|won['’]t|never|no\s+longer)\s+"
    rf"(?:(?P<use>{_USE_VERB})|(?P<dependency>{_DEPENDENCY_VERB}))|(?P<done>stopped\s+using|got\s+rid\s+of|dropped|removed))"
    r"\s+(?:a\s+|an\s+|the\s+|any\s+)?`?$",
    re.IGNORECASE,
)
_NOT_A_DEPENDENCY = re.compile(r"`?\s+(?:is|are)\s+(?:not|no\s+longer)\s+(?:a\s+|an\s+)?(?:dependency|dependencies)\b", re.IGNORECASE)
_PACKAGE_NAME = re.compile(r"(?:@[a-z0-9][\w.-]*/)?[A-Za-z][\w.-]*")
_PROPER_NOUN = re.compile(r"[A-Z][a-z0-9]+")  # "Celery", "Redis": not "APIs", "NEVER", "Vite-only"
_CONTRAST = re.compile(r"\b(?:instead\s+of|rather\s+than|unlike|not)\s+(?:[\w-]+\s+){0,2}$", re.IGNORECASE)
_CUES = frozenset({"library", "libraries", "package", "packages", "dependency", "dependencies", "framework", "module", "crate", "gem", "client", "sdk", "driver", "plugin", "orm"})
# Words of the trade that name a language, a format or a layer far more often than a package.
_GENERIC = frozenset(
    "go api apis json yaml toml xml html css sql sqlite http https grpc cli ui web app core config internal common "
    "utils util tools test tests types log logs files sdk client server ai next diff url path os io time data".split()
)
_NAME_AFFIXES = ("-sdk", "-client", "-python", "-py", "-js", ".js", "-rs", "python-", "py-", "node-")
_PACKAGE_WORD = re.compile(r"@?[A-Za-z][\w.+-]*(?:/[\w.+-]+)*")
_PASSAGE_MIN = 12
_CAMEL_HUMP = re.compile(r"[a-z0-9][A-Z]")
_FILE_EXTENSIONS = frozenset(
    "md mdx txt rst json jsonc yaml yml toml lock ini cfg sh bash py pyi js mjs cjs jsx ts mts cts tsx rs go rb java kt c h "
    "cpp hpp cs php html css scss vue svelte sql xml csv".split()
)
MAX_PASSAGE_FILES = 20000  # a checkout with more text files places no quoted passage (uniqueness costs a full scan)
MAX_DEFINER_BYTES = 1024 * 1024  # bytes of the files that may define a name, past which no sym: is proposed for it
# A goal met before any file is parsed: the search lists the files whose bytes hold a needle, and stops.
_LIST_ONLY = Goal(lambda path, facts: False, files=0)
PASSAGE_MEMORY = 64 * 1024 * 1024  # bytes of files kept between passages; past this they are read again


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
class _Mention:
    """A word or code span of the text: where it is, and whether it is code."""

    text: str
    start: int
    code: bool


class Suggester:
    """Proposes anchors for memories of one checkout; keeps what it learns about the code between memories."""

    def __init__(self, verifier: Verifier) -> None:
        self.verifier = verifier
        self._defs: dict[str, set[str]] = {}  # name -> the files that define it, for the names looked up
        self._packages: dict[str, list[tuple[str, str, bool]]] | None = None
        self._home: str | None = None
        self._package_indexes: list[tuple[str, PackageIndex]] | None = None
        self._checked: dict[str, AnchorResult] = {}
        self._bytes: dict[str, bytes] = {}
        self._files: list[str] | None = None
        self._bytes_left = PASSAGE_MEMORY

    # -- public ------------------------------------------------------------------

    def suggest(self, text: str, existing: Iterable[str] = (), folder: str = "") -> list[Suggestion]:
        """The anchors to add to a memory with this text (and these anchors already), each once.

        `folder` is the repo-relative folder of the memory file: a nested
        AGENTS.md writes paths and runs commands relative to it.
        """
        have = {self._normal(a) for a in existing}
        found: dict[str, Suggestion] = {}
        for suggestion in self._candidates(text, folder):
            key = self._normal(suggestion.anchor)
            if key in have or key in found:
                continue
            if suggestion.citation is not None:  # a span is checked with the citation just banked
                result = self.verifier.check(Citation.from_dict(suggestion.citation))
            else:
                result = self._check(suggestion.anchor)
            if result.verdict is not Verdict.VERIFIED:
                continue
            suggestion.evidence = suggestion.evidence or result.evidence[:3]
            found[key] = suggestion
        return list(found.values())

    # -- candidates ----------------------------------------------------------------

    def _candidates(self, text: str, folder: str = "") -> Iterator[Suggestion]:
        codes, prose = _split(text)
        yield from self._spans(text, codes)
        yield from self._references(text, folder)
        yield from self._symbols(codes, prose)
        yield from self._env(codes, prose)
        negated = set()
        for suggestion in self._negations(text, codes, prose):
            negated.add(suggestion.mention)
            yield suggestion
        yield from self._packages_named(text, [m for m in codes + prose if m.text not in negated])

    def _references(self, text: str, folder: str) -> Iterator[Suggestion]:
        """Paths, commands and install commands, read as `check` reads implicit references."""
        repo, registry = self.verifier.repo, self.verifier.registry
        kinds = {"file", "cmd", "pkg"} & set(registry.kinds)
        roots = implicit.root_names(registry)
        for ref in read_references(text, claims=runner_claims(registry), kinds=kinds) if kinds else ():
            ref = ref._replace(folder=folder)
            if ref.kind == "file":
                if not implicit.keep(ref, repo, roots):
                    continue
                there = [p for p in implicit.readings(ref, repo, roots) if repo.exists(p)]
                if there and (len(there) == 1 or there[0] == ref.value.rstrip("/")):  # else two readings exist: ambiguous
                    yield Suggestion(f"file:{encode_path(there[0])}", f"the text names the path {ref.written}", confidence=HIGH, mention=ref.written)
            elif ref.kind == "cmd":
                for anchor in implicit.command_readings(ref, repo):
                    if self._check(anchor).verdict is Verdict.VERIFIED:
                        yield Suggestion(anchor, f"the text names the command {ref.written}", confidence=HIGH, mention=ref.written)
                        break
            else:
                yield Suggestion(ref.anchor, f"the text installs it: {ref.written}", confidence=HIGH, mention=ref.written)

    def _spans(self, text: str, codes: list[_Mention]) -> Iterator[Suggestion]:
        repo = self.verifier.repo
        for mention in codes:
            match = _LINES.match(mention.text)
            if match and not looks_like_anchor(mention.text):
                yield from self._banked(match.group("path"), match.group("start"), match.group("end"), mention.text)
                continue
            after = _LINES_AFTER.match(text, mention.start + len(mention.text) + 1)
            if after and repo.is_file(mention.text):
                yield from self._banked(mention.text, after.group("start"), after.group("end"), mention.text)
            elif _is_passage(mention.text):
                yield from self._passage(mention.text)
        for block in re.finditer(r"```[^\n]*\n(.*?)```", text, re.DOTALL):
            yield from self._passage(block.group(1))

    def _banked(self, path: str, start: str, end: str | None, mention: str) -> Iterator[Suggestion]:
        try:
            citation = bank(self.verifier.repo, path, int(start), int(end or start))
        except (BankError, ValueError):
            return
        reason = f"the text cites {path} lines {citation.start_line}-{citation.end_line}; banked now, so a change refutes it"
        yield Suggestion(citation.anchor_text(), reason, confidence=HIGH, mention=mention, citation=citation.to_dict())

    def _passage(self, passage: str) -> Iterator[Suggestion]:
        """A quoted passage found at exactly one place of the checkout, as a banked span."""
        wanted = [line.strip() for line in passage.strip("\n").splitlines()]
        if not wanted or not any(wanted):
            return
        needle = wanted[0].encode("utf-8")
        places = []
        files = self._text_files()
        if len(files) > MAX_PASSAGE_FILES:
            return  # too many files to be sure a passage is found once only
        for path in files:
            data = self._file_bytes(path)
            if needle not in data:
                continue  # the first line is not there: no need to split the file
            lines = data.decode("utf-8", errors="replace").splitlines()
            for index in range(len(lines) - len(wanted) + 1):
                if all(lines[index + k].strip() == wanted[k] for k in range(len(wanted))):
                    places.append((path, index + 1))
                    if len(places) > 1:
                        return  # two places hold it: ambiguous
        if len(places) == 1:
            path, start = places[0]
            for suggestion in self._banked(path, str(start), str(start + len(wanted) - 1), wanted[0]):
                suggestion.reason = f"the quoted passage is at {path} lines {start}-{start + len(wanted) - 1}, and nowhere else"
                yield suggestion

    def _symbols(self, codes: list[_Mention], prose: list[_Mention]) -> Iterator[Suggestion]:
        named: list[tuple[_Mention, str, str]] = []
        for mention in codes + prose:
            name = mention.text
            if mention.code and "::" in name:
                yield Suggestion(f"sym:{encode_path(name.split('::', 1)[0])}::{name.split('::', 1)[1]}", f"the text names {name}", confidence=HIGH, mention=name)
                continue
            name = name.rstrip("()")
            confidence = _naming(name, mention.code)
            if confidence is not None:
                named.append((mention, name, confidence))
        self._look_up([name for _, name, _ in named])
        for mention, name, confidence in named:
            paths = self._defs.get(name, set())
            if len(paths) != 1:
                continue  # nothing, or two files define it: ambiguous
            [path] = paths
            reason = f"the text names {name}, and {path} is the one file that defines it"
            module = self._module_form(path, name)
            yield Suggestion(module or f"sym:{encode_path(path)}::{name}", reason, confidence=confidence, mention=mention.text)

    def _env(self, codes: list[_Mention], prose: list[_Mention]) -> Iterator[Suggestion]:
        seen = set()
        for mention in codes:
            match = _ENV_IN_CODE.fullmatch(mention.text)
            if match and match.group(1) not in seen:
                seen.add(match.group(1))
                yield Suggestion(f"env:{match.group(1)}", f"the text names the environment variable {match.group(1)}", confidence=HIGH, mention=mention.text)
        for mention in prose:
            for match in _ENV_IN_PROSE.finditer(mention.text):
                if match.group(0) not in seen:
                    seen.add(match.group(0))
                    yield Suggestion(f"env:{match.group(0)}", f"the text names the environment variable {match.group(0)}", confidence=HIGH, mention=match.group(0))

    def _negations(self, text: str, codes: list[_Mention], prose: list[_Mention]) -> Iterator[Suggestion]:
        for mention in codes + prose:
            word = mention.text.rstrip(".,;:")
            cue = _negation_cue(text, mention, word)
            if cue is None:
                continue
            home = self._home_ecosystem()
            if home is None:
                return
            name = _purl_name(word.lower())
            target = f"{home}/{name}" if home else name
            reason = f"the text says {word} is not a dependency ('{cue}'), and no complete manifest declares it"
            yield Suggestion(f"!pkg:{target}", reason, confidence=MEDIUM, mention=mention.text)

    def _packages_named(self, text: str, mentions: list[_Mention]) -> Iterator[Suggestion]:
        table = self._package_table()
        for mention in mentions:
            word = mention.text if mention.code else mention.text.strip("'\".,;:()")
            if mention.code and not _PACKAGE_WORD.fullmatch(word):
                continue  # `url()`, `redis.get`: code, but not a package's name
            named = table.get(word.lower(), [])
            if not mention.code and (word.lower() in _GENERIC or (word.isupper() and len(word) <= 5)):
                continue  # "Go", "JSON", "API", "AI": a language, a format, an acronym, not a package
            # a Go module's last path segment never stands for a generic or English word in prose
            matches = [(eco, name) for eco, name, exact in named if exact or (word.lower() not in _GENERIC and (mention.code or not is_english(word)))]
            if not matches or not self._code_context(text, mention, word):
                continue
            if _CONTRAST.search(text[max(0, mention.start - 40) : mention.start]):
                continue  # "instead of a live Redis server": named, but as what is not used
            if len({eco for eco, _ in matches}) > 1:
                yield Suggestion(f"pkg:{word.lower()}", f"the text names {word}, which the manifests of several ecosystems declare", confidence=MEDIUM, mention=mention.text)
                continue
            ecosystem, name = matches[0]
            purl = f"pkg:{ecosystem}/{_purl_name(name)}"
            version = _VERSION.match(text, mention.start + len(mention.text))
            if version and self._check(f"{purl}@{version.group(1)}").verdict is not Verdict.VERIFIED:
                continue  # the text states a version the lock does not hold: a weaker anchor would hide that
            if version:
                reason = f"the text names {word} {version.group(1)}, and the lock agrees"
                yield Suggestion(f"{purl}@{version.group(1)}", reason, confidence=HIGH, mention=mention.text)
            else:
                yield Suggestion(purl, f"the text names {word}, which the manifests declare", confidence=HIGH if mention.code else MEDIUM, mention=mention.text)
            scoped = self._scoped_import(purl, ecosystem, name)
            if scoped is not None:
                scoped.mention = mention.text
                yield scoped

    # -- what the code says -------------------------------------------------------

    def _check(self, anchor: str) -> AnchorResult:
        if anchor not in self._checked:
            self._checked[anchor] = self.verifier.check(anchor)
        return self._checked[anchor]

    def _normal(self, anchor: object) -> str:
        try:
            return format_anchor(self.verifier.parse(anchor)) if isinstance(anchor, str) else str(anchor)
        except AnchorSyntaxError:
            return str(anchor).strip()

    def _look_up(self, names: list[str]) -> None:
        """Which files define each name, for the names not looked up yet.

        Only files whose bytes hold a name's longest segment can define it
        (`RedisCache.get` is defined where `RedisCache` is written), so a
        prefiltered search parses those alone, not the whole tree (a cold
        first run on uv's checkout took a minute). A name written in files of
        more than MAX_DEFINER_BYTES together is left out before anything is
        parsed: proving that one of them alone defines it costs more than a
        proposal is worth (by size, whatever the cache holds, so that a cold
        and a warm run propose the same).
        A candidate too large to parse makes every name of the search
        ambiguous: it may define them.
        """
        index = SourceIndex.of(self.verifier.context)
        wanted = sorted({name for name in names if name not in self._defs})
        for name in wanted:
            holding = index.search(None, lambda language, name=name: [_needle(name).encode("utf-8")], goal=_LIST_ONLY)
            if sum(self._size(path) for path in holding.candidates) > MAX_DEFINER_BYTES:
                self._defs[name] = set()  # unknown, and never proposed
        wanted = [name for name in wanted if name not in self._defs]
        if not wanted:
            return
        needles = sorted({_needle(name).encode("utf-8") for name in wanted})
        search = index.search(None, lambda language: needles)
        found: dict[str, set[str]] = {name: set(search.unreadable) for name in wanted}
        for path, facts in search.hits:
            if classify(path) == "vendored":
                continue
            for qualified, _ in facts.defs:
                if qualified in found:
                    found[qualified].add(path)
        self._defs.update(found)

    def _size(self, path: str) -> int:
        try:
            return self.verifier.repo.resolve(path).stat().st_size
        except (OSError, UnsafePathError):
            return 0

    def _module_form(self, path: str, name: str) -> str | None:
        """`sym:py:package.module.Name` when it resolves to this file (tried for each plausible source root)."""
        if not path.endswith(".py"):
            return None
        parts = path[:-3].split("/")
        if parts[-1] == "__init__":
            parts = parts[:-1]
        for first in reversed(range(len(parts))):  # the shortest module path that resolves to this file
            dotted = ".".join([*parts[first:], name])
            if not all(p.isidentifier() for p in parts[first:]):
                continue
            result = self._check(f"sym:py:{dotted}")
            if result.verdict is Verdict.VERIFIED and any(e.path == path for e in result.evidence):
                return f"sym:py:{dotted}"
        return None

    def _home_ecosystem(self) -> str | None:
        """The ecosystem a negated package is judged in: the only one with manifests, else the only
        one with a manifest at the top of the checkout, else "" (any ecosystem: the shorthand)."""
        if self._home is None:
            present = [(name, index) for name, index in self._indexes() if index.manifests]
            top = [name for name, index in present if any("/" not in m.file for m in index.manifests)]
            self._home = present[0][0] if len(present) == 1 else top[0] if len(top) == 1 else ""
        return self._home if self._indexes() else None

    def _indexes(self) -> list[tuple[str, PackageIndex]]:
        """What each ecosystem's manifests declare, read once."""
        if self._package_indexes is None:
            self._package_indexes = []
            for name, ecosystem in sorted(self.verifier.registry.ecosystems.items()):
                try:
                    self._package_indexes.append((name, ecosystem.read(self.verifier.context, None)))
                except Exception:  # noqa: BLE001 - a reader that fails proposes nothing, it never stops the others
                    continue
        return self._package_indexes

    def _package_table(self) -> dict[str, list[tuple[str, str, bool]]]:
        """Lower-cased word → (ecosystem, name, whether the word is the name itself) for every
        package a manifest declares (not one only locked)."""
        if self._packages is None:
            table: dict[str, set[tuple[str, str, bool]]] = {}
            for ecosystem, index in self._indexes():
                for decl in index.declarations:
                    if decl.relation in (LOCKED, PROJECT):
                        continue
                    spellings, last = _spellings(decl.written or decl.name, ecosystem)
                    for word in spellings:
                        table.setdefault(word, set()).add((ecosystem, decl.name, word != last))
            self._packages = {word: sorted(found) for word, found in table.items()}
        return self._packages

    def _code_context(self, text: str, mention: _Mention, word: str) -> bool:
        """A word names a package in code, beside a cue word ("the click library", "the Sentry SDK"), or
        when it is no plain English word ("Redis", "zod", "TypeScript"). An English word needs one of the first two, even
        capitalised: "changes for Windows" names the system, not the `windows` crate."""
        return mention.code or _beside_cue(text, mention) or _distinctive(word) or not is_english(word)

    def _scoped_import(self, purl: str, ecosystem: str, name: str) -> Suggestion | None:
        """`import:MODULE in:SCOPE`, SCOPE the production code that imports the package, or None."""
        module = self._module_of(purl, ecosystem, name)
        if module is None:
            return None
        result = self._check(f"import:{module}")
        if result.verdict is not Verdict.VERIFIED:
            return None
        production = sorted({e.path for e in result.evidence if classify(e.path) == "production"})
        if not production:
            return None  # imported only by tests or examples: a present trap, not a use
        scope = production[0] if len(production) == 1 else _common_directory(production)
        if scope is None or any(classify(p) != "production" for p in self.verifier.repo.files(scope)):
            return None  # no production scope that keeps tests and examples out
        reason = f"production code imports {module} ({', '.join(production[:3])}); scoped so a use in tests or elsewhere does not verify it"
        return Suggestion(f"import:{module} in:{encode_path(scope)}", reason, confidence=MEDIUM)

    def _module_of(self, purl: str, ecosystem: str, name: str) -> str | None:
        """The module name the code imports the package by: as imported where the pkg: result saw it."""
        if ecosystem == "pypi":
            where = self._check(purl).details.get("imported_at")
            if not isinstance(where, str) or ":" not in where:
                return None
            path, line = where.rsplit(":", 1)
            facts = SourceIndex.of(self.verifier.context).facts(path)
            modules = [m for m, at, _ in (facts.imports if facts else []) if str(at) == line and not m.startswith(".")]
            return modules[0] if modules else None
        if ecosystem in ("npm", "golang"):
            return name
        if ecosystem == "cargo":
            return name.replace("-", "_")
        return None

    def _text_files(self) -> list[str]:
        if self._files is None:
            self._files = [p for p in self.verifier.repo.files() if classify(p) != "vendored"]
        return self._files

    def _file_bytes(self, path: str) -> bytes:
        """A file's bytes, kept for the next passage while the budget lasts (then read again)."""
        if path in self._bytes:
            return self._bytes[path]
        try:
            data = self.verifier.repo.read_bytes(path)
        except OSError:
            data = b""
        if self._bytes_left >= len(data):
            self._bytes[path] = data
            self._bytes_left -= len(data)
        return data


def suggest(root: str | Path | Verifier, text: str, existing: Iterable[str] = ()) -> list[Suggestion]:
    """The typed anchors that hold now for a memory with this text (those in `existing` left out)."""
    verifier = root if isinstance(root, Verifier) else Verifier(root)
    return Suggester(verifier).suggest(text, existing)


def _split(text: str) -> tuple[list[_Mention], list[_Mention]]:
    """The code spans (not anchors) and the words of the prose outside them."""
    codes: list[_Mention] = []
    prose: list[_Mention] = []
    spans = code_spans(text)
    for span in spans:
        content = span.group(2).strip()
        if not looks_like_anchor(content):
            codes.append(_Mention(content, span.start(2) + span.group(2).index(content[:1] or " "), True))
    for gap_start, gap_end in _gaps(text, spans):
        for word in _WORD.finditer(text, gap_start, gap_end):
            prose.append(_Mention(word.group(0).rstrip("."), word.start(), False))
    return codes, prose


def _gaps(text: str, spans: list[re.Match[str]]) -> Iterator[tuple[int, int]]:
    at = 0
    for span in spans:
        yield at, span.start()
        at = span.end()
    yield at, len(text)


def _distinctive(name: str) -> bool:
    """snake_case (`MAX_RETRIES`) or CamelCase inside (`runVitest`, `RedisCache`): no word of prose
    (a plural acronym, "IDs", "APIs", is one)."""
    return "_" in name.strip("_") or bool(_CAMEL_HUMP.search(name))


def _naming(name: str, code: bool) -> str | None:
    """How surely a name written in the text names one definition: the confidence, or None.

    A dotted name or a distinctive identifier in inline code names a
    definition (high; medium in prose, where only those forms are read). A
    plain word does not, even in code: `stderr`, `finalize` or `helper` is
    a value or a verb more often than the one file that happens to define
    it; a capitalised word that is no English word (`Suggester`) is a
    class name, medium.
    """
    if not _IDENT.fullmatch(name) or len(_needle(name)) < 3:
        return None
    if "." in name:
        parts = name.split(".")
        if parts[-1].lower() in _FILE_EXTENSIONS:
            return None  # `README.md`, `run.ts`, "Node.js": a file's name (read as a path), no definition's
        return HIGH if all(len(part) > 1 for part in parts) else None
    if _distinctive(name):
        return HIGH if code else MEDIUM
    if code and name[:1].isupper() and name[1:].islower() and not is_english(name):
        return MEDIUM
    return None


def _needle(name: str) -> str:
    """The bytes every file defining the name holds: its longest segment."""
    return max(name.split("."), key=len)


def _negation_cue(text: str, mention: _Mention, word: str) -> str | None:
    """The words that say a mention names a package the project does not use, or None.

    A positive signal, not only a filter: "X is not a dependency"; a
    negated dependency verb before inline code ("never add `lodash`"); a
    negated use before a cue word ("we don't use the requests library") or
    before a proper noun mid-sentence ("we do not use Celery"). A plain or
    misspelt word ("never inlined", "not ovbious"), a flag ("NEVER USE
    `-w`") and inline code after a mere "do not use" (`any`, `unwrap`) are
    not read.
    """
    if not _PACKAGE_NAME.fullmatch(word) or (not mention.code and "/" in word):
        return None
    after = _NOT_A_DEPENDENCY.match(text, mention.start + len(mention.text))
    if after and (mention.code or not is_english(word) or _PROPER_NOUN.fullmatch(word) and not _at_sentence_start(text, mention.start)):
        return f"{word}{after.group(0).lstrip('`')}"
    cue = _NEGATION.search(text[max(0, mention.start - 60) : mention.start])
    if cue is None:
        return None
    said = f"{cue.group(0).strip().rstrip('`')} {word}"
    if _beside_cue(text, mention, after_only=True):
        return said
    if mention.code:
        return said if cue.group("dependency") or word.startswith("@") else None
    proper = _PROPER_NOUN.fullmatch(word) and not _at_sentence_start(text, mention.start)
    return said if cue.group("use") and proper else None


def _beside_cue(text: str, mention: _Mention, after_only: bool = False) -> bool:
    """Whether a cue word (library, package, crate, SDK, ...) is right after the mention, or right before it."""
    end = mention.start + len(mention.text)
    after = re.match(r"[`'\"]?\s+([A-Za-z]+)", text[end : end + 30])
    if after and after.group(1).lower() in _CUES:
        return True
    before = re.search(r"([A-Za-z]+)\s+[`'\"]?$", text[max(0, mention.start - 30) : mention.start])
    return not after_only and bool(before) and before.group(1).lower() in _CUES


def _at_sentence_start(text: str, start: int) -> bool:
    return bool(_SENTENCE_START.search(text[max(0, start - 4) : start])) or start == 0


def _is_passage(code: str) -> bool:
    """Inline code that reads as a line of code (an assignment, a call), long enough to be placed."""
    return len(code) >= _PASSAGE_MIN and " " in code and bool(re.search(r"[=(){};]", code))


def _spellings(name: str, ecosystem: str) -> tuple[set[str], str | None]:
    """How prose names a package: its name, without -sdk/-client/py- affixes, and a Go module's
    last segment (returned apart: a path segment is a weaker spelling than a name)."""
    lower = name.lower()
    found = {lower, lower.replace("_", "-"), lower.replace("-", "_")}
    for affix in _NAME_AFFIXES:
        if lower.endswith(affix) and len(lower) > len(affix) + 2:
            found.add(lower[: -len(affix)])
        if lower.startswith(affix) and len(lower) > len(affix) + 2:
            found.add(lower[len(affix) :])
    last = None
    if ecosystem == "golang":
        segments = lower.rstrip("/").split("/")
        last = segments[-2] if re.fullmatch(r"v\d+", segments[-1]) and len(segments) > 1 else segments[-1]
        last = None if last in found else last
        found.add(last or lower)
    return found, last


def _purl_name(name: str) -> str:
    return name.replace("@", "%40") if name.startswith("@") else name


def _common_directory(paths: list[str]) -> str | None:
    """The deepest directory holding every path (`dir/`), None at the top level."""
    parts = [p.split("/")[:-1] for p in paths]
    common = []
    for segments in zip(*parts):
        if len(set(segments)) != 1:
            break
        common.append(segments[0])
    return "/".join(common) + "/" if common else None
