"""SHA-1 and SHA-256 of what a run names things by, without importing hashlib for a few bytes.

`import hashlib` loads OpenSSL (`_hashlib`): about 11 M instructions, 1.5 ms of every run, an eighth
of a replayed `check`, to hash a few keys and file ids. The interpreter's own implementations
(`_sha1`, `_sha256`; `_sha2` from Python 3.12) give the same digests and load at once, but hash
about seven times slower (10.6 against 1.4 ns a byte for SHA-1 here; 23 instructions a byte against
the import's 11 M): a run on a small checkout hashes about 170 KB, most of it the sources a language's
facts are fingerprinted by, which costs here what the import would. A digest fed more than `LARGE`
bytes is handed to hashlib, so a large checkout's tree state or a large file costs what it did.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # not `typing`'s: importing it costs a replayed `check` 4-7 ms (anchorcheck.serve.replay)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

LARGE = 256 * 1024  # bytes: past it, OpenSSL's speed pays for its import


class Digest:
    """A digest fed in parts (`update`), read with `digest()` or `hexdigest()` as hashlib's are: its
    parts are kept until they pass `LARGE`, then hashlib takes over."""

    def __init__(self, name: str, data: bytes = b"") -> None:
        self._name = name
        self._parts: list[bytes] = []
        self._size = 0
        self._hash: Any = None
        if data:
            self.update(data)

    def update(self, data: bytes) -> None:
        if self._hash is not None:
            self._hash.update(data)
            return
        self._parts.append(data)
        self._size += len(data)
        if self._size > LARGE:
            import hashlib

            self._hash = hashlib.new(self._name, b"".join(self._parts))
            self._parts = []

    def _done(self) -> Any:
        return self._hash if self._hash is not None else _builtin(self._name)(b"".join(self._parts))

    def digest(self) -> bytes:
        return self._done().digest()

    def hexdigest(self) -> str:
        return self._done().hexdigest()


def sha1(data: bytes = b"") -> Digest:
    """hashlib.sha1(data), for content ids and names (never security)."""
    return Digest("sha1", data)


def sha256(data: bytes = b"") -> Digest:
    """hashlib.sha256(data)."""
    return Digest("sha256", data)


def _builtin(name: str) -> Callable[[bytes], Any]:
    """The interpreter's own implementation of `name`, found once (a failed import searches the whole path)."""
    made = _BUILTIN.get(name)
    if made is None:
        made = _BUILTIN[name] = _find(name)
    return made


_BUILTIN: dict[str, Callable[[bytes], Any]] = {}


def _find(name: str) -> Callable[[bytes], Any]:
    try:
        if name == "sha1":
            from _sha1 import sha1 as made
        elif sys.version_info >= (3, 12):
            from _sha2 import sha256 as made  # type: ignore[import-not-found, no-redef]
        else:
            from _sha256 import sha256 as made  # type: ignore[import-not-found, no-redef]
    except ImportError:  # an interpreter built without them (`--without-builtin-hashlib-hashes`)
        import hashlib

        made = getattr(hashlib, name)
    return made
