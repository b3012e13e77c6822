"""Generators of hostile runner configurations and Markdown, modelled on the campaign of issue 25.

Random bytes and mutated seeds (tests/_fuzz_targets.py) rarely build what made anchorcheck run for
minutes: chains of make pattern rules, a Taskfile that includes itself flattened, a wildcard task
name that backtracks, a YAML alias bomb, thousands of cargo aliases that expand each other, a line
of code spans, a table of pipes. Each generator here writes well-formed files of that shape, with
sizes and counts drawn at random around the repros' (a few hundred bytes to a few hundred KB), so
the campaign (`benchmarks/hostile.py`, targets `shape:*`) and the hypothesis suite
(tests/test_fuzz_shapes.py) look for the next one. A few names recur (`a`, `b`, `x`, `build`) so
the anchors a target checks reach the rules, tasks and aliases generated.
"""

from __future__ import annotations

import random
from collections.abc import Callable

NAMES = ("a", "b", "x", "build", "test", "a.o", "foo")


def _name(rng: random.Random) -> str:
    return rng.choice(NAMES) if rng.random() < 0.5 else rng.choice(NAMES) + str(rng.randrange(40))


def _count(rng: random.Random, most: int) -> int:
    """A count from 1 to `most`, small ones as likely as large ones (a log scale)."""
    return max(1, int(most ** rng.random()))


def makefile(rng: random.Random) -> str:
    """Pattern-rule chains, includes of itself and others, variables built from variables, `$(`."""
    lines: list[str] = []
    for i in range(_count(rng, 120)):
        shape = rng.randrange(8)
        if shape == 0:
            lines.append(f"%:%.a{i} %.b\n")  # the 50-rule chain of the repro
        elif shape == 1:
            lines.append(f"%.{_name(rng)}: %.{_name(rng)} {' '.join('%.' + _name(rng) for _ in range(_count(rng, 6)))}\n\t@echo $@\n")
        elif shape == 2:
            lines.append(rng.choice(("include Makefile\n", "-include *.mk\n", f"include {_name(rng)}.mk Makefile\n", "sinclude $(wildcard *)\n")))
        elif shape == 3:
            lines.append(f"V{i} := $(V{max(0, i - 1)}) $(V{max(0, i - 1)})\n")  # doubling variables
        elif shape == 4:
            lines.append(f"$(V{rng.randrange(i + 1)}){_name(rng)}: {_name(rng)}\n\ttrue\n")
        elif shape == 5:
            lines.append(f"{_name(rng)}:" + " " + "$(" * _count(rng, 2000) + "\n")
        elif shape == 6:
            lines.append(f".PHONY: {' '.join(_name(rng) for _ in range(_count(rng, 50)))}\n")
        else:
            lines.append(f"{_name(rng)} {_name(rng)}: {_name(rng)} ## help\n\t$(MAKE) {_name(rng)}\n")
    return "".join(lines)


def _alias_bomb(rng: random.Random, depth: int) -> str:
    width = _count(rng, 9)
    return "".join(f"l{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * width if i else ["1"] * width) + "]\n" for i in range(depth))


def taskfile(rng: random.Random) -> str:
    """Includes of itself (flattened or not), wildcard task names, aliases (an alias bomb among them), deps."""
    depth = _count(rng, 10)
    text = "version: '3'\n" + (_alias_bomb(rng, depth) if rng.random() < 0.3 else "")
    includes = [
        f"  {n}: {{taskfile: {rng.choice(('./Taskfile.yml', '.', './other.yml', 'Taskfile.yml'))}, flatten: {rng.choice(('true', 'false'))}}}\n"
        for n in "abcdefgh"[: _count(rng, 8)]
    ]
    if rng.random() < 0.7:
        text += "includes:\n" + "".join(includes)
    text += "tasks:\n"
    for i in range(_count(rng, 60)):
        name = rng.choice(("a*" * _count(rng, 20) + "b", f"{_name(rng)}{i}", "*", "x:*:y", f"{_name(rng)}-*"))
        aliases = f"*a{depth - 1}" if text.startswith("version: '3'\nl0") and rng.random() < 0.5 else f"[{', '.join(_name(rng) for _ in range(_count(rng, 20)))}]"
        deps = ", ".join(_name(rng) for _ in range(_count(rng, 5)))
        text += f"  '{name}':\n    aliases: {aliases}\n    deps: [{deps}]\n    cmds: [echo]\n"
    return text


def cargo_config(rng: random.Random) -> str:
    """Aliases that expand each other: chains, doublings, cycles, long lists."""
    count = _count(rng, 5000)
    forms: tuple[Callable[[int], str], ...] = (
        lambda i: f"a{i} = 'a{i + 1} a{i + 1}'\n",  # the 5,000-alias repro
        lambda i: f"a{i} = ['a{rng.randrange(count)}', '--{_name(rng)}']\n",
        lambda i: f"a{i} = '{' '.join('a' + str(rng.randrange(count)) for _ in range(_count(rng, 30)))}'\n",
        lambda i: f"a{i} = 'build --release'\n",
    )
    return "[alias]\n" + "".join(rng.choice(forms)(i) for i in range(count))


def package_json(rng: random.Random) -> str:
    """Scripts that run each other, pre and post hooks, workspaces that include the root."""
    count = _count(rng, 400)
    scripts = {}
    for i in range(count):
        calls = " && ".join(f"npm run s{rng.randrange(count)}" for _ in range(_count(rng, 8)))
        scripts[rng.choice((f"s{i}", f"pres{i}", f"posts{i}", _name(rng)))] = calls if rng.random() < 0.8 else "$(" * _count(rng, 500)
    import json

    workspaces = rng.choice(([".", "*", "**"], ["packages/*"] * _count(rng, 200), []))
    return json.dumps({"name": "x", "scripts": scripts, "workspaces": workspaces})


def justfile(rng: random.Random) -> str:
    """Recipes with dependencies (cycles too), aliases of aliases, imports of itself, modules."""
    count = _count(rng, 300)
    lines = [rng.choice(("", "import 'justfile'\n", "import? '*.just'\n", "mod x\n"))]
    for i in range(count):
        shape = rng.randrange(3)
        if shape == 0:
            lines.append(f"alias al{i} := {rng.choice(('r', 'al'))}{rng.randrange(count)}\n")
        else:
            deps = " ".join(f"r{rng.randrange(count)}" for _ in range(_count(rng, 10)))
            lines.append(f"r{i} *ARGS: {deps}\n    echo {{{{ARGS}}}}\n")
    return "".join(lines)


def tox_ini(rng: random.Random) -> str:
    """Environment lists whose brace expansions multiply (`py{1,2}{a,b}...`), sections naming many."""
    factors = "".join("{" + ",".join(_name(rng) for _ in range(_count(rng, 6))) + "}" for _ in range(_count(rng, 12)))
    sections = "".join(f"[testenv:{_name(rng)}{factors if rng.random() < 0.2 else ''}]\ncommands = pytest\n" for _ in range(_count(rng, 50)))
    return f"[tox]\nenv_list = py{factors}, lint\n{sections}"


def noxfile(rng: random.Random) -> str:
    """Sessions with names, parametrizations and decorators stacked deep."""
    lines = ["import nox\n"]
    for i in range(_count(rng, 200)):
        stacked = "".join(f"@nox.parametrize('p', [{', '.join(str(n) for n in range(_count(rng, 30)))}])\n" for _ in range(_count(rng, 6)))
        lines.append(f"{stacked}@nox.session(name='{_name(rng)}', python=['3.{rng.randrange(14)}'])\ndef s{i}(session):\n    session.run('pytest')\n")
    return "".join(lines)


def markdown(rng: random.Random) -> str:
    """Lines of code spans, tables of many pipes and folder rows, nested lists, headings, shell blocks."""
    parts: list[str] = []
    for _ in range(_count(rng, 12)):
        shape = rng.randrange(7)
        if shape == 0:
            parts.append(rng.choice(("`x` ", "``a`` ", "`src/` ", "` `", "`")) * _count(rng, 8000) + "\n")
        elif shape == 1:
            parts.append("| a | b |\n|---|---|\n" + "".join(f"| `d{i}/` | `make {_name(rng)}` |\n" for i in range(_count(rng, 20_000))))
        elif shape == 2:
            parts.append("|" * _count(rng, 200_000) + "\n")
        elif shape == 3:
            parts.append("".join("  " * depth + f"- see `src/{_name(rng)}.py` and run `npm run {_name(rng)}`\n" for depth in range(_count(rng, 400))))
        elif shape == 4:
            parts.append("#" * rng.randint(1, 7) + " " + "`x` " * _count(rng, 500) + "\n")
        elif shape == 5:
            parts.append("```sh\n" + "".join(f"cd {_name(rng)}/ && make {_name(rng)}\n" for _ in range(_count(rng, 2000))) + "```\n")
        else:
            parts.append(" ".join(f"`{_name(rng)}/`" for _ in range(_count(rng, 3000))) + ". Then `cargo a0`.\n")
    return "".join(parts)


SHAPES: dict[str, tuple[str, Callable[[random.Random], str], tuple[str, ...]]] = {
    # target: (the file written, its generator, the anchors checked against it)
    "make": ("Makefile", makefile, ("cmd:make foo", "cmd:make a.o", "cmd:make build")),
    "task": ("Taskfile.yml", taskfile, ("cmd:task " + "a" * 40, "cmd:task build", "cmd:task x")),
    "cargo": (".cargo/config.toml", cargo_config, ("cmd:cargo a0", "cmd:cargo a1 --x")),
    "npm": ("package.json", package_json, ("cmd:npm run s0", "cmd:npm run build")),
    "just": ("justfile", justfile, ("cmd:just r0", "cmd:just al0")),
    "tox": ("tox.ini", tox_ini, ("cmd:tox -e lint", "cmd:tox -e py-a-b")),
    "nox": ("noxfile.py", noxfile, ("cmd:nox -s build", "cmd:nox -s s0")),
}

