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
from pathlib import Path

from anchorcheck.base.english import is_english
from anchorcheck.memory import implicit
from anchorcheck.model.anchors import AnchorSyntaxError, encode_path, format_anchor
from anchorcheck.model.citation import Citation
from anchorcheck.spans.citation import BankError, bank
from anchorcheck.evidence.goals import Goal, classify
from anchorcheck.evidence.index import SourceIndex
from anchorcheck.memory.memoryfiles import code_spans, looks_like_anchor
from anchorcheck.model.results import HIGH, MEDIUM, AnchorResult, Suggestion, Verdict
from anchorcheck.evidence.packages import PackageIndex
from anchorcheck.memory.references import read_references, runner_claims
from anchorcheck.repo.paths import UnsafePathError
from anchorcheck.verify.package_mentions import PackageMentions
from anchorcheck.verify.verifier import Verifier
from anchorcheck.verify.wording import FILE_EXTENSIONS, Mention, distinctive

_WORD = re.compile(r"[A-Za-z@][\w@/.+-]*\w|[A-Za-z]")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_ENV_IN_PROSE = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")
_ENV_IN_CODE = re.compile(r"\$?\{?([A-Z][A-Z0-9_]{2,})\}?")
_LINES = re.compile(r"^(?P<path>[^\s:#`]+?)(?::L?|#L)(?P<start>\d+)(?:-L?(?P<end>\d+))?$")
_LINES_AFTER = re.compile(r"\s*,?\s*lines?\s+(?P<start>\d+)(?:\s*(?:-|–|to|and)\s*(?P<end>\d+))?")
_PASSAGE_MIN = 12
MAX_PASSAGE_FILES = 20000  # a checkout with more text files places no quoted passage (uniqueness costs a full scan)
MAX_DEFINER_BYTES = 1024 * 1024  # bytes of the files that may define a name, past which no sym: is proposed for it
# A goal met before any file is parsed: the search lists the files whose bytes hold a needle, and stops.
_LIST_ONLY = Goal(lambda path, facts: False, files=0)
PASSAGE_MEMORY = 64 * 1024 * 1024  # bytes of files kept between passages; past this they are read again


class Suggester(PackageMentions):
    """Proposes anchors for memories of one checkout; keeps what it learns about the code between memories."""

    def __init__(self, verifier: Verifier, *, implicit_checked: bool = False) -> None:
        """`implicit_checked`: the memories live in files `check` reads implicit references from
        (`suggest` on memory files), so a path, command or install command the text already names
        is checked anyway and is not proposed again; a store that verifies only typed anchors (MCP
        `remember`) gets them as anchors."""
        self.verifier = verifier
        self.implicit_checked = implicit_checked
        self._defs: dict[str, set[str]] = {}  # name -> the files that define it, for the names looked up
        self._packages: dict[str, list[tuple[str, str, bool]]] | None = None
        self._own_words: set[str] = set()  # the words of the repository's own project names ("openai" of openai-agents)
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
        if not self.implicit_checked:
            yield from self._references(text, folder)
        yield from self._prose_paths(text, prose, {m.text for m in codes} if self.implicit_checked else set(), folder)
        yield from self._symbols(codes, prose)
        yield from self._env(codes, prose)
        negated = set()
        for suggestion in self._negations(text, codes, prose):
            negated.add(suggestion.mention)
            yield suggestion
        yield from self._packages_named(text, [m for m in codes + prose if m.text not in negated])

    def _references(self, text: str, folder: str, kinds: frozenset[str] = frozenset({"file", "cmd", "pkg"})) -> Iterator[Suggestion]:
        """Paths, commands and install commands, read as `check` reads implicit references."""
        repo, registry = self.verifier.repo, self.verifier.registry
        kinds &= set(registry.kinds)
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

    def _prose_paths(self, text: str, prose: list[Mention], checked: set[str], folder: str) -> Iterator[Suggestion]:
        """A path written in plain prose ("the session is in src/pkg/client/session.py"), which `check` does
        not read: read as if it were inline code, with the same filters (URLs, globs, placeholders, home
        paths), so it is proposed only when it names one path of the checkout; not inside a link target
        (`](./references/a.md)`, `<a/b>`: `_references` reads those) nor when the text also writes it in
        inline code that `check` reads (`checked`)."""
        for mention in prose:
            path = mention.text.rstrip(",;:")
            if "/" in path and "`" not in path and path not in checked and text[mention.start - 1 : mention.start] not in ("(", "/", "<", "."):
                yield from self._references(f"`{path}`", folder, frozenset({"file"}))

    def _spans(self, text: str, codes: list[Mention]) -> Iterator[Suggestion]:
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

    def _symbols(self, codes: list[Mention], prose: list[Mention]) -> Iterator[Suggestion]:
        named: list[tuple[Mention, str, str]] = []
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

    def _env(self, codes: list[Mention], prose: list[Mention]) -> Iterator[Suggestion]:
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
        prefiltered listing names the candidates and those alone are parsed,
        not the whole tree (a cold first run on uv's checkout took a minute).
        A memory means the production definition: when production code holds
        the name, only it is read (tests of a real SDK write `ClientSession`
        in a megabyte of files; a fake of it there is not what the text means),
        else tests and examples are. Candidates of more than MAX_DEFINER_BYTES
        together leave the name out before anything is parsed: proving that one
        of them alone defines it costs more than a proposal is worth (by size,
        whatever the cache holds, so that a cold and a warm run propose the
        same). A candidate that cannot be parsed makes the name ambiguous: it
        may define it.
        """
        index = SourceIndex.of(self.verifier.context)
        for name in sorted({name for name in names if name not in self._defs}):
            holding = index.search(None, lambda language, name=name: [_needle(name).encode("utf-8")], goal=_LIST_ONLY)
            candidates = [path for path in holding.candidates if classify(path) != "vendored"]
            production = [path for path in candidates if classify(path) == "production"]
            candidates = production or candidates
            self._defs[name] = set()
            if sum(self._size(path) for path in candidates) > MAX_DEFINER_BYTES:
                continue  # unknown, and never proposed
            for path in candidates:
                try:
                    facts = index.facts(path)
                except (OSError, UnsafePathError):
                    self._defs[name] = {path, "(unreadable)"}
                    break
                if facts is not None and any(qualified == name for qualified, _ in facts.defs):
                    self._defs[name].add(path)

    def _size(self, path: str) -> int:
        try:
            return self.verifier.repo.resolve(path).stat().st_size
        except (OSError, UnsafePathError):
            return 0

    def _module_form(self, path: str, name: str) -> str | None:
        """`sym:py:package.module.Name` as Python imports it: the file's folders up to the first without an
        `__init__.py` (`src/agents/tracing/create.py` is `agents.tracing.create`, not `create`, which the
        lenient resolver also accepts), when it resolves to this file."""
        if not path.endswith(".py"):
            return None
        parts = path[:-3].split("/")
        if parts[-1] == "__init__":
            parts = parts[:-1]
        first = len(parts) - 1
        while first > 0 and self.verifier.repo.is_file("/".join([*parts[:first], "__init__.py"])):
            first -= 1
        dotted = ".".join([*parts[first:], name]) if parts else name
        if not all(p.isidentifier() for p in parts[first:]):
            return None
        result = self._check(f"sym:py:{dotted}")
        if result.verdict is Verdict.VERIFIED and any(e.path == path for e in result.evidence):
            return f"sym:py:{dotted}"
        return None


    def _only_within(self, module: str, needle: str, scope: str) -> bool:
        """Whether no production file outside `scope` imports `module`. The import check cites its first
        importers only, so the scope drawn from them is tested against every other candidate: the files
        whose bytes hold `needle` (all that can import it), parsed until one imports it, or until
        MAX_DEFINER_BYTES of them leave it unknown (then no scope is proposed)."""
        index = SourceIndex.of(self.verifier.context)
        holding = index.search(None, lambda language: [needle.encode("utf-8")], goal=_LIST_ONLY)
        inside = scope if scope.endswith("/") else None
        outside = [p for p in holding.candidates if classify(p) == "production" and not (p.startswith(inside) if inside else p == scope)]
        if sum(self._size(path) for path in outside) > MAX_DEFINER_BYTES:
            return False
        for path in outside:
            try:
                facts = index.facts(path)
            except (OSError, UnsafePathError):
                return False
            if facts is not None and any(m == module or m.startswith(module + ".") for m, _, _ in facts.imports):
                return False
        return True


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


def _split(text: str) -> tuple[list[Mention], list[Mention]]:
    """The code spans (not anchors) and the words of the prose outside them."""
    codes: list[Mention] = []
    prose: list[Mention] = []
    spans = code_spans(text)
    for span in spans:
        content = span.group(2).strip()
        if not looks_like_anchor(content):
            codes.append(Mention(content, span.start(2) + span.group(2).index(content[:1] or " "), True))
    for gap_start, gap_end in _gaps(text, spans):
        for word in _WORD.finditer(text, gap_start, gap_end):
            prose.append(Mention(word.group(0).rstrip("."), word.start(), False))
    return codes, prose


def _gaps(text: str, spans: list[re.Match[str]]) -> Iterator[tuple[int, int]]:
    at = 0
    for span in spans:
        yield at, span.start()
        at = span.end()
    yield at, len(text)


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
        if parts[-1].lower() in FILE_EXTENSIONS:
            return None  # `README.md`, `run.ts`, "Node.js": a file's name (read as a path), no definition's
        return HIGH if all(len(part) > 1 for part in parts) else None
    if distinctive(name):
        return HIGH if code else MEDIUM
    if code and name[:1].isupper() and name[1:].islower() and not is_english(name):
        return MEDIUM
    return None


def _needle(name: str) -> str:
    """The bytes every file defining the name holds: its longest segment."""
    return max(name.split("."), key=len)


def _is_passage(code: str) -> bool:
    """Inline code that reads as a line of code (an assignment, a call), long enough to be placed."""
    return len(code) >= _PASSAGE_MIN and " " in code and bool(re.search(r"[=(){};]", code))


