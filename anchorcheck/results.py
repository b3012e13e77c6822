"""Verdicts kept on disk per tree state: a new process answers an anchor it saw before without searching.

A warm `anchorcheck check` (pre-commit, CI, a new MCP session) would otherwise
redo every search from the cached per-file facts: look up and decode the facts
of every candidate, judge every candidate again for the evidence it cites. A
result depends on nothing but the checkout's files, its configuration and the
code that judged it, so it is stored under a key naming exactly those: every
listed path with its content id (git's blob id for a file git vouches for, the
same hash of the bytes for any other), the configuration, and the anchorcheck
and plugin code (their source files' signatures and the plugins' versions).
Any change to any of them is another key: nothing is reused that might differ.

Only results that read nothing outside that key are stored: none that ran git
(a span followed through history), read a file no listing holds or looked for
one that does not exist, and none cut short by a deadline.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anchorcheck.anchors import Anchor
from anchorcheck.cache import FactsCache, git_blob_id
from anchorcheck.model import AnchorResult
from anchorcheck.repo import FileTooLargeError, Repository, UnsafePathError

if TYPE_CHECKING:
    from anchorcheck.memo import Reads
    from anchorcheck.plugins import PluginSet

RESULTS_VERSION = "1"
MAX_UNCLEAN = 2000  # files git does not vouch for (modified, untracked) that naming a tree state may read
_CODE: dict[tuple[tuple[str, str], ...], str] = {}  # per process: the code does not change under a running program


class ResultStore:
    """The results of one checkout's tree state, read and written through the shared facts cache."""

    def __init__(self, cache: FactsCache, state: str, listed: set[str], root: str) -> None:
        self.cache = cache
        self.root = root
        self.state = state
        self._listed = listed
        self._directories: set[str] | None = None

    @classmethod
    def open(cls, repo: Repository, plugins: PluginSet, config: object, cache: FactsCache) -> ResultStore | None:
        """The store of the checkout as it is now; None where no key can name its state (outside git,
        or plugins given as objects, whose code has no signature to take) or naming it would read
        more than `MAX_UNCLEAN` files git does not vouch for."""
        if not repo.in_git:
            return None
        code = _code(plugins)
        if code is None:
            return None
        listed = repo.paths()
        clean = repo.blob_ids
        if sum(1 for path in listed if path not in clean) > MAX_UNCLEAN:
            return None  # naming the state would read more than most checks do
        digest = hashlib.sha1(f"{RESULTS_VERSION}\0{code}\0{config!r}\0".encode("utf-8", "surrogateescape"))  # noqa: S324
        for path in listed:
            digest.update(f"{path}\0{clean.get(path) or _content_id(repo, path)}\0".encode("utf-8", "surrogateescape"))
        return cls(cache, digest.hexdigest(), set(listed), str(repo.root))

    def _key(self, anchor: Anchor) -> str:
        text = f"{self.state}\0{anchor.kind}\0{anchor.value}\0{anchor.scope}"
        return "result:" + hashlib.sha1(text.encode("utf-8", "surrogateescape")).hexdigest()  # noqa: S324

    def get(self, anchor: Anchor) -> tuple[AnchorResult, list[str]] | None:
        """The stored result and the paths it found absent, when they are all still absent."""
        key = self._key(anchor)
        found = self.cache.get_many([key]).get(key)
        if found is None:
            return None
        try:
            absent = [str(path) for path in found["absent"]]
            if any(os.path.lexists(os.path.join(self.root, path)) for path in absent):
                return None  # a file it looked for is there now, where no listing shows it (an ignored one)
            return AnchorResult.from_dict(found["result"]), absent
        except (KeyError, TypeError, ValueError):
            return None  # a well-formed row of the wrong shape: work it out again

    def put(self, anchor: Anchor, result: AnchorResult, reads: Reads) -> None:
        """Keep a result whose every read the state names: listed files and their directories, and
        paths that do not exist (checked again when it is read back)."""
        if reads.git:
            return
        directories = self.directories()
        absent = []
        for path in reads.paths | reads.probed:
            if path not in self._listed and path not in directories:
                if os.path.lexists(os.path.join(self.root, path)):
                    return  # there, but no listing holds it: its content is not in the key
                absent.append(path)
        self.cache.put(self._key(anchor), {"result": result.to_dict(), "absent": sorted(absent)})

    def directories(self) -> set[str]:
        if self._directories is None:
            self._directories = {"."} | {path.rsplit("/", 1)[0] for path in self._listed if "/" in path}
            self._directories |= {parent for d in list(self._directories) for parent in _parents(d)}
        return self._directories

    def flush(self) -> None:
        self.cache.flush()


def _parents(directory: str) -> list[str]:
    parts = directory.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts))]


def _content_id(repo: Repository, path: str) -> str:
    """A file git does not vouch for: the hash of its bytes; past the size cap or unreadable, its stat
    signature (never read whole, and any change to it is still another key)."""
    try:
        return git_blob_id(repo.read_bytes(path))
    except (FileTooLargeError, OSError, UnsafePathError):
        try:
            info = os.stat(repo.root / path)
        except OSError:
            return "unreadable"
        return f"stat:{info.st_size}:{info.st_mtime_ns}:{info.st_ino}"


def _code(plugins: PluginSet) -> str | None:
    """Names the code that judges: the plugins by name and module, and anchorcheck's and every plugin
    package's source files by path, size and time (an upgrade rewrites them). None for a plugin that
    is no module."""
    key = tuple(sorted((info.name, info.module) for info in plugins.infos))
    if key in _CODE:
        return _CODE[key]
    files: set[Path] = set(Path(__file__).parent.rglob("*.py"))
    for package in {module.split(":", 1)[0].split(".", 1)[0] for _, module in key}:
        try:  # the whole top-level package: a plugin module leans on its siblings
            spec = importlib.util.find_spec(package)
        except (ImportError, ValueError):
            spec = None
        if spec is None or spec.origin is None:
            return None
        origin = Path(spec.origin)
        files |= set(origin.parent.rglob("*.py")) if origin.name == "__init__.py" else {origin}
    digest = hashlib.sha1(repr(key).encode())  # noqa: S324
    for source in sorted(files):
        try:
            info = source.stat()
        except OSError:
            continue
        digest.update(f"{source}\0{info.st_size}\0{info.st_mtime_ns}\0".encode("utf-8", "surrogateescape"))
    _CODE[key] = digest.hexdigest()
    return _CODE[key]
