"""Install commands written in a memory (`uv add redis`, `pnpm add zod`): the packages they name.

An install command is a claim that the project depends on what it installs;
`install` reads its package names per ecosystem, and reads none when the
command installs globally, upgrades, or names a path, an archive or a URL
among them (nothing there to check against the manifests).
"""

from __future__ import annotations

import re

from anchorcheck.base.lazyregex import later

# Install commands: program and the argv prefix that names packages after it, and their ecosystem.
INSTALLERS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("pip", "install"), "pypi"),
    (("pip3", "install"), "pypi"),
    (("python", "-m", "pip", "install"), "pypi"),
    (("python3", "-m", "pip", "install"), "pypi"),
    (("uv", "pip", "install"), "pypi"),
    (("uv", "add"), "pypi"),
    (("poetry", "add"), "pypi"),
    (("npm", "install"), "npm"),
    (("npm", "i"), "npm"),
    (("npm", "add"), "npm"),
    (("pnpm", "add"), "npm"),
    (("pnpm", "install"), "npm"),
    (("pnpm", "i"), "npm"),
    (("yarn", "add"), "npm"),
    (("bun", "add"), "npm"),
    (("cargo", "add"), "cargo"),
    (("go", "get"), "golang"),
)
# Options of install commands that take a value (the value is not a package).
_OPTION_VALUES = frozenset(
    {"-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-i", "--index-url", "--extra-index-url",
     "-t", "--target", "--prefix", "-C", "--dir", "--filter", "-F", "--features", "-p", "--package",
     "--group", "--optional", "--extra", "--python", "--registry", "--rename", "--path", "--git", "--branch",
     "--tag", "--rev", "-w", "--workspace", "--cwd", "--directory"}
)
# Options that make an install command not a claim about this project (a global tool, a user install).
_NOT_A_PROJECT_INSTALL = frozenset({"-g", "--global", "--user", "-U", "--upgrade", "--system", "--dry-run"})
# What `pip install` sets up for the user rather than for the project: the tools that make and run
# environments (`pip install uv`, then `uv venv`). `uv add tox` still adds tox to the project and is read.
_PIP_INSTALLERS = frozenset({("pip", "install"), ("pip3", "install"), ("python", "-m", "pip", "install"), ("python3", "-m", "pip", "install"), ("uv", "pip", "install")})
_ENVIRONMENT_TOOLS = frozenset({"pip", "uv", "pipx", "poetry", "pdm", "hatch", "pipenv", "virtualenv", "tox", "nox", "pre-commit"})
ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_PYPI_NAME = later(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?\s*((?:[<>=!~]=?|===).*)?$")
_NPM_NAME = later(r"^((?:@[a-z0-9][\w.-]*/)?[a-z0-9][\w.-]*)(?:@.+)?$")
_CARGO_NAME = later(r"^([A-Za-z0-9][A-Za-z0-9_-]*)(?:@.+)?$")
_GO_NAME = later(r"^([a-z0-9.-]+\.[a-z]{2,}(?:/[\w.\-~]+)+?)(?:/\.\.\.)?(?:@.+)?$")


def install(argv: list[str]) -> tuple[str, list[str]] | None:
    """(ecosystem, package names) when argv is an install command that names packages; None otherwise."""
    words = list(argv)
    while words and ENV_ASSIGNMENT.match(words[0]):
        words.pop(0)
    for prefix, ecosystem in INSTALLERS:
        if tuple(words[: len(prefix)]) != prefix:
            continue
        rest = words[len(prefix):]
        if any(w in _NOT_A_PROJECT_INSTALL for w in rest):
            return ecosystem, []
        names: list[str] = []
        skip = False
        for word in rest:
            if skip:
                skip = False
                continue
            if word.startswith("-"):
                skip = word in _OPTION_VALUES
                continue
            name = _package_name(word, ecosystem)
            if name is None:
                return ecosystem, []  # a path, an archive or a URL among the names: not a claim to read
            if not (prefix in _PIP_INSTALLERS and name.lower() in _ENVIRONMENT_TOOLS):
                names.append(name)
        return ecosystem, names
    return None


def _package_name(word: str, ecosystem: str) -> str | None:
    if "/" in word and ecosystem == "pypi" or word.startswith((".", "/", "~")) or "://" in word:
        return None
    pattern = {"pypi": _PYPI_NAME, "npm": _NPM_NAME, "cargo": _CARGO_NAME, "golang": _GO_NAME}[ecosystem]
    match = pattern.match(word)
    return match.group(1) if match else None
