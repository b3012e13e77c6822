"""Reading memory files: pick the format plugin for a file, read it, keep the real anchors.

Format readers return every code span that looks like `kind:value`; only
spans whose kind a loaded plugin registered are kept as anchors, so prose
such as `` `https://example.com` `` is never mistaken for one.
"""

from __future__ import annotations

import bisect
import fnmatch
import glob
import re
from collections.abc import Sequence
from pathlib import Path

from anchorcheck.anchors import anchor_text
from anchorcheck.model import Memory
from anchorcheck.registry import MemoryFormat, Registry
from anchorcheck.repo import Repository

_KIND_PREFIX = re.compile(r"\s*!?([a-z][a-z0-9_-]*):")
_BACKTICKS = re.compile(r"`+")
# Memory files are notes, not data: a larger file is almost surely a mistake and would stall the run.
MAX_MEMORY_FILE_BYTES = 16 * 1024 * 1024


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
        if any(fnmatch.fnmatch(posix, p) or fnmatch.fnmatch(name, p) for p in fmt.patterns):
            return fmt
    return None


def read_memory_file(path: Path, shown: str, registry: Registry) -> list[Memory]:
    """The memories in one file; raises MemoryFileError for unreadable or unknown files."""
    fmt = format_for(shown, registry)
    if fmt is None:
        known = ", ".join(sorted(p for f in registry.formats.values() for p in f.patterns)) or "none"
        raise MemoryFileError(shown, None, f"unknown memory file format (known: {known})")
    try:
        if path.stat().st_size > MAX_MEMORY_FILE_BYTES:
            raise MemoryFileError(shown, None, f"file larger than {MAX_MEMORY_FILE_BYTES // 2**20} MiB; not a memory file")
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        line = exc.object[: exc.start].count(b"\n") + 1  # the bytes already read, not a second read
        raise MemoryFileError(shown, line, "not valid UTF-8 text") from None
    except OSError as exc:
        raise MemoryFileError(shown, None, f"cannot read: {exc.strerror or exc}") from None
    memories = fmt.read(shown, text)
    for memory in memories:
        memory.source = memory.source or shown
        _keep_known_kinds(memory, registry)
    return memories


def _keep_known_kinds(memory: Memory, registry: Registry) -> None:
    keep = []
    for index, anchor in enumerate(memory.anchors):
        if isinstance(anchor, str):
            match = _KIND_PREFIX.match(anchor)
            if not match or match.group(1) not in registry.kinds:
                continue
        keep.append((anchor, memory.anchor_position(index)))
    memory.anchors = [a for a, _ in keep]
    memory.anchor_positions = [p for _, p in keep]


def looks_like_anchor(text: str) -> bool:
    """Whether a code span has the `[!]kind:value` shape (the kind is checked later)."""
    match = _KIND_PREFIX.match(text)
    return bool(match) and len(anchor_text(text)) > match.end()


def code_span_anchors(text: str) -> list[tuple[str, int]]:
    """The code spans of one line that look like anchors, with the 0-based offset of each.

    As CommonMark reads them: a run of backticks opens a span that the next run
    of the same length closes; a run that nothing closes is literal text. Each
    run finds its closer through a per-length list of positions, so a line of
    many runs of different lengths (`` a``a```a... ``) costs linear time, where
    a backtracking regex took quadratic.
    """
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(text)]
    by_length: dict[int, list[int]] = {}
    for index, (start, end) in enumerate(runs):
        by_length.setdefault(end - start, []).append(index)
    found, index = [], 0
    while index < len(runs):
        start, end = runs[index]
        same = by_length[end - start]
        at = bisect.bisect_right(same, index)
        if at == len(same):
            index += 1  # never closed: literal backticks
            continue
        closer = same[at]
        raw = text[end : runs[closer][0]]
        content = raw.strip()
        if looks_like_anchor(content):
            found.append((content, end + len(raw) - len(raw.lstrip())))
        index = closer + 1
    return found


def discover(repo: Repository, registry: Registry, patterns: Sequence[str] = ()) -> list[str]:
    """The known memory files of a checkout (repo-relative, sorted).

    `patterns` (the `memory-files` setting) replace the formats' own
    discovery globs. Listing goes through the Repository, so ignored,
    vendored and binary files are never picked up.
    """
    globs = list(patterns) or [p for fmt in registry.formats.values() for p in fmt.patterns]
    # fnmatch semantics: `*` crosses `/`, so `*.memories.toml` matches at any depth
    return repo.files(where=lambda path: any(fnmatch.fnmatchcase(path, g) for g in globs))


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


def load(arguments: Sequence[str], repo: Repository, registry: Registry, patterns: Sequence[str] = ()) -> list[tuple[str, list[Memory]]]:
    """The memories of every file `check`/`lock` was given, or of every discovered file when none.

    Each file is shown as the user would type it (relative to the current
    directory when possible). Raises MemoryFileError for the first bad file.
    """
    if arguments:
        paths = expand(arguments, repo, registry)
    else:
        paths = [repo.root / rel for rel in discover(repo, registry, patterns)]
    loaded = []
    for path in paths:
        shown = shown_path(path)
        loaded.append((shown, read_memory_file(path, shown, registry)))
    return loaded


def shown_path(path: Path) -> str:
    """A path as the user typed it: relative to the current directory when it is below it."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def header_lines(text: str, header: re.Pattern[str]) -> list[int]:
    """1-based lines of every match of `header` (a MULTILINE pattern), in one linear pass."""
    lines, line, offset = [], 1, 0
    for match in header.finditer(text):
        line += text.count("\n", offset, match.start())
        offset = match.start()
        lines.append(line)
    return lines
