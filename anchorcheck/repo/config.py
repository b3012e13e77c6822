"""Project configuration: `[tool.anchorcheck]` in pyproject.toml, or a `.anchorcheck.toml`.

Unknown keys are errors, not silently ignored: a misspelt `exlude` would
otherwise widen the closed world that absence is judged in.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anchorcheck.base.bounded import LimitError, brief, toml_loads
from anchorcheck.base.globs import gitignore
from anchorcheck.base.lazyregex import later
from anchorcheck.repo.checkout import DEFAULT_MAX_FILE_SIZE, DEFAULT_SKIP_DIRS
from anchorcheck.repo.safe_read import CONFIG_CAP, read_in_root

FAIL_ON = ("error", "warning", "refuted", "inconclusive")  # what fails a run: see anchorcheck.cli.common.exit_code
_TOML_AT = later(r"at line (\d+)")
IMPLICIT_KINDS = ("file", "cmd", "pkg", "sym", "env")
CONFIG_FILES = (".anchorcheck.toml", "pyproject.toml")  # where `load_config` looks, the first found wins


class ConfigError(ValueError):
    """A configuration problem, with the file and line it sits on."""

    def __init__(self, path: str, line: int | None, message: str) -> None:
        self.path, self.line, self.message = path, line, message
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {message}")


@dataclass
class Config:
    """Settings for one checkout; defaults apply when no file configures them."""

    exclude: list[str] = field(default_factory=list)
    skip_dirs: list[str] = field(default_factory=lambda: sorted(DEFAULT_SKIP_DIRS))
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    fail_on: str = "error"
    plugins: list[str] | None = None
    plugin_settings: dict[str, dict[str, Any]] = field(default_factory=dict)
    memory_files: list[str] = field(default_factory=list)
    implicit: list[str] = field(default_factory=lambda: list(IMPLICIT_KINDS))
    source: str | None = None


def _implicit(value: Any) -> list[str] | None:
    """`implicit = true | false | ["file", "cmd", "pkg", "sym", "env"]`: which kinds of implicit references are read."""
    if isinstance(value, bool):
        return list(IMPLICIT_KINDS) if value else []
    kinds = _str_list(value)
    return kinds if kinds is not None and set(kinds) <= set(IMPLICIT_KINDS) else None


def _str_list(value: Any) -> list[str] | None:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [str(v) for v in value]
    return None


# key -> (attribute, converter returning None when the value has the wrong type, expected)
_KEYS: dict[str, tuple[str, Any, str]] = {
    "exclude": ("exclude", _str_list, "a list of gitignore-style patterns"),
    "extend-exclude": ("exclude", _str_list, "a list of gitignore-style patterns"),
    "skip-dirs": ("skip_dirs", _str_list, "a list of directory names"),
    "extend-skip-dirs": ("skip_dirs", _str_list, "a list of directory names"),
    "max-file-size": (
        "max_file_size",
        lambda v: int(v) if isinstance(v, int) and not isinstance(v, bool) and v > 0 else None,
        "a positive number of bytes",
    ),
    "fail-on": ("fail_on", lambda v: str(v) if v in FAIL_ON else None, "'error', 'warning', 'refuted' or 'inconclusive'"),
    "plugins": ("plugins", _str_list, "a list of plugin names"),
    "memory-files": ("memory_files", _str_list, "a list of paths or globs"),
    "implicit": ("implicit", _implicit, "true, false, or a list of the kinds 'file', 'cmd', 'pkg', 'sym', 'env'"),
}


def load_config(root: Path) -> Config:
    """Read `.anchorcheck.toml` if present, else `[tool.anchorcheck]` of pyproject.toml.

    Either is read only as a regular file inside the root: one that is a
    FIFO, a device or a symlink out of the repository is a ConfigError.
    """
    for name, table in zip(CONFIG_FILES, (None, ("tool", "anchorcheck"))):
        path = root / name
        if os.path.lexists(path) and not path.is_dir():
            return _from_file(root, path, table)
    return Config()


def _from_file(root: Path, path: Path, table: tuple[str, ...] | None) -> Config:
    name = path.name
    try:
        text = read_in_root(root, path, CONFIG_CAP, shown=name).decode("utf-8")
        if table is not None and table[-1] not in text:
            return Config()  # a project's own pyproject.toml without our table: not ours to parse (or judge)
        doc = toml_loads(text)  # tomllib, bounded: tomlkit takes quadratic time over many empty lines
    except tomllib.TOMLDecodeError as exc:
        where = _TOML_AT.search(str(exc))
        raise ConfigError(name, int(where.group(1)) if where else None, f"invalid TOML: {exc}") from None
    except LimitError as exc:
        raise ConfigError(name, exc.line, f"invalid TOML: {exc.message}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(name, None, f"cannot read: {exc}") from None
    except OSError as exc:
        raise ConfigError(name, None, f"cannot read: {exc.strerror or exc}") from None
    data: Any = doc
    for part in table or ():
        data = data.get(part, {}) if isinstance(data, dict) else {}
    if not data:
        return Config()
    if not isinstance(data, dict):
        raise ConfigError(name, None, "[tool.anchorcheck] must be a table")
    return _apply(data, name, text)


def _apply(data: dict[str, Any], name: str, text: str) -> Config:
    config = Config(source=name)
    for key, value in data.items():
        if key == "plugin":
            if not isinstance(value, dict) or not all(isinstance(v, dict) for v in value.values()):
                raise ConfigError(name, _line_of(text, key), "'plugin' must hold one table per plugin: [tool.anchorcheck.plugin.NAME]")
            config.plugin_settings = {str(k): dict(v) for k, v in value.items()}
            continue
        spec = _KEYS.get(key)
        if spec is None:
            known = ", ".join(sorted([*_KEYS, "plugin"]))
            raise ConfigError(name, _line_of(text, key), f"unknown key {brief(key)} (known keys: {known})")
        attribute, convert, expected = spec
        converted = convert(value)
        if converted is None:
            raise ConfigError(name, _line_of(text, key), f"'{key}' must be {expected}")
        if attribute == "exclude":
            _check_patterns(converted, name, _line_of(text, key))
        if key.startswith("extend-"):
            converted = [*getattr(config, attribute), *converted]
        setattr(config, attribute, converted)
    return config


def _check_patterns(patterns: list[str], name: str, line: int | None) -> None:
    """Each gitignore-style pattern compiles, or a ConfigError names it (`!` alone, a range `[z-a]`)."""
    for pattern in patterns:
        try:
            gitignore([pattern])
        except (ValueError, re.error) as exc:
            raise ConfigError(name, line, f"invalid exclude pattern {brief(pattern)}: {str(exc).splitlines()[0][:120]}") from None


def _line_of(text: str, key: str) -> int | None:
    pattern = re.compile(rf"^[ \t]*[\"']?{re.escape(key)}[\"']?[ \t]*[=.]", re.MULTILINE)  # blanks: \s would cross lines
    match = pattern.search(text)
    return text.count("\n", 0, match.start()) + 1 if match else None
