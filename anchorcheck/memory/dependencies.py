"""Dependencies named in prose that a manifest of the repository declared and declares no more.

"Wrap calls with `wrapt`", "the `riot` runner", "`@oxc-project/runtime` helpers":
a package name in inline code is a claim that the project depends on it. Most
such words are not package names at all (`true`, `config`, a function), so a
word is never read for what it looks like: it is read only when history says it
was a direct dependency here. For the manifests nearest the memory file (and
at the root) — package.json, pyproject.toml, Cargo.toml, go.mod — the last
MAX_REVISIONS revisions are read from git; a name one of them declared that no
manifest of that kind in the repository declares now is stale: REFUTED with
the commit that removed it (the revision after the last one that had it). A
name some manifest still declares, or that no revision looked at declared, is
not read (silence: the word may be anything) — unless the manifest that dropped it is the one in the
memory file's own folder and a heading above the name names that manifest's table that declared it
("## Dependencies" beside a pyproject's `[project] dependencies`): then the text is that manifest's list.
Lockfiles are not asked: they
lock what dependencies depend on, which says nothing of what the project uses.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar

from anchorcheck.base import digests
from anchorcheck.base.lazyregex import later
from anchorcheck.evidence.cache import FactsCache
from anchorcheck.evidence.history import Change, at_head, revisions
from anchorcheck.repo.checkout import Repository
from anchorcheck.repo.paths import UnsafePathError

T = TypeVar("T")
Memoize = Callable[[Any, Callable[[], Any]], Any]  # `Context.memo`: (key, work) -> the kept value

MAX_REVISIONS = 10  # revisions of one manifest read, newest first
MAX_MANIFESTS = 2_000  # manifests of a kind read to know a name is declared nowhere now
_CACHE_KEY = "dependency-history-v1"
ECOSYSTEMS = {"package.json": "npm", "pyproject.toml": "pypi", "Cargo.toml": "cargo", "go.mod": "golang"}
_PACKAGE_WORD = later(r"@[a-z0-9][\w.-]*/[\w.-]+|[A-Za-z][\w.-]*[A-Za-z0-9](?:/[\w.-]+)*")
_REQUIREMENT = later(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_GO_REQUIRE = later(r"^\s*(?:require\s+)?([\w.~-]+(?:/[\w.~-]+)+)\s+v\d", re.M)
_NPM_SECTIONS = ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies")
_CARGO_SECTIONS = ("dependencies", "dev-dependencies", "build-dependencies")


class Removal(NamedTuple):
    """A direct dependency a manifest dropped: which name, from which manifest, by which commit."""

    name: str
    manifest: str
    ecosystem: str
    change: Change
    table: str = ""  # the manifest's table a heading above the text names, when other manifests still declare it

    def reason(self) -> str:
        if self.table:
            return (f"{self.manifest} declared {self.name} in `{self.table}` until {self.change.commit}, which removed it ({self.change}); "
                    f"the text lists it beside that manifest, under a heading naming that table (other manifests still declare it)")
        return (f"no manifest declares {self.name} now; {self.manifest} declared it until {self.change.commit}, which removed it "
                f"({self.change})")


def package_word(token: str) -> bool:
    """Whether an inline-code token could be a package name (`wrapt`, `biome_service`, `@oxc-project/runtime`)."""
    return bool(_PACKAGE_WORD.fullmatch(token)) and len(token) >= 3


def normal(name: str) -> str:
    """One spelling for names that an ecosystem treats as one (`Foo_Bar` and `foo-bar` in PyPI and Cargo)."""
    return re.sub(r"[-_.]+", "-", name.lower())


def declared(manifest: str, text: str) -> set[str]:
    """The direct dependencies a manifest's text declares (normal spellings); empty when it does not parse."""
    kind = posixpath.basename(manifest)
    try:
        if kind == "package.json":
            data = json.loads(text)
            return {normal(n) for key in _NPM_SECTIONS if isinstance(data.get(key), dict) for n in data[key]}
        if kind == "go.mod":
            return {normal(m) for m in _GO_REQUIRE.findall(text)}
        import tomllib  # only a pyproject.toml or Cargo.toml read for its history needs it

        data = tomllib.loads(text)
    except (ValueError, AttributeError):
        return set()
    return _cargo(data) if kind == "Cargo.toml" else _pyproject(data)


def tables(manifest: str, text: str, name: str) -> list[str]:
    """The tables of a manifest that declare `name` (normal): `dependencies`, `devDependencies`, `dev-dependencies`,
    a dependency group's or an extra's name, `require` (go.mod)."""
    kind = posixpath.basename(manifest)
    try:
        if kind == "package.json":
            data = json.loads(text)
            return [key for key in _NPM_SECTIONS if isinstance(data.get(key), dict) and name in {normal(n) for n in data[key]}]
        if kind == "go.mod":
            return ["require"] if name in declared(manifest, text) else []
        import tomllib

        data = tomllib.loads(text)
    except (ValueError, AttributeError):
        return []
    if kind == "Cargo.toml":
        return [s for t in _cargo_tables(data) for s in _CARGO_SECTIONS if isinstance(t.get(s), dict) and name in {normal(n) for n in t[s]}]
    project, tool = data.get("project") or {}, data.get("tool") or {}
    poetry = tool.get("poetry") or {}
    named = {"dependencies": project.get("dependencies"), "dev-dependencies": (tool.get("uv") or {}).get("dev-dependencies"),
             **(project.get("optional-dependencies") or {}), **(data.get("dependency-groups") or {})}
    found = [key for key, items in named.items() if isinstance(items, list) and name in _requirements(items)]
    return found + [key for key in ("dependencies", "dev-dependencies") if isinstance(poetry.get(key), dict) and name in {normal(n) for n in poetry[key]}]


def names_table(headings: tuple[str, ...], table: str) -> bool:
    """Whether the words of the headings above a text name a manifest's table: a word, or two words written
    together (`## Dependencies`, `## Dev dependencies` for `devDependencies`), spelt alike."""
    words = [re.sub(r"[^a-z0-9]", "", w.lower()) for w in headings]
    wanted = re.sub(r"[^a-z0-9]", "", table.lower())
    return bool(wanted) and (wanted in words or any(a + b == wanted for a, b in zip(words, words[1:])))


def own_name(manifest: str, text: str) -> set[str]:
    """The name of the package a manifest makes (`[package] name`, `"name"`, `[project] name`, `module`), normal."""
    kind = posixpath.basename(manifest)
    try:
        if kind == "package.json":
            name = json.loads(text).get("name")
        elif kind == "go.mod":
            found = re.search(r"^module\s+(\S+)", text, re.M)
            name = found.group(1) if found else None
        else:
            import tomllib

            data = tomllib.loads(text)
            name = (data.get("package") or data.get("project") or {}).get("name")
    except (ValueError, AttributeError):
        return set()
    return {normal(name)} if isinstance(name, str) else set()


def _cargo(data: dict[str, Any]) -> set[str]:
    return {normal(n) for t in _cargo_tables(data) for s in _CARGO_SECTIONS if isinstance(t.get(s), dict) for n in t[s]}


def _cargo_tables(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The tables of a Cargo.toml that hold dependency sections: the package's, the workspace's, each target's."""
    return [t for t in [data, data.get("workspace") or {}, *((data.get("target") or {}).values())] if isinstance(t, dict)]


def _pyproject(data: dict[str, Any]) -> set[str]:
    project, tool = data.get("project") or {}, data.get("tool") or {}
    lists = [project.get("dependencies") or [], *(project.get("optional-dependencies") or {}).values(),
             *(data.get("dependency-groups") or {}).values(), (tool.get("uv") or {}).get("dev-dependencies") or []]
    names = {n for items in lists if isinstance(items, list) for n in _requirements(items)}
    poetry = tool.get("poetry") or {}
    groups = [poetry.get("dependencies") or {}, poetry.get("dev-dependencies") or {},
              *((g or {}).get("dependencies") or {} for g in (poetry.get("group") or {}).values() if isinstance(g, dict))]
    return names | {normal(n) for g in groups if isinstance(g, dict) for n in g if n != "python"}


def _requirements(items: list[Any]) -> set[str]:
    """The names (normal) of a list of PEP 508 requirements."""
    return {normal(m.group(1)) for item in items if isinstance(item, str) if (m := _REQUIREMENT.match(item))}


class Dependencies:
    """The direct dependencies the manifests of one checkout removed in their last revisions, asked per folder.

    What a manifest's history dropped is kept in the facts cache by the manifest's path and bytes, and git is asked
    only on a miss: a run whose manifests did not change runs no git for this (and can be stored for replay), since a
    commit that does not touch a manifest leaves its history's names as they were."""

    def __init__(self, repo: Repository, cache: Callable[[], FactsCache | None] = lambda: None, memo: Memoize | None = None) -> None:
        self.repo = repo
        # a long-lived Verifier's memo (`Context.memo`): what the manifests of a kind declare now and what a manifest's
        # history dropped, each worked out once and again only after a file it read changed (`staleness.dropped_dependency`)
        self._memo = memo
        self._open = cache  # opened on the first manifest asked about: most runs name no word that needs it
        self._cache: FactsCache | None | bool = False
        self._removed: dict[str, dict[str, Change]] = {}  # manifest -> normal name -> the commit that removed it
        self._now: dict[str, set[str]] = {}  # manifest kind -> names any manifest of that kind declares now
        self._near: dict[tuple[str, str], list[str]] = {}  # (folder, kind) -> `_nearest`: asked per word, of a few folders

    def removal(self, word: str, folder: str, headings: tuple[str, ...] = ()) -> Removal | None:
        """The removal of `word` as a direct dependency of the manifests nearest `folder`; None when none removed it
        or some manifest still declares it — unless the manifest that dropped it is the one in `folder` itself and
        `headings` (the words of the headings above the text) name the table it declared it in: then the text is
        that manifest's list ("## Dependencies" in a package's AGENTS.md, beside its pyproject.toml), and what
        other manifests declare says nothing of it."""
        if not package_word(word) or not self.repo.in_git:
            return None
        name = normal(word)
        for kind, ecosystem in ECOSYSTEMS.items():
            for manifest in self._nearest(folder, kind):
                change = self._removed_by(manifest).get(name)
                if change is None:
                    continue
                if name not in self._declared_now(kind):
                    return Removal(word, manifest, ecosystem, change)
                table = self._named_table(manifest, folder, change, name, headings)
                if table:
                    return Removal(word, manifest, ecosystem, change, table)
        return None

    def _named_table(self, manifest: str, folder: str, change: Change, name: str, headings: tuple[str, ...]) -> str:
        """The table of `manifest` (in `folder` itself) that declared `name` before `change` and that a heading names."""
        if not headings or posixpath.dirname(manifest) != folder.strip("/"):
            return ""
        before = self.repo.git("cat-file", operands=["blob", f"{change.commit}^:{manifest}"])
        return next((t for t in tables(manifest, before or "", name) if names_table(headings, t)), "")

    @property
    def cache(self) -> FactsCache | None:
        if self._cache is False:
            self._cache = self._open()
        return self._cache  # type: ignore[return-value]

    def _nearest(self, folder: str, kind: str) -> list[str]:
        """The manifest of that kind nearest the folder (upwards), and the root's."""
        if (folder, kind) not in self._near:
            self._near[folder, kind] = self._look_up(folder, kind)
        return self._near[folder, kind]

    def _look_up(self, folder: str, kind: str) -> list[str]:
        found: list[str] = []
        at = folder.strip("/")
        while True:
            path = posixpath.join(at, kind) if at else kind
            if self._is_file(path) and path not in found:
                found.append(path)
                if at:
                    at = ""
                    continue
            if not at:
                return found
            at = posixpath.dirname(at)

    def _removed_by(self, manifest: str) -> dict[str, Change]:
        if manifest not in self._removed:
            self._removed[manifest] = self._kept(("anchorcheck.dropped-by", manifest), lambda: self._look_back(manifest))
        return self._removed[manifest]

    def _kept(self, key: tuple[str, str], work: Callable[[], T]) -> T:
        return work() if self._memo is None else self._memo(key, work)

    def _look_back(self, manifest: str) -> dict[str, Change]:
        text = self._text(manifest)
        key = f"{_CACHE_KEY}:{manifest}:{digests.sha256(text.encode('utf-8', 'surrogateescape')).hexdigest()}"
        cache = self.cache
        kept = cache.get_many([key]).get(key) if cache is not None else None
        if kept is not None:
            removed = {name: Change(*map(str, change)) for name, change in kept.items()}
        else:
            with at_head(self.repo) as head:  # the manifest's past revisions: named by HEAD, a report stays replayable
                removed = self._walk(manifest, text, head) if head is not None else {}
            if cache is not None and head is not None:
                cache.put(key, {name: list(change) for name, change in removed.items()})
                cache.flush()
        return removed

    def _walk(self, manifest: str, text: str, head: str) -> dict[str, Change]:
        """Names the last revisions of `manifest` declared and its `text` now does not, each with the commit after the
        last revision that had it."""
        now = declared(manifest, text)
        past = revisions(self.repo, head, manifest, MAX_REVISIONS)
        removed: dict[str, Change] = {}
        newer: Change | None = None
        for revision in past:
            if newer is not None:
                blob = self.repo.git("cat-file", operands=["blob", f"{revision.commit}:{manifest}"])
                for name in declared(manifest, blob or "") - now:
                    removed.setdefault(name, newer)
            newer = revision
        return removed

    def _declared_now(self, kind: str) -> set[str]:
        """What the manifests of that kind declare now, and the packages they are (a crate of the workspace is no
        dropped dependency, whatever the workspace's table says)."""
        if kind not in self._now:
            self._now[kind] = self._kept(("anchorcheck.declared-now", kind), lambda: self._declared(kind))
        return self._now[kind]

    def _declared(self, kind: str) -> set[str]:
        paths = list(self.repo.files(named=[kind]))[:MAX_MANIFESTS]
        texts = [(path, self._text(path)) for path in paths]
        return {n for path, text in texts for n in declared(path, text) | own_name(path, text)}

    def _text(self, path: str) -> str:
        try:
            return self.repo.read_bytes(path).decode("utf-8")
        except (OSError, ValueError, UnsafePathError):
            return ""

    def _is_file(self, path: str) -> bool:
        try:
            return self.repo.is_file(path)
        except UnsafePathError:
            return False

