"""Writing several files as one: after a kill at any instant, every file is as before or every file is new.

`relocate` changes the lock and the memory files that write the moved span;
`rebank` the lock, native memory files and the memory files that write a
trigger; `suggest --write` the memory files and the lock. Each file is
replaced atomically (`anchorcheck.repo.atomic`), but a kill between two of them
left the lock re-keyed and the memory files not: every span read "not
banked", and re-banking it from the current code lost the fingerprint. So a
command collects the new content of every file it changes in a `Batch`, and
`Batch.commit`:

1. writes a journal, `.anchorcheck.journal` at the root, atomically: each
   file's path, the sha256 of its bytes now and of its new bytes, and the
   new text;
2. replaces each file;
3. removes the journal.

A kill before the journal is in place leaves every file as it was; a kill
after it leaves the journal, and the next anchorcheck command on the
checkout (`recover`, before it reads the lock or a memory file) finishes the
write: a file still holding its old bytes gets the new ones, one already
replaced is left alone, so a recovery killed halfway is simply done again.

A journal is only ever replayed onto what it describes, so a stray or
planted one cannot make a reading command write anything it likes: each file
must be one anchorcheck writes (the caller's `accepts`: a memory file by its
format, or a lock), never in a `.git` folder, and hold exactly the bytes the
journal says it held before (or already the new ones). Outside the checkout
(a memory file named on the command line) the file must exist: a journal
never creates one there. A file that someone changed since the kill is left
as it is, and a warning names it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

TYPE_CHECKING = False  # not `typing`'s: a check imports this module, and nothing else of it unless a journal is there
if TYPE_CHECKING:
    from anchorcheck.model.registry import Registry

JOURNAL_NAME = ".anchorcheck.journal"
VERSION = 1
JOURNAL_CAP = 256 * 1024 * 1024  # the new text of every file a command changes: a lock and memory files


class Batch:
    """The new text of each file one command changes, keyed by where its bytes are; `commit` writes them all.

    An edit reads a file through the batch (`text`), so that two edits of one
    file compose: a native memory file is both a citation store (its own
    citations) and a memory file (the anchors it writes).
    """

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.files: dict[Path, str] = {}

    def text(self, path: Path, read: Callable[[], str]) -> str:
        """The file's pending new text, else what `read` reads from the disk."""
        pending = self.files.get(_real(path))
        return read() if pending is None else pending

    def put(self, path: Path, text: str) -> None:
        self.files[_real(path)] = text

    def commit(self) -> None:
        """Write every file, journaled when there are several (one file's replace is atomic on its own)."""
        from anchorcheck.repo.atomic import write_atomic

        if len(self.files) < 2:
            for path, text in self.files.items():
                write_atomic(path, text)
            return
        import hashlib
        import json

        entries = [
            {"path": _shown(self.root, path), "before": _digest(path), "after": hashlib.sha256(text.encode("utf-8")).hexdigest(), "text": text}
            for path, text in self.files.items()
        ]
        journal = self.root / JOURNAL_NAME
        write_atomic(journal, json.dumps({"version": VERSION, "files": entries}, ensure_ascii=False))
        for path, text in self.files.items():
            write_atomic(path, text)
        _remove(journal)


def finish_interrupted_write(root: Path, registry: Registry) -> bool:
    """Complete the write a killed command left half done, before anything reads the lock or a memory
    file; warnings go to stderr. Whether any file was written. One `lstat` when there is no journal:
    every command calls it."""
    if not os.path.lexists(Path(root) / JOURNAL_NAME):
        return False
    from anchorcheck.memory.writeback import writes

    from anchorcheck.base.printable import printable

    wrote, warnings = recover(root, writes(registry))
    for warning in warnings:
        print(f"anchorcheck: warning: {printable(warning)}", file=sys.stderr)
    return wrote


def recover(root: Path, accepts: Callable[[str, str], bool]) -> tuple[bool, list[str]]:
    """Finish the multi-file write a killed command left: whether any file was written, and warnings.

    `accepts(path, text)` says whether anchorcheck writes such a file (a
    memory file by its format, a lock). A journal that names any other file,
    or that is malformed, is not replayed at all and is left in place for a
    person to look at; a file changed since the kill is left as it is.
    """
    from anchorcheck.repo.atomic import write_atomic

    journal = Path(root) / JOURNAL_NAME
    if not os.path.lexists(journal):
        return False, []
    try:
        entries = _entries(root, journal)
        refused = [f"{e['path']}: {why}" for e in entries if (why := _refusal(root, e, accepts))]
    except (OSError, ValueError) as exc:
        return False, [f"{JOURNAL_NAME}: not replayed ({exc}); remove it if no anchorcheck command was killed"]
    if refused:
        return False, [f"{JOURNAL_NAME}: not replayed, it names files anchorcheck would not write ({'; '.join(refused)}); remove it"]
    wrote, warnings = False, []
    for entry in entries:
        path = _target(root, entry["path"])
        try:
            now = _digest(path)
            if now == entry["after"]:
                continue
            if now != entry["before"]:
                warnings.append(f"{entry['path']}: changed since an anchorcheck command was killed while writing it; left as it is")
                continue
            write_atomic(path, entry["text"])
        except OSError as exc:
            return wrote, [*warnings, f"{entry['path']}: cannot finish writing it ({exc.strerror or exc}); {JOURNAL_NAME} kept for the next command"]
        wrote = True
    _remove(journal)
    return wrote, warnings


def _remove(journal: Path) -> None:
    try:
        os.unlink(journal)
    except FileNotFoundError:
        pass  # a command running beside this one finished the same write


def _entries(root: Path, journal: Path) -> list[dict[str, str | None]]:
    """The journal's entries, each checked for shape; ValueError names what is wrong."""
    import hashlib
    import json

    from anchorcheck.repo.safe_read import read_in_root

    try:
        doc = json.loads(read_in_root(root, journal, JOURNAL_CAP, shown=JOURNAL_NAME))
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 text") from None
    files = doc.get("files") if isinstance(doc, dict) and doc.get("version") == VERSION else None
    if not isinstance(files, list):
        raise ValueError(f"not a version {VERSION} journal")
    for entry in files:
        if not (
            isinstance(entry, dict)
            and all(isinstance(entry.get(k), str) for k in ("path", "after", "text"))
            and isinstance(entry.get("before"), str | None)
            and hashlib.sha256(entry["text"].encode("utf-8")).hexdigest() == entry["after"]
        ):
            raise ValueError("an entry is malformed or its text does not match its sha256")
    return files


def _refusal(root: Path, entry: dict[str, str | None], accepts: Callable[[str, str], bool]) -> str | None:
    """Why the journal may not write this entry's file (None: it may)."""
    shown, text = str(entry["path"]), str(entry["text"])
    path = _target(root, shown)
    if ".git" in {part.lower() for part in path.parts}:
        return "inside a .git folder"
    if not accepts(shown, text):
        return "neither a memory file nor a lock"
    if os.path.lexists(path) and not path.is_file():
        return "not a regular file"
    if entry["before"] is None and not _inside(root, path):
        return "outside the checkout, and absent"
    return None


def _digest(path: Path) -> str | None:
    """The sha256 of the file's bytes; None when there is no such file."""
    import hashlib

    try:
        with open(path, "rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except FileNotFoundError:
        return None


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def _inside(root: Path, path: Path) -> bool:
    real_root = _real(root)
    return path == real_root or real_root in path.parents


def _shown(root: Path, path: Path) -> str:
    """A file's name in the journal: repo-relative inside the checkout, absolute outside it."""
    return path.relative_to(_real(root)).as_posix() if _inside(root, path) else str(path)


def _target(root: Path, shown: str) -> Path:
    """Where a journal entry's file is: its name resolved from the root (symlinks followed, `..` folded)."""
    return _real(Path(root) / shown)
