"""One walk of git history for the paths missing now: read as git writes it, stopped as soon as every path is answered.

A history question must stay cheap on a repository of 100,000 commits and
more, and bounded on any. So the walk is in two steps:

1. `git log --sparse` limited to the asked paths by literal pathspecs (no
   glob or magic can be injected): every commit walked is printed (one line
   each: the reader counts how deep it looked), with the asked paths' own
   changes and no rename detection (git compares tree entries, reads no
   blob: a partial clone works too). Newest first, the first commit that
   deletes an asked path (a rename out of the pathspec shows as a deletion),
   or every file under an asked folder, answers it. The reader stops git as
   soon as every path is answered, after `max_commits` commits, or when the
   time given is up: then the walk says how far it read.
2. The few commits found, shown whole (`--no-walk`) with rename detection:
   whether the path was deleted or moved, and where to.

`--full-history`: git's simplification follows, at a merge, a parent the
asked paths are the same in, all of them together, so a batch of paths would
hide a deletion that the same path asked alone shows. Paths are relative to
the checkout's root (`--relative`: a root below the top of its git repository
sees its own part of the history).
"""

from __future__ import annotations

import posixpath
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple

from anchorcheck.evidence.history import Change
from anchorcheck.repo.checkout import Repository

_FORMAT = "%x01%H%x00%h%x00%cs%x00%s"  # the commits found: full id, short id, date, subject
# Renames with edits need the blobs' bytes; a partial clone (or a mirror) may lack some, and git fails
# rather than fetch them (no transport): then exact renames only, which compare object ids; then none.
# Copies too (-C): a file deleted as two copies of it were added has two destinations, not the one git's
# rename pairing picked by chance.
_RENAMES = (("-M", "-C"), ("-M100%", "-C100%"), ("--no-renames",))

PATHSPECS_MOST = 16  # pathspecs a walk hands git (`pathspecs`): past that, the changes git prints are matched here
_FOLDERS_DEEP = 8  # folder levels `pathspecs` tries (a path of 400 segments costs no more than one of 8)
Entry = tuple[str, str, str]  # status, old path, new path ("" but for a rename)


class Found(NamedTuple):
    """Where one walk saw a path go: the change, the new place (None: deleted), the commit's full id, and the
    other places the same commit copied it to as it went (then it has no single destination)."""

    change: Change
    moved_to: str | None
    commit: str
    copies: tuple[str, ...] = ()


class Walk(NamedTuple):
    """What one walk saw: the paths it answered, the commits it read, why it stopped before the root ("" when
    it read the whole history it was given), and whether that was the time given running out."""

    found: dict[str, Found]
    commits: int
    cut: str = ""
    timed: bool = False


def walk(repo: Repository, head: str, paths: list[str], seconds: float, max_commits: int, since: str | None = None,
         emptied: Callable[[str, str], bool] | None = None) -> Walk | None:
    """Walk the history of `head` (down to `since`, excluded, when given) for `paths`; None when git failed.

    From HEAD, the newest commit that deleted files under a folder missing now is the one that emptied it. From
    a commit the folder is still in (`start`, in `History`), it may have deleted a few of its files only: then
    `emptied(commit, path)` says whether the folder was gone after that commit, and a commit that left it
    standing does not answer it (a folder that lived for years, and lost a file now and then, was deleted once)."""
    operands = [head] if since is None else [head, f"^{since}"]
    limited = [f":(literal){p}" for p in spec] if (spec := pathspecs(paths)) is not None else None
    stream = repo.git_stream(
        "log", "-z", "--sparse", "--full-history", "--relative", "--name-status", "--no-renames", "--format=%x01%H",
        operands=operands, paths=limited, seconds=seconds,
    )
    if stream is None:
        return None
    removed: dict[str, str] = {}  # path -> full id of the commit that removed it
    order = {path: at for at, path in enumerate(paths)}
    log = _Log(limit=max_commits)
    with stream:
        for commit, entries in log.read(stream):
            for path in sorted(_removed_by(entries).intersection(order).difference(removed), key=order.__getitem__):
                if emptied is None or _emptied(path, entries, commit[0], emptied):
                    removed[path] = commit[0]
            if len(removed) == len(paths):
                return Walk(_where(repo, removed), log.count)
        if log.full:
            return Walk(_where(repo, removed), log.count, f"history cut at {log.count:,} commits")
        if stream.failed:
            return None
        if stream.cut:
            return Walk(_where(repo, removed), log.count, f"history cut at {log.count:,} commits: out of time", True)
    return Walk(_where(repo, removed), log.count)


def pathspecs(paths: list[str]) -> list[str] | None:
    """What the walk hands git to limit it: the paths themselves, or past PATHSPECS_MOST of them the folders they lie
    in, as deep as keeps them that few (the changes below those folders are matched here); None: no limit at all.
    git matches each tree entry against every pathspec, so many of them cost more than reading every change
    (penpot, 23,066 commits: 1,226 literal pathspecs took 67 s of git, none 1.1 s), while one folder around many
    asked paths spares printing the rest of the tree's changes (100,000 commits, 40 paths in one folder)."""
    if len(paths) <= PATHSPECS_MOST:
        return paths
    parts = [path.split("/") for path in paths]
    chosen = None
    for depth in range(1, min(max(map(len, parts)), _FOLDERS_DEEP) + 1):  # fewer folders the shallower: from the top
        folders = list(dict.fromkeys("/".join(p[:depth]) for p in parts))
        if len(folders) > PATHSPECS_MOST:
            break
        chosen = folders
    return chosen


def _removed_by(entries: list[Entry]) -> set[str]:
    """Every path these entries delete or move away, and every folder above one: the paths `_removal` may say
    they remove (a folder is removed when all its files are, which `_removal` judges for those asked)."""
    out: set[str] = set()
    for status, old, _ in entries:
        if status in ("D", "R"):
            while old and old not in out:
                out.add(old)
                old = posixpath.dirname(old)
    return out


def _emptied(path: str, entries: list[Entry], commit: str, emptied: Callable[[str, str], bool]) -> bool:
    """Whether a commit that removed files under `path` left nothing there (a file itself deleted or moved: yes)."""
    if any(status in ("D", "R") and old == path for status, old, _ in entries):
        return True
    return emptied(commit, path)


def _where(repo: Repository, removed: dict[str, str]) -> dict[str, Found]:
    """For each path and the commit that removed it: that commit (short id, date, subject) and the path's new
    place when it moved, from the commit's whole diff with rename detection."""
    ids = list(dict.fromkeys(removed.values()))
    if not ids:
        return {}
    shown: dict[str, tuple[Change, list[Entry]]] = {}
    for renames in _RENAMES:
        out = repo.git("log", "--no-walk=unsorted", "-z", "--relative", "--name-status", *renames, f"--format={_FORMAT}", operands=ids)
        if out is not None:
            shown = {header[0]: (Change(*header[1:]), entries) for header, entries in _Log(fields=4).read([out])}
            break
    found = {}
    for path, commit in removed.items():
        if commit in shown:
            change, entries = shown[commit]
            copies = tuple(new for status, old, new in entries if status.startswith("C") and old == path)
            found[path] = Found(change, _removal(path, entries) or None, commit, copies)
    return found


class _Log:
    """The commits of `git log -z --name-status` output, read in pieces as git writes it: each header counted,
    and the commits handed over with their (status, old, new) entries: those with entries when a header is
    one field (a walk: most commits change no asked path), every one when it is several (the commits found).

    A long walk is mostly headers alone (a 0x01 byte and a commit id each); a piece holding nothing else is
    counted in one pass, never split into tokens. A commit's first entry follows a newline, so a piece
    without one, while no commit's entries are being read, holds headers only.
    """

    def __init__(self, fields: int = 1, limit: int | None = None) -> None:
        self.fields = fields  # NUL-separated fields of a header (the format's)
        self.limit = limit  # commits read at most
        self.count = 0  # headers read
        self.full = False  # stopped at `limit`
        self._header: list[str] = []  # the commit being read
        self._entries: list[Entry] = []
        self._open: list[str] = []  # the header or entry being read, and how many fields it still needs
        self._need = 0

    def read(self, pieces: Iterable[str]) -> Iterator[tuple[list[str], list[Entry]]]:
        rest = ""
        for piece in pieces:
            text = rest + piece
            end = text.rfind("\0")
            if end < 0:
                rest = text
                continue
            rest = text[end + 1 :]
            yield from self._tokens(text[:end])
            if self.full:
                return
        yield from self._tokens(rest)
        if not self.full and self._header and (self._entries or self.fields > 1):
            yield self._header, self._entries

    def _tokens(self, body: str) -> Iterator[tuple[list[str], list[Entry]]]:
        if self.fields == 1 and not self._entries and not self._need and "\n" not in body:
            headers = body.count("\x01")
            if self.limit is not None and self.count + headers > self.limit:
                self.count, self.full = self.limit, True
            elif headers:
                self.count += headers
                self._header = [body[body.rfind("\x01") + 1 :]]
            return
        for token in body.split("\0") if body else ():
            if self._need:  # a field of the header or entry being read
                self._open.append(token)
                self._need -= 1
            else:
                token = token.lstrip("\n")
                if token.startswith("\x01"):
                    if self._header and (self._entries or self.fields > 1):
                        yield self._header, self._entries
                    self.count += 1
                    if self.limit is not None and self.count > self.limit:
                        self.count, self.full = self.limit, True
                        return
                    self._header, self._entries = [], []
                    self._open, self._need = [token[1:]], self.fields - 1
                elif token:  # a status (`R053`: with git's similarity): one path follows, two for a rename or copy
                    self._open, self._need = [token], 2 if token[0] in "RC" else 1
            if not self._need and self._open:
                self._close()

    def _close(self) -> None:
        """The header (the first thing of a commit) or entry being read has all its fields."""
        if not self._header:
            self._header = self._open
        else:
            status, old, *new = self._open
            if status[:1] in "RC" and new and _guessed(status, old, new[0]):
                self._entries += [("D", old, "")] if status[0] == "R" else []  # (a weak copy: no destination at all)
            else:
                self._entries.append((status[:1], old, new[0] if new else ""))
        self._open = []


RENAMED_FLOOR = 60  # % alike, below which git's pairing of a file with one of another name is no move


def _guessed(status: str, old: str, new: str) -> bool:
    """Whether git's rename (or copy) pairing is a guess, not a move: the file's name changed and the contents are
    under RENAMED_FLOOR % alike (git pairs at 50 %). ta4j deleted a 38-line chart test in the commit that added an
    unrelated `ZigZagTrend.java`, 53 % alike in their license header and imports: "moved to" it, a `fix` would have
    written the unrelated file in. A renamed file keeps most of its text; a moved one keeps its name."""
    score = status[1:]
    return score.isdigit() and int(score) < RENAMED_FLOOR and posixpath.basename(old) != posixpath.basename(new)


def _removal(path: str, entries: list[Entry]) -> str | None:
    """Whether these entries remove `path` (a file, or every file under a folder): "" when deleted, the new place
    when moved (a folder's new place is where most of its files went), None when they do not touch it."""
    if any(status == "R" and old == path for status, old, _ in entries):
        return next(new for status, old, new in entries if status == "R" and old == path)
    if any(status == "D" and old == path for status, old, _ in entries):
        return ""
    prefix = path + "/"
    under = [(status, old, new) for status, old, new in entries if status in ("D", "R") and old.startswith(prefix)]
    if not under:
        return None
    places: Counter[str] = Counter()
    for status, old, new in under:
        rest = old[len(prefix):]
        if status == "R" and new.endswith("/" + rest):
            places[new[: -len(rest) - 1]] += 1
    if places:
        place, count = places.most_common(1)[0]
        if count * 2 > len(under):
            return posixpath.normpath(place)
    return ""
