"""What plugins register: anchor kinds, languages, package ecosystems, memory formats and command runners.

Plugins hand these records to the `register` callback of the matching hook;
the registry remembers which plugin registered each one so that errors and
`anchorcheck plugins` can name it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from anchorcheck.anchors import Anchor
    from anchorcheck.context import Context
    from anchorcheck.model import AnchorResult, Memory


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


@dataclass(frozen=True)
class Ecosystem:
    """A package ecosystem (a purl type such as `pypi`, `npm`, `cargo`, `golang`).

    `manifests` are the file names or globs its readers understand; `read`
    collects what the project declares and locks, as the `pkg:` verifier needs:
    `read(context, scope)` returns an `anchorcheck.packages.PackageIndex`.
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
    (anchorcheck.references) are read from its text, line by line, and belong
    to the memory written on their line; for other formats they are read
    from each memory's text.

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
    `programs` are executable names as written (`pnpm`, `npx`); the first
    runner to register a program keeps it (the loader warns, naming both
    plugins, when a later one claims it too). `reads(program, args)` says
    whether a call is a claim about the repository at all: `cargo install
    ripgrep`, `uvx ruff`, `docker run` are not (they need no configuration
    of this repository), so a reader of prose leaves them unread; None reads
    every call.
    """

    name: str
    programs: tuple[str, ...]
    verify: Callable[[Invocation, Context], AnchorResult]
    summary: str = ""
    plugin: str = ""
    reads: Callable[[str, tuple[str, ...]], bool] | None = None


@dataclass
class Registry:
    """Everything the loaded plugins registered, by name."""

    kinds: dict[str, AnchorKind] = field(default_factory=dict)
    languages: dict[str, Language] = field(default_factory=dict)
    ecosystems: dict[str, Ecosystem] = field(default_factory=dict)
    formats: dict[str, MemoryFormat] = field(default_factory=dict)
    runners: dict[str, Runner] = field(default_factory=dict)

    def add(self, table: str, key: str, item: Any) -> None:
        existing = getattr(self, table).get(key)
        if existing is not None:
            raise RegistrationError(
                f"{table[:-1]} {key!r} registered by both {existing.plugin!r} and {item.plugin!r}"
            )
        getattr(self, table)[key] = item

    def runner_for(self, program: str) -> Runner | None:
        """The runner that claims a program, by its name as written or its file name (`./node_modules/.bin/x`: x)."""
        name = program.rsplit("/", 1)[-1]
        for runner in self.runners.values():
            if program in runner.programs or name in runner.programs:
                return runner
        return None

    def language_for(self, path: str) -> Language | None:
        """The language plugin that parses this file, by file name first, then extension."""
        name = path.rsplit("/", 1)[-1]
        for language in self.languages.values():
            if name in language.filenames:
                return language
        dot = name.rfind(".")
        if dot <= 0:
            return None
        ext = name[dot:].lower()
        for language in self.languages.values():
            if ext in language.extensions:
                return language
        return None
