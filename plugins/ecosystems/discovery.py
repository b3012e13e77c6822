"""Which manifests and lockfiles are in scope, and reading them into a PackageIndex.

Every ecosystem answers the same two questions: which file names it reads
in a project directory, and which directories are the workspace members of
a project. The rest is shared: by default the root project and its declared
members are in scope (a nested project that is not a member, such as an
`examples/` folder with its own manifest, is not); an anchor scoped with
` in:DIR` makes DIR the project; ` in:FILE` reads just that file; a glob
reads every matching manifest.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, NamedTuple

from anchorcheck.plugin import FileFacts, ManifestError, PackageIndex, broken, UnsafePathError

if TYPE_CHECKING:
    from anchorcheck.plugin import Context

Parse = Callable[["Context", str], FileFacts]


class Reader(NamedTuple):
    """One file format: the exact names it reads in a project directory, or a pattern of relative paths."""

    kind: str  # "manifest" or "lockfile"
    parse: Parse
    names: tuple[str, ...] = ()
    pattern: re.Pattern[str] | None = None

    def matches(self, relative: str) -> bool:
        return relative in self.names or bool(self.pattern and self.pattern.fullmatch(relative))


class Layout(NamedTuple):
    """An ecosystem's readers and how it finds the workspace members of a project directory."""

    ecosystem: str
    readers: tuple[Reader, ...]
    members: Callable[[Context, str], list[str]]


def collect(context: Context, layout: Layout, scope: str | None) -> PackageIndex:
    """Parse every in-scope file of the ecosystem once (the parse is cached by content)."""
    index = PackageIndex(layout.ecosystem)
    for path, reader, member in _in_scope(context, layout, scope):
        context.check_deadline()
        try:
            facts = reader.parse(context, path)
        except ManifestError as exc:
            facts = broken(path, reader.kind, exc)
        if member:
            facts = FileFacts([d._replace(member=member) for d in facts.declarations], facts.status)
        index.add(facts)
    return index


def _in_scope(context: Context, layout: Layout, scope: str | None) -> list[tuple[str, Reader, str]]:
    repo = context.repo
    if scope is not None and set("*?[") & set(scope):
        readers = [(p, _reader_for(layout, posixpath.basename(p))) for p in repo.paths(scope)]
        return [(p, r, "") for p, r in readers if r is not None and repo.is_text(p)]
    base = "" if scope is None else scope.strip("/")
    if base in (".", ""):
        base = ""
    elif repo.is_file(base):
        reader = _reader_for(layout, posixpath.basename(base))
        return [(base, reader, "")] if reader else []
    elif not repo.is_dir(base):
        return []
    found: list[tuple[str, Reader, str]] = []
    at_base = project_files(context, layout, base)  # what decides the projects, and the first project's own files
    for project in _projects(context, layout, base, at_base):
        for directory in [project, *layout.members(context, project)]:
            member = "" if directory == project else directory
            files = at_base if directory == base else project_files(context, layout, directory)
            found += [(path, reader, member) for path, reader in files]
    seen: set[str] = set()
    return [item for item in found if not (item[0] in seen or seen.add(item[0]))]


def _projects(context: Context, layout: Layout, base: str, at_base: list[tuple[str, Reader]]) -> list[str]:
    """The project directories a scope stands for: itself when it has a manifest (or workspace file) among
    `at_base` (its `project_files`), else the top-most directories below it that do (a polyglot repo keeps
    its npm project in web/). A project nested in another one (an examples/ folder) is never picked up this way."""
    if any(reader.kind in ("manifest", "workspace") for _, reader in at_base):
        return [base]
    names = {name for reader in layout.readers if reader.kind == "manifest" for name in reader.names}
    candidates = sorted({posixpath.dirname(p) for p in context.repo.files(base or None, named=names)})
    tops: list[str] = []
    for directory in candidates:
        if not any(directory == top or directory.startswith(top + "/") for top in tops):
            tops.append(directory)
    return tops or [base]


def _reader_for(layout: Layout, relative: str) -> Reader | None:
    return next((r for r in layout.readers if r.matches(relative)), None)


def project_files(context: Context, layout: Layout, directory: str) -> list[tuple[str, Reader]]:
    """The files of one project directory that the ecosystem reads, by exact name then by pattern.

    Exact names are checked on disk, so a lockfile too large for the file
    listing is still found (and then reported as too large, not missed).
    """
    repo = context.repo
    patterned = _by_pattern(context, layout, directory)
    found: list[tuple[str, Reader]] = []
    for at, reader in enumerate(layout.readers):
        for name in reader.names:
            path = posixpath.join(directory, name) if directory else name
            try:
                if repo.is_file(path):
                    found.append((path, reader))
            except UnsafePathError:
                continue
        found.extend((path, reader) for path in patterned.get(at, ()))
    return found


def _by_pattern(context: Context, layout: Layout, directory: str) -> dict[int, list[str]]:
    """The listed files of a directory each pattern reader matches (by the reader's place in the layout),
    from one pass over the listing for all of them: PyPI's two patterns went over a 10,000-file tree twice."""
    patterns = [(at, reader.pattern, reader.names) for at, reader in enumerate(layout.readers) if reader.pattern is not None]
    if not patterns:
        return {}
    prefix = len(directory + "/") if directory else 0
    matched: dict[str, list[int]] = {}
    # Most files match no pattern: one regex says so (the patterns as alternatives), where they share flags.
    any_of = _any_of([pattern for _, pattern, _ in patterns])

    def wanted(path: str) -> bool:
        relative = path[prefix:]
        if any_of is not None and any_of.fullmatch(relative) is None:
            return False
        readers = [at for at, pattern, names in patterns if pattern.fullmatch(relative) is not None and relative not in names]
        if readers:
            matched[path] = readers
        return bool(readers)

    found: dict[int, list[str]] = {}
    for path in context.repo.files(directory or None, where=wanted):
        for at in matched[path]:
            found.setdefault(at, []).append(path)
    return found


def _any_of(patterns: list[re.Pattern[str]]) -> re.Pattern[str] | None:
    """One regex that fully matches what any of these does; None where they cannot be joined (flags that
    differ, a group name used twice)."""
    flags = {pattern.flags for pattern in patterns}
    if len(patterns) < 2 or len(flags) > 1:
        return patterns[0] if len(patterns) == 1 else None
    try:
        return re.compile("|".join(f"(?:{pattern.pattern})" for pattern in patterns), flags.pop())
    except re.error:
        return None


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A workspace glob (`packages/*`, `crates/**`) as a regex over directory paths."""
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out).rstrip("/"))


def member_dirs(context: Context, base: str, globs: Iterable[str], manifest: str, exclude: Iterable[str] = ()) -> list[str]:
    """Directories under `base` matching the member globs (`!glob` excludes) that hold `manifest`."""
    include = [g for g in globs if isinstance(g, str) and not g.startswith("!")]
    excluded = [g[1:] for g in globs if isinstance(g, str) and g.startswith("!")] + [g for g in exclude if isinstance(g, str)]
    prefix = base + "/" if base else ""
    candidates = sorted(
        {posixpath.dirname(p) for p in context.repo.files(base or None, named=[manifest])}
    )
    # Each glob compiled once, not once per candidate directory (a monorepo has hundreds of each).
    wanted = [glob_regex(g) for g in (posixpath.normpath(g) for g in include) if g != "."]
    unwanted = [glob_regex(posixpath.normpath(g)) for g in excluded]
    members = []
    for directory in candidates:
        relative = directory[len(prefix):] if directory.startswith(prefix) else directory
        if not relative or directory == base:
            continue
        if any(regex.fullmatch(relative) for regex in wanted) and not any(regex.fullmatch(relative) for regex in unwanted):
            members.append(directory)
    return members
