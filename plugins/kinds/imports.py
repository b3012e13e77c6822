"""`import:MODULE` — the parsed source imports that module or a submodule of it.

Matching is by whole segments (`import:mcp` matches `mcp.server.fastmcp`,
never `mcpx`), with each language's own separator. Absence is a closed-world
claim over the files in scope that some language plugin parses: a file whose
bytes lack one of the module's segments cannot import it (an import of
`a.b.c` spells `a`, `b` and `c`, but where a relative import takes a
segment from the directories the file lies in) and is ruled out unparsed:
the last segment is the needle every file is scanned for, the others are
checked on the few files it keeps. A candidate that failed to parse or read
makes absence INCONCLUSIVE.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TypeVar

from anchorcheck import AnchorKind, AnchorResult, Evidence, Verdict, hookimpl
from anchorcheck.plugin import (
    Anchor,
    AnchorSyntaxError,
    Context,
    Facts,
    Goal,
    Search,
    SourceIndex,
    later,
    project_index,
    Ecosystem,
    Language,
    plural,
)
from anchorcheck_plugins.kinds._source import (
    ENOUGH_EVIDENCE,
    MAX_EVIDENCE,
    cite,
    coverage,
    evidence,
    mark_only_in,
    nothing_to_search,
    places,
    production,
    scope_words,
    spells_word,
)


def parse_import(value: str) -> str:
    if not value or value.startswith((".", "/")) or any(c.isspace() for c in value):
        raise AnchorSyntaxError("expected an absolute module name such as 'redis' or 'mcp.server'", column=1)
    return value


def _segments(language: Language, module: str) -> tuple[str, ...]:
    split = language.import_segments
    return split(module) if split is not None else (module,)


def imports_of(facts: Facts, path: str, language: Language, context: Context) -> list[tuple[str, int, str]]:
    """The file's imports with relative ones resolved to absolute module names (once per file)."""
    def resolve() -> list[tuple[str, int, str]]:
        context.shared.read(path)  # worked out from this file's facts: kept while the file is unchanged
        return _resolve_all(facts, path, language, context)

    return context.memo(("anchorcheck.imports-of", path), resolve)


def _resolve_all(facts: Facts, path: str, language: Language, context: Context) -> list[tuple[str, int, str]]:
    resolved = []
    for module, line, flag in facts.imports:
        if module.startswith(".") and language.resolve_import is not None:
            absolute = language.resolve_import(module, path, context.repo)
            if absolute is None:
                continue
            module = absolute
        resolved.append((module, line, flag))
    return resolved

_T = TypeVar("_T")


class ImportSearch:
    """Where a module is imported in a scope, and how complete the search was.

    `places` are all the imports the search saw (which depends on what a cache held); `cited`
    are those of the files `cite` picks, a function of the tree alone: what evidence, counts and
    reasons show, so that the same anchor on the same tree cites the same places every time.
    """

    __slots__ = ("places", "search", "shaky", "languages", "cited", "cited_all")  # a plain class: a dataclass costs start-up

    def __init__(
        self,
        places: list[Place] | None = None,
        search: Search | None = None,
        shaky: list[str] | None = None,
        languages: set[str] | None = None,
        cited: list[Place] | None = None,
        cited_all: bool = True,
    ) -> None:
        self.places = [] if places is None else places
        self.search = Search() if search is None else search
        self.shaky = [] if shaky is None else shaky  # candidates with syntax errors, as path:line
        self.languages = set() if languages is None else languages  # of the files that import it: which ecosystems may provide it
        self.cited = [] if cited is None else cited
        self.cited_all = cited_all  # every candidate was looked at: `cited` are all the places

    def evidence(self, limit: int = MAX_EVIDENCE) -> list[Evidence]:
        return [evidence(path, line, f"imports {name}", flag) for path, line, name, flag in self.cited[:limit]]

    def places_in(
        self, hits: list[tuple[str, Facts]], matches: Callable[[str, Facts], list[tuple[str, int, str]]], language: Callable[[str], str]
    ) -> bool:
        """Add the import places of these searched files, one per line; whether there are any."""
        for place in _places(hits, matches):
            self.places.append(place)
            self.languages.add(language(place[0]))
        return bool(self.places)

    def only_in(self, languages: tuple[str, ...], language: Callable[[str], str]) -> ImportSearch:
        """The same search with the places in other languages left out (an npm alias is not a Python import)."""
        kept = [place for place in self.places if language(place[0]) in languages]
        cited = [place for place in self.cited if language(place[0]) in languages]
        return ImportSearch(kept, self.search, self.shaky, {language(place[0]) for place in kept}, cited, self.cited_all)

    def all_guarded(self) -> bool:
        """Every import is optional or TYPE_CHECKING-only: the code runs without the module."""
        return all(flag for *_, flag in self.places)

    def summary(self, where: str) -> str:
        """`imported in src at a.py:3 and 2 other place(s)`, from the cited places."""
        return f"{where} {places(self.evidence(), len(self.cited), self.cited_all)}"


Place = tuple[str, int, str, str]  # path, line, module as imported, flag


def _places(hits: list[tuple[str, Facts]], matches: Callable[[str, Facts], list[tuple[str, int, str]]]) -> list[Place]:
    """The import places of these files, one per line, in line order."""
    found = []
    for path, facts in hits:
        lines = set()
        for name, line, flag in sorted(matches(path, facts), key=lambda item: item[1]):
            if line not in lines:
                lines.add(line)
                found.append((path, line, name, flag))
    return found


def find_imports(module: str, context: Context, scope: str | None = None) -> ImportSearch:
    """Every import of `module` (or a submodule) in scope; also what `pkg:` asks to say "never imported".

    Kept for the Verifier's lifetime, so re-verifying a memory costs a lookup.
    """
    return context.memo(("anchorcheck.find-imports", module, scope), lambda: _find_imports(module, context, scope))


def _find_imports(module: str, context: Context, scope: str | None) -> ImportSearch:
    index = SourceIndex.of(context)

    def needles(language: Language) -> list[bytes]:
        # An import of a.b.c (or of a submodule) spells its last segment `c`: `import a.b.c`,
        # `from a.b import c`, `from .c import x`, `use a::b::c`, `"a/b/c"`. A language that has no imports
        # (a shell script, a Prisma schema) is no witness that nothing imports it: none of its files is searched.
        return _spellings(_segments(language, module)[-1]) if language.imports else []

    def inside(language: Language) -> str | None:
        # The one import that need not spell it: a relative one written inside a `c/` directory.
        return _segments(language, module)[-1] if language.resolve_import is not None else None

    def requires(language: Language) -> list[tuple[list[bytes], str | None]]:
        # Every other segment too: spelled, or (relative imports) a directory the file lies below.
        relative = language.resolve_import is not None
        return [(_spellings(segment), segment if relative else None) for segment in _segments(language, module)[:-1]]

    def matches(path: str, facts: Facts) -> list[tuple[str, int, str]]:
        # The goal, the report and `cite` all ask, at every recall: kept per file until it changes.
        return index.derived(("import", module), path, lambda: _matching(module, path, facts, index, context))

    def unguarded(path: str, facts: Facts) -> bool:
        # Only an import that always runs in production code may end the search early: guarded ones
        # need the whole picture, and imports in tests alone must be known to be alone.
        return production(path) and any(not flag for _, _, flag in matches(path, facts))

    language_of = _language_of(context)
    goal = Goal(unguarded, ENOUGH_EVIDENCE, _likely_importer(module), label=("import", module))
    result = ImportSearch(search=index.search(scope, needles, inside, goal, requires=requires))
    hits = result.search.hits
    if result.places_in(hits, matches, language_of) and "python" not in result.languages and not result.search.complete:
        # Stopped early on other languages' imports (a JS `require("yaml")`): whether a PyPI
        # distribution provides the module needs one Python import, if there is one to find.
        python_only = Goal(unguarded, 1, goal.likely, label=goal.label)
        follow_up = index.search(scope, _for_python(needles, []), _for_python(inside, None), python_only, requires=requires)
        searched = {path for path, _ in hits}
        result.places_in([hit for hit in follow_up.hits if hit[0] not in searched], matches, language_of)
    if result.places:
        cited, result.cited_all = cite(context, result.search, goal.likely, lambda path, facts: bool(matches(path, facts)), label=("import", module))
        result.cited = _places(cited, matches)
    for path, facts in hits:
        # A broken file matters only if it could hold the import at all (or cannot be read to tell):
        # it names the top-level package, as a relative import's package is named by its directory.
        if facts.error is not None and _could_import(index, path, module):
            result.shaky.append(f"{path}:{facts.error}")
    return result


def _matching(module: str, path: str, facts: Facts, index: SourceIndex, context: Context) -> list[tuple[str, int, str]]:
    """The imports of a file that import the module or a submodule of it."""
    language = index.language(path)
    assert language is not None  # search only returns files a language parses
    target = _segments(language, module)
    return [i for i in imports_of(facts, path, language, context) if _segments(language, i[0])[: len(target)] == target]


def _spellings(segment: str) -> list[bytes]:
    """The bytes a file that names this segment holds (a crate `a-b` is written `a_b` in Rust)."""
    return list(dict.fromkeys([segment.encode(), segment.replace("-", "_").encode()]))


def _could_import(index: SourceIndex, path: str, module: str) -> bool:
    """Whether a file's bytes may hold an import of the module: they name its first segment (a file
    that cannot be read may)."""
    language = index.language(path)
    assert language is not None  # search only returns files a language parses
    return any(index.contains(path, needle) is not False for needle in _spellings(_segments(language, module)[0]))


def _any_importing(context: Context, scope: str | None) -> bool:
    """Whether a file in scope is in a language that has imports: shell scripts and schemas alone prove no absence."""
    def find() -> bool:
        importing = {name for name, language in context.registry.languages.items() if language.imports}
        return any(getattr(context.registry.language_for(p), "name", None) in importing for p in context.repo.paths(scope))

    return context.memo(("anchorcheck.importing-files", scope), find)


def _language_of(context: Context) -> Callable[[str], str]:
    """The name of the language that parses a path ("" for none)."""
    index = SourceIndex.of(context)

    def name(path: str) -> str:
        language = index.language(path)
        return language.name if language is not None else ""

    return name


def _for_python(rule: Callable[[Language], _T], otherwise: _T) -> Callable[[Language], _T]:
    """A search's per-language rule narrowed to Python files: other languages get `otherwise`."""
    return lambda language: rule(language) if language.name == "python" else otherwise


def _likely_importer(module: str) -> Callable[[Language, bytes], bool]:
    """Bytes that look like an import statement of the module: those files are parsed first.

    A top-level module: an occurrence of its name judged from what precedes it
    on its line (Python: `from`/`import` at the start; others: a quote), so a
    file costs a substring scan, not a regex tried at every line. A dotted one
    (`a.b.c`): the path as written (`"a/b/c`, `a::b::c`), or in Python an
    import line that names it: `import a.b.c`, `from a.b.c import x`, `from
    a.b import c`, or a relative one naming `c` (its package is the file's):
    only the parent's place in the statement tells `from
    django.template.defaultfilters import time` from the `import time` of
    every other file, and `from django.db.models import Model` from `from
    django.db.models.base import Model`.
    """
    first = module.split(".")[0].split("/")[0].split("::")[0].encode()
    python = re.compile(rb"[ \t]*(?:from|import)[ \t]+")

    def likely(language: Language, data: bytes) -> bool:
        segments = _segments(language, module)
        if len(segments) > 1:
            if language.resolve_import is None:
                return any(f"{quote}{module}".encode() in data for quote in ('"', "'", "`", " ", "\t", ":", "{"))
            return _python_import_line(data, [s.encode() for s in segments])
        at = data.find(first)
        while at != -1:
            if language.resolve_import is None:
                if at and data[at - 1 : at] in (b'"', b"'", b"`"):
                    return True
            elif not _WORD.match(data, at + len(first)) and python.fullmatch(data, data.rfind(b"\n", 0, at) + 1, at):
                return True
            at = data.find(first, at + 1)
        return False

    return likely


def _python_import_line(data: bytes, segments: list[bytes]) -> bool:
    """Whether a line starting with `from`/`import` imports the dotted module (or a submodule), or is
    a relative import naming its last segment. Only the lines that hold the last segment are looked
    at (a find per occurrence, not a regex over every line of the file)."""
    last = segments[-1]
    module, parent = b".".join(segments), b".".join(segments[:-1])
    at = data.find(last)
    while at != -1:
        start = data.rfind(b"\n", 0, at) + 1
        end = data.find(b"\n", at)
        end = len(data) if end == -1 else end
        line = data[start:end]
        if _IMPORT_LINE.match(line) and spells_word(line, last) and _imports(line, module, parent, last):
            return True
        at = data.find(last, end)
    return False


def _imports(line: bytes, module: bytes, parent: bytes, last: bytes) -> bool:
    """Whether an import line (statements split at `;`) imports the module or a submodule, or is a
    relative import naming its last segment."""
    for statement in line.split(b";"):
        statement = statement.strip()
        if statement.startswith(b"from ."):
            if spells_word(statement, last):
                return True
            continue
        found = _FROM.match(statement)
        if found is not None:
            source, names = found.groups()
            if _within(source, module) or (source == parent and spells_word(names, last)):
                return True
        elif statement.startswith(b"import") and any(_within(name.split()[0], module) for name in statement[6:].split(b",") if name.split()):
            return True
    return False


def _within(name: bytes, module: bytes) -> bool:
    """Whether a dotted name is the module or one of its submodules."""
    return name == module or name.startswith(module + b".")


_IMPORT_LINE = later(rb"[ \t]*(?:from|import)[ \t]")
_FROM = later(rb"from[ \t]+([\w.]+)[ \t]+import\b(.*)")
_WORD = re.compile(rb"\w")


def verify_import(anchor: Anchor, context: Context) -> AnchorResult:
    module = anchor.detail or parse_import(anchor.value)
    shown = str(anchor)
    hits = find_imports(module, context, anchor.scope)
    where = scope_words(anchor.scope)
    renamed = [] if hits.places else _renamed_imports(module, context, anchor.scope)
    if hits.places:
        found = hits.evidence()
        reason = f"{module} is imported{hits.summary(where)}"
        if hits.all_guarded():
            reason += "; every import is optional or TYPE_CHECKING-only"
        details: dict[str, object] = {"imports": len(hits.cited), "complete": hits.cited_all}
        reason = mark_only_in(reason, details, [place[0] for place in hits.places])
        reason += _provenance(module, hits, context, details)
        return AnchorResult(shown, Verdict.VERIFIED, reason, found, state="imported", details=details)
    for ecosystem, alias, search in renamed:
        if search.places:
            found = search.evidence()
            reason = f"{module} is imported as {alias}, the name the {ecosystem.name} manifest gives it,{search.summary(where)}"
            details = {"imports": len(search.cited), "complete": search.cited_all, "imported_as": alias, "packages": {ecosystem.name: [module]}}
            reason = mark_only_in(reason, details, [place[0] for place in search.places])
            return AnchorResult(shown, Verdict.VERIFIED, reason, found, state="imported", details=details)
    searches = [hits, *(search for _, _, search in renamed)]
    if hits.search.searched == 0 or not _any_importing(context, anchor.scope):
        reason = nothing_to_search(context, anchor.scope, f"no source file{where} is in a language with imports that anchorcheck parses")
        return AnchorResult(shown, Verdict.INCONCLUSIVE, reason, state="no-source")
    bad = [*(path for s in searches for path in s.search.unreadable), *(f"{shaky} (syntax error)" for s in searches for shaky in s.shaky)]
    if bad:
        return AnchorResult(
            shown,
            Verdict.INCONCLUSIVE,
            f"no import of {module} found{where}, but {plural(len(bad), 'candidate file')} could not be read or parsed: {', '.join(bad[:3])}",
            state="unparsed",
        )
    also = f" (nor {', '.join(alias for _, alias, _ in renamed)}, the name{'s' if len(renamed) > 1 else ''} a manifest gives it)" if renamed else ""
    return AnchorResult(shown, Verdict.REFUTED, f"nothing{where} imports {module}{also}; {coverage(hits.search)}", state="not-imported")


def _ecosystems(context: Context) -> list[Ecosystem]:
    """The ecosystems that map packages to import names, in name order."""
    return [eco for _, eco in sorted(context.registry.ecosystems.items()) if eco.import_names is not None and eco.languages]


def _renamed_imports(module: str, context: Context, scope: str | None) -> list[tuple[Ecosystem, str, ImportSearch]]:
    """A package the project declares under another import name (`memmap = { package = "memmap2" }`,
    `"x": "npm:y@^1"`, PyYAML's `yaml`): the imports of each such name, in that ecosystem's languages."""
    language_of = _language_of(context)
    found = []
    for ecosystem in _ecosystems(context):
        if not project_index(context, ecosystem.name, ecosystem.read).find(ecosystem.normalize(module)):
            continue
        for alias in ecosystem.import_names(module, context):  # type: ignore[misc]
            if alias != module:
                found.append((ecosystem, alias, find_imports(alias, context, scope).only_in(ecosystem.languages, language_of)))
    return found


def _provenance(module: str, hits: ImportSearch, context: Context, details: dict[str, object]) -> str:
    """Where an imported module comes from: first-party code, or the packages of the ecosystems whose
    languages import it (`details["packages"]`, and PyPI's as `details["distributions"]`)."""
    if _first_party(module, context, hits.languages):
        details["first_party"] = True
        return "; it is first-party code of this repository"
    packages: dict[str, list[str]] = {}
    for ecosystem in context.registry.ecosystems_for(hits.languages):  # a Python import asks PyPI, not npm or cargo
        if ecosystem.packages_for_import is not None:
            provided = ecosystem.packages_for_import(module, context)
            if provided:
                packages[ecosystem.name] = provided
    if not packages:
        return ""
    details["packages"] = packages
    if "pypi" in packages:
        details["distributions"] = packages["pypi"]
    return "".join(
        f"; provided by the {'PyPI distribution' if name == 'pypi' else f'{name} package'} {' or '.join(provided)}" for name, provided in packages.items()
    )


def _first_party(module: str, context: Context, languages: Iterable[str]) -> bool:
    """Whether the top-level package lives in this checkout, as the languages that import it find
    modules (`module_files` below their source roots; a package directory there). Kept while the
    paths it looked at stay as they were: an edit elsewhere does not stat them again."""
    names = tuple(sorted(languages))
    return context.memo(("anchorcheck.import-first-party", module, names), lambda: _look_first_party(module, context, names))


def _look_first_party(module: str, context: Context, languages: Iterable[str]) -> bool:
    for name in languages:
        language = context.registry.languages.get(name)
        if language is None or language.module_files is None:
            continue
        top = _segments(language, module)[0]
        roots = ("", *(f"{r}/" for r in language.source_roots))
        if language.module_files(top, "", context.repo, roots):
            return True
        if language.source_roots and any(context.repo.is_dir(f"{root}{top}") for root in roots):
            return True
    return False


@hookimpl
def register_anchor_kinds(register):  # noqa: ANN001, ANN201 - hook signature
    register(
        AnchorKind(
            prefix="import",
            verify=verify_import,
            parse=parse_import,
            scoped=True,
            summary="the parsed source imports the module or a submodule of it",
            example="import:redis in:src/",
        )
    )


def note_import_usage(result: AnchorResult, ecosystem: Ecosystem, package: str, context: Context, scope: str | None = None) -> None:
    """Add to a VERIFIED `pkg:` result whether the source imports what the package provides.

    Informative only (a declared tool such as black is never imported, and
    rightly so): the verdict does not change. Only imports in the ecosystem's
    own languages count, and, for an anchor scoped to a project (`in:DIR` or a
    manifest in it), only imports in that folder: another workspace member's
    import says nothing of this one. `details["imported"]` is True with the
    first import's location, False when a complete search of every module the
    package provides found none, and absent when unsure.
    """
    if ecosystem.import_names is None or not ecosystem.languages:
        return
    language_of = _language_of(context)
    modules = ecosystem.import_names(package, context)
    folder = _project_folder(scope, context)
    searches = [find_imports(module, context, folder).only_in(ecosystem.languages, language_of) for module in modules]
    for search in searches:
        if search.places:
            path, line, name, _ = (search.cited or search.places)[0]
            result.details["imported"] = True
            result.details["imported_at"] = f"{path}:{line}"
            result.reason += f"; imported as {name} at {path}:{line}"
            return
    if searches and all(s.search.searched and not s.shaky and not s.search.unreadable for s in searches):
        result.details["imported"] = False
        result.reason += f"; no source file{scope_words(folder)} imports it ({', '.join(modules)})"


def _project_folder(scope: str | None, context: Context) -> str | None:
    """The folder a `pkg:` scope names (a manifest stands for its folder); None for the whole
    repository, and for a glob, which picks manifests rather than a folder of code."""
    if scope is None or set("*?[") & set(scope):
        return None
    folder = scope.strip("/")
    if context.repo.is_file(folder):
        folder = folder.rpartition("/")[0]
    return f"{folder}/" if folder not in ("", ".") else None
