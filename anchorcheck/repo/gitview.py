"""Git's private view of a checkout: a git directory of anchorcheck's own, so that git never opens
a configuration file of the repository.

A parser of git's configuration language will always lag git (a byte-order
mark before `[include]`, `%(prefix)/` in an include path, a configuration
that is itself a link). So git is not given the repository's configuration
at all. Each process makes one private folder per checkout (mode 0700, in
the system's temporary folder, removed at exit) holding:

- `config`, written here: `bare = false` and the few values git needs from
  the repository's own configuration, read by `anchorcheck.repo.gitconfig` as data
  and kept only when valid (line-ending conversion, object format);
- `HEAD`, a copy of the checkout's, refreshed before every run (git refuses
  a link there);
- links to what `anchorcheck.repo.gitdir` vetted in the checkout's git directory:
  `objects`, `refs`, `packed-refs`, `shallow`, `reftable`, `info/exclude`,
  `info/attributes`.

Git runs with `GIT_DIR` set to that folder, `GIT_WORK_TREE` to the
checkout's top and `GIT_INDEX_FILE` to its index: with `GIT_DIR` given, git
neither looks for a repository nor follows a `commondir`. The user's own
global and system configuration are still read (no repository can write
them); every program they could name is switched off by `gitcmd`.
"""

from __future__ import annotations

import atexit
import os
import threading
from pathlib import Path

from anchorcheck.repo.cachedir import temporary_base
from anchorcheck.repo.gitconfig import Settings, read_settings
from anchorcheck.repo.gitdir import GitDir, read_head

_PREFIX = "anchorcheck-git-"
_LINKED = ("objects", "refs", "packed-refs", "shallow", "reftable", "info/exclude", "info/attributes")


class View:
    """One checkout's private git directory, made by this process."""

    def __init__(self, found: GitDir) -> None:
        self.found = found
        self._settings = Settings()
        self._config_seen: tuple[int, ...] | None = None
        self.folder = _private_folder()
        self.owner = os.getpid()
        self._head = ""
        self._lock = threading.Lock()
        try:
            self._lay_out()
        except OSError:
            self.remove()
            raise

    def _lay_out(self) -> None:
        self._refresh_config()
        for name in _LINKED:
            target = self.found.shared(name)
            if os.path.lexists(target):
                link = self.folder / name
                link.parent.mkdir(exist_ok=True)
                os.symlink(target, link)
        if not (self.folder / "refs").exists():
            (self.folder / "refs").mkdir()  # git needs the folder to call this a git directory

    def environment(self) -> dict[str, str] | None:
        """The variables that point git at this view, with HEAD brought up to date; None when the
        checkout's HEAD can no longer be read as one."""
        head = read_head(self.found)
        if head is None:
            return None
        with self._lock:
            self._refresh_config()
            if head != self._head:
                fresh = self.folder / f"HEAD.{os.getpid()}.new"
                fresh.write_text(head, encoding="utf-8")
                os.replace(fresh, self.folder / "HEAD")
                self._head = head
        index = self.found.own("index")
        return {
            "GIT_DIR": str(self.folder),
            "GIT_WORK_TREE": str(self.found.top),
            "GIT_INDEX_FILE": str(index if index.exists() else self.folder / "index"),
        }

    @property
    def settings(self) -> Settings:
        """The checkout's configuration as it is now (read again when its file changed)."""
        with self._lock:
            self._refresh_config()
            return self._settings

    def _refresh_config(self) -> None:
        """Read the checkout's configuration again when its file changed (a long-lived process sees a
        `git config core.autocrlf true` made after it started) and write the private one from it."""
        path = self.found.shared("config")
        try:
            info = os.lstat(path)
            seen: tuple[int, ...] = (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
        except FileNotFoundError:
            seen = ()
        if seen == self._config_seen:
            return
        self._settings = read_settings(path) if seen else Settings()
        fresh = self.folder / f"config.{os.getpid()}.new"
        fresh.write_text(_config_text(self._settings), encoding="utf-8")
        os.replace(fresh, self.folder / "config")
        self._config_seen = seen

    def remove(self) -> None:
        if os.getpid() == self.owner:  # a forked child never removes its parent's view
            _remove_tree(self.folder)


def _private_folder() -> Path:
    """A new folder only this user can enter (0700, a random name, never reused), in the system's
    temporary folder. Made by hand, not by `tempfile.mkdtemp`, which imports `shutil` into start-up."""
    base = temporary_base()
    _sweep(base)
    for _ in range(100):
        folder = Path(base) / f"{_PREFIX}{os.getpid()}-{os.urandom(8).hex()}"
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            continue
        return folder
    raise FileExistsError(f"no new folder could be made in {base}")


def _sweep(base: str) -> None:
    """Remove the views of this user's processes that are gone: a process killed by a signal never
    ran its exit handler. Views of live processes and of other users are left alone."""
    if not hasattr(os, "getuid"):
        return
    try:
        entries = list(os.scandir(base))
    except OSError:
        return
    for entry in entries:
        if not entry.name.startswith(_PREFIX):
            continue
        pid = entry.name[len(_PREFIX) :].partition("-")[0]
        try:
            if entry.stat(follow_symlinks=False).st_uid != os.getuid() or not pid.isdigit():
                continue
            os.kill(int(pid), 0)
        except ProcessLookupError:
            _remove_tree(Path(entry.path))
        except (OSError, ValueError, OverflowError):
            continue


def _remove_tree(folder: Path) -> None:
    """Remove the view: its files, links (never followed) and folders; what cannot go is left."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            _remove_tree(Path(entry.path))
        else:
            try:
                os.unlink(entry.path)
            except OSError:
                pass
    try:
        os.rmdir(folder)
    except OSError:
        pass


def _config_text(settings: Settings) -> str:
    """The private configuration: a non-bare repository with the vetted values of the checkout's own."""
    values = settings.passed_to_git()
    sections: dict[str, list[str]] = {"core": ["\tbare = false"]}
    extensions = any(section == "extensions" for section, _ in values)
    values.setdefault(("core", "repositoryformatversion"), "1" if extensions else "0")
    for (section, key), value in sorted(values.items()):
        sections.setdefault(section, []).append(f"\t{key} = {value}")
    return "".join(f"[{section}]\n" + "\n".join(lines) + "\n" for section, lines in sections.items())


_views: dict[tuple[int, Path], View] = {}
_views_lock = threading.Lock()


def view_of(found: GitDir) -> View | None:
    """This process's view of a vetted git directory, made on first use; None when no private folder
    can be made or the repository's configuration cannot be read as data."""
    key = (os.getpid(), found.gitdir)
    with _views_lock:
        view = _views.get(key)
        if view is None:
            try:
                view = _views[key] = View(found)
            except OSError:
                return None
        return view


@atexit.register
def _remove_views() -> None:
    with _views_lock:
        views = list(_views.values())
        _views.clear()
    for view in views:
        view.remove()
