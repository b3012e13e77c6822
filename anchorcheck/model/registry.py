"""What plugins register: anchor kinds, languages, package ecosystems, memory formats and command runners.

Plugins hand these records to the `register` callback of the matching hook;
the registry remembers which plugin registered each one so that errors and
`anchorcheck plugins` can name it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

if TYPE_CHECKING:
    from anchorcheck.model.anchors import Anchor
    from anchorcheck.repo.context import Context
    from anchorcheck.model.results import AnchorResult, Memory


T = TypeVar("T")


class RegistrationError(Exception):
    """Two plugins claimed the same name, or a registration is malformed."""


@dataclass(frozen=True)
class AnchorKind:
    """An anchor prefix and how to check it.

    `parse` validates a value and returns its parsed form (raise
    AnchorSyntaxError with a column relative to the value); `verify` receives
    the anchor without negation and returns an AnchorResult. `scoped` kinds
    accept ` in:PATH`. A `spaced` kind's value runs to the end of the anchor,
    whitespace included (`cmd:pnpm run build`); a scoped one still ends at a
    trailing ` in:PATH`. `lines(value)` is, for a kind whose anchors name
    lines of a file (`span:`), the (path, first line, last line) a value
    names: what `anchorcheck lock` banks, without the core importing the kind.
    """

    prefix: str
    verify: Callable[[Anchor, Context], AnchorResult]
    parse: Callable[[str], Any] | None = None
    scoped: bool = False
    summary: str = ""
    example: str = ""
    plugin: str = ""
    spaced: bool = False
    lines: Callable[[str], tuple[str, int, int]] | None = None


@dataclass(frozen=True)
class Language:
    """A tree-sitter grammar plus the queries that find imports, environment reads and definitions.

    `grammar` is a tree-sitter-language-pack name or a callable returning a
    `tree_sitter.Language`. `extract` turns a parsed file (`facts.Parsed`)
    into `facts.Facts`; it is what the source verifiers call, so a language is
    data plus one function. `import_segments` splits a module name into the
    segments that `import:` matches by prefix (`a.b.c`, `@s/p/sub`,
    `serde::de`); `resolve_import(name, path, repo)` turns a relative import
    written in `path` into an absolute one; `env_markers` are the bytes that
    any environment read contains, so the prefilter keeps files that might
    read a computed key.

    What `sym:` and `import:` need to find a module's file, so that a
    third-party language gets the same evidence as the built-in ones:
    `source_roots` are the directories where absolute module names start,
    besides the top level (Python's `src`, `lib`, `python`);
    `module_files(module, path, repo, roots)` lists the files of the
    repository, in order of preference, that hold a module as it is written in
    `path` (relative forms resolved, absolute ones looked up below each of
    `roots`), none when it is not here (third-party code); `module_prefix`
    names the module form `sym:PREFIX:package.module.Name` (Python's `py`);
    `package_files(path, repo)` are the other files whose top-level names
    `path` sees without an import (a Go package, a Java package directory);
    `external_members(module, name)` are the member names of a class from
    outside the repository that the language knows for sure (a Python
    standard-library base such as `Exception` or `enum.Enum`), None when it
    does not know the class, so a class built on one keeps a closed world.
    `definitions(parsed)` is what `extract` puts first in `Facts.defs`, said
    from the tree alone (later entries may follow in the facts, none before):
    a `sym:` anchor on a file whose facts are not known yet is answered from
    it when the name is there, without the rest of the extraction.
    `inheritable(member)` says whether any base could give a class a member
    of that name (None: any could); one no base can give is absent when the
    class does not define it, whatever its bases (Rust: a trait, implemented
    or derived, gives no enum variant). `imports` is False for a language whose
    files import nothing (shell scripts, schemas): they are no witness that
    nothing imports a module.
    """

    name: str
    extensions: tuple[str, ...]
    grammar: str | Callable[[], Any]
    queries: Mapping[str, str] = field(default_factory=dict)
    extract: Callable[..., Any] | None = None
    filenames: tuple[str, ...] = ()
    plugin: str = ""
    import_segments: Callable[[str], tuple[str, ...]] | None = None
    resolve_import: Callable[[str, str, Any], str | None] | None = None
    env_markers: tuple[bytes, ...] = ()
    source_roots: tuple[str, ...] = ()
    module_files: Callable[[str, str, Any, tuple[str, ...]], tuple[str, ...]] | None = None
    module_prefix: str = ""
    package_files: Callable[[str, Any], tuple[str, ...]] | None = None
    external_members: Callable[[str, str], frozenset[str] | None] | None = None
    definitions: Callable[[Any], list[tuple[str, int]]] | None = None
    inheritable: Callable[[str], bool] | None = None
    imports: bool = True


@dataclass(frozen=True)
class Ecosystem:
    """A package ecosystem (a purl type such as `pypi`, `npm`, `cargo`, `golang`).

    `manifests` are the file names or globs its readers understand; `read`
    collects what the project declares and locks, as the `pkg:` verifier needs:
    `read(context, scope)` returns an `anchorcheck.evidence.packages.PackageIndex`.
    `normalize` spells a package name the way the ecosystem compares names;
    `version_matches(wanted, actual, is_range)` checks a locked version against
    an exact version or a range in the ecosystem's own syntax (raising
    ValueError for one it cannot read); `pinned(specifier)` is the exact
    version a declaration pins, if any; `builtin(name)` says why a name is
    part of the platform rather than a package (the standard library), or None.
    """

    name: str
    manifests: tuple[str, ...]
    read: Callable[..., Any]
    summary: str = ""
    plugin: str = ""
    normalize: Callable[[str], str] = str.strip
    version_matches: Callable[[str, str, bool], bool] | None = None
    pinned: Callable[[str], str | None] | None = None
    builtin: Callable[[str], str | None] | None = None
    languages: tuple[str, ...] = ()
    import_names: Callable[[str, Context | None], list[str]] | None = None
    packages_for_import: Callable[[str, Context | None], list[str]] | None = None
    range_relation: Callable[[str, bool, str], str] | None = None


@dataclass(frozen=True)
class MemoryFormat:
    """A memory file format: which files it reads and how they become memories.

    `read(path, text)` returns the memories of one file and raises
    MemoryFileError (with the line) for content it cannot accept.
    `patterns` are the repo-relative globs that discovery looks for.
    `markdown` says the whole file is Markdown prose, so implicit references
    (anchorcheck.memory.references) are read from its text, line by line, and belong
    to the memory written on their line; for other formats they are read
    from each memory's text. `prose_anchors` says the format's anchors are
    code spans of prose (Markdown, observations), not a typed list: there a
    token that only looks like an anchor (`imprt:anyio`, `pkgs:sync`) is a
    warning, and a name a runner knows (`docs:dev`, a package.json script)
    is no anchor at all (`anchorcheck.verify.prose`).

    A format that can be written back (by `relocate`, `rebank` and `suggest
    --write`) also gives `rename(path, text, {old: new})`, returning the new
    text and the 1-based lines where an anchor written as `old` now reads
    `new` (as `(line, old)` pairs), and `insert(path, text, {memory id: [(anchor, mention)]})`,
    returning the text with the anchors added to those memories (near
    `mention`, the words they were read from, when the format can place
    them). Both keep every other byte of the file as it was.
    """

    name: str
    read: Callable[[str, str], list[Memory]]
    patterns: tuple[str, ...] = ()
    matches: Callable[[str], bool] | None = None
    summary: str = ""
    plugin: str = ""
    markdown: bool = False
    prose_anchors: bool = False
    rename: Callable[[str, str, Mapping[str, str]], tuple[str, list[tuple[int, str]]]] | None = None
    insert: Callable[[str, str, Mapping[str, Sequence[tuple[str, str | None]]]], str] | None = None


@dataclass(frozen=True)
class Invocation:
    """One program call out of a `cmd:` anchor, as a runner sees it (nothing is ever executed).

    `program` and `args` are the shell words after `cd`, environment
    prefixes and wrappers were taken off; `cwd` is the repo-relative
    directory it runs in; `text` is the call as written. `delegate` hands a
    nested call (`uv run tox -e py`, `pnpm turbo build`) to whichever runner
    claims its program, and returns that runner's result.
    """

    program: str
    args: tuple[str, ...]
    cwd: str = "."
    env: Mapping[str, str] = field(default_factory=dict)
    text: str = ""
    dispatch: Callable[[Invocation], AnchorResult] | None = field(default=None, compare=False, repr=False)
    depth: int = 0  # how many delegations deep (`uv run tox`: 1), so that a dispatcher can stop a runaway nesting

    def delegate(self, program: str, args: tuple[str, ...] | list[str], cwd: str | None = None) -> AnchorResult:
        """Verify `program args` (run from `cwd`, by default this call's) with the runner that claims it."""
        if self.dispatch is None:
            raise RuntimeError("this invocation was built without a dispatcher")
        text = " ".join([program, *args])
        nested = Invocation(program, tuple(args), self.cwd if cwd is None else cwd, self.env, text, self.dispatch, self.depth + 1)
        return self.dispatch(nested)


@dataclass(frozen=True)
class Runner:
    """A command runner (`npm`, `make`, `cargo`...): the programs it claims and how to check a call.

    `verify(invocation, context)` reads the runner's configuration statically
    and returns an AnchorResult: VERIFIED when the configuration defines
    what the call runs, REFUTED when the configuration is present, static and
    lacks it (or a runner that needs one has none), INCONCLUSIVE otherwise.
    `programs` are executable names as written (`pnpm`, `npx`); when two
    runners claim a program, the one first in `Registry.runners` checks it
    (the loader puts installed plugins' runners before the built-in ones and
    warns, naming both plugins). `reads(program, args)` says
    whether a call is a claim about the repository at all: `cargo install
    ripgrep`, `uvx ruff`, `docker run` are not (they need no configuration
    of this repository), so a reader of prose leaves them unread; None reads
    every call. `configs` are the file names of its configuration (`package.json`, `Makefile`): where else
    in the repository a command the text does not place may be defined.
    """

    name: str
    programs: tuple[str, ...]
    verify: Callable[[Invocation, Context], AnchorResult]
    summary: str = ""
    plugin: str = ""
    reads: Callable[[str, tuple[str, ...]], bool] | None = None
    configs: tuple[str, ...] = ()


class Declared(NamedTuple):
    """A key a plugin declared it registers, before that plugin is imported (see `anchorcheck.verify.loading`).

    `plugins` are the entry-point names that declared it, in the order they
    would have registered; `extensions` and `filenames` (a language) and
    `programs` (a runner) let lookups by file or program find the plugin to
    import without importing the others; `source_roots` (a language) are
    known without importing it too, and so are an ecosystem's `languages`.
    """

    plugins: tuple[str, ...]
    extensions: tuple[str, ...] = ()
    filenames: tuple[str, ...] = ()
    programs: tuple[str, ...] = ()
    source_roots: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()


class Table(Mapping[str, T]):
    """One table of the registry: the records loaded plugins registered, by name, in registration order.

    A key a plugin declared but nobody imported yet is present (`in`, `len`,
    iteration need no import); reading it imports the declaring plugin, whose
    registration fills it in place. `values()` and `items()` import every
    declaring plugin of this table. `load(plugins)` is how the table asks for
    that: the plugin set's loader, which a table of a bare `Registry()` (where
    nothing is declared) does without.
    """

    def __init__(self, name: str, load: Callable[[Sequence[str]], None] | None = None) -> None:
        self.name = name
        self.load = load
        self._items: dict[str, Any] = {}
        self.generation = 0  # bumped by every change: what a lookup memoized over the entries is valid for

    def declare(self, key: str, declared: Declared) -> None:
        """Hold `key`'s place for the plugins that declared it (a name already registered keeps its owner)."""
        self.generation += 1
        existing = self._items.get(key)
        if existing is None:
            self._items[key] = declared
        elif isinstance(existing, Declared):
            self._items[key] = existing._replace(plugins=existing.plugins + declared.plugins)

    def add(self, key: str, item: T) -> None:
        """Register `item` under `key`; a second registration of one name is an error the loader warns about."""
        existing = self._items.get(key)
        if existing is not None and not isinstance(existing, Declared):
            raise RegistrationError(f"{self.name[:-1]} {key!r} registered by both {existing.plugin!r} and {item.plugin!r}")
        self.generation += 1
        self._items[key] = item  # in the place its declaration held

    def settle(self, plugin: str) -> list[str]:
        """Forget `plugin`'s declarations once it is loaded (or failed): the keys it declared and left unregistered."""
        self.generation += 1
        dropped = []
        for key, value in list(self._items.items()):
            if isinstance(value, Declared) and plugin in value.plugins:
                rest = tuple(p for p in value.plugins if p != plugin)
                if rest:
                    self._items[key] = value._replace(plugins=rest)
                else:
                    del self._items[key]
                    dropped.append(key)
        return dropped

    def reorder(self, key: Callable[[Any], Any]) -> None:
        """Sort the entries, registered or only declared, by `key(entry)` (stable: ties keep their order)."""
        self.generation += 1
        self._items = dict(sorted(self._items.items(), key=lambda item: key(item[1])))

    def entries(self) -> list[tuple[str, Any]]:
        """Every (key, registered record or Declared) in order, importing nothing: what lookups by a
        declared field (extension, program, source root, language) scan."""
        return list(self._items.items())

    def resolve(self, key: str) -> None:
        """Import the plugins that declared `key`, if it is still only declared."""
        value = self._items.get(key)
        if isinstance(value, Declared) and self.load is not None:
            self.load(value.plugins)

    def __getitem__(self, key: str) -> T:
        self.resolve(key)
        value = self._items[key]
        if isinstance(value, Declared):
            raise KeyError(key)
        return value  # type: ignore[no-any-return]

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._items))

    def __len__(self) -> int:
        return len(self._items)

    def load_all(self) -> None:
        """Import every plugin that declared a name of this table and has not been imported yet."""
        wanted = [p for value in self._items.values() if isinstance(value, Declared) for p in value.plugins]
        if wanted and self.load is not None:
            self.load(list(dict.fromkeys(wanted)))

    def values(self) -> list[T]:  # type: ignore[override]
        self.load_all()
        return [v for v in self._items.values() if not isinstance(v, Declared)]

    def items(self) -> list[tuple[str, T]]:  # type: ignore[override]
        self.load_all()
        return [(k, v) for k, v in self._items.items() if not isinstance(v, Declared)]


TABLES = ("kinds", "languages", "ecosystems", "formats", "runners")


class Registry:
    """Everything the plugins registered (or declared they will, on first use), by name. A plain class
    (the records are the public dataclasses; nothing compares or copies the container)."""

    def __init__(self) -> None:
        self.kinds: Table[AnchorKind] = Table("kinds")
        self.languages: Table[Language] = Table("languages")
        self.ecosystems: Table[Ecosystem] = Table("ecosystems")
        self.formats: Table[MemoryFormat] = Table("formats")
        self.runners: Table[Runner] = Table("runners")
        # language_for's answers by claimed file name or extension, valid for one generation of `languages`
        self._languages_by: dict[str | tuple[None, str | None], Language | None] = {}
        self._claimed_names: frozenset[str] = frozenset()
        self._languages_generation = -1

    def tables(self) -> list[Table[Any]]:
        return [getattr(self, name) for name in TABLES]

    def add(self, table: str, key: str, item: Any) -> None:
        getattr(self, table).add(key, item)

    def runner_for(self, program: str) -> Runner | None:
        """The runner that claims a program, by its name as written or its file name (`./node_modules/.bin/x`: x).

        A runner only declared so far is imported when it claims the program, and no other is.
        """
        name = program.rsplit("/", 1)[-1]
        for key, runner in self.runners.entries():
            if program in runner.programs or name in runner.programs:
                if isinstance(runner, Declared):
                    self.runners.resolve(key)
                    return self.runner_for(program)
                return runner  # type: ignore[no-any-return]
        return None

    def ecosystems_for(self, languages: Iterable[str]) -> list[Ecosystem]:
        """The ecosystems whose packages code in these languages imports (`Ecosystem.languages`), in name order.

        A declared ecosystem is imported only when the languages it declares
        meet these (or when it declares none: then nothing is known without it).
        """
        wanted = set(languages)
        for key, ecosystem in self.ecosystems.entries():
            if isinstance(ecosystem, Declared) and (not ecosystem.languages or wanted & set(ecosystem.languages)):
                self.ecosystems.resolve(key)
        return [
            eco for _, eco in sorted(self.ecosystems.entries())
            if not isinstance(eco, Declared) and eco.import_names is not None and wanted & set(eco.languages)
        ]

    def source_roots(self) -> tuple[str, ...]:
        """The source-root folder names of every language, registered or only declared, in registration order."""
        return tuple(dict.fromkeys(root for _, language in self.languages.entries() for root in language.source_roots))

    def language_for(self, path: str) -> Language | None:
        """The language plugin that parses this file, by file name first, then extension.

        A language only declared so far is imported when it claims the file, and no other is.
        Answers are kept per claimed file name, else per extension, until the languages change:
        a listing asks once per path, and walking every language each time was most of its cost.
        """
        name = path.rsplit("/", 1)[-1]
        dot = name.rfind(".")
        ext = name[dot:].lower() if dot > 0 else None
        self._fresh_language_lookups()
        key = name if name in self._claimed_names else (None, ext)
        if key not in self._languages_by:
            found = self._find_language(name, ext)
            self._fresh_language_lookups()  # importing a declared language changed the table
            self._languages_by[key] = found
        return self._languages_by[key]

    def _fresh_language_lookups(self) -> None:
        if self._languages_generation != self.languages.generation:
            self._languages_by = {}
            self._claimed_names = frozenset(f for _, language in self.languages.entries() for f in language.filenames)
            self._languages_generation = self.languages.generation

    def _find_language(self, name: str, ext: str | None) -> Language | None:
        for claims in (lambda lang: name in lang.filenames, lambda lang: ext is not None and ext in lang.extensions):
            for key, language in self.languages.entries():
                if claims(language):
                    if isinstance(language, Declared):
                        self.languages.resolve(key)
                        return self._find_language(name, ext)
                    return language  # type: ignore[no-any-return]
        return None
