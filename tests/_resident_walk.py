"""A seeded random walk over a small real project, for the differential test of long-lived Verifiers.

Between recalls the walk edits the checkout as people and tools do (sources, manifests, lockfiles,
the memory files, the configuration, links, permissions, git's index, branches and stash, ignore
rules), often several times within one clock tick; after each step every long-lived Verifier's
answers must equal those of a Verifier made now. A seed names the whole walk: a failure prints it
with the steps taken, and `Walk(root, outside, seed, in_git)` replays them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from anchorcheck import Memory, Verifier
from anchorcheck.cli.check import check_memories
from anchorcheck.evidence.freshness import _Inotify
from tests.conftest import git, write_tree

_IMPORTS = [
    "import redis",
    "import requests",
    "import logging",
    "import celery",
    "import flask",
    "import shop.util.log",
    "from shop.util import log",
    "from shop.cache import RedisCache",
    "from . import cache",
    "from .. import util",
    "import os",
]
_ENV_READS = [
    'URL = os.environ.get("REDIS_URL")',
    'KEY = os.getenv("API_KEY")',
    'DEBUG = os.environ["DEBUG"]',
    "ALL = dict(os.environ)",
    "VALUE = os.environ[name]",
]
_DEFINITIONS = [
    "class RedisCache:\n    def get(self, key):\n        return key\n",
    "class RedisCache:\n    pass\n",
    "def index():\n    return 1\n",
    "class Missing:\n    pass\n",
    "def helper():\n    pass\n",
]
_JS = [
    'import lodash from "lodash";',
    'const express = require("express");',
    "const key = process.env.API_KEY;",
    "const url = process.env.REDIS_URL;",
    "export function render() {}",
    "export class Missing {}",
]
_REQUIREMENTS = ["requests>=2", "redis", "celery", "flask==2.0", "-e .", "# pinned by hand"]
_PYPROJECT_DEPS = ['"requests>=2"', '"redis"', '"celery"', '"flask"']
_NPM_DEPS = ['"lodash": "^4.17.0"', '"express": "4"', '"left-pad": "1"']
_NPM_SCRIPTS = ['"build": "vite build"', '"test": "vitest"', '"lint": "eslint ."']
_MAKE_TARGETS = ["lint:\n\truff check .\n", "test:\n\tpytest\n", "build:\n\tpython -m build\n"]
_DOTENV = ["REDIS_URL=redis://localhost", "DEBUG=1", "API_KEY=", "# comment"]
_CONFIGS = [
    None,
    'exclude = ["tests/"]\n',
    'exclude = ["*.js"]\n',
    'extend-skip-dirs = ["scripts"]\n',
    "max-file-size = 120\n",
    "implicit = false\n",
    'exclude = ["shop/api/"]\n',
    "exclude = 3\n",  # not a valid configuration: an error, alike for both
    'plugins = ["file", "pkg", "pypi", "markdown", "import", "lang-python"]\n',
    'implicit = ["file"]\n',
    'extend-exclude = ["docs/"]\nfail-on = "inconclusive"\n',
]
_IGNORES = ["scripts/", "*.js", "docs/", "shop/extra*.py", ".env.example", "AGENTS.md", "tests/"]
# Rewrites that keep a file's size: each word and its same-length twin.
_TWINS = [("redis", "rexis"), ("celery", "celerx"), ("REDIS_URL", "REDIS_URX"), ("index", "indey"), ("lodash", "lodasy"), ("lint", "lilt"), ("requests", "requestz"), ("API_KEY", "API_KEZ")]

PYTHON_FILES = ["shop/__init__.py", "shop/cache.py", "shop/api/__init__.py", "shop/api/views.py", "shop/util/__init__.py", "shop/util/log.py", "tests/test_cache.py", "scripts/tool.py", "docs/example.py", "build/gen.py"]
NEW_PATHS = ["shop/extra.py", "shop/new/mod.py", "shop/new/__init__.py", "tests/test_extra.py", "scripts/other.py", "web/more.js", "node_modules/x/index.js", "lib/thing.py", "shop/api/deep/x.py"]

# The memories of CLAUDE.md: every kind of typed anchor, and prose with implicit references.
MEMORY_LINES = [
    "- The cache is Redis. `pkg:pypi/redis` `import:redis in:shop/` `env:REDIS_URL`",
    "- Views call out with requests. `import:requests` `sym:shop/api/views.py::index` `sym:shop/cache.py::RedisCache.get`",
    "- Logging goes through our module. `import:shop.util.log` `import:logging in:shop/util/` `sym:py:shop.cache.RedisCache`",
    "- The web bundle uses lodash. `pkg:npm/lodash` `import:lodash` `env:API_KEY` `cmd:npm run build` `cmd:make lint`",
    "- We do not use Celery. `!pkg:pypi/celery` `!import:celery`",
    "- Layout. `file:shop/cache.py` `file:docs/adr.md` `file:shop/new/`",
    "- The cache's class. `span:shop/cache.py#L1-L3`",
    "- Requirements are reviewed. `file:requirements.txt` WATCH",
    "- See `shop/api/views.py` and [the tests](tests/test_cache.py); run `make lint` and `npm test`; install with `uv add redis`.",
    "- Gone things. `import:flask` `env:NOPE_KEY` `sym:py:shop.cache.Missing` `pkg:npm/left-pad` `cmd:make test`",
    "- Debug flag. `env:DEBUG` `import:shop.cache in:tests/` `sym:web/app.js::render`",
]
# Anchors a memory store recalls (the library path), whatever the memory file holds now.
STORE_ANCHORS = [
    "import:redis", "import:celery", "import:shop.util.log", "import:shop.cache", "import:logging", "import:lodash",
    "import:express", "env:REDIS_URL", "env:API_KEY", "env:DEBUG", "env:NOPE_KEY", "sym:shop/cache.py::RedisCache.get",
    "sym:py:shop.api.views.index", "sym:shop/extra.py::helper", "file:shop/extra.py", "file:scripts/", "pkg:redis",
    "pkg:pypi/flask", "pkg:npm/express", "pkg:npm/left-pad", "cmd:npm test", "cmd:make build", "import:redis in:tests/",
    "!import:flask", "env:REDIS_URL in:shop/",
]

PROJECT: dict[str, str] = {
    "pyproject.toml": '[project]\nname = "shop"\nversion = "1"\ndependencies = ["requests>=2", "redis"]\n',
    "requirements.txt": "requests>=2\nredis\n",
    "package.json": '{"name": "web", "scripts": {"build": "vite build", "test": "vitest"}, "dependencies": {"lodash": "^4.17.0"}}\n',
    "package-lock.json": '{"name": "web", "lockfileVersion": 3, "packages": {"": {"dependencies": {"lodash": "^4.17.0"}}, '
    '"node_modules/lodash": {"version": "4.17.21"}, "node_modules/left-pad": {"version": "1.3.0"}}}\n',
    "Makefile": "lint:\n\truff check .\n",
    ".env.example": "REDIS_URL=redis://localhost\n",
    "shop/__init__.py": "",
    "shop/cache.py": 'class RedisCache:\n    def get(self, key):\n        return key\n\nimport redis\nimport os\nURL = os.environ.get("REDIS_URL")\n',
    "shop/api/__init__.py": "",
    "shop/api/views.py": "from shop.cache import RedisCache\nimport requests\n\ndef index():\n    return 1\n",
    "shop/util/__init__.py": "",
    "shop/util/log.py": "import logging\n",
    "tests/test_cache.py": "import pytest\nfrom shop.cache import RedisCache\n",
    "scripts/tool.py": "import celery\n",
    "docs/example.py": "import flask\n",
    "docs/adr.md": "# ADR\n",
    "build/gen.py": "import flask\n",
    "web/app.js": 'import lodash from "lodash";\nconst key = process.env.API_KEY;\nexport function render() {}\n',
}


@contextmanager
def stat_pass() -> Iterator[None]:
    """No inotify while inside: the snapshots taken here stat every entry (how tests force the stat pass)."""
    watching = _Inotify.__dict__["watching"]
    _Inotify.watching = classmethod(lambda cls, directories, root: None)  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        _Inotify.watching = watching  # type: ignore[method-assign]


def _memories_as_checked(verifier: Verifier) -> object:
    """What `check` (and each round of `check --watch`) reports for the known memory files, as JSON."""
    args = argparse.Namespace(files=[], no_implicit=False, claude_memory=False, receipts=None, deadline=None)
    try:
        loaded, reports, _ = check_memories(args, verifier)
    except Exception as exc:  # noqa: BLE001 - a bad memory file or configuration: the error is the answer
        return f"error: {type(exc).__name__}: {exc}"
    return [[shown for shown, _ in loaded], [r.to_dict() for r in reports]]


def answers(verifier: Verifier) -> dict[str, object]:
    """Everything a Verifier answers about the checkout: the memory files as `check` reads them, and a
    memory store's recall of every anchor (`verify_many`)."""
    store = [Memory(id=anchor, anchors=[anchor]) for anchor in STORE_ANCHORS]
    try:
        recalled: object = [r.to_dict() for r in verifier.verify_many(store)]
    except Exception as exc:  # noqa: BLE001
        recalled = f"error: {type(exc).__name__}: {exc}"
    return {"memory files": _memories_as_checked(verifier), "store": recalled}


def new_verifier(root: Path, cache_dir: Path | None) -> Verifier | str:
    """A Verifier made now (one-shot, as `check` makes it), or the error making one raised."""
    try:
        return Verifier(root, options={"cache": cache_dir is not None, "cache_dir": cache_dir, "resident": False})
    except Exception as exc:  # noqa: BLE001 - a broken configuration: the error is the answer
        return f"error: {type(exc).__name__}: {exc}"


class Resident:
    """A long-lived Verifier, kept across the walk: with inotify or the stat pass, with or without the disk cache."""

    def __init__(self, root: Path, stat: bool, cache_dir: Path | None) -> None:
        self.root, self.stat, self.cache_dir = root, stat, cache_dir
        self.name = f"{'stat' if stat else 'events'}, {'cache' if cache_dir else 'no cache'}"
        self.verifier: Verifier | None = None
        self.error: str | None = None
        self._make()

    def _make(self) -> None:
        with self._mode():
            try:
                self.verifier = Verifier(self.root, options={"cache": self.cache_dir is not None, "cache_dir": self.cache_dir})
            except Exception as exc:  # noqa: BLE001 - made again once the configuration is valid
                self.verifier, self.error = None, f"error: {type(exc).__name__}: {exc}"

    def _mode(self):  # type: ignore[no-untyped-def]
        return stat_pass() if self.stat else _nothing()

    def answers(self, cut: float | None = None) -> object:
        """Its answers now, or the error a new Verifier would raise (kept until one can be made). With
        `cut`, a recall of every anchor under that deadline (seconds) comes first: whatever it left half
        done (a search, a parse, the first look) must not show in the answers that follow."""
        if self.verifier is None:
            self._make()
            if self.verifier is None:
                return self.error
        with self._mode():
            try:
                if cut is not None:
                    self.verifier.verify_many([Memory(id=a, anchors=[a]) for a in STORE_ANCHORS], deadline=cut)
                self.verifier.refresh()
            except Exception as exc:  # noqa: BLE001 - a broken configuration: what a new Verifier raises
                return f"error: {type(exc).__name__}: {exc}"
            return answers(self.verifier)


SUGGEST_TEXT = "We cache with Redis through RedisCache.get; the views use requests and read REDIS_URL. Run `make lint`."


def mcp_truth(verifier: Verifier | str) -> object:
    """What the MCP server's tools must answer, from a Verifier made now: the anchors checked, and
    the anchors suggested for a memory's text (the suggestion tools read the index directly)."""
    if isinstance(verifier, str):
        return "error"
    from anchorcheck.verify.suggestions import suggest

    return {"check_anchors": [verifier.check(a).to_dict() for a in STORE_ANCHORS], "suggest_anchors": [s.to_dict() for s in suggest(verifier, SUGGEST_TEXT)]}


class McpResident:
    """The MCP server's session Verifier (`anchorcheck mcp`), asked through the MCP SDK's own client:
    one server for the walk, a client session per step."""

    name = "the MCP server"

    def __init__(self, root: Path) -> None:
        from anchorcheck.serve.mcp_server import build_server

        self.server = build_server(root)

    def answers(self) -> object:
        import anyio
        from mcp import Client

        async def session() -> object:
            async with Client(self.server) as client:
                checked = await client.call_tool("check_anchors", {"anchors": STORE_ANCHORS})
                suggested = await client.call_tool("suggest_anchors", {"text": SUGGEST_TEXT})
            if checked.is_error or suggested.is_error:
                return "error"
            return {"check_anchors": checked.structured_content["results"], "suggest_anchors": suggested.structured_content["suggestions"]}

        return anyio.run(session)


@contextmanager
def _nothing() -> Iterator[None]:
    yield


def _run(root: Path, *args: str) -> None:
    """A git command that may fail (a branch switch over local changes): the walk goes on."""
    try:
        git(root, *args)
    except subprocess.CalledProcessError:
        pass


class Walk:
    """One seeded walk: `step()` applies one to three random operations and says what they were."""

    def __init__(self, root: Path, outside: Path, seed: int, in_git: bool) -> None:
        self.root, self.outside, self.in_git = root, outside, in_git
        self.rng = random.Random(seed)
        write_tree(root, PROJECT)
        write_tree(outside, {"ext.py": "import celery\nclass RedisCache:\n    pass\n", "pkg/mod.py": "import redis\n"})
        if in_git:
            git(root, "init", "-q", "-b", "main")
            git(root, "add", "-A")
            git(root, "commit", "-q", "-m", "initial")
        self._write_memory(list(range(len(MEMORY_LINES))))
        from anchorcheck.cli import main

        assert main(["lock", "--root", str(root)]) == 0  # the span's fingerprint, banked
        if in_git:
            git(root, "add", "-A")
            git(root, "commit", "-q", "-m", "memories")
        ops: list[tuple[int, Callable[[], str]]] = [
            (10, self.edit_python),
            (4, self.same_size_same_time),
            (2, self.odd_bytes),
            (3, self.edit_js),
            (3, self.add_file),
            (3, self.delete_file),
            (3, self.move_file),
            (1, self.make_directory),
            (2, self.symlink_inside),
            (1, self.symlink_outside),
            (1, self.chmod),
            (4, self.edit_manifest),
            (2, self.edit_memory),
            (1, self.agents_file),
            (2, self.edit_config),
            (2, self.edit_gitignore),
        ]
        if in_git:
            ops += [(3, self.git_add), (2, self.git_commit), (2, self.git_branch), (1, self.git_stash), (1, self.git_rm_cached)]
        else:
            ops += [(1, self.git_init)]
        self.ops = [op for weight, op in ops for _ in range(weight)]

    def step(self) -> list[str]:
        return [self.rng.choice(self.ops)() for _ in range(self.rng.choice((1, 1, 1, 2, 3)))]

    # -- helpers ----------------------------------------------------------------

    def _files(self, suffixes: tuple[str, ...] = ("",)) -> list[str]:
        """The regular files and links of the checkout now (outside .git), repo-relative, sorted."""
        found = []
        for dirpath, dirnames, filenames in os.walk(self.root):
            dirnames[:] = sorted(d for d in dirnames if d != ".git")
            for name in filenames:
                rel = os.path.relpath(os.path.join(dirpath, name), self.root).replace(os.sep, "/")
                if rel.endswith(suffixes):
                    found.append(rel)
        return sorted(found)

    def _put(self, rel: str, text: str | bytes) -> None:
        path = self.root / rel
        if path.is_symlink() or (path.exists() and not path.is_file()):
            self._remove(rel)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode() if isinstance(text, str) else text)

    def _remove(self, rel: str) -> None:
        path = self.root / rel
        if path.is_symlink() or path.is_file():
            path.unlink()
        elif path.is_dir():
            shutil.rmtree(path)

    def _some(self, items: list[str], low: int = 0) -> list[str]:
        return [item for item in items if self.rng.random() < 0.5] or items[:low]

    def python_source(self) -> str:
        rng = self.rng
        parts = rng.sample(_IMPORTS, rng.randint(0, 3))
        reads = rng.sample(_ENV_READS, rng.randint(0, 2))
        if reads:
            parts += ["import os", *reads]
        parts += rng.sample(_DEFINITIONS, rng.randint(0, 2))
        if rng.random() < 0.1:
            parts.append("def broken(:")
        rng.shuffle(parts)
        return "\n".join(parts) + "\n" + "# padding\n" * rng.choice((0, 0, 1, 5, 40))

    # -- operations ---------------------------------------------------------------

    def edit_python(self) -> str:
        rel = self.rng.choice(PYTHON_FILES + self._files((".py",)))
        self._put(rel, self.python_source())
        return f"edit {rel}"

    def odd_bytes(self) -> str:
        """Empty, binary (a NUL early: not source any more), or only touched (new times, same bytes)."""
        rel = self.rng.choice(PYTHON_FILES + self._files((".py", ".js")))
        how = self.rng.choice(["empty", "binary", "touch"])
        if how == "touch":
            if os.path.lexists(self.root / rel):
                os.utime(self.root / rel)
        else:
            self._put(rel, b"" if how == "empty" else b"import redis\x00\x01 REDIS_URL\n")
        return f"{how} {rel}"

    def edit_js(self) -> str:
        rel = self.rng.choice(["web/app.js", *self._files((".js",))])
        self._put(rel, "\n".join(self.rng.sample(_JS, self.rng.randint(0, 4))) + "\n")
        return f"edit {rel}"

    def same_size_same_time(self) -> str:
        """The same size and the same mtime, bytes changed: a rewrite within one clock tick."""
        files = [f for f in self._files() if not (self.root / f).is_symlink()]
        self.rng.shuffle(files)
        for rel in files:
            path = self.root / rel
            data = path.read_bytes()
            pairs = [(a, b) for a, b in _TWINS if a.encode() in data] + [(b, a) for a, b in _TWINS if b.encode() in data]
            if not pairs:
                continue
            old, new = self.rng.choice(pairs)
            info = os.stat(path)
            path.write_bytes(data.replace(old.encode(), new.encode(), 1))
            os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
            return f"same size and mtime: {rel} {old}->{new}"
        return "same size and mtime: nothing to rewrite"

    def add_file(self) -> str:
        rel = self.rng.choice(NEW_PATHS)
        self._put(rel, self.python_source() if rel.endswith(".py") else "\n".join(self.rng.sample(_JS, 2)) + "\n")
        return f"add {rel}"

    def delete_file(self) -> str:
        files = [f for f in self._files() if f not in ("CLAUDE.md", "anchorcheck.lock")]
        rel = self.rng.choice(files)
        self._remove(rel)
        return f"delete {rel}"

    def move_file(self) -> str:
        """Between production and tests, or to a new name."""
        files = self._files((".py", ".js"))
        rel = self.rng.choice(files)
        name = rel.rsplit("/", 1)[-1]
        to = self.rng.choice([f"tests/{name}", f"shop/{name}", f"shop/moved_{name}", f"tests/sub/{name}", f"scripts/{name}"])
        if to == rel:
            return f"move {rel}: in place"
        (self.root / to).parent.mkdir(parents=True, exist_ok=True)
        if (self.root / to).is_dir() and not (self.root / to).is_symlink():
            shutil.rmtree(self.root / to)
        os.replace(self.root / rel, self.root / to)
        return f"move {rel} -> {to}"

    def make_directory(self) -> str:
        rel = self.rng.choice(["shop/new", "empty", "shop/api/deep", "tests/sub", "scripts"])
        (self.root / rel).mkdir(parents=True, exist_ok=True)
        if self.rng.random() < 0.5:
            self._put(f"{rel}/__init__.py", "")
        return f"mkdir {rel}"

    def symlink_inside(self) -> str:
        files = [f for f in self._files((".py", ".js", ".txt", ".json")) if not (self.root / f).is_symlink()]
        if not files:
            return "link: no target"
        rel, target = self.rng.choice(files + ["shop/extra.py"]), self.rng.choice(files)
        if rel == target:
            return "link: to itself, skipped"
        self._remove(rel)
        (self.root / rel).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(os.path.relpath(self.root / target, (self.root / rel).parent), self.root / rel)
        return f"link {rel} -> {target}"

    def symlink_outside(self) -> str:
        rel = self.rng.choice(["shop/cache.py", "shop/extra.py", "shop/ext", "requirements.txt"])
        target = self.outside / ("pkg" if rel == "shop/ext" else "ext.py")
        self._remove(rel)
        (self.root / rel).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, self.root / rel)
        return f"link {rel} -> outside"

    def chmod(self) -> str:
        rel = self.rng.choice(self._files())
        mode = self.rng.choice((0o000, 0o644, 0o755))
        if not (self.root / rel).is_symlink():
            os.chmod(self.root / rel, mode)
        return f"chmod {oct(mode)} {rel}"

    def edit_manifest(self) -> str:
        rng = self.rng
        which = rng.choice(["requirements.txt", "pyproject.toml", "package.json", "package-lock.json", "Makefile", ".env.example"])
        if which == "requirements.txt":
            text = "\n".join(self._some(_REQUIREMENTS)) + "\n"
        elif which == "pyproject.toml":
            deps = ", ".join(self._some(_PYPROJECT_DEPS))
            text = f'[project]\nname = "shop"\nversion = "1"\ndependencies = [{deps}]\n'
            if rng.random() < 0.1:
                text += "[broken\n"
        elif which == "package.json":
            deps, scripts = ", ".join(self._some(_NPM_DEPS)), ", ".join(self._some(_NPM_SCRIPTS))
            text = f'{{"name": "web", "scripts": {{{scripts}}}, "dependencies": {{{deps}}}}}\n'
            if rng.random() < 0.1:
                text = text[:-3]
        elif which == "package-lock.json":
            locked = {f"node_modules/{n}": {"version": "1.0.0"} for n in self._some(["lodash", "left-pad", "express"])}
            text = json.dumps({"name": "web", "lockfileVersion": 3, "packages": {"": {}, **locked}}) + "\n"
        elif which == "Makefile":
            text = "".join(self._some(_MAKE_TARGETS))
        else:
            text = "\n".join(self._some(_DOTENV)) + "\n"
        self._put(which, text)
        return f"edit {which}"

    def _write_memory(self, lines: list[int]) -> None:
        from anchorcheck_plugins.kinds.watch import bank_watch
        from anchorcheck.repo.checkout import Repository

        if not hasattr(self, "_watch"):
            self._watch = bank_watch(Repository(self.root), "requirements.txt")
        body = "\n".join(MEMORY_LINES[i].replace("WATCH", f"`{self._watch}`") for i in lines)
        self._put("CLAUDE.md", f"# Project memory\n\n{body}\n")

    def edit_memory(self) -> str:
        chosen = sorted(self.rng.sample(range(len(MEMORY_LINES)), self.rng.randint(1, len(MEMORY_LINES))))
        self._write_memory(chosen)
        return f"memory file: lines {chosen}"

    def agents_file(self) -> str:
        if (self.root / "AGENTS.md").exists():
            self._remove("AGENTS.md")
            return "delete AGENTS.md"
        self._put("AGENTS.md", "\n".join(self.rng.sample(MEMORY_LINES, 3)).replace("WATCH", "") + "\n")
        return "add AGENTS.md"

    def edit_config(self) -> str:
        config = self.rng.choice(_CONFIGS)
        if config is None:
            self._remove(".anchorcheck.toml")
        else:
            self._put(".anchorcheck.toml", config)
        return f"config {config!r}"

    def edit_gitignore(self) -> str:
        lines = self._some(_IGNORES)
        if lines:
            self._put(".gitignore", "\n".join(lines) + "\n")
        else:
            self._remove(".gitignore")
        return f".gitignore {lines}"

    def git_add(self) -> str:
        _run(self.root, "add", "-A")
        return "git add -A"

    def git_commit(self) -> str:
        _run(self.root, "add", "-A")
        _run(self.root, "commit", "-q", "--allow-empty", "-m", "step")
        return "git commit"

    def git_branch(self) -> str:
        branch = self.rng.choice(["main", "other", "third"])
        if self.rng.random() < 0.3:
            _run(self.root, "checkout", "-q", "-B", branch)
        else:
            _run(self.root, "checkout", "-q", "-f", branch)
        return f"git checkout {branch}"

    def git_stash(self) -> str:
        if self.rng.random() < 0.5:
            _run(self.root, "stash", "-q", "-u")
            return "git stash -u"
        _run(self.root, "stash", "pop", "-q")
        return "git stash pop"

    def git_rm_cached(self) -> str:
        rel = self.rng.choice(self._files())
        _run(self.root, "rm", "-q", "--cached", "-r", rel)
        return f"git rm --cached {rel}"

    def git_init(self) -> str:
        if (self.root / ".git").exists():
            return "git init: already"
        git(self.root, "init", "-q", "-b", "main")
        if self.rng.random() < 0.5:
            _run(self.root, "add", "-A")
        return "git init"
