"""Every parser anchorcheck runs on a repository's files, as a fuzz target: input bytes in, documented error out.

One table serves the hypothesis tests (tests/test_fuzz_*.py) and the larger campaign
(benchmarks/hostile.py). A target writes the input where the parser expects its file,
runs the parser the way anchorcheck runs it (through a Repository and a Context), and
lets through only the error type the parser documents: ManifestError for a manifest or
lockfile, MemoryFileError for a memory file (LockError for the lock), ConfigError for
the configuration, AnchorSyntaxError for an anchor; nothing for the env-config readers
and the tree-sitter fact extraction, which turn bad input into INCONCLUSIVE themselves.

Seeds are small valid files written here, plus the real corpora beside the checkout
(../shared/corpora) when present; `mutate` damages a seed the way the campaign did.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from anchorcheck import parse_anchor
from anchorcheck.model.anchors import Anchor, AnchorSyntaxError
from anchorcheck.repo.config import Config, ConfigError, load_config
from anchorcheck.repo.context import Context
from anchorcheck.evidence.extraction import extract_facts
from anchorcheck.memory.lockfile import LockError, read_lock
from anchorcheck.memory.memoryfiles import MemoryFileError, ReferenceReading, read_memory_file
from anchorcheck.evidence.packages import ManifestError
from anchorcheck.verify.loading import load_plugins
from anchorcheck.model.registry import Registry
from anchorcheck.repo.checkout import Repository
from anchorcheck_plugins.ecosystems import cargo, golang, npm, pypi
from anchorcheck_plugins.kinds.env_config import defined_names
from tests._hostile_shapes import SHAPES, markdown

SEED_BYTES = 16 * 1024  # a seed longer than this is cut at a line end: each example stays cheap


@dataclass(frozen=True)
class Target:
    """One parser: the file name it reads, how to run it on a scratch root, the errors it may raise."""

    name: str
    filename: str
    run: Callable[[Path, str], object]
    allowed: tuple[type[BaseException], ...]
    seeds: tuple[bytes, ...]
    generate: Callable[[random.Random], bytes] = field(default=lambda rng: generated(rng))  # an input from nothing


@lru_cache(maxsize=1)
def registry() -> Registry:
    return load_plugins().registry


def _context(root: Path) -> Context:
    """A fresh Context per input: nothing memoized from the previous one."""
    return Context(Repository(root), registry(), Config())


def exercise(target: Target, root: Path, data: bytes) -> None:
    """Write `data` as the target's file under `root` and parse it; only an allowed error may escape."""
    path = root / target.filename
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    try:
        target.run(root, target.filename)
    except target.allowed:
        pass


# -- mutation: what the campaign did to real files ------------------------------------------------------------

_TOKENS = (
    b"[", b"]", b"{", b"}", b"- ", b"? ", b": ", b"*a", b"&a ", b'"', b"'", b"\\", b"=", b".", b",", b"\n", b"\r",
    b"\t", b"#", b"`", b"``", b"<<: *a", b"\x00", b"\xff\xfe", b"\xed\xa0\x80", b"9" * 5000, b"a." * 300, b"  " * 40,
    b"- " * 300, b"[" * 2000, b"\n" * 3000, b"${", b"%", b"%FF", b"\\ud800", b"in:", b"span:a#L1-L2", b"!", b"[z-a]",
)


def mutate(rng: random.Random, seed: bytes) -> bytes:
    """A few random edits: cut, insert a token, flip bytes, repeat a slice (growing nesting), truncate."""
    data = bytearray(seed)
    for _ in range(rng.randint(1, 8)):
        at = rng.randint(0, len(data))
        kind = rng.randrange(6)
        if kind == 0 and data:
            del data[at : at + rng.randint(1, 64)]
        elif kind == 1:
            data[at:at] = rng.choice(_TOKENS)
        elif kind == 2 and data:
            for _ in range(rng.randint(1, 8)):
                data[rng.randrange(len(data))] = rng.randrange(256)
        elif kind == 3 and data:
            chunk = bytes(data[at : at + rng.randint(1, 32)])
            data[at:at] = chunk * rng.randint(2, 200)
        elif kind == 4:
            del data[at:]
        else:
            data[at:at] = rng.randbytes(rng.randint(1, 32))
    return bytes(data)


def generated(rng: random.Random) -> bytes:
    """An input from nothing: random bytes, or a run of format tokens."""
    if rng.random() < 0.3:
        return rng.randbytes(rng.randint(0, 2048))
    return b"".join(rng.choice(_TOKENS[:22]) + rng.choice((b"", b"x", b"k", b"1")) for _ in range(rng.randint(1, 400)))


# -- seeds ---------------------------------------------------------------------------------------------------

_SHARED = next((p / "shared" / "corpora" for p in Path(__file__).resolve().parents if (p / "shared" / "corpora").is_dir()), None)
_PROJECT = Path(__file__).resolve().parents[1] / "corpora"

_BUILTIN: dict[str, tuple[str, ...]] = {
    "pyproject.toml": (
        '[project]\nname = "x"\ndependencies = ["redis>=5", "flask[async]; python_version>\'3.8\'"]\n'
        '[project.optional-dependencies]\ncache = ["redis"]\n[dependency-groups]\ndev = ["pytest", {include-group = "lint"}]\n'
        'lint = ["ruff"]\n[tool.poetry.dependencies]\npython = "^3.11"\nrequests = {version = "^2", optional = true}\n'
        '[tool.uv.workspace]\nmembers = ["packages/*"]\n',
    ),
    "setup.cfg": ("[options]\ninstall_requires =\n    redis>=5\n    flask\n[options.extras_require]\ncache = redis\n",),
    "setup.py": ('from setuptools import setup\nsetup(name="x", install_requires=["redis", "flask>=2"], extras_require={"a": ["b"]})\n',),
    "requirements.txt": ("-r other.txt\n-c constraints.txt\nredis==5.0.1 --hash=sha256:abc\nflask>=2 ; python_version > '3.8'\n-e .\n",),
    "Pipfile": ('[packages]\nredis = "*"\nflask = {version = ">=2"}\n[dev-packages]\npytest = "*"\n',),
    "environment.yml": ("name: x\nchannels: [conda-forge]\ndependencies:\n  - python=3.11\n  - numpy>=1.2\n  - pip:\n    - redis==5\n",),
    "uv.lock": ('version = 1\n[[package]]\nname = "redis"\nversion = "5.0.1"\nsource = { registry = "https://x.invalid/simple" }\n',),
    "Pipfile.lock": ('{"_meta": {}, "default": {"redis": {"version": "==5.0.1"}}, "develop": {"pytest": {"version": "==8"}}}\n',),
    "pylock.toml": ('lock-version = "1.0"\ncreated-by = "x"\n[[packages]]\nname = "redis"\nversion = "5.0.1"\n',),
    "package.json": ('{"name": "x", "dependencies": {"react": "^18"}, "devDependencies": {"@types/node": "*"}, "workspaces": ["packages/*"]}\n',),
    "pnpm-workspace.yaml": ("packages:\n  - 'packages/*'\ncatalog:\n  react: ^18\n",),
    "package-lock.json": ('{"lockfileVersion": 3, "packages": {"": {"name": "x"}, "node_modules/react": {"version": "18.2.0"}}}\n',),
    "yarn.lock": ('"react@^18", react@^18.2:\n  version "18.2.0"\n  resolved "https://x.invalid/react.tgz"\n',),
    "pnpm-lock.yaml": ("lockfileVersion: '9.0'\npackages:\n  react@18.2.0:\n    resolution: {integrity: sha512-x}\nsnapshots:\n  react@18.2.0: {}\n",),
    "Cargo.toml": ('[package]\nname = "x"\n[dependencies]\nserde = { version = "1", features = ["derive"] }\nrand = "0.8"\n[workspace]\nmembers = ["crates/*"]\n',),
    "Cargo.lock": ('version = 4\n[[package]]\nname = "serde"\nversion = "1.0.0"\n',),
    "go.mod": ("module example.com/x\n\ngo 1.22\n\nrequire (\n\tgithub.com/spf13/pflag v1.0.5\n\tgolang.org/x/sys v0.1.0 // indirect\n)\nreplace a => b v1\n",),
    "go.sum": ("github.com/spf13/pflag v1.0.5 h1:abc=\ngithub.com/spf13/pflag v1.0.5/go.mod h1:def=\n",),
    "go.work": ("go 1.22\n\nuse (\n\t./a\n\t./b\n)\n",),
    ".env.example": ("# comment\nexport REDIS_URL=redis://x\nDEBUG=1\n",),
    "Dockerfile": ("FROM python:3.12\nARG VERSION\nENV A=1 \\\n    B=2\nENV LEGACY value with spaces\n",),
    "docker-compose.yml": ("services:\n  web:\n    environment:\n      - A=1\n      B: 2\n  db:\n    environment: &env\n      C: 3\n  x:\n    environment: *env\n",),
    ".github/workflows/ci.yml": ("on: push\nenv:\n  A: 1\njobs:\n  t:\n    env:\n      B: ${{ secrets.B }}\n    steps:\n      - run: echo\n",),
    "AGENTS.md": ("---\nglobs: x\n---\n# Notes\n- Redis cache `pkg:pypi/redis` `import:redis in:src/`\n  - nested `span:a.py#L1-L2`\n\n```\ncode\n```\n",),
    "notes.memories.toml": (
        'version = 1\n[[memory]]\nid = "m1"\ntext = "x"\nanchors = ["pkg:pypi/redis"]\n'
        '[[memory.citation]]\npath = "a.py"\nstart_line = 1\nend_line = 2\nsha256 = "ab"\nlines = ["x\\n"]\n',
    ),
    "memory.jsonl": ('{"type": "entity", "name": "x", "entityType": "t", "observations": ["uses `pkg:pypi/redis`"]}\n{"type": "relation", "from": "a", "to": "b", "relationType": "r"}\n',),
    "anchorcheck.lock": ('version = 1\n[[citation]]\nanchor = "span:a.py#L1-L2"\npath = "a.py"\nstart_line = 1\nend_line = 2\nsha256 = "ab"\nlines = ["x\\n", "y\\n"]\n',),
    ".anchorcheck.toml": ('exclude = ["generated/", "*_pb2.py"]\nmax-file-size = 100000\nfail-on = "refuted"\n[plugin.pkg]\nx = 1\n',),
    "runner:make": ("include common.mk\nVAR := x\n.PHONY: build\nbuild: dep ## builds\n\tgo build\n%.o: %.c\n\tcc $<\n$(VAR)-x:\n\techo\n",),
    "runner:just": ("set shell := ['bash']\nalias b := build\nbuild target='x':\n  cargo build {{target}}\nimport 'other.just'\nmod docs\n",),
    "runner:cargo": ('[alias]\nxtask = "run --package xtask --"\nb = ["build", "--release"]\n',),
    "runner:python": ('[project]\nname = "x"\n[project.scripts]\nx = "x:main"\n[tool.poe.tasks]\nbuild = "python -m build"\n[tool.hatch.envs.default.scripts]\nt = "pytest"\n',),
    "runner:tox": ("[tox]\nenv_list = py3{11,12}, lint\n[testenv:lint]\ncommands = ruff check\n",),
    "runner:nox": ('import nox\n@nox.session(python=["3.11"])\ndef tests(session):\n    session.run("pytest")\n@nox.session(name="lint")\ndef _lint(s): pass\n',),
    "runner:task": ("version: '3'\nincludes:\n  docs: ./docs\ntasks:\n  build:\n    aliases: [b]\n    cmds: [go build]\n",),
    "runner:go": ("module example.com/x\n\ngo 1.22\n",),
    "runner:compose": ("services:\n  web:\n    image: x\n    profiles: [dev]\n  db: &db\n    image: y\ninclude:\n  - other.yml\n",),
    "runner:gradle": ('rootProject.name = "x"\ninclude(\n    ":app",\n    ":app:sub", // a comment\n)\ninclude \'lib\',\n    \'cli\'\nincludeBuild("build-logic")\n',),
    "runner:maven": ("<project>\n  <parent><artifactId>p</artifactId></parent>\n  <!-- <artifactId>no</artifactId> -->\n  <artifactId>core</artifactId>\n  <modules><module>app</module></modules>\n</project>\n",),
    "runner:npm": ('{"name": "x", "scripts": {"build": "tsc", "test": "vitest"}, "workspaces": ["packages/*"]}\n',),
    "anchor": ("pkg:pypi/redis@>=5", "!import:os.path in:src/", "span:src/a%20b.py#L1-L20", "env:REDIS_URL in:**/*.py", "sym:a.py::C.f", "file:docs/x.md", "watch:uv.lock@abc"),
    "python": ('import os, redis\nfrom .x import y\nos.environ["A"]\nos.getenv(k)\nclass C:\n    def f(self): pass\n',),
    "javascript": ('import x from "react";\nconst y = require("lodash");\nprocess.env.A;\nexport function f() {}\n',),
    "typescript": ('import type { X } from "@scope/pkg";\nconst a: string = process.env["B"] ?? "";\nexport class C { m(): void {} }\n',),
    "tsx": ('import React from "react";\nexport const A = () => <div a={process.env.X}>{1}</div>;\n',),
    "go": ('package main\n\nimport (\n\t"os"\n\tpf "github.com/spf13/pflag"\n)\n\nfunc main() { os.Getenv("A"); pf.Parse() }\n',),
    "rust": ('use serde::Deserialize;\nfn main() { let _ = std::env::var("A"); }\nmacro_rules! m { () => {} }\n',),
    "java": ('import java.util.Map;\nclass A { void f() { System.getenv("A"); } }\n',),
    "ruby": ('require "redis"\nENV["A"]\nmodule M; class C; def f; end; end; end\n',),
    "kotlin": ('import a.b.C as D\ndata class R(val id: String) : Base() {\n  companion object { const val K = "A" }\n  fun f() = System.getenv(K) + System.getenv()["B"]\n}\n',),
    "php": ("<?php\nuse A\\{B, C as D};\nclass S extends B { use T; public $p; function f() { return getenv('A') . $_ENV['B'] . env(\"C\"); } }\n",),
    "csharp": ('using static System.Environment;\nnamespace N;\nrecord P(int X) : B(X) { string F() => GetEnvironmentVariable("A"); }\n',),
    "c": ('#ifndef A_H\n#define A_H\ntypedef struct n { int v; } n_t;\nint f(int);\nint f(int a) { return getenv("A") != 0; }\n#endif\n',),
    "cpp": ('namespace ns {\nenum class S : int { OK };\nclass C : public B<T> { void m() const; };\n}\nvoid ns::C::m() const { std::getenv("A"); }\n',),
    "swift": ('import Foundation\n@MainActor final class A: B, P {\n  let x = 1\n  init() {}\n  func f() -> String? { ProcessInfo.processInfo.environment["A"] ?? String(cString: getenv("B")) }\n}\nextension A.C: Q { var y: Int { 0 } }\nenum E { case a, b(Int) }\n',),
    "elixir": ('defmodule A.B do\n  use C\n  alias D.E\n  def f(x) when is_map(x), do: System.get_env("K")\n  defp g, do: System.get_env()\n  defmodule I do\n    def h(a), do: System.fetch_env!(a)\n  end\nend\n',),
    "dart": ("import 'package:a/b.dart';\nclass A extends B { A.n(); int get c => 1; final x = Platform.environment['K']; }\nenum E { a; void f() {} }\nconst d = String.fromEnvironment('D');\n",),
    "shell": ('#!/bin/bash\nfunction install() { pip install -r "${DIR:-.}/r.txt"; }\nif true; then venv() { :; }; fi\necho "$A ${!B}" $(printenv C)\nenv | sort\neval "$x"\n',),
    "prisma": ('datasource db {\n  provider = "postgresql"\n  url = env("DATABASE_URL")\n}\nmodel Org {\n  id Int @id\n  role Role @default(ADMIN)\n}\nenum Role {\n  ADMIN\n}\n',),
}


def _cut(data: bytes) -> bytes:
    if len(data) <= SEED_BYTES:
        return data
    end = data.rfind(b"\n", 0, SEED_BYTES)
    return data[: end + 1 if end > 0 else SEED_BYTES]


@lru_cache(maxsize=1)
def _corpus_files() -> tuple[Path, ...]:
    """Every file of the corpora, listed once (each target picks its own from the list)."""
    found: list[Path] = []
    for base in (_PROJECT, _SHARED):
        if base is not None and base.is_dir():
            for directory, _, names in sorted(os.walk(base)):
                found.extend(Path(directory) / name for name in sorted(names))
    return tuple(found)


def _corpus_seeds(match: Callable[[Path], bool], limit: int = 8) -> list[bytes]:
    return [_cut(path.read_bytes()) for path in [p for p in _corpus_files() if match(p)][:limit]]


def _seeds(key: str, match: Callable[[Path], bool] | None = None) -> tuple[bytes, ...]:
    builtin = [text.encode() for text in _BUILTIN.get(key, ())]
    return tuple(builtin + (_corpus_seeds(match) if match is not None else []))


def _named(*names: str) -> Callable[[Path], bool]:
    return lambda path: path.name in names


# -- the table -----------------------------------------------------------------------------------------------


def _reader_targets() -> list[Target]:
    targets = []
    for layout in (pypi.LAYOUT, npm.LAYOUT, cargo.LAYOUT, golang.LAYOUT):
        for reader in layout.readers:
            names = list(reader.names) or ["requirements.txt"]
            for name in names:
                if name in ("npm-shrinkwrap.json", "poetry.lock", "pdm.lock", "environment.yaml"):
                    continue  # the same reader as a name already in the table
                seeds = _seeds(name, _named(name, *(("poetry.lock", "pdm.lock") if name == "uv.lock" else ())))
                targets.append(
                    Target(
                        f"{layout.ecosystem}:{name}",
                        name,
                        lambda root, file, parse=reader.parse: parse(_context(root), file),
                        (ManifestError,),
                        seeds,
                    )
                )
    return targets


def _env_targets() -> list[Target]:
    files: dict[str, tuple[str, Callable[[Path], bool]]] = {
        "dotenv": (".env.example", lambda path: path.name.startswith(".env")),
        "dockerfile": ("Dockerfile", lambda path: path.name.startswith("Dockerfile")),
        "compose": ("docker-compose.yml", lambda path: "compose" in path.name and path.suffix in (".yml", ".yaml")),
        "workflow": (".github/workflows/ci.yml", lambda path: path.parent.name == "workflows"),
    }
    return [
        Target(f"env-config:{kind}", name, lambda root, file: defined_names(_context(root), file), (), _seeds(name, match))
        for kind, (name, match) in files.items()
    ]


def _memory_targets() -> list[Target]:
    def read(root: Path, file: str) -> object:
        return read_memory_file(root / file, file, registry())

    return [
        Target("format:markdown", "AGENTS.md", read, (MemoryFileError,), _seeds("AGENTS.md", lambda p: p.suffix in (".md", ".mdc"))),
        Target("format:native", "notes.memories.toml", read, (MemoryFileError,), _seeds("notes.memories.toml", lambda p: p.name.endswith(".memories.toml"))),
        Target("format:mcp-jsonl", "memory.jsonl", read, (MemoryFileError,), _seeds("memory.jsonl", lambda p: p.suffix == ".jsonl")),
        Target("lock", "anchorcheck.lock", lambda root, file: read_lock(root / file, file), (LockError,), _seeds("anchorcheck.lock", _named("anchorcheck.lock"))),
        Target("config", ".anchorcheck.toml", lambda root, file: load_config(root), (ConfigError,), _seeds(".anchorcheck.toml")),
        Target(
            "anchor",
            "anchor.txt",
            lambda root, file: [parse_anchor(line) for line in (root / file).read_bytes().decode("utf-8", "surrogateescape").splitlines()[:50]],
            (AnchorSyntaxError,),
            _seeds("anchor"),
        ),
    ]


def _language_targets() -> list[Target]:
    targets = []
    for language in registry().languages.values():
        if language.extract is None:
            continue
        name = f"source{language.extensions[0]}"
        targets.append(
            Target(
                f"lang:{language.name}",
                name,
                lambda root, file, language=language: extract_facts(language, (root / file).read_bytes()),
                (),
                _seeds(language.name, lambda path, exts=language.extensions: path.suffix in exts),
            )
        )
    return targets


_RUNNERS: dict[str, tuple[str, str]] = {  # runner: (its configuration file, an anchor that makes it read it)
    "npm": ("package.json", "cmd:npm run build"),
    "make": ("Makefile", "cmd:make build"),
    "just": ("justfile", "cmd:just build"),
    "cargo": (".cargo/config.toml", "cmd:cargo xtask build"),
    "python": ("pyproject.toml", "cmd:uv run poe build"),
    "tox": ("tox.ini", "cmd:tox -e lint"),
    "nox": ("noxfile.py", "cmd:nox -s tests"),
    "task": ("Taskfile.yml", "cmd:task build"),
    "go": ("go.mod", "cmd:go run ./cmd/x"),
    "compose": ("docker-compose.yml", "cmd:docker compose up web"),
    "gradle": ("settings.gradle.kts", "cmd:gradle :app:sub:build"),
    "maven": ("pom.xml", "cmd:mvn -pl :core,app -am test"),
}


def _runner_targets() -> list[Target]:
    """The command runners' configuration readers, through the `cmd:` kind itself (not the Verifier's
    guard, which would turn a plugin's exception into an INCONCLUSIVE "plugin failed")."""
    kind = registry().kinds.get("cmd")
    if kind is None:
        return []
    targets = []
    for runner, (name, text) in _RUNNERS.items():
        anchor = parse_anchor(text, registry().kinds)
        targets.append(
            Target(
                f"runner:{runner}",
                name,
                lambda root, file, anchor=anchor: kind.verify(anchor, _context(root)),
                (),
                _seeds(f"runner:{runner}", _named(name.rsplit("/", 1)[-1])),
            )
        )
    return targets


def _shaped(shape: Callable[[random.Random], str]) -> Callable[[random.Random], bytes]:
    """A generator of tests/_hostile_shapes.py as a target's: well-formed, and one input in four damaged."""

    def generate(rng: random.Random) -> bytes:
        data = shape(rng).encode("utf-8")
        return mutate(rng, data) if rng.random() < 0.25 else data

    return generate


def _read_markdown(root: Path, file: str) -> object:
    """A Markdown memory file read as `check` reads it: with its implicit references."""
    return read_memory_file(root / file, file, registry(), ReferenceReading(Repository(root), frozenset(("file", "cmd", "pkg"))))


def _shape_targets() -> list[Target]:
    """The hostile shapes of issue 25: Markdown read with its references; each runner's configuration
    through the `cmd:` kind, for a few anchors that reach what the generator writes."""
    found = [Target("shape:markdown", "AGENTS.md", _read_markdown, (MemoryFileError,), (), _shaped(markdown))]
    kind = registry().kinds.get("cmd")
    if kind is None:
        return found
    for runner, (name, shape, texts) in SHAPES.items():
        anchors = tuple(parse_anchor(text, registry().kinds) for text in texts)

        def run(root: Path, file: str, anchors: tuple[Anchor, ...] = anchors) -> object:
            (root / "Cargo.toml").write_text("[package]\nname = 'x'\n")  # cargo reads its aliases in a package
            return [kind.verify(anchor, _context(root)) for anchor in anchors]

        found.append(Target(f"shape:{runner}", name, run, (), (), _shaped(shape)))
    return found


@lru_cache(maxsize=1)
def targets() -> tuple[Target, ...]:
    """Every fuzz target, by name order."""
    found = [*_memory_targets(), *_reader_targets(), *_env_targets(), *_language_targets(), *_runner_targets(), *_shape_targets()]
    return tuple(sorted(found, key=lambda t: t.name))
