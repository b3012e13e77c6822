"""Packages named in a memory's prose: which the manifests declare, which the text says are not used.

A word names a package when a manifest declares it under that spelling
(`-sdk`, `py-` and the like dropped, a Go module's last segment) and the text
gives it code context: inline code, a cue word ("the click library"), or a word
no English prose uses. A package stated as not used ("we do not use Celery")
is proposed negated, judged in the checkout's home ecosystem. A package that
production code imports also gets a scoped `import:` (never tests or examples:
the present trap). `PackageMentions` is the part of `Suggester` that does this.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from anchorcheck.base.english import is_english
from anchorcheck.evidence.index import SourceIndex
from anchorcheck.evidence.listing import classify
from anchorcheck.evidence.packages import LOCKED, PROJECT, PackageIndex
from anchorcheck.model.anchors import encode_path
from anchorcheck.model.results import HIGH, MEDIUM, Suggestion, Verdict
from anchorcheck.verify.wording import FILE_EXTENSIONS, Mention, distinctive

if TYPE_CHECKING:
    from anchorcheck.verify.verifier import Verifier

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
_CONTRAST = re.compile(r"\b(?:instead\s+of|rather\s+than|unlike|not)\s+(?:[\w-]+\s+){0,2}[`'\"]?$", re.IGNORECASE)  # "not `serde_json`" too
_CUES = frozenset({"library", "libraries", "package", "packages", "dependency", "dependencies", "framework", "module", "crate", "gem", "client", "sdk", "driver", "plugin", "orm"})
# Words of the trade that name a language, a format or a layer far more often than a package.
_GENERIC = frozenset(
    "go api apis json yaml toml xml html css sql sqlite http https grpc cli ui web app core config internal common "
    "utils util tools test tests types log logs files sdk client server ai next diff url path os io time data".split()
)
# Protocols: "over WebSocket", "via SSE" name the wire, not a package that speaks it (a cue word or code does).
_PROTOCOLS = frozenset("websocket websockets tcp udp dns ssh smtp sse oauth grpc http2 mqtt".split())
_NAME_AFFIXES = ("-sdk", "-client", "-python", "-py", "-js", ".js", "-rs", "python-", "py-", "node-")
_LOCAL_SPECIFIERS = ("workspace:", "link:", "file:", "portal:")  # a package of this repository, not a dependency
_PACKAGE_WORD = re.compile(r"@?[A-Za-z][\w.+-]*(?:/[\w.+-]+)*")


class PackageMentions:
    """The part of `Suggester` that proposes `pkg:`, `!pkg:` and scoped `import:` anchors."""

    verifier: Verifier
    _packages: dict[str, list[tuple[str, str, bool]]] | None
    _home: str | None
    _package_indexes: list[tuple[str, PackageIndex]] | None
    _own_words: set[str]

    def _negations(self, text: str, codes: list[Mention], prose: list[Mention]) -> Iterator[Suggestion]:
        for mention in codes + prose:
            word = mention.text.rstrip(".,;:")
            cue = _negation_cue(text, mention, word)
            if cue is None:
                continue
            home = self._home_ecosystem()
            if home is None:
                return
            name = word.lower()
            target = f"{home}/{name}" if home else name
            reason = f"the text says {word} is not a dependency ('{cue}'), and no complete manifest declares it"
            yield Suggestion(f"!pkg:{target}", reason, confidence=MEDIUM, mention=mention.text)

    def _packages_named(self, text: str, mentions: list[Mention]) -> Iterator[Suggestion]:
        table = self._package_table()
        for mention in mentions:
            word = mention.text if mention.code else mention.text.strip("'\".,;:()")
            if mention.code and not _PACKAGE_WORD.fullmatch(word):
                continue  # `url()`, `redis.get`: code, but not a package's name
            named = table.get(word.lower(), [])
            if not mention.code and (word.lower() in _GENERIC or (word.isupper() and len(word) <= 5)):
                continue  # "Go", "JSON", "API", "AI": a language, a format, an acronym, not a package
            if not mention.code and word.lower() in self._own_words:
                continue  # "OpenAI" in the openai-agents repository: the maker, named far more often than its `openai` package
            # a Go module's last path segment ("websocket" of github.com/gorilla/websocket) names it in prose only beside a cue word
            matches = [(eco, name) for eco, name, exact in named if exact or mention.code or _beside_cue(text, mention)]
            if not matches or not self._code_context(text, mention, word):
                continue
            if _CONTRAST.search(text[max(0, mention.start - 40) : mention.start]):
                continue  # "instead of a live Redis server": named, but as what is not used
            if len({eco for eco, _ in matches}) > 1:
                yield Suggestion(f"pkg:{word.lower()}", f"the text names {word}, which the manifests of several ecosystems declare", confidence=MEDIUM, mention=mention.text)
                continue
            ecosystem, name = matches[0]
            purl = f"pkg:{ecosystem}/{name}"
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
        package a manifest declares (not one only locked, nor one of the repository's own projects:
        "the published `mcp` wheel" of the mcp SDK names the project, which its examples depend on;
        a monorepo's packages depend on each other through `workspace:` specifiers)."""
        if self._packages is None:
            table: dict[str, set[tuple[str, str, bool]]] = {}
            for ecosystem, index in self._indexes():
                own = {decl.name for decl in index.declarations if decl.relation == PROJECT or decl.specifier.startswith(_LOCAL_SPECIFIERS)}
                self._own_words.update(word for name in own for word in re.split(r"[-_.]", name.lower()))
                for decl in index.declarations:
                    if decl.relation in (LOCKED, PROJECT) or decl.name in own:
                        continue
                    spellings, last = _spellings(decl.written or decl.name, ecosystem)
                    for word in spellings:
                        table.setdefault(word, set()).add((ecosystem, decl.name, word != last))
            self._packages = {word: sorted(found) for word, found in table.items()}
        return self._packages

    def _code_context(self, text: str, mention: Mention, word: str) -> bool:
        """A word names a package in code, beside a cue word ("the click library", "the Sentry SDK"), or
        when it is no plain English word ("Redis", "zod", "TypeScript"). An English word or a protocol needs
        one of the first two, even capitalised: "changes for Windows" names the system, not the `windows`
        crate, "over WebSocket" the wire, not the `websockets` package."""
        if mention.code or _beside_cue(text, mention):
            return True
        return word.lower() not in _PROTOCOLS and (distinctive(word) or not is_english(word))

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
        if not self._only_within(module, module.split(".")[0] if ecosystem == "pypi" else module, scope):
            return None  # the check cited its first importers only, and production code elsewhere may import it too
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


def _negation_cue(text: str, mention: Mention, word: str) -> str | None:
    """The words that say a mention names a package the project does not use, or None.

    A positive signal, not only a filter: "X is not a dependency"; a
    negated dependency verb before inline code ("never add `lodash`"); a
    negated use before a cue word ("we don't use the requests library") or
    before a proper noun mid-sentence ("we do not use Celery"). A plain or
    misspelt word ("never inlined", "not ovbious"), a flag ("NEVER USE
    `-w`") and inline code after a mere "do not use" (`any`, `unwrap`) are
    not read.
    """
    if not _PACKAGE_NAME.fullmatch(word) or (not mention.code and "/" in word) or word.rsplit(".", 1)[-1].lower() in FILE_EXTENSIONS:
        return None  # "do not require `pyproject.toml`": a file, not a package
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


def _beside_cue(text: str, mention: Mention, after_only: bool = False) -> bool:
    """Whether a cue word (library, package, crate, SDK, ...) is right after the mention, or right before it."""
    end = mention.start + len(mention.text)
    after = re.match(r"[`'\"]?\s+([A-Za-z]+)", text[end : end + 30])
    if after and after.group(1).lower() in _CUES:
        return True
    before = re.search(r"([A-Za-z]+)\s+[`'\"]?$", text[max(0, mention.start - 30) : mention.start])
    return not after_only and bool(before) and before.group(1).lower() in _CUES


def _at_sentence_start(text: str, start: int) -> bool:
    return bool(_SENTENCE_START.search(text[max(0, start - 4) : start])) or start == 0


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


def _common_directory(paths: list[str]) -> str | None:
    """The deepest directory holding every path (`dir/`), None at the top level."""
    parts = [p.split("/")[:-1] for p in paths]
    common = []
    for segments in zip(*parts):
        if len(set(segments)) != 1:
            break
        common.append(segments[0])
    return "/".join(common) + "/" if common else None
