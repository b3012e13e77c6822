"""Git's private view of a checkout: a git directory of anchorcheck's own, so that git never opens
a configuration file of the repository.

A parser of git's configuration language will always lag git (a byte-order
mark before `[include]`, `%(prefix)/` in an include path, a configuration
that is itself a link). So git is not given the repository's configuration
at all. Each process makes one private folder per checkout (mode 0700, in
the system's temporary folder, removed at exit) holding:

- `config`, written here: `bare = false` and the few values git needs from
  the repository's own configuration, read by `anchorcheck.gitconfig` as data
  and kept only when valid (line-ending conversion, object format);
- `HEAD`, a copy of the checkout's, refreshed before every run (git refuses
  a link there);
- links to what `anchorcheck.gitdir` vetted in the checkout's git directory:
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
import shutil
import tempfile
import threading
from pathlib import Path

from anchorcheck.gitconfig import Settings, read_settings
from anchorcheck.gitdir import GitDir, read_head

_LINKED = ("objects", "refs", "packed-refs", "shallow", "reftable", "info/exclude", "info/attributes")


class View:
    """One checkout's private git directory, made by this process."""

    def __init__(self, found: GitDir, settings: Settings) -> None:
        self.found = found
        self.settings = settings
        self.folder = Path(tempfile.mkdtemp(prefix="anchorcheck-git-"))
        self.owner = os.getpid()
        self._head = ""
        self._lock = threading.Lock()
        try:
            self._lay_out()
        except OSError:
            self.remove()
            raise

    def _lay_out(self) -> None:
        (self.folder / "config").write_text(_config_text(self.settings), encoding="utf-8")
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

    def remove(self) -> None:
        if os.getpid() == self.owner:  # a forked child never removes its parent's view
            shutil.rmtree(self.folder, ignore_errors=True)


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
                settings = read_settings(found.shared("config")) if found.shared("config").exists() else Settings()
                view = _views[key] = View(found, settings)
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
