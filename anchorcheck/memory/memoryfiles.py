"""Reading memory files: pick the format plugin for a file, read it, keep the real anchors.

Format readers return every code span that looks like `kind:value`; only
spans whose kind a loaded plugin registered are kept as anchors, so prose
such as `` `https://example.com` `` is never mistaken for one.
"""

from __future__ import annotations

import functools
import glob
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from anchorcheck.memory import identifiers, implicit, rulescopes
from anchorcheck.memory.probes import is_file
from anchorcheck.model.anchors import AnchorSyntaxError, anchor_text, encode_path, parse_anchor
from anchorcheck.memory.codespans import CodeSpan, code_spans
from anchorcheck.memory.commonmark import MarkdownTooLarge, read_document
from anchorcheck.base.globs import fnmatch_any
from anchorcheck.base.lazyregex import later
from anchorcheck.model.mistakes import KIND_PREFIX, typo_kind
from anchorcheck.model.results import Memory, Position
from anchorcheck.model.reference import Reference
from anchorcheck.memory.selection import drop_ignored_lines
from anchorcheck.memory.dependencies import Dependencies
from anchorcheck.memory.references import MENTION, Claims, apply_to, apply_to_places, read_references, runner_claims
from anchorcheck.model.registry import MemoryFormat, Registry
from anchorcheck.repo.checkout import Repository
from anchorcheck.repo.safe_read import MEMORY_CAP, FileTooLargeError, read_capped, read_in_root

if TYPE_CHECKING:
    from anchorcheck.memory.documents import Documents



class MemoryFileError(ValueError):
    """A memory file that cannot be read: names the file, the line and what is wrong."""

    def __init__(self, path: str, line: int | None, message: str) -> None:
        self.path, self.line, self.message = path, line, message
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {message}")


def format_for(path: str, registry: Registry) -> MemoryFormat | None:
    """The registered format that reads this file (by `matches`, then by glob on the path)."""
    posix = path.replace("\\", "/")
    name = posix.rsplit("/", 1)[-1]
    for fmt in registry.formats.values():
        if fmt.matches is not None and fmt.matches(posix):
            return fmt
    for fmt in registry.formats.values():
        matches = _matcher(fmt.patterns)
        if matches(posix) or matches(name):
            return fmt
    return None


@functools.lru_cache(maxsize=64)
def _matcher(patterns: tuple[str, ...]) -> Callable[[str], bool]:
    """One compiled test for a format's globs: `format_for` is asked of every tracked path of a large checkout
    (penpot's 6,000, each name asked once more for a source that writes it), and a glob at a time cost 2 s."""
    return fnmatch_any(patterns)


class ReferenceReading(NamedTuple):
    """How implicit references are read from memory files: which kinds, in which checkout.

    `claims(argv)` says whether a registered command runner claims a command
    line; None asks the runners of the registry the file is read with.
    """

    repo: Repository
    kinds: frozenset[str]
    claims: Claims | None = None
    unsure: implicit.Unsure | None = None  # bare names held until history says whether they were here
    dependencies: Dependencies | None = None  # package names in code read when a manifest's history dropped them
    documents: Documents | None = None  # Markdown files' parsed structure kept by their text (a run with the cache on)
    # the folders of a file's other names (`.github/copilot-instructions.md` a symlink to CLAUDE.md), by its shown name
    aliases: dict[str, tuple[str, ...]] | None = None


def read_memory_file(
    path: Path, shown: str, registry: Registry, reading: ReferenceReading | None = None, *, root: Path | None = None
) -> list[Memory]:
    """The memories in one file; raises MemoryFileError for unreadable or unknown files.

    With `reading`, each memory also holds the implicit references written
    in it (as `Reference` objects after its typed anchors), and a command or
    path written outside any memory (a line of a fenced shell block) becomes
    a memory of its own. A file whose `applyTo` front matter matches no
    listed file keeps its typed anchors only: its prose is about files this
    repository does not have. Only a regular file is read, never past MEMORY_CAP;
    with `root`, a file in the repository whose symlink leads out of it is
    refused, as an anchor's path would be.
    """
    fmt = format_for(shown, registry)
    if fmt is None:
        known = ", ".join(sorted(discovery_globs(registry))) or "none"
        raise MemoryFileError(shown, None, f"unknown memory file format (known: {known})")
    text = read_text(path, shown, root)
    documents = reading.documents if reading is not None and fmt.markdown else None
    if documents is not None:
        documents.recall(text)
    try:
        memories = fmt.read(shown, text)
        for memory in memories:
            memory.source = memory.source or shown
            _keep_known_kinds(memory, registry)
        if reading is not None and reading.kinds & set(registry.kinds):
            memories = _with_references(memories, text, fmt, shown, _folder_of(path, reading.repo), reading, registry)
    except MarkdownTooLarge as exc:  # seconds of parsing for a file no agent reads whole: one finding instead
        raise MemoryFileError(shown, None, str(exc)) from None
    if documents is not None:
        documents.keep(text)
    drop_ignored_lines(memories, text)
    return memories


def read_text(path: Path, shown: str, root: Path | None = None) -> str:
    """A memory file's text exactly as stored: a regular file, never past MEMORY_CAP, inside `root` when
    given; MemoryFileError for one too large, unreadable or not UTF-8."""
    try:
        data = read_capped(path, MEMORY_CAP, shown=shown) if root is None else read_in_root(root, path, MEMORY_CAP, shown=shown)
        return data.decode("utf-8")
    except FileTooLargeError:
        raise MemoryFileError(shown, None, f"file larger than {MEMORY_CAP // 2**20} MiB; not a memory file") from None
    except UnicodeDecodeError as exc:
        if exc.object.startswith((b"\xff\xfe", b"\xfe\xff")):  # what some Windows editors save as "Unicode"
            raise MemoryFileError(shown, 1, "UTF-16 text (it starts with a UTF-16 byte-order mark); save it as UTF-8") from None
        line = exc.object[: exc.start].count(b"\n") + 1  # the bytes already read, not a second read
        raise MemoryFileError(shown, line, "not valid UTF-8 text") from None
    except OSError as exc:
        raise MemoryFileError(shown, None, f"cannot read: {exc.strerror or exc}") from None


def _folder_of(path: Path, repo: Repository) -> str:
    try:
        rel = repo.relative(path.parent)
    except ValueError:
        return ""
    return "" if rel == "." else rel


def _with_references(
    memories: list[Memory], text: str, fmt: MemoryFormat, shown: str, folder: str, reading: ReferenceReading, registry: Registry
) -> list[Memory]:
    kinds = reading.kinds & set(registry.kinds)
    reading = reading._replace(claims=reading.claims or runner_claims(registry))
    aliases = (reading.aliases or {}).get(shown, ())
    globs = apply_to(text)
    scopes: tuple[str, ...] = ()
    # Each glob is a claim about this repository: the folder it starts with, missing now, is a path that history
    # may show gone (`legacy/**` beside a `src/**` that still matches is as stale as one alone).
    stale_globs = _glob_folders(text, reading) if globs is not None and "file" in kinds else []
    if globs is not None:
        if rulescopes.applies(globs, reading.repo):
            scopes = rulescopes.scope_folders(globs, reading.repo)
        else:  # instructions for files this repository does not have: not about it, unless it had them (history)
            scopes = rulescopes.gone_scopes(globs, reading.repo, reading.unsure.history if reading.unsure is not None else None)
            if not scopes:
                return _attached(memories, text, shown, stale_globs)
    if not fmt.markdown:
        for memory in memories:
            base = memory.position or Position(1)
            found = [r.at(base.line, base.column - 1) for r in read_references(memory.text, claims=reading.claims, kinds=kinds, mentions=reading.dependencies is not None)]
            _add(memory, _usable(found, folder, scopes, reading, registry, aliases))
        return memories
    found = _usable(read_references(text, claims=reading.claims, kinds=kinds, mentions=reading.dependencies is not None), folder, scopes, reading, registry, aliases)
    return _attached(memories, text, shown, stale_globs + found)


def _glob_folders(text: str, reading: ReferenceReading) -> list[Reference]:
    """The folder each front-matter glob starts with (`legacy/` of `legacy/**/*.py`; a glob with no wildcard is
    the path itself), from the root, where nothing is there now: read only when history shows it was here
    (`Unsure`), so a template's rule for folders this repository never had stays quiet."""
    found = []
    for glob, line, column in apply_to_places(text):
        path = rulescopes.missing_glob_folder(glob, reading.repo)
        reference = Reference("file", f"file:{encode_path(path)}", path, line, column, column + len(path), "code")
        if path and reading.unsure is not None and reading.unsure.hold(reference):
            found.append(reference)
    return found


def _attached(memories: list[Memory], text: str, shown: str, found: list[Reference]) -> list[Memory]:
    """The memories with the references read from the whole text added to the memory that owns each line; a
    reference on a line no memory owns (a shell block's, the front matter's) is a memory of its own."""
    owners = _line_owners(text, memories)
    orphans: dict[int, Memory] = {}
    lines = text.splitlines()
    # Each memory's references added at once: one by one, a table of thousands (one memory) was quadratic.
    batches: dict[int, tuple[Memory, list[Reference]]] = {}
    for reference in found:
        owner = owners.get(reference.line)
        if owner is None:
            owner = orphans.get(reference.line)
            if owner is None:
                line = lines[reference.line - 1].strip()
                owner = orphans[reference.line] = Memory(
                    text=line[2:] if line.startswith("$ ") else line,
                    id=f"{shown}:{reference.line}",
                    source=shown,
                    position=Position(reference.line, reference.column),
                )
        batches.setdefault(id(owner), (owner, []))[1].append(reference)
    for owner, references in batches.values():
        _add(owner, references)
    if not orphans:
        return memories
    return sorted([*memories, *orphans.values()], key=lambda m: m.position.line if m.position else 0)


def _usable(
    found: Iterable[Reference], folder: str, scopes: tuple[str, ...], reading: ReferenceReading, registry: Registry, aliases: Sequence[str] = ()
) -> list[Reference]:
    """The references that name something of this repository and parse as the anchor they amount to; `aliases`: the
    folders of the file's other names."""
    kept = []
    roots = implicit.root_names(registry)
    probes = implicit.Probes()
    for reference in found:
        reference = reference._replace(folder=folder, scopes=scopes)
        if reference.kind == "file" and aliases and implicit.leaves(reference):
            # written for another name of the file (firezone's CLAUDE.md, first .github/copilot-instructions.md, links
            # `../rust/libs/connlib`): read from the folder of that name, where it stays inside the checkout
            reference = next((reference._replace(folder=f) for f in aliases if not implicit.leaves(reference._replace(folder=f))), reference)
        if reference.kind == "file" and reference.after and implicit.names_here(reference.after, reference, reading.repo):
            reference = reference._replace(after="")  # (Kiln's "in `libs/core` / `app/`": no other repository's path)
        if reference.kind == "file":
            if not implicit.keep(reference, reading.repo, roots, probes) or reference.hedged and not implicit.present(reference, reading.repo, roots, probes):
                held = reference.hedged or implicit.unplaced(reference)  # (history decides: `implicit.Unsure`)
                if reading.unsure is None or not held or not reading.unsure.hold(reference):
                    continue
        elif reference.form == MENTION:  # a word in code: read only when history says a manifest dropped it
            if reading.dependencies is None or reading.dependencies.removal(reference.written, folder, reference.sections) is None:
                continue
        elif not identifiers.unresolved(reference):  # a name: looked up when checked (anchorcheck.verify.identifiers)
            try:
                parse_anchor(reference.anchor, registry.kinds)
            except AnchorSyntaxError:
                continue  # read wrongly, or a form the kind does not take: prose, not a claim
        kept.append(reference)
    return kept


def _add(memory: Memory, references: list[Reference]) -> None:
    """Append references to a memory's anchors, once per anchor text, each at the place it was written."""
    have = {anchor_text(a) for a in memory.anchors}
    positions = [memory.anchor_position(i) for i in range(len(memory.anchors))]
    for reference in references:
        if reference.anchor in have:
            continue
        have.add(reference.anchor)
        memory.anchors.append(reference)
        positions.append(Position(reference.line, reference.column))
    memory.anchor_positions = positions


# How people write "a place in a file", not an anchor: `file:line`, `file:line:col`, `path:lineno`.
_LOCATION_FORMAT = re.compile(r"(?:file|path|filename|filepath):(?:line|lineno|linenumber|line_number|ln)(?::(?:col|column|char))?")


def _line_owners(text: str, memories: list[Memory]) -> dict[int, Memory]:
    """Which memory each prose line belongs to: the lines CommonMark gives the block a memory starts."""
    starts = {m.position.line: m for m in memories if m.position is not None}
    owners: dict[int, Memory] = {}
    for block in read_document(text).memories:
        owner = starts.get(block[0].number)
        if owner is not None:
            owners.update((line.number, owner) for line in block)
    return owners


def _keep_known_kinds(memory: Memory, registry: Registry) -> None:
    """Keep the anchors of registered kinds, and near misses of one (`imprt:redis`): a typo is reported, not prose."""
    keep = []
    for index, anchor in enumerate(memory.anchors):
        if isinstance(anchor, str):
            match = _kind_prefix(anchor)
            if not match or match.group(1) not in registry.kinds and typo_kind(anchor, registry.kinds) is None:
                continue
        keep.append((anchor, memory.anchor_position(index)))
    memory.anchors = [a for a, _ in keep]
    memory.anchor_positions = [p for _, p in keep]


def _kind_prefix(text: str) -> re.Match[str] | None:
    """How an anchor starts: `[!]kind:` with the value right after the colon. `watch: false` (a config
    key), `env: { CI: true }` and `file://x` (a URL) are prose, not anchors written wrongly."""
    match = KIND_PREFIX.match(text)
    return None if match is None or text.startswith("//", match.end()) else match


def looks_like_anchor(text: str) -> bool:
    """Whether a code span has the `[!]kind:value` shape (the kind is checked later). A first word that
    ends in a colon (`file:line:col: message`, an output format) is a label, not an anchor; so is a
    location format (`file:line`, `file:line:col`, `path:lineno`)."""
    match = _kind_prefix(text)
    if _LOCATION_FORMAT.fullmatch(text):
        return False
    return bool(match) and len(anchor_text(text)) > match.end() and not text.split(maxsplit=1)[0].endswith(":")


def code_span_anchors(text: str) -> list[tuple[str, int]]:
    """The code spans of one line that look like anchors, with the 0-based offset of each."""
    return span_anchors(code_spans(text))


def span_anchors(spans: Iterable[CodeSpan]) -> list[tuple[str, int]]:
    """The code spans that look like anchors, with the 0-based offset of each in its line."""
    found = []
    for span in spans:
        raw = span.group(2)
        content = raw.strip()
        if looks_like_anchor(content):
            found.append((content, span.start(2) + len(raw) - len(raw.lstrip())))
    return found


def discovery_globs(registry: Registry) -> list[str]:
    """The formats' globs that `check` with no arguments looks for (fnmatch: `*` crosses `/`); the
    pre-commit hook's `files:` pattern is derived from them (`anchorcheck.base.globs.glob_regex`)."""
    return [p for fmt in registry.formats.values() for p in fmt.patterns]


def discover(repo: Repository, registry: Registry, patterns: Sequence[str] = ()) -> list[str]:
    """The known memory files of a checkout (repo-relative, sorted).

    `patterns` (the `memory-files` setting) replace the formats' own
    discovery globs. Listing goes through the Repository, so ignored,
    vendored and binary files are never picked up.
    """
    globs = list(patterns) or discovery_globs(registry)
    # fnmatch semantics: `*` crosses `/`, so `*.memories.toml` matches at any depth
    found = set(repo.files(where=fnmatch_any(globs)))
    # A file named exactly is looked for even when ignored: CLAUDE.local.md is personal, so usually gitignored.
    for name in globs:
        if not set("*?[") & set(name) and name not in found and _regular_file(repo, name):
            found.add(name)
    return sorted(found)


def _regular_file(repo: Repository, rel: str) -> bool:
    try:
        return repo.is_file(rel) and repo.is_text(rel)
    except ValueError:  # UnsafePathError: a symlink out of the checkout
        return False


def expand(arguments: Sequence[str], repo: Repository, registry: Registry) -> list[Path]:
    """Turn `check`'s arguments (files, directories, globs) into the memory files to read.

    A file is taken as named (its format is checked when it is read); a
    directory contributes the files under it that some format reads; a glob
    is expanded relative to the current directory. A name matching nothing
    (a missing file, a glob without matches, a directory without memory
    files) is an error naming it, as in eslint or mypy: a name given on the
    command line that checks nothing must not pass silently.
    """
    found: list[Path] = []
    for argument in arguments:
        path = Path(argument)
        if set("*?[") & set(argument) and not path.exists():
            matches = sorted(Path(p) for p in glob.glob(argument, recursive=True) if Path(p).is_file())
            if not matches:
                raise MemoryFileError(argument, None, "no file matches this glob")
            found.extend(matches)
        elif path.is_dir():
            under = _memory_files_under(path, repo, registry)
            if not under:
                why = "only files a memory format reads count; ignored and vendored files are skipped"
                raise MemoryFileError(argument, None, f"no memory files in this directory ({why})")
            found.extend(under)
        elif path.exists():
            found.append(path)
        else:
            raise MemoryFileError(argument, None, "no such file")
    unique: dict[Path, Path] = {}
    for path in found:
        unique.setdefault(path.resolve(), path)
    return list(unique.values())


def _memory_files_under(directory: Path, repo: Repository, registry: Registry) -> list[Path]:
    try:
        prefix = repo.relative(directory)
    except ValueError:
        raise MemoryFileError(str(directory), None, f"directory is outside the repository {repo.root}") from None
    listed = repo.files(None if prefix == "." else prefix, where=lambda rel: format_for(rel, registry) is not None)
    return [repo.root / rel for rel in listed]


def load(
    arguments: Sequence[str],
    repo: Repository,
    registry: Registry,
    patterns: Sequence[str] = (),
    reading: ReferenceReading | None = None,
    errors: list[MemoryFileError] | None = None,
) -> list[tuple[str, list[Memory]]]:
    """The memories of every file `check`/`lock` was given, or of every discovered file when none.

    Each file is shown as the user would type it (relative to the current
    directory when possible). A file reached under several names (CLAUDE.md
    a symlink to AGENTS.md) is read once, under its real name when that is
    among them. With `reading`, a file a memory file imports (`@AGENTS.md`)
    is read too, once. A byte copy of a file read before, beside it and read by the same format
    (CLAUDE.md copied from AGENTS.md), is not read again: its memories are the first file's, placed
    in the copy (`as_copy`). Raises MemoryFileError for the first bad file; with `errors`, a file
    of a known format that cannot be read is appended there and left out, and the others are read.
    """
    if arguments:
        paths = expand(arguments, repo, registry)
    else:
        paths = [repo.root / rel for rel in discover(repo, registry, patterns)]
    queue = _real_names(paths)
    seen = {path.resolve() for path in queue}
    if reading is not None:
        reading = reading._replace(aliases=_alias_folders(queue, paths, repo))
    loaded = []
    originals: dict[tuple[Path, str, bytes], tuple[str, list[Memory]]] = {}  # folder, format, bytes -> first file
    while queue:
        path = queue.pop(0)
        shown = shown_path(path, repo.root)
        fmt = format_for(shown, registry)
        key = (path.parent.resolve(), fmt.name, _bytes_of(path, repo.root)) if fmt is not None else None
        if key in originals:
            first, memories = originals[key]
            memories = as_copy(memories, first, shown)
        else:
            try:
                memories = read_memory_file(path, shown, registry, reading, root=repo.root)
            except MemoryFileError as exc:
                if errors is None or fmt is None:
                    raise
                errors.append(exc)
                continue
            if key is not None and key[2]:
                originals[key] = (shown, memories)
        loaded.append((shown, memories))
        for imported in _imports(memories, repo, registry):
            if imported.resolve() not in seen:
                seen.add(imported.resolve())
                queue.append(imported)
    if reading is not None and reading.unsure is not None:
        reading.unsure.settle([memory for _, memories in loaded for memory in memories], repo)
    return loaded


def _alias_folders(chosen: Sequence[Path], paths: Sequence[Path], repo: Repository) -> dict[str, tuple[str, ...]]:
    """The folders of the other names each file read is reached under, by the name it is shown as."""
    folders: dict[Path, list[str]] = {}
    for path in paths:
        folders.setdefault(path.resolve(), []).append(_folder_of(path, repo))
    found = {}
    for path in chosen:
        own = _folder_of(path, repo)
        others = tuple(dict.fromkeys(f for f in folders.get(path.resolve(), ()) if f != own))
        if others:
            found[shown_path(path, repo.root)] = others
    return found


def _bytes_of(path: Path, root: Path) -> bytes:
    """A memory file's bytes, to tell a byte copy by (empty when unreadable: the reader reports why)."""
    try:
        return read_in_root(root, path, MEMORY_CAP)
    except OSError:
        return b""


def as_copy(memories: list[Memory], first: str, shown: str) -> list[Memory]:
    """The memories read from file `first`, as the same bytes in file `shown` (same folder, same format)
    give them: the source is the copy, and so is an id the reader made from the file's name (`CLAUDE.md:12`);
    an id written in the file stays. Anchors, references and positions are the same (copied, not shared)."""
    return [
        replace(
            memory,
            source=shown,
            id=shown + memory.id[len(first) :] if memory.id and memory.id.startswith(first) else memory.id,
            anchors=list(memory.anchors),
            anchor_positions=list(memory.anchor_positions),
            metadata=dict(memory.metadata),
        )
        for memory in memories
    ]


def _real_names(paths: Sequence[Path]) -> list[Path]:
    """One path per real file, in order: the real name when it was given, else the first name."""
    chosen: dict[Path, Path] = {}
    for path in paths:
        real = path.resolve()
        if real not in chosen or path.absolute() == real:
            chosen[real] = path
    order = {path.resolve(): index for index, path in reversed(list(enumerate(paths)))}
    return sorted(chosen.values(), key=lambda p: order[p.resolve()])


def _imports(memories: list[Memory], repo: Repository, registry: Registry) -> list[Path]:
    """The memory files that `@path` imports in these memories name (existing files a format reads)."""
    found = []
    for memory in memories:
        for anchor in memory.anchors:
            if isinstance(anchor, Reference) and anchor.form == "import":
                rel = next((c for c in implicit.readings(anchor) if is_file(repo, c)), None)
                if rel is not None and format_for(rel, registry) is not None:
                    found.append(repo.root / rel)
    return found


def shown_path(path: Path, root: Path) -> str:
    """A path as the user would type it: relative to the current directory when it is below it, and from a
    folder of the checkout (`../AGENTS.md`, as ruff and mypy print it) when both are in the checkout;
    otherwise as given."""
    real, cwd = path.resolve(), Path.cwd().resolve()
    try:
        return real.relative_to(cwd).as_posix()
    except ValueError:
        pass
    inside = (real == root or root in real.parents) and (cwd == root or root in cwd.parents)
    return Path(os.path.relpath(real, cwd)).as_posix() if inside else path.as_posix()


def header_lines(text: str, header: re.Pattern[str]) -> list[int]:
    """1-based lines of every match of `header` (a MULTILINE pattern), in one linear pass."""
    lines, line, offset = [], 1, 0
    for match in header.finditer(text):
        line += text.count("\n", offset, match.start())
        offset = match.start()
        lines.append(line)
    return lines


def claude_memory_dir(root: Path) -> Path:
    """Claude Code's auto-memory folder for a checkout: `~/.claude/projects/<encoded root>/memory`.

    Claude Code names a project's folder after its absolute path with every
    character other than an ASCII letter or digit replaced by `-`, runs not
    collapsed (`/home/me/my_app.v2` → `-home-me-my-app-v2`); CLAUDE_CONFIG_DIR
    moves `~/.claude`.
    """
    base = Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")
    return base / "projects" / _CLAUDE_UNSAFE.sub("-", str(Path(root).resolve())) / "memory"


_CLAUDE_UNSAFE = later(r"[^A-Za-z0-9]")


def claude_memory_files(root: Path) -> list[Path]:
    """The Markdown files of Claude Code's auto-memory for this checkout (none when it has none)."""
    folder = claude_memory_dir(root)
    return sorted(p for p in folder.glob("*.md") if p.is_file()) if folder.is_dir() else []
