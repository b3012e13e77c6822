"""A warm `anchorcheck check` of an unchanged checkout prints its last report again, importing no core.

Most of a warm check on a small or large checkout is the interpreter and the
imports (registry, plugins, grammars), not the check: every verdict is
already on disk (`anchorcheck.evidence.stored`). So at the end of a full, read-only
`check` its whole output (what it wrote to stdout and stderr, in order, and
its exit code) is stored under the exact words it was run with and the
working directory, beside everything that output depends on:

- the tree state, named from git's raw listing (`treestate.listing_key`:
  the same git commands the stored verdicts are named from, and the bytes
  of every file git does not vouch for), and the paths the run looked for
  and did not find, which must still be absent;
- the code: anchorcheck's and the plugins' sources (`anchorcheck.base.codesig`)
  and every installed distribution (`codesig.fingerprint`: grammars,
  plugins, their entry points), and the interpreter;
- the bytes of the configuration files, of the lock, of each file named on
  the command line and of the `--receipts` log, wherever they are (listed
  by git or not), and of each file the run read that no listing holds (a
  memory file git ignores, such as CLAUDE.local.md);
- what the output reads of the environment and the terminal: `NO_COLOR`,
  `ANCHORCHECK_PLUGINS`, whether stdout is a terminal, the streams' encodings.

A new `check` with the same words in the same directory looks that entry up
before importing anything heavy (`replay`), compares each of these with the
disk, and on a full match prints the output again and exits with the same
code; anything that differs, or cannot be read, means a full check, which
stores its own output for the next one. The time the summary names is the
replay's own (the only figure a replay changes).

A run is stored only when its output is a function of that key: no `--watch`,
`--no-cache`, `--claude-memory`, `--output` or `--baseline`, no glob argument (what it matches is on
no listing), nothing read from git's history or HEAD, nothing read outside
the listing that is no regular file or changed while the run read it, no
result cut short by a deadline, no memory with a time or revision field
(`expires`, `resolve_after`, `as_of` are judged against the clock and
history), no error (exit 2), and a receipts log the run left as it was. A
batch sent to a pool of processes counts what its workers read
(`fleet.submit_batches` hands their reads back).
"""

from __future__ import annotations

import os
import stat
import sys
import time

TYPE_CHECKING = False  # not `typing`'s: importing it costs a replayed `check` 4-7 ms (anchorcheck.serve.replay)
if TYPE_CHECKING:
    import argparse
    from typing import IO, Any

    from anchorcheck.base.memo import Reads
    from anchorcheck.model.results import Memory, MemoryReport
    from anchorcheck.repo.checkout import Repository
    from anchorcheck.report import Run
    from anchorcheck.verify.verifier import Verifier

VERSION = "3"
ENVIRONMENT = ("NO_COLOR", "ANCHORCHECK_PLUGINS")  # every variable a check's output reads
_FOLDER = "replay"
_KEEP = 256  # entries kept in a cache directory, the least recently written go first
_MAX_OUTPUT = 4 * 1024 * 1024  # characters: a larger report is worked out again
_MAX_ENTRY = 8 * _MAX_OUTPUT  # bytes of an entry read back (JSON escapes a character in up to 12)
_MAX_FILE = 64 * 1024 * 1024  # bytes of a named file hashed; past it, its stat signature
_EARLY = (0, 1)  # the listing's outputs compared as soon as git gives them: the index's, the modified files'
_MAX_IGNORED = 64  # files read that no listing holds, each hashed by a replay; past it, a run is not stored
_CLOCK_MARGIN = 2_000_000_000  # ns: a file changed this shortly before a run began is not named by its bytes
_LIFECYCLE = ("expires", "resolve_after", "as_of")
_GLOB = frozenset("*?[")
# The elapsed time in a report, rendered with a value no report holds: how each format writes it.
_SENTINEL = 987654.3125
_ELAPSED = {"r4": (repr(round(_SENTINEL, 4)), lambda e: repr(round(e, 4))), "f2": (f"{_SENTINEL:.2f}", lambda e: f"{e:.2f}")}


# A report written to a file (stdout is not the report) or narrowed by a baseline file (bytes no key names).
_UNSTORED = ("--output", "--baseline")


def replay(argv: list[str]) -> int | None:
    """Print the stored output of `anchorcheck <argv>` run here and return its exit code, when nothing
    it depends on changed; None when the check must run."""
    global _listed
    started = time.perf_counter()
    if "--no-cache" in argv or "--watch" in argv or any(word.startswith(_UNSTORED) for word in argv):
        return None  # never stored, and a watch lists the checkout under its own watches
    try:
        found = _found_root()
        _listed = _list(named_root(argv) or found)
        import json  # json (4 ms) loads while git lists the checkout

        entry = json.loads(_read_entry(_slot(argv)))
        if not _holds(entry, found):
            return None
        events = [(stream, _text(stream, body, entry["elapsed"], started)) for stream, body in entry["out"]]
        code = int(entry["exit"])
    except (OSError, ValueError, TypeError, KeyError, IndexError, AttributeError, RuntimeError):
        return None  # no entry, one of another shape, or a checkout that cannot be looked at (a symlink loop): check
    from anchorcheck.base.printable import printable

    for stream, text in events:  # as stored: a report this user's own run rendered, colours and all
        (sys.stderr if stream == "err" else sys.stdout).write(printable(text, colours=True))
    return code


def named_root(argv: list[str]) -> str | None:
    """The checkout `--root` names in these words, as far as a look at them tells without parsing them
    (a guess: a wrong one only lists a checkout for nothing)."""
    for at, word in enumerate(argv):
        if word == "--root" and at + 1 < len(argv):
            return argv[at + 1]
        if word.startswith("--root="):
            return word[len("--root=") :]
    return None


def _list(root: str) -> Repository | None:
    """Start git's listing of the checkout at once, in the background: it is most of a replay's time, so it
    runs while the entry is read and compared; a full check takes it over when no report matches."""
    from anchorcheck.repo.checkout import Repository

    try:
        repo = Repository(root)
    except (OSError, RuntimeError):
        return None
    repo.prefetch_listing()
    return repo


def _slot(argv: list[str]) -> str:
    """The entry of these words run in this directory, in the cache folder's `replay/`; OSError when there
    is no folder of this user's own for it (`anchorcheck.repo.cachedir`)."""
    import json

    from anchorcheck.base import digests
    from anchorcheck.repo.cachedir import cache_folder, usable_folder

    cache = cache_folder()
    folder = None if cache is None else os.path.join(cache, _FOLDER)
    if folder is None or not usable_folder(folder, make=True):
        raise FileNotFoundError("no cache folder to keep reports in")
    key = json.dumps([VERSION, argv, os.getcwd()])
    name = digests.sha1(key.encode("utf-8", "surrogateescape")).hexdigest()  # a name, not security
    return os.path.join(folder, name)


def _read_entry(path: str) -> bytes:
    """The entry's bytes: a regular file of this user's own, not through a link, of bounded size (another
    user's entry would have this check print their text and exit 0)."""
    from anchorcheck.repo.cachedir import distrust, warn

    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
    try:
        info = os.fstat(descriptor)
        why = distrust(info)
        if why is not None:
            warn(path, why)
            raise ValueError("not an entry")
        if info.st_size > _MAX_ENTRY:
            raise ValueError("not an entry")
        with os.fdopen(descriptor, "rb", closefd=False) as handle:
            return handle.read(_MAX_ENTRY)
    finally:
        os.close(descriptor)


def _text(stream: str, body: Any, style: str | None, started: float) -> str:
    if stream != "report":
        return str(body)
    before, after = body
    return before + _ELAPSED[style][1](time.perf_counter() - started) + after if style else before + after


def _surroundings() -> dict[str, Any]:
    """What the output reads besides the checkout: the interpreter, the environment, the terminal."""
    return {
        "python": [sys.version, sys.executable],
        "env": {name: os.environ.get(name) for name in ENVIRONMENT},
        "terminal": [sys.stdout.isatty(), sys.stdout.encoding, sys.stderr.encoding],
    }


def _holds(entry: dict[str, Any], found: str) -> bool:
    """Whether everything the stored output depends on is as it was: the cheap comparisons first, git's
    listing of the tree (started before the entry was read, in the background) last."""
    from pathlib import Path

    from anchorcheck.base.codesig import code_signature, fingerprint
    from anchorcheck.repo.checkout import Repository
    from anchorcheck.repo.treestate import output_id, still_absent, unvouched_id

    if entry.get("version") != VERSION or entry["surroundings"] != _surroundings():
        return False
    if entry["found"] and found != entry["root"]:
        return False  # the checkout around the working directory is another one now
    if fingerprint() != entry["dists"] or code_signature(entry["plugins"], entry["places"]) != entry["code"]:
        return False
    if any(file_id(path) != held for path, held in entry["files"].items()):
        return False
    if entry["head"] is not None and not _at_head(entry["root"], entry["head"]):
        return False  # history fed it, at another commit than the one checked out now
    global _listed
    held = entry["listing"]
    if _listed is not None and _listed.root == Path(entry["root"]):
        for which in _EARLY:  # a commit or an edit shows here, long before the untracked files are listed
            out = _listed.early_output(which)
            if out is None or output_id(out) != held[which]:
                return False
    repo = Repository(entry["root"], skip_dirs=entry["skip_dirs"], exclude=entry["exclude"], max_file_size=entry["max_file_size"])
    if _listed is None or not repo.adopt_listing(_listed):
        repo.prefetch_listing()
    _listed = repo
    outputs = repo.listing_outputs()
    if any(out is None or output_id(out) != held[which] for which, out in enumerate(outputs) if which not in _EARLY):
        return False
    return unvouched_id(repo, outputs) == held[-1] and still_absent(entry["root"], entry["absent"])


def _at_head(root: str, head: str) -> bool:
    """Whether the commit checked out is still `head` (read from git's files: no git runs)."""
    from anchorcheck.repo.gitdir import GitDir, head_now, locate

    found = locate(root)
    return isinstance(found, GitDir) and head_now(found) == head


_listed: Repository | None = None  # the checkout a lookup listed, for the full check that follows a miss


def take_listing() -> Repository | None:
    """The checkout the last lookup listed (or is listing), once: the full `check` that follows a miss
    takes its listing over (`Repository.adopt_listing`) instead of asking git again."""
    global _listed
    taken, _listed = _listed, None
    return taken


def _found_root() -> str:
    """The checkout `check` finds from the working directory when no `--root` names it."""
    from anchorcheck.repo.paths import find_root

    return str(find_root(os.getcwd()).resolve())


def file_id(path: str) -> str | None:
    """What a file named outside the listing holds: its bytes' hash (and a link's target); None when absent.
    Never opens what is no regular file (a FIFO would block), nor reads one past `_MAX_FILE` whole."""
    from anchorcheck.base import digests

    try:
        link = os.readlink(path) if os.path.islink(path) else None
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_FILE:
            return f"{link}:{info.st_mode}:{info.st_size}:{info.st_mtime_ns}:{info.st_ino}"
        with open(path, "rb") as handle:
            return f"{link}:{digests.sha1(handle.read()).hexdigest()}"  # a content id
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"unreadable:{exc.errno}"


class _Tee:
    """A text stream that also keeps what is written to it."""

    def __init__(self, stream: IO[str], name: str, events: list[list[Any]]) -> None:
        self._stream, self._name, self._events = stream, name, events

    def write(self, text: str) -> int:
        self._events.append([self._name, text])
        return self._stream.write(text)

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self._stream, attribute)


class Recording:
    """The output of one full `check`, and what it needs to store it (see the module's docstring)."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.events: list[list[Any]] = []
        self.files: dict[str, str | None] = {}
        self.began = time.time_ns()
        self._streams = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = _Tee(sys.stdout, "out", self.events), _Tee(sys.stderr, "err", self.events)  # type: ignore[assignment]

    @classmethod
    def begin(cls, args: argparse.Namespace) -> Recording | None:
        """Start keeping the output of a run that may be stored; None for one that never is."""
        if getattr(args, "argv", None) is None or args.watch or args.no_cache or args.claude_memory or args.output or args.baseline:
            return None
        if any(_GLOB & set(name) and not os.path.exists(name) for name in args.files):
            return None  # a glob matches files on disk, listed or not
        return cls(args)

    def stop(self) -> None:
        sys.stdout, sys.stderr = self._streams

    def files_read(self, verifier: Verifier) -> None:
        """Take what the files read outside the listing hold, before the check reads them."""
        from anchorcheck.repo.config import CONFIG_FILES
        from anchorcheck.memory.lockfile import lock_path

        root = verifier.root
        named = [os.path.abspath(name) for name in self.args.files]
        for path in [*(str(root / name) for name in CONFIG_FILES), str(lock_path(root)), *named]:
            self.files[path] = file_id(path)
        if self.args.receipts:
            self.files[os.path.abspath(self.args.receipts)] = file_id(self.args.receipts)

    def store(self, verifier: Verifier, reads: Reads, loaded: list[tuple[str, list[Memory]]], run: Run, code: int) -> None:
        """Keep the output when the run's is a function of its key (see the module's docstring)."""
        self.stop()
        entry = self._entry(verifier, reads, [m for _, memories in loaded for m in memories], run)
        if entry is None:
            return
        entry["exit"] = code
        import contextlib
        import json

        try:
            path = _slot(self.args.argv)
            temporary = f"{path}.{os.getpid()}.tmp"
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)  # left by a killed run of this pid, or anything else by that name
            # A new file of its own, 0600, never through a link: only this user's entries are read back.
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
            with open(os.open(temporary, flags, 0o600), "w", encoding="utf-8") as handle:
                json.dump(entry, handle)
            os.replace(temporary, path)
            _trim(os.path.dirname(path))
        except OSError:
            return  # an unwritable cache costs the next run its replay, nothing else

    def _entry(self, verifier: Verifier, reads: Reads, memories: list[Memory], run: Run) -> dict[str, Any] | None:
        from anchorcheck.base.codesig import code_signature, fingerprint, plugin_sources
        from anchorcheck.repo.treestate import listing_key

        tree = verifier.tree()
        if tree is None or reads.git or _unsure(run.reports, memories):
            return None
        head = _head_read(verifier, reads)
        if head == "":
            return None  # git answered at no one commit that its files name (see `_head_read`)
        key = listing_key(verifier.repo, tree)
        if key is None:
            return None
        absent, present = tree.unlisted(reads.paths | reads.probed)
        ignored = _ignored_files(str(verifier.root), present, self.began)
        receipts = os.path.abspath(self.args.receipts) if self.args.receipts else None
        if ignored is None or (receipts is not None and file_id(receipts) != self.files[receipts]):
            return None  # read what no key can name, or appended receipts (the next run appends none)
        out = _output(self.events, run, self.args.format)
        plugins = sorted((info.name, info.module) for info in verifier.plugins.infos)
        places = plugin_sources([module for _, module in plugins])
        if out is None or places is None:
            return None
        events, style = out
        return {
            "version": VERSION,
            "root": str(verifier.root),
            "found": self.args.root is None,
            "surroundings": _surroundings(),
            "skip_dirs": sorted(verifier.repo.skip_dirs),
            "exclude": list(verifier.config.exclude),
            "max_file_size": verifier.repo.max_file_size,
            "dists": fingerprint(),
            "plugins": plugins,
            "places": places,
            "code": code_signature(plugins, places),
            "files": {**ignored, **self.files},
            "listing": key,
            "absent": absent,
            "head": head,
            "out": events,
            "elapsed": style,
        }


def _head_read(verifier: Verifier, reads: Reads) -> str | None:
    """The commit (`head_key`) the run's git answers were read at, when history fed it: None when it asked
    git nothing; "" when it cannot be named by one commit that git's files say is checked out now (two
    commits, none noted, a reftable): then the report is not kept."""
    if not reads.headbound:
        return None
    if len(reads.heads) != 1:
        return ""
    (head,) = reads.heads
    return head if _at_head(str(verifier.root), head) else ""


def _ignored_files(root: str, paths: list[str], began: int) -> dict[str, str | None] | None:
    """The files a run read that no listing holds (a memory file git ignores, such as CLAUDE.local.md), by
    their bytes. None when one is no regular file (a folder's listing is in no key), there are more than
    `_MAX_IGNORED`, or one changed since shortly before the run began: what it read may not be what is
    hashed now (the margin allows for a file system's coarse clock)."""
    if len(paths) > _MAX_IGNORED:
        return None
    ids = {}
    for rel in paths:
        path = os.path.join(root, rel)
        ids[path] = file_id(path)
        try:
            info = os.stat(path)  # after the hash: a change before or while it read the file is seen
        except OSError:
            return None
        if not stat.S_ISREG(info.st_mode) or info.st_ctime_ns >= began - _CLOCK_MARGIN:
            return None
    return ids


def _unsure(reports: list[MemoryReport], memories: list[Memory]) -> bool:
    """Whether the reports may differ with nothing in the key changed: the clock or history judged a
    memory, or a deadline cut a result short. (A pool's workers send what they read: `fleet.submit_batches`.)"""
    if any(any(m.metadata.get(name) is not None for name in _LIFECYCLE) for m in memories if m.metadata):
        return True
    return any(result.state == "budget" for report in reports for result in report.results)


def _output(events: list[list[Any]], run: Run, fmt: str) -> tuple[list[list[Any]], str | None] | None:
    """The events with the report (all of stdout, written in one stretch) as a template around the
    elapsed time; None when stdout is not exactly the report, or the output is too large to keep."""
    from io import StringIO

    from anchorcheck.report import renderer

    if sum(len(text) for _, text in events) > _MAX_OUTPUT:
        return None
    outs = [i for i, (name, _) in enumerate(events) if name == "out"]
    if outs and outs[-1] - outs[0] + 1 != len(outs):
        return None  # stderr between two pieces of the report: no single template holds it
    written = "".join(text for name, text in events if name == "out")
    elapsed, shown = run.elapsed, StringIO()
    run.elapsed = _SENTINEL
    try:
        renderer(fmt)(run, shown)
    finally:
        run.elapsed = elapsed
    template = shown.getvalue()
    for style, (token, render) in _ELAPSED.items():
        parts = template.split(token)
        if len(parts) == 2 and parts[0] + render(elapsed) + parts[1] == written:
            break
    else:
        style, parts = None, [written, ""]
        if template != written:
            return None
    if not outs:
        return events, style
    return [*events[: outs[0]], ["report", parts], *events[outs[-1] + 1 :]], style


def _trim(folder: str) -> None:
    """Keep the newest `_KEEP` entries: every argument list a hook ran with would otherwise stay forever."""
    entries = [entry for entry in os.scandir(folder) if entry.is_file(follow_symlinks=False)]
    if len(entries) > _KEEP:
        entries.sort(key=lambda entry: entry.stat().st_mtime_ns)
        for entry in entries[: len(entries) - _KEEP]:
            try:
                os.unlink(entry.path)
            except OSError:
                pass
