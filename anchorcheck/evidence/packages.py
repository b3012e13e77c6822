"""Package evidence: what a project's manifests declare and its lockfiles lock.

Ecosystem plugins turn manifests and lockfiles into these records; the `pkg:`
verifier only ever looks at them, so a new ecosystem is a reader, not a new
verifier. The records are free of I/O apart from `load`, which reads a file
through the Repository and caches its parse by content for the Verifier's
lifetime (many anchors, one parse).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from anchorcheck.base import digests
from anchorcheck.repo.paths import UnsafePathError

from anchorcheck.repo.safe_read import FileTooLargeError

if TYPE_CHECKING:
    from anchorcheck.repo.context import Context

T = TypeVar("T")

# Relations a declaration can have; `locked` means only a lockfile (or go.sum) records it.
DIRECT = "direct"
OPTIONAL = "optional"
DEV = "dev"
GROUP = "group"
PEER = "peer"
BUILD = "build"
CONDA = "conda"
PROJECT = "project"
WORKSPACE = "workspace"
INDIRECT = "indirect"
REPLACEMENT = "replacement"
TOOL = "tool"
LOCKED = "locked"

# How a claimed version range relates to a declared one (an ecosystem's `range_relation`).
CONTAINS = "contains"  # every version the declaration admits satisfies the claim
DISJOINT = "disjoint"  # none does
OVERLAPS = "overlaps"  # some do, some do not

# Lockfiles of real projects reach tens of MB (a monorepo's pnpm-lock.yaml); past this we say so.
DEFAULT_LIMIT = 64 * 1024 * 1024


class ManifestError(Exception):
    """A manifest or lockfile that cannot be read as its format: names the 1-based line."""

    def __init__(self, message: str, line: int | None = None) -> None:
        self.message = message
        self.line = line
        super().__init__(message if line is None else f"line {line}: {message}")


class Declaration(NamedTuple):
    """One package a file names: declared (direct, optional extra, dev group...) or only locked.

    `group` is the extra or group name where the relation has one; `member` is
    the workspace member (its directory, "" for the root) whose manifest says
    so; `locked_version` is filled in from the lockfile when there is one.

    The records of this module are named tuples (frozen, compared and hashed by value as the frozen
    dataclasses they were) and plain classes: generating dataclass methods cost every check that
    reads a manifest ~3 ms at import. `_replace` makes a changed copy.
    """

    name: str
    relation: str
    file: str
    line: int | None = None
    specifier: str = ""
    group: str | None = None
    locked_version: str | None = None
    member: str = ""
    written: str = ""

    def describe(self) -> str:
        """The relation as a person says it: 'an optional dependency (extra redis)'."""
        if self.relation == PROJECT:
            return f"workspace member {self.member}" if self.member else "the project's own package"
        text = _RELATION_TEXT.get(self.relation, self.relation)
        if self.relation in (OPTIONAL, DEV, GROUP):
            text = text.format(group=self.group) if self.group else text.split(" (", 1)[0].replace(" {group}", "")
        if self.member:
            text += f" of workspace member {self.member}"
        return text


_RELATION_TEXT = {
    DIRECT: "a direct dependency",
    OPTIONAL: "an optional dependency (extra {group})",
    DEV: "a dev dependency (group {group})",
    GROUP: "in dependency group {group}",
    PEER: "a peer dependency",
    BUILD: "a build requirement",
    CONDA: "a conda package",
    WORKSPACE: "a workspace dependency ([workspace.dependencies])",
    INDIRECT: "an indirect requirement (// indirect)",
    REPLACEMENT: "a replacement module (replace directive)",
    TOOL: "a tool (tool directive)",
    LOCKED: "locked only (a transitive dependency)",
}


class ManifestStatus(NamedTuple):
    """Whether one file could be used as closed-world evidence, and if not, why."""

    file: str
    kind: str = "manifest"  # or "lockfile"
    parsed: bool = True
    dynamic: bool = False
    error: str | None = None
    line: int | None = None

    @property
    def complete(self) -> bool:
        return self.parsed and not self.dynamic

    def problem(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        if not self.parsed:
            return f"{where} could not be parsed ({self.error})"
        return f"{where} declares its dependencies dynamically ({self.error or 'computed'})"


class FileFacts:
    """What one reader found in one file."""

    __slots__ = ("declarations", "status")

    def __init__(self, declarations: list[Declaration] | None = None, status: ManifestStatus | None = None) -> None:
        self.declarations = [] if declarations is None else declarations
        self.status = status


class PackageIndex:
    """Every declaration and file status of one ecosystem, within one scope."""

    __slots__ = ("ecosystem", "declarations", "statuses", "_by_name", "_seen")

    def __init__(self, ecosystem: str) -> None:
        self.ecosystem = ecosystem
        self.declarations: list[Declaration] = []
        self.statuses: list[ManifestStatus] = []
        self._by_name: dict[str, list[Declaration]] = {}
        self._seen: set[Declaration] = set()

    def add(self, facts: FileFacts) -> None:
        """Add one file's facts; a declaration seen twice (an included file read twice) counts once."""
        if facts.status is not None and facts.status not in self.statuses:
            self.statuses.append(facts.status)
        for decl in facts.declarations:
            if decl in self._seen:
                continue
            self._seen.add(decl)
            self.declarations.append(decl)
            self._by_name.setdefault(decl.name, []).append(decl)

    def find(self, name: str) -> list[Declaration]:
        """Declarations of a normalized name, declared ones before locked-only ones."""
        found = self._by_name.get(name, [])
        return sorted(found, key=lambda d: (d.relation == LOCKED, d.file, d.line or 0))

    @property
    def manifests(self) -> list[ManifestStatus]:
        return [s for s in self.statuses if s.kind == "manifest"]

    def problems(self) -> list[ManifestStatus]:
        return [s for s in self.statuses if not s.complete]


def project_index(context: Context, ecosystem: str, read: Callable[[Context, str | None], PackageIndex], scope: str | None = None) -> PackageIndex:
    """An ecosystem's declarations in a scope, read once per Verifier whoever asks (`pkg:`, an import-name mapping)."""
    return context.memo(("pkg-index", ecosystem, scope), lambda: read(context, scope))


def load(context: Context, path: str, parse: Callable[[bytes], T]) -> T:
    """Read `path` through the Repository and parse it, once per content and parser.

    Raises ManifestError for files that cannot be read (too large, unreadable),
    and whatever `parse` raises. The cache key is the parser and the sha256 of
    the bytes, so two scopes that share a lockfile share its parse. The size
    cap is `[tool.anchorcheck.plugin.pkg] max-manifest-bytes` (default 64 MiB).
    """
    limit = context.settings("pkg").get("max-manifest-bytes", DEFAULT_LIMIT)
    if not isinstance(limit, int) or isinstance(limit, bool) or limit <= 0:
        limit = DEFAULT_LIMIT
    try:
        data = context.repo.read_bytes(path, limit=limit)
    except FileTooLargeError as exc:
        raise ManifestError(f"file too large to read ({exc})") from None
    except UnsafePathError:
        raise
    except OSError as exc:
        raise ManifestError(f"cannot read: {exc.strerror or exc}") from None
    digest = digests.sha256(data).hexdigest()
    key = ("anchorcheck.evidence.packages.load", getattr(parse, "__module__", ""), getattr(parse, "__qualname__", repr(parse)), digest)
    return context.memo(key, lambda: parse(data))


def decode(data: bytes) -> str:
    """Manifests are UTF-8 (a BOM is tolerated); anything else is a parse error, not a crash."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ManifestError("not valid UTF-8", line) from None


LockEntry = tuple[str, str | None, int | None]  # name as written, version, line


def locked_facts(path: str, entries: Iterable[LockEntry], normalize: Callable[[str], str]) -> FileFacts:
    """A lockfile's entries as `locked` declarations with their versions."""
    found = [
        Declaration(normalize(name), LOCKED, path, line, locked_version=version, written=name) for name, version, line in entries
    ]
    return FileFacts(found, ManifestStatus(path, kind="lockfile"))


def broken(file: str, kind: str, exc: Exception) -> FileFacts:
    """The facts of a file that failed to parse: no declarations, a status that names the line."""
    line = getattr(exc, "line", None)
    message = getattr(exc, "message", None) or str(exc)
    return FileFacts(status=ManifestStatus(file, kind, parsed=False, error=message, line=line))


def as_table(value: Any, where: str) -> dict[str, Any]:
    """A value that must be a table in a well-formed file; else a ManifestError naming the key."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ManifestError(f"{where} should be a table, not {type(value).__name__}")
    return value
