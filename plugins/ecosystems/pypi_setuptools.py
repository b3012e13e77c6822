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
    calls = _calls_of_setup(tree, data)
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


def _calls_of_setup(tree: Any, data: bytes) -> list[Any]:  # noqa: ANN401 - tree_sitter.Tree
    """The calls of `setup`, `setuptools.setup` or `distutils.core.setup` (the callee written just so), in
    document order. Each is found from where its bytes spell `setup`, the identifier the call ends its
    callee with: a query over every call of the file (`#any-of?` judging each callee's text) took 12 ms of
    a 20 ms read of an 85 KB setup.py, and walking every node in Python five times the parse."""
    root = tree.root_node
    calls: dict[tuple[int, int], Any] = {}
    at = data.find(b"setup")
    while at != -1:
        name = root.descendant_for_byte_range(at, at + 5)  # the identifier `setup` itself, or what holds these bytes
        at = data.find(b"setup", at + 1)
        if name is None or name.type != "identifier" or name.end_byte - name.start_byte != 5:
            continue
        callee, parent = name, name.parent
        if parent is not None and parent.type == "attribute" and parent.child_by_field_name("attribute") == name:
            if data[parent.start_byte : parent.end_byte] not in _SETUP_PATHS:
                continue
            callee, parent = parent, parent.parent
        if parent is not None and parent.type == "call" and parent.child_by_field_name("function") == callee:
            calls.setdefault((parent.start_byte, parent.end_byte), parent)
    return [calls[span] for span in sorted(calls)]


_SETUP_PATHS = frozenset({b"setuptools.setup", b"distutils.core.setup"})


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
