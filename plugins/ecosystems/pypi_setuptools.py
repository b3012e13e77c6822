"""setuptools manifests: setup.cfg (`[options]`) and setup.py, both read without running anything.

setup.py is parsed with tree-sitter, which tolerates old syntax, and only the
`setup(...)` call's `install_requires`, `extras_require` and `setup_requires`
arguments are read, each with `ast.literal_eval` (which evaluates literals and
nothing else). A computed value (a variable, a function call, `**kwargs`), or
no `setup()` call at all, makes the file dynamic. In setup.cfg, a `file:` or
`attr:` directive does the same.
"""

from __future__ import annotations

import ast
import configparser
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from anchorcheck.plugin import (
    BUILD,
    DIRECT,
    OPTIONAL,
    Declaration,
    FileFacts,
    ManifestError,
    ManifestStatus,
    decode_manifest,
    load_manifest,
    parse_tree,
)
from anchorcheck_plugins.ecosystems.parsing import LineFinder
from anchorcheck_plugins.ecosystems.pypi_common import declare

if TYPE_CHECKING:
    from tree_sitter import Language, Query

    from anchorcheck.plugin import Context

_SETUP_ARGUMENTS = {"install_requires": DIRECT, "extras_require": OPTIONAL, "setup_requires": BUILD}


def _config(data: bytes) -> tuple[configparser.RawConfigParser, LineFinder]:
    text = decode_manifest(data)
    parser = configparser.RawConfigParser(strict=False)
    try:
        parser.read_string(text)
    except configparser.MissingSectionHeaderError as exc:
        raise ManifestError("a setup.cfg line before any [section]", exc.lineno) from None
    except configparser.ParsingError as exc:
        line = exc.errors[0][0] if exc.errors else None
        raise ManifestError("invalid setup.cfg syntax", line) from None
    except configparser.Error as exc:
        raise ManifestError(f"invalid setup.cfg: {exc.message}", getattr(exc, "lineno", None)) from None
    return parser, LineFinder(text)


def _cfg_list(value: str) -> list[str]:
    """A dangling list: one requirement per line, comments dropped (as setuptools reads install_requires)."""
    items = []
    for raw in value.splitlines():
        item = raw.split(" #", 1)[0].strip()
        if item and not item.startswith("#"):
            items.append(item)
    return items


def parse_setup_cfg(context: Context, path: str) -> FileFacts:
    parser, lines = load_manifest(context, path, _config)
    found: list[Declaration] = []
    dynamic: list[str] = []
    sources: list[tuple[str, str, str, str | None]] = []
    if parser.has_option("options", "install_requires"):
        sources.append(("options", "install_requires", DIRECT, None))
    if parser.has_option("options", "setup_requires"):
        sources.append(("options", "setup_requires", BUILD, None))
    if parser.has_section("options.extras_require"):
        sources += [("options.extras_require", extra, OPTIONAL, extra) for extra in parser.options("options.extras_require")]
    for section, option, relation, group in sources:
        value = parser.get(section, option)
        at = lines.key(option, section)
        if value.strip().startswith(("file:", "attr:")):
            dynamic.append(f"{section}.{option} = {value.strip()}")
            continue
        for text in _cfg_list(value):
            found.append(declare(text, relation, path, lines.string(text, lines.offset(at)), group=group))
    line = lines.key("install_requires", "options") if dynamic else None
    return FileFacts(found, ManifestStatus(path, dynamic=bool(dynamic), error="; ".join(dynamic) or None, line=line))


def _setup_calls(data: bytes) -> tuple[list[tuple[str, int, str]], list[str]]:
    """The setup() keyword arguments we read, as (name, line, source text); and why anything is dynamic."""
    tree = parse_tree("python", data)  # the tree fact extraction made of the same bytes, if it did
    if tree is None:
        raise ManifestError("setup.py did not parse within the parse budget")
    # The calls found by a query, in C, in document order: walking every node in Python cost 5x the parse.
    found = _cursor(_setup_query(tree.language)).captures(tree.root_node).get("call", [])
    calls = sorted(found, key=lambda node: node.start_byte)
    if not calls:
        return [], ["no setup() call found"]
    arguments, dynamic = [], []
    for call in calls:
        args = call.child_by_field_name("arguments")
        for arg in args.named_children if args is not None else []:
            if arg.type == "dictionary_splat":
                dynamic.append(f"setup() at line {call.start_point[0] + 1} takes **{_text(arg)[2:]}")
            elif arg.type == "keyword_argument":
                name = _text(arg.child_by_field_name("name"))
                value = arg.child_by_field_name("value")
                if name in _SETUP_ARGUMENTS and value is not None:
                    arguments.append((name, value.start_point[0] + 1, _text(value)))
    return arguments, dynamic


@lru_cache(maxsize=None)
def _setup_query(language: Language) -> Query:
    from tree_sitter import Query

    return Query(language, _SETUP_CALL)


def _cursor(query: Query) -> Any:  # noqa: ANN401 - tree_sitter.QueryCursor
    from tree_sitter import QueryCursor

    return QueryCursor(query)


_SETUP_CALL = '(call function: [(identifier) (attribute)] @function (#any-of? @function "setup" "setuptools.setup" "distutils.core.setup")) @call'


def _text(node: Any) -> str:
    return node.text.decode("utf-8", "replace") if node is not None else ""


def parse_setup_py(context: Context, path: str) -> FileFacts:
    arguments, dynamic = load_manifest(context, path, _setup_calls)
    dynamic = list(dynamic)
    found: list[Declaration] = []
    for name, line, source in arguments:
        try:
            value = ast.literal_eval(source)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            dynamic.append(f"{name} at line {line} is computed")
            continue
        relation = _SETUP_ARGUMENTS[name]
        if relation == OPTIONAL and isinstance(value, dict):
            groups = value.items()
        elif isinstance(value, (list, tuple)):
            groups = [(None, value)]
        else:
            dynamic.append(f"{name} at line {line} is not a list")
            continue
        for group, requirements in groups:
            for text in requirements if isinstance(requirements, (list, tuple)) else [requirements]:
                if not isinstance(text, str):
                    raise ManifestError(f"{name} should hold requirement strings", line)
                found.append(declare(text, relation, path, line, group=group))
    return FileFacts(found, ManifestStatus(path, dynamic=bool(dynamic), error="; ".join(dynamic) or None))
