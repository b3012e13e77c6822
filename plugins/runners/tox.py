"""`tox -e ENV[,ENV]`, `tox -m LABEL`, `tox -f FACTOR`: the environments of tox.ini, setup.cfg, pyproject.toml or tox.toml.

Environments are the `env_list`/`envlist` entries (brace products and
ranges expanded: `py3{9-12}-{django,flask}`) and the `[testenv:NAME]`
sections (`[env.NAME]` in TOML). A name that is not listed is still run
by tox when every factor of it is a factor of a listed name or a Python
factor (`py3.12-django`): VERIFIED. Otherwise REFUTED. `tox` alone needs
a configuration. The configuration is the first of tox.ini, setup.cfg
with `[tox:tox]`, pyproject.toml with `[tool.tox]`, tox.toml in the folder
the call runs from or above, or `-c FILE`.
"""

from __future__ import annotations

import configparser
import itertools
import re
from dataclasses import dataclass, field

from anchorcheck import AnchorResult, Evidence, Invocation, Runner, hookimpl
from anchorcheck.plugin import Context
from anchorcheck_plugins.runners._support import (
    ConfigError,
    dynamic,
    in_dir,
    is_file,
    line_of,
    listed,
    named_file,
    no_config,
    parse_toml,
    read_text,
    refuted,
    unknown,
    unusable,
    upward,
    verified,
)

_PYTHON_FACTOR = re.compile(r"(?:py|pypy|cpython)(?:\d(?:\.?\d+)?t?)?|py\d+t?|\d\.\d+t?")
_VALUE_OPTIONS = frozenset({"-e", "-m", "-f", "-c", "--conf", "--root", "--workdir", "-x", "--override", "--result-json",
                            "--installpkg", "--hashseed", "--runner", "--colored"})
_MAX_ENVS = 100_000  # a brace product larger than this is not a list a person wrote


@dataclass
class ToxConfig:
    path: str
    envs: dict[str, int | None] = field(default_factory=dict)  # name -> line
    labels: dict[str, list[str]] = field(default_factory=dict)
    truncated: bool = False  # more environments than anchorcheck keeps: absence is unknown

    def add_all(self, names: list[str] | None, line: int | None) -> None:
        """The names of one env list entry; None when its brace product was too large to keep."""
        if names is None:
            self.truncated = True
        for name in names or []:
            self.add(name, line)

    def add(self, name: str, line: int | None) -> None:
        if len(self.envs) >= _MAX_ENVS:
            self.truncated = True
        else:
            self.envs.setdefault(name, line)


def read_tox(context: Context, path: str) -> ToxConfig:
    def parse() -> ToxConfig:
        text = read_text(context, path)
        if path.endswith(".toml"):
            doc = parse_toml(path, text)
            tool = doc.get("tool", {}).get("tox") if path.endswith("pyproject.toml") else doc
            if isinstance(tool, dict) and isinstance(tool.get("legacy_tox_ini"), str):
                return _from_ini(path, tool["legacy_tox_ini"], "tox", text)
            return _from_toml(path, tool if isinstance(tool, dict) else {}, text)
        return _from_ini(path, text, "tox:tox" if path.endswith("setup.cfg") else "tox", text)

    return context.memo(("cmd-tox", path), parse)


def _from_ini(path: str, ini: str, main: str, text: str) -> ToxConfig:
    parser = configparser.RawConfigParser(strict=False, interpolation=None, comment_prefixes=("#", ";"), inline_comment_prefixes=(" #",))
    try:
        parser.read_string(ini, source=path)
    except configparser.Error as exc:
        line = getattr(exc, "lineno", None)
        raise ConfigError(path, f"invalid INI: {exc.message.splitlines()[0] if hasattr(exc, 'message') else exc}", line) from None
    config = ToxConfig(path)
    if parser.has_section(main):
        for option in ("env_list", "envlist"):
            if parser.has_option(main, option):
                lines = _Lines(text, max(text.find(option), 0))
                for entry in _entries(parser.get(main, option)):
                    config.add_all(_braces(entry), lines.of(entry))
        if parser.has_option(main, "labels"):
            for entry in parser.get(main, "labels").splitlines():
                label, eq, envs = entry.partition("=")
                if eq:
                    config.labels[label.strip()] = _expand_list(envs)
    for section in parser.sections():
        if section.startswith("testenv:"):
            line = line_of(text, rf"^\[{re.escape(section)}\]")  # once a section, not once a name it expands to
            for name in _expand_list(section.removeprefix("testenv:")):
                config.add(name, line)
    return config


def _from_toml(path: str, tool: dict[str, object], text: str) -> ToxConfig:
    config = ToxConfig(path)
    for option in ("env_list", "envlist"):
        entries = tool.get(option)
        line = line_of(text, rf"^[ \t]*{option}\s*=")
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, str):
                for name in _expand_list(entry):
                    config.add(name, line)
    envs = tool.get("env")
    for name in envs if isinstance(envs, dict) else {}:
        config.add(name, line_of(text, rf"^[ \t]*\[(?:tool\.tox\.)?env\.\"?{re.escape(name)}\"?\]"))
    labels = tool.get("labels")
    for label, names in (labels if isinstance(labels, dict) else {}).items():
        if isinstance(names, list):
            config.labels[label] = [n for n in names if isinstance(n, str)]
    return config


def _entries(value: str) -> list[str]:
    """The entries of an env list as written: comma or newline separated, `#` comments dropped."""
    return [e.strip() for line in value.splitlines() for e in _split_top(line.split("#", 1)[0]) if e.strip()]


def _expand_list(value: str) -> list[str]:
    """An env list with each entry brace-expanded (an entry too large to expand is left out)."""
    return [name for entry in _entries(value) for name in _braces(entry) or []]


class _Lines:
    """Lines of env list entries found in order, counting newlines once over the text (a generated
    list has thousands of entries: a search from the top for each would be quadratic)."""

    def __init__(self, text: str, start: int) -> None:
        self.text, self.pos, self.line = text, start, text.count("\n", 0, start) + 1

    def of(self, entry: str) -> int | None:
        found = self.text.find(entry, self.pos)
        if found < 0:
            return None
        self.line += self.text.count("\n", self.pos, found)
        self.pos = found
        return self.line


def _split_top(line: str) -> list[str]:
    """Split on commas outside braces."""
    parts, depth, current = [], 0, []
    for char in line:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return parts


def _braces(entry: str) -> list[str] | None:
    """`py3{9-11}-{a,b}` -> py39-a, py39-b, ...: the product of every brace group, ranges included."""
    pieces = re.split(r"(\{[^{}]*\})", entry)
    options: list[list[str]] = []
    for piece in pieces:
        if piece.startswith("{") and piece.endswith("}"):
            choices: list[str] = []
            for choice in piece[1:-1].split(","):
                span = re.fullmatch(r"\s*(\d+)-(\d+)\s*", choice)
                if span and int(span.group(2)) - int(span.group(1)) < 1000:
                    choices.extend(str(n) for n in range(int(span.group(1)), int(span.group(2)) + 1))
                else:
                    choices.append(choice.strip())
            options.append(choices)
        else:
            options.append([piece])
    total = 1
    for choices in options:
        total *= max(len(choices), 1)
    if total > _MAX_ENVS:
        return None
    return ["".join(parts) for parts in itertools.product(*options)]


_FILES = ("tox.ini", "setup.cfg", "pyproject.toml", "tox.toml")  # where tox looks, in a folder (`-c DIR` too)


def _find(context: Context, cwd: str) -> str | None:
    for folder in upward(cwd):
        for name in _FILES:
            path = in_dir(folder, name)
            if not is_file(context, path):
                continue
            if name == "tox.ini" or name == "tox.toml":
                return path
            text = read_text(context, path)
            if (name == "setup.cfg" and "[tox:tox]" in text) or (name == "pyproject.toml" and re.search(r"^\[tool\.tox", text, re.M)):
                return path
    return None


def verify_tox(invocation: Invocation, context: Context) -> AnchorResult:
    words = list(invocation.args)
    selectors: list[tuple[str, str]] = []
    config_file: str | None = None
    while words:
        word = words.pop(0)
        if word == "--":
            break
        name, eq, value = word.partition("=")
        if len(name) > 2 and name[:2] in ("-e", "-m", "-f", "-c") and not name.startswith("--"):
            name, value, eq = name[:2], name[2:], "="
        if name in _VALUE_OPTIONS and not eq:
            value = words.pop(0) if words else ""
        if name in ("-e", "-m", "-f"):
            selectors.append((name, value))
        elif name in ("-c", "--conf"):
            config_file = value
    try:
        if config_file is not None:
            path = named_file(context, invocation, invocation.cwd, config_file, "tox configuration", inside=_FILES)
            if isinstance(path, AnchorResult):
                return path
        else:
            path = _find(context, invocation.cwd)
            if path is None:
                return no_config(  # history is asked of the files that are tox's alone: a pyproject.toml is not
                    invocation, "no tox configuration (tox.ini, setup.cfg [tox:tox], pyproject.toml [tool.tox], tox.toml) here or above",
                    invocation.cwd, ["tox.ini", "tox.toml"],
                )
        config = read_tox(context, path)
    except ConfigError as error:
        return unusable(invocation, error)
    if not selectors:
        return verified(invocation, f"{path} configures tox ({len(config.envs)} environments)", [Evidence(path, None, "tox configuration")])
    evidence: list[Evidence] = []
    reasons: list[str] = []
    for option, value in selectors:
        result = _select(invocation, config, option, value, evidence, reasons)
        if result is not None:
            return result
    return verified(invocation, "; ".join(reasons), evidence)


def _select(invocation: Invocation, config: ToxConfig, option: str, value: str, evidence: list[Evidence], reasons: list[str]) -> AnchorResult | None:
    if dynamic(value.replace(",", "")) or "<" in value or not value.strip():
        return unknown(invocation, f"{value or 'no name'}: expanded by the shell, a placeholder, or missing")
    for wanted in (v.strip() for v in value.split(",") if v.strip()):
        if option == "-m":
            if wanted not in config.labels:
                return refuted(invocation, f"no tox label {wanted} in {config.path} (labels: {listed(config.labels)})", [Evidence(config.path, None, "tox labels")])
            reasons.append(f"label {wanted} is defined in {config.path}")
            continue
        if option == "-f":
            if not any(wanted in name.split("-") for name in config.envs):
                return refuted(invocation, f"no tox environment in {config.path} has the factor {wanted}", [Evidence(config.path, None, "tox environments")])
            reasons.append(f"factor {wanted} is used in {config.path}")
            continue
        if wanted in ("ALL", "ALL_ENVS") or wanted in config.envs:
            line = config.envs.get(wanted)
            evidence.append(Evidence(config.path, line, f"env {wanted}"))
            reasons.append(f"tox environment {wanted} is defined in {config.path}" + (f":{line}" if line else ""))
            continue
        if config.truncated:
            return unknown(invocation, f"no tox environment {wanted} among the first {_MAX_ENVS} of {config.path}; it lists more")
        factors = {f for name in config.envs for f in name.split("-")}
        unknown_factors = [f for f in wanted.split("-") if f not in factors and not _PYTHON_FACTOR.fullmatch(f)]
        if unknown_factors:
            return refuted(
                invocation,
                f"no tox environment {wanted} in {config.path}, and {', '.join(unknown_factors)} is no factor of its "
                f"{len(config.envs)} environments ({', '.join(list(config.envs)[:5])}, ...)",
                [Evidence(config.path, None, "tox environments")],
            )
        reasons.append(f"tox builds {wanted} from factors of {config.path}")
        evidence.append(Evidence(config.path, None, f"factors of {wanted}"))
    return None


@hookimpl
def register_runners(register):  # noqa: ANN001, ANN201 - hook signature
    register(Runner(name="tox", programs=("tox",), verify=verify_tox, configs=("tox.ini",), summary="tox environments (env lists with factors, sections, labels)"))
