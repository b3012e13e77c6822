"""Where an implicit path reference points, judged the way a person reading the memory would.

Real instruction files write paths loosely: relative to the memory file's own
folder (a nested AGENTS.md), to the repository root, to a folder named earlier
in the same sentence or list, or as the tail of a longer path (`pkg/mod.py`
for `src/pkg/mod.py`). Most paths that do not exist as written are therefore
not stale. What decides is evidence: git history (`anchorcheck.evidence.history`)
says whether a reading as written existed and went (stale, whatever the
sentence's wording or another path ending so), or never existed (an example or
another project's path: INCONCLUSIVE, `never-existed`); only then is the path
read relative to a package (a unique tracked tail), or left INCONCLUSIVE when
it is ignored or not checked out. Outside git, with no history, a missing path is
stale only where its first folder is a folder here.

`keep(reference, repo, roots)` decides, when a memory file is read, whether a
path is a reference to this repository at all (a `/api` route, a `../` path
leaving the checkout and a bare file name no file here carries are not
read); `resolve(reference, context)` decides, when it is checked, which path
it means. The source roots a path may be written relative to are those the
registered languages declare (`Language.source_roots`: Python's `src`, `lib`,
`python`), so a third-party language adds its own (`root_names(registry)`).
"""

from __future__ import annotations

import posixpath
import weakref
from pathlib import Path
from collections.abc import Sequence
from typing import NamedTuple

from anchorcheck.evidence.history import Fate, History, history_of, text_before, wrote_before
from anchorcheck.evidence.queues import consumed
from anchorcheck.memory.dependencies import ECOSYSTEMS as MANIFESTS
from anchorcheck.memory.outside import folder_tails, is_outside
from anchorcheck.model.anchors import encode_path
from anchorcheck.repo.context import Context
from anchorcheck.model.reference import Reference
from anchorcheck.model.results import Memory
from anchorcheck.model.registry import Registry
from anchorcheck.repo.checkout import Repository
from anchorcheck.memory.probes import exists as _exists, is_dir as _is_dir
from anchorcheck.repo.paths import UnsafePathError


MAX_SHOWN = 3
NEVER_EXISTED = "never-existed"  # missing now and never in the history: an example, not a stale path
AMBIGUOUS = "ambiguous"  # several tracked paths end with what was written
RECURRING = "recurring"  # deleted more than once in history: a file a workflow makes and removes
MAX_HELD = 500  # bare names one run may hold for history to decide on


class Resolution(NamedTuple):
    """What a path reference means here: the repo-relative path to check, or a verdict already reached.

    `path` is set when the reference is checked as `file:PATH` (found, or the
    reading a person would call stale); `unsure` holds the reason when it is
    INCONCLUSIVE without a check (ambiguous, ignored, not this repository's).
    `state` names an INCONCLUSIVE one (`never-existed`, `ambiguous`, `recurring`, `unsure`); `note` says how the path
    was read, for the result's reason.
    """

    path: str | None
    unsure: str | None = None
    state: str = "unsure"
    note: str = ""


def root_names(registry: Registry) -> tuple[str, ...]:
    """The source-root folder names the registered languages declare, in registration order."""
    return registry.source_roots()  # declared ones included: reading a memory file imports no language


class Probes:
    """The existence checks the reading of one memory file may still make for bare names (`utils.ts`,
    `tests/`): each is tried under the file's folder, the root, the folders named before it and the
    source roots. A table of 20,000 rows of folder names took a minute; past the budget a bare name
    is left unread, which is silence, never a wrong verdict. A check costs 0.1-0.2 ms, so the budget
    is about a second of them."""

    def __init__(self, limit: int = 5_000) -> None:
        self.left = limit

    def take(self, count: int) -> bool:
        self.left -= count
        return self.left >= 0


def unplaced(reference: Reference) -> bool:
    """A bare name, two plain words with a slash, or a leading-slash path (`/docs/`, a route as often): what `keep`
    drops when it names nothing here now, and history may still show as a path that was here (`Unsure`)."""
    return not reference.after and not reference.value.startswith("../") and (
        reference.loose or reference.rooted or "/" not in reference.value.rstrip("/")
    )


def leaves(reference: Reference) -> bool:
    """Whether a `../` path climbs out of the checkout from the memory file's folder."""
    return reference.value.startswith("../") and _join(reference.folder, reference.value) is None


def route_like(reference: Reference, repo: Repository) -> bool:
    """A leading-slash path whose first folder is not here now (`/docs/`): read because history shows the path was
    here, but a URL route is written the same way (FastAPI serves `/docs/`), so its absence is likely, not certain,
    to be staleness."""
    return reference.rooted and not _is_dir(repo, reference.value.strip("/").split("/", 1)[0])


def keep(reference: Reference, repo: Repository, roots: Sequence[str], probes: Probes | None = None) -> bool:
    """Whether a path reference read from a memory file names something in this repository at all.

    Not read: a leading-slash path whose first segment is no top-level folder
    (a URL route), a `../` path that leaves the checkout, and a bare name
    (`utils.ts`, `tests/`) that names no one path here: a file name alone is
    a claim about a place only when it points at one. `roots` are the source
    root names (`root_names`).
    """
    written = reference.value
    if reference.rooted:  # `/common/namespace` in a list of folders: two plain words only when they are here now
        return _is_dir(repo, written.strip("/").split("/", 1)[0]) and (not reference.loose or _exists(repo, written))
    if reference.after and not names_here(reference.after, reference, repo):
        return False  # the sentence is about another repository (`owner/repo` named before)
    if reference.loose and "/" not in written.rstrip("/"):  # `gradle.properties`: a file here as written, else history's
        as_written = history_paths(reference)
        return (probes is None or probes.take(len(as_written))) and any(_exists(repo, c) for c in as_written)
    if reference.loose and not _places(written, reference, repo):
        return False
    if leaves(reference):
        return False
    if "/" in written.rstrip("/"):
        return True
    return present(reference, repo, roots, probes)


def resolve(reference: Reference, context: Context) -> Resolution:
    """The path a reference means: the first reading that exists; else, when history says a reading existed
    as written, that reading (stale); else a unique tracked tail (the path written relative to a package);
    else a verdict."""
    repo = context.repo
    written = reference.value
    slash = "/" if written.endswith("/") else ""
    bare = written.rstrip("/")
    candidates = readings(reference, repo, root_names(context.registry))
    as_written = history_paths(reference)
    for candidate in candidates:
        if _exists(repo, candidate):
            if candidate not in as_written and _moved_elsewhere(reference, context, candidate):
                break  # it was here as written and moved: history wins over a source root's reading
            how = "" if candidate == bare else f" (written `{reference.written}`)"
            return Resolution(candidate + slash, note=how)
    fates = _fates(reference, context)
    gone = _last_gone([f for f in fates if f.existed], repo)
    if gone is not None and gone.recurring:  # made and deleted over and over: absent now is one phase of a workflow
        return Resolution(None, f"{gone.path} does not exist now, {gone.describe()}: not a stale path", RECURRING)
    batches = consumed(context, gone.path) if gone is not None and gone.moved_to is None else None
    if gone is not None and batches is not None:  # a news fragment, deleted with the rest of its folder at a release
        return Resolution(None, f"{gone.path} does not exist now, {gone.describe()}; {batches} commits each deleted several files "
                          f"of {posixpath.dirname(gone.path.rstrip('/'))}/, which holds few now: a folder a workflow consumes, "
                          "not a stale path", RECURRING)
    if gone is not None:  # gone, and a .gitignore ignores it now: untracked on purpose (`.env`), or made by a setup step
        # (prisma's skills moved to skills-contrib/ as `.agents/skills/` was ignored: `skills add` links them back);
        # the repository's own ignore rules only: a folder name such as build/ says nothing of a deleted source file
        places = candidates if gone.moved_to is None else [gone.path.rstrip("/")]  # moved: where it was, no other reading
        ignored = next(((c, why) for c in places if (why := repo.ignored_because(c, skipped_folders=False)) and why.startswith("ignored by ")), None)
        if ignored is not None:
            return Resolution(None, f"{ignored[0]} does not exist, but it is {ignored[1]}: a build output or a local file "
                              f"({gone.path} was {gone.describe()})")
    if gone is not None and gone.moved_to is None and "/" not in bare and not written.startswith("../"):
        # A bare name (`runtime/`) deleted as written, while other paths end with it now: the text may mean one of
        # those (a folder of that name in a package), and no move says it meant the deleted one.
        tails = _ending_with(repo, bare)
        if tails:
            return Resolution(None, f"{gone.path}{slash} was {gone.describe()}, but {_listed(tails)} end with `{reference.written}` now: "
                              "which one the text means cannot be told", AMBIGUOUS)
    package = _moved_with_package(gone, context) if gone is not None and "/" not in bare and not written.startswith("../") else None
    if package is not None:  # a bare name that moved with the manifest beside it (a workspace moved whole): relative to it
        return Resolution(None, f"{gone.path}{slash} was {gone.describe()}, with {package}: the name is relative to that package, "
                          "where it is now", "unsure")
    if gone is not None:  # it was here as written and went: stale, whatever a tail or the wording suggests
        tried = [c for c in readings(reference) if c != gone.path]
        return Resolution(gone.path + slash, note=f" (nor {', '.join(tried[:MAX_SHOWN])})" if tried else "")
    if not written.startswith("../"):
        tails = _ending_with(repo, bare)
        if len(tails) == 1:
            return Resolution(tails[0] + slash, note=f" (written `{reference.written}`: the one path ending so)")
        if tails:
            return Resolution(None, f"`{reference.written}` is no path from here, and {len(tails)} paths end with it: {_listed(tails)}", AMBIGUOUS)
    for candidate in candidates:
        elsewhere = repo.not_checked_out(candidate)
        if elsewhere is not None:
            return Resolution(None, f"{candidate} is {elsewhere}")
        ignored = repo.ignored_because(candidate)
        if ignored:
            return Resolution(None, f"{candidate} does not exist, but it is {ignored}: a build output or a local file")
    if fates:  # history was read and never had it: an example, another project's path, a name to come
        said = fates[0].describe()
        state = NEVER_EXISTED if fates[0].never_existed else "unsure"
        return Resolution(None, f"{candidates[0]} does not exist, {said}: not a stale path", state)
    # No history to ask (not a git checkout): stale only where the path's first folder is a folder here.
    placed = [c for c in candidates if _is_dir(repo, _first_folder(c, bare))]
    if not placed:
        first = _first_folder(candidates[0], bare)
        return Resolution(None, f"{candidates[0]} does not exist and there is no folder {first}/ here: a path of another checkout, or an example")
    tried = [c for c in readings(reference) if c != placed[0]]  # as written: the source roots are no reading of it
    note = f" (nor {', '.join(tried[:MAX_SHOWN])})" if tried else ""
    return Resolution(placed[0] + slash, note=note)


class Unsure:
    """Bare names (`CHANGELOG.md`, `e2e/`) and two plain words with a slash that name nothing here now: read
    only when history says one of their readings existed as written (a file renamed or a folder moved since),
    else they are prose. Decided for every memory file of a run at once (`settle`), in one walk, with the
    other missing paths the run names."""

    def __init__(self, history: History) -> None:
        self.history = history
        self.held: set[Reference] = set()

    def hold(self, reference: Reference) -> bool:
        """Hold a name for `settle`; past MAX_HELD names (a table of thousands) the rest stay unread (False)."""
        if len(self.held) >= MAX_HELD:
            return False
        self.held.add(reference)
        return True

    def settle(self, memories: list[Memory], repo: Repository) -> None:
        """Ask history once for every missing path the memories name; drop the held names it never saw."""
        for memory in memories:
            self.history.want(p for a in memory.anchors if isinstance(a, Reference) and a.kind == "file" for p in history_paths(a) if not _exists(repo, p))
        self.history.settle()
        files: dict[Reference, set[str]] = {}  # the memory files (repo-relative) that name each held reference
        for memory in memories:
            for anchor in memory.anchors:
                if anchor in self.held and memory.source is not None:
                    files.setdefault(anchor, set()).add(in_repo(memory.source, repo))
        gone = {r for r in self.held if not self._was_here(r, repo, files.get(r, set()))}
        for memory in memories:
            if any(a in gone for a in memory.anchors):
                kept = [i for i, a in enumerate(memory.anchors) if a not in gone]
                positions = [memory.anchor_position(i) for i in kept]
                memory.anchors = [memory.anchors[i] for i in kept]
                memory.anchor_positions = positions
        self.held -= gone

    def _was_here(self, reference: Reference, repo: Repository, files: set[str]) -> bool:
        """Whether history shows a reading of the name as written was here, and no other path ends with it now,
        unless, for two words, that path is where it moved (`common/namespace` into `moved/common/namespace`); a
        single name (`src/`, `README.md`) that other paths end with now means theirs when the text was written
        after the old one moved (a root src/ moved into packages/ years before "cover `src/`"), and the old one
        when a memory file already named it at the commit that moved it (was true, is gone)."""
        fates = [f for p in history_paths(reference) if (f := self.history.known(p)) is not None and f.existed]
        if reference.hedged:  # "used to": stale only if the line, as it reads now, was there before the path went
            said = _line_of(repo, files, reference.line)
            return bool(said) and any(f.change is not None and _said_at(repo, f.change.commit, files, said) for f in fates)
        tails = _ending_with(repo, reference.value.rstrip("/"))
        pair = "/" in reference.value.rstrip("/")
        if not fates or not tails or pair and any(f.moved_to in tails for f in fates):
            return bool(fates)
        return any(f.moved_to is not None and f.change is not None and _named_at(repo, f.change.commit, files, reference.written) for f in fates)


def in_repo(source: str, repo: Repository) -> str:
    """A memory file's path as shown (relative to the current folder) as a repo-relative path."""
    try:
        return Path(source).resolve().relative_to(repo.root.resolve()).as_posix()
    except (OSError, ValueError):
        return source


def _named_at(repo: Repository, commit: str, files: set[str], written: str) -> bool:
    """Whether one of the memory `files` wrote `written` in the revision just before `commit`."""
    return any(wrote_before(repo, commit, path, written) for path in sorted(files)[:MAX_SHOWN])


def _line_of(repo: Repository, files: set[str], line: int) -> str:
    """The text of `line` in the first of the memory `files` that has it ("" when none can be read)."""
    for path in sorted(files)[:MAX_SHOWN]:
        try:  # through the Repository: confined to the checkout and capped, as the memory file was read
            lines = repo.read_bytes(path).decode("utf-8", errors="replace").splitlines()
        except (OSError, UnsafePathError):
            continue
        if 0 < line <= len(lines):
            return lines[line - 1].strip()
    return ""


def _said_at(repo: Repository, commit: str, files: set[str], said: str) -> bool:
    """Whether one of the memory `files` held the line `said` in the revision just before `commit`."""
    return any(said in (text_before(repo, commit, path) or "") for path in sorted(files)[:MAX_SHOWN])


def present(reference: Reference, repo: Repository, roots: Sequence[str], probes: Probes | None = None) -> bool:
    """Whether a path reference names something here now: a reading of it, or the one path ending so; within
    `probes`, where given (a table of 10,000 rows has as many readings: spent, not even they are worked out)."""
    if probes is not None and probes.left <= 0:
        return False
    candidates = readings(reference, repo, roots)
    if probes is not None and not probes.take(len(candidates) + 1):
        return False
    return any(_exists(repo, c) for c in candidates) or len(_ending_with(repo, reference.value.rstrip("/"))) == 1


def _listed(paths: list[str]) -> str:
    return ", ".join(paths[:MAX_SHOWN]) + (f" and {len(paths) - MAX_SHOWN} more" if len(paths) > MAX_SHOWN else "")


def history_paths(reference: Reference) -> list[str]:
    """The paths whose history decides a missing path reference: its readings as written (the memory file's
    folder, the folders it applies to, the root, the folders named before it), not the source roots."""
    return [c for c in readings(reference) if not c.startswith("../")]


def _last_gone(existed: list[Fate], repo: Repository) -> Fate | None:
    """Of the readings history shows were here (in reading order), the one the text meant when it went false: the
    last to go (bitwarden's `.claude/CLAUDE.md` names `CONTRIBUTING.md`; `.claude/CONTRIBUTING.md` came and went
    after the line while the root's stayed, so once the root's moves the root's is the stale reading)."""
    last = existed[0] if existed else None
    for fate in existed[1:]:
        if last is not None and last.change and fate.change and fate.change.commit != last.change.commit \
                and repo.git("merge-base", "--is-ancestor", operands=[last.change.commit, fate.change.commit]) is not None:
            last = fate
    return last


def _moved_with_package(gone: Fate, context: Context) -> str | None:
    """The manifest (`Cargo.toml`, `package.json`, ...) that moved from the folder a bare name left to the folder it
    went to, as history shows: the package moved whole, and a name written bare (`.sqlx`, the folder its tool
    writes) may mean the one beside it still. None when nothing moved with it."""
    if gone.moved_to is None:
        return None
    old, new = posixpath.dirname(gone.path.rstrip("/")), posixpath.dirname(gone.moved_to.rstrip("/"))
    history = history_of(context)
    for name in MANIFESTS:
        was, now = posixpath.join(old, name), posixpath.join(new, name)
        if _exists(context.repo, now) and not _exists(context.repo, was):
            fate = history.fate(was)
            if fate is not None and fate.moved_to == now:
                return now
    return None


def _moved_elsewhere(reference: Reference, context: Context, found: str) -> bool:
    """Whether history shows a reading of the path as written here once and moved to a place other than `found` (a
    source root's reading, `src/prefect/concurrency` for `concurrency/` in src/prefect/server/AGENTS.md): then the
    written path is stale, not one relative to a package (issue 27: history wins)."""
    return any(f.existed and f.moved_to is not None and f.moved_to.rstrip("/") != found for f in _fates(reference, context))


def _fates(reference: Reference, context: Context) -> list[Fate]:
    """What history says of each reading as written; empty when there is no history to ask."""
    history = history_of(context)
    fates = [history.fate(path) for path in history_paths(reference)]
    return [f for f in fates if f is not None]


def placed_in(reference: Reference, repo: Repository) -> str | None:
    """The folder a command's text says it runs in, in so many words (`Reference.placed`), read from the memory
    file's folder or the root; None when it says none, or names no folder here."""
    return next((f for f in placed_folders(reference) if _is_dir(repo, f)), None)


def placed_folders(reference: Reference) -> list[str]:
    """The folders a command's text says it runs in, in so many words (a `cd DIR` above it in its block, "run from
    `ui/`"), read from the memory file's folder, then the root; empty when it says none. A folder written from outside
    the repository (`cd ~/projects/REPO/DIR`) may be any of its trailing parts: the longest here is taken."""
    if not reference.placed:
        return []
    if is_outside(reference.placed):  # `cd ~/projects/REPO/DIR`: its trailing parts, longest first, from the root
        return folder_tails(reference.placed)
    placed = reference.placed.rstrip("/")
    return list(dict.fromkeys(f for f in (_join(reference.folder, placed), _join("", placed)) if f is not None))


def command_readings(reference: Reference, repo: Repository) -> list[str]:
    """The `cmd:` anchors a command may mean, most likely first: the folder its text says it runs in ("run from
    the `ui/` directory:", a `cd` line above it), alone; else run from a folder the text named before
    it ("run these from `packages/ai`"), from a folder the file applies to
    (`applyTo`), from the memory file's folder, or from the root (where agents run commands)."""
    placed = placed_in(reference, repo)
    if placed is not None:
        return [f"{reference.anchor} in:{encode_path(placed)}/" if placed != "." else reference.anchor]
    folders: list[str] = []
    for hint in reference.hints:
        for folder in (_join(reference.folder, hint.rstrip("/")), _join("", hint.rstrip("/"))):
            if folder is not None and folder not in folders and _is_dir(repo, folder):
                folders.append(folder)
    for folder in (*reference.scopes, reference.folder, ""):
        if folder not in folders:
            folders.append(folder)
    return [f"{reference.anchor} in:{encode_path(f)}/" if f else reference.anchor for f in folders]


def names_here(written: str, reference: Reference, repo: Repository) -> bool:
    """Whether two plain words (`libs/core`, `build-dbg/dragonfly`) are this repository's: a path whose first folder is
    here, or one its ignore files keep out. Written before a path, they make no `owner/repo` of another repository."""
    return _places(written, reference, repo) or _ignored(written, reference, repo)


def _places(written: str, reference: Reference, repo: Repository) -> bool:
    """Whether the first folder of `written` is a folder here, read from the memory's folder or the root."""
    first = written.split("/", 1)[0]
    return any(_is_dir(repo, p) for p in {_join(reference.folder, first), first} if p is not None)


def _ignored(written: str, reference: Reference, repo: Repository) -> bool:
    """Whether two plain words (`build-dbg/dragonfly`) are a path this checkout's ignore files keep out, read from the
    memory's folder or the root: a build output of this repository, not another repository's `owner/repo`."""
    return any(repo.ignored_because(p) for p in {_join(reference.folder, written), written} if p is not None)


def _first_folder(candidate: str, written: str) -> str:
    """The folder the written path enters first, as read at this candidate (`web/src` for `src/x.ts` read in web/)."""
    tail = written
    while tail.startswith("../"):
        tail = tail[3:]
    depth = tail.count("/")  # segments after the first one
    parts = candidate.split("/")
    return "/".join(parts[: max(len(parts) - depth, 1)])


def readings(reference: Reference, repo: Repository | None = None, roots: Sequence[str] = ()) -> list[str]:
    """The repo-relative paths a written path may mean, most likely first.

    The memory file's folder, the folders it applies to (`applyTo`), the
    root, the folders named earlier in the same sentence or list, then, with
    a repository, the source roots: the folders
    named `roots` and the packages right under them (`pkg/mod.py` written
    for `src/pkg/mod.py`).
    """
    written = reference.value.rstrip("/")
    bases: list[str | None] = [reference.folder]
    if not written.startswith("../"):
        bases += [*reference.scopes, ""]
        for hint in reference.hints:
            bases += [_join(reference.folder, hint.rstrip("/")), hint.rstrip("/")]
        if repo is not None:
            bases += source_roots(repo, roots)
    found: list[str] = []
    for base in bases:
        if base is None:
            continue
        candidate = _join(base, written)
        if candidate is not None and candidate not in found:
            found.append(candidate)
    return found or [written]


def source_roots(repo: Repository, names: Sequence[str]) -> list[str]:
    """The top-level folders called one of `names` (`src/`, `lib/`) and the folders right under them:
    where code is written relative to a package."""
    index = _index(repo)
    key = tuple(names)
    found = index.roots.get(key)
    if found is None:
        found = [r for r in key if r in index.tops]
        found += sorted(f for top in found for f in index.children.get(top, ()))
        index.roots[key] = found
    return found


def _join(base: str, path: str) -> str | None:
    """`base/path` normalized; None when it leaves the repository."""
    joined = posixpath.normpath(posixpath.join(base, path)) if base else posixpath.normpath(path)
    if joined == ".." or joined.startswith("../") or joined.startswith("/"):
        return None
    return joined


def _ending_with(repo: Repository, tail: str) -> list[str]:
    """Listed files, and folders holding listed files, whose path ends with `/tail`."""
    name = tail.rsplit("/", 1)[-1]
    suffix = "/" + tail
    index = _index(repo)
    return sorted(p for p in (*index.files.get(name, ()), *index.folders.get(name, ())) if p.endswith(suffix))


class _PathIndex(NamedTuple):
    files: dict[str, list[str]]
    folders: dict[str, list[str]]
    tops: frozenset[str]  # the top-level folders
    children: dict[str, list[str]]  # a top-level folder -> the folders right under it
    roots: dict[tuple[str, ...], list[str]]  # source roots by root names, filled as asked


_INDEXES: weakref.WeakKeyDictionary[Repository, _PathIndex] = weakref.WeakKeyDictionary()


def _index(repo: Repository) -> _PathIndex:
    """The listing by last segment (files and folders) and the top two levels of folders, built once per Repository."""
    index = _INDEXES.get(repo)
    if index is None:
        paths = repo.paths()
        files: dict[str, list[str]] = {}
        folders: set[str] = set()
        for path in paths:
            files.setdefault(path.rsplit("/", 1)[-1], []).append(path)
            parts = path.split("/")[:-1]
            for end in range(len(parts), 0, -1):
                folder = "/".join(parts[:end])
                if folder in folders:
                    break
                folders.add(folder)
        named: dict[str, list[str]] = {}
        for folder in sorted(folders):
            named.setdefault(folder.rsplit("/", 1)[-1], []).append(folder)
        children: dict[str, list[str]] = {}
        for folder in folders:
            if folder.count("/") == 1:
                children.setdefault(folder.split("/", 1)[0], []).append(folder)
        tops = frozenset(f for f in folders if "/" not in f)
        index = _INDEXES[repo] = _PathIndex(files, named, tops, children, {})
    return index


