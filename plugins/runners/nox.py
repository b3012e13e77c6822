"""`nox -s SESSION`, `nox -t TAG`: the sessions of noxfile.py, parsed with tree-sitter (the file is never imported).

A session is a function decorated with `@nox.session` (or `@session`
imported from nox): its name is the function's, or the `name=` string.
`python=[...]` adds `NAME-VERSION` variants; `@nox.parametrize` adds
`NAME(...)` ones; `tags=[...]` are what `-t` selects. A name, python or
tags argument that is not a literal, or a session registered by calling
`nox.session(...)` outside a decorator, makes absence INCONCLUSIVE;
otherwise a missing session or tag is REFUTED. `-k` expressions are
INCONCLUSIVE. The noxfile is noxfile.py in the folder the call runs from
(or above), or `-f FILE`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from anchorcheck import AnchorResult, Evidence, Invocation, Runner, hookimpl
from anchorcheck.plugin import Context, first_error_line, string_value, parse_tree
from anchorcheck_plugins.runners._support import (
    ConfigError,
    dynamic,
    listed,
    named_file,
    nearest,
    no_config,
    read_text,
    refuted,
    unknown,
    unusable,
    verified,
)

_SESSION_OPTIONS = frozenset({"-s", "-e", "--session", "--sessions"})
_VALUE_OPTIONS = frozenset({"-s", "-e", "--session", "--sessions", "-t", "--tags", "-k", "-f", "--noxfile", "-p",
                            "--python", "--pythons", "--envdir", "--extra-pythons", "--extra-python", "-P",
                            "--force-python", "--default-venv-backend", "-db", "--force-venv-backend", "-fb", "--report"})


@dataclass
class Session:
    name: str
    line: int
    pythons: list[str] | None = field(default_factory=list)  # None when computed
    tags: list[str] = field(default_factory=list)
    parametrized: bool = False


@dataclass
class Noxfile:
    path: str
    sessions: dict[str, Session] = field(default_factory=dict)
    open: list[str] = field(default_factory=list)


def read_noxfile(context: Context, path: str) -> Noxfile:
    def parse() -> Noxfile:
        language = context.registry.languages.get("python")
        if language is None or not isinstance(language.grammar, str):
            raise ConfigError(path, "no Python grammar is loaded to parse the noxfile")
        source = read_text(context, path).encode("utf-8")
        tree = parse_tree(language.grammar, source)  # fact extraction's tree of the same bytes, if it made one
        if tree is None:
            raise ConfigError(path, "the noxfile did not parse within the parse budget")
        root = tree.root_node
        error = first_error_line(root)
        if error is not None:
            raise ConfigError(path, "Python syntax error", error)
        noxfile = Noxfile(path)
        _walk(root, noxfile, path)
        return noxfile

    return context.memo(("cmd-nox", path), parse)


def _text(node: Any) -> str:
    return (node.text or b"").decode("utf-8", errors="replace")


def _walk(node: Any, noxfile: Noxfile, path: str) -> None:
    for child in node.named_children:
        if child.type == "decorated_definition":
            _decorated(child, noxfile, path)
        elif child.type == "call" and _is_session(child.child_by_field_name("function")):
            noxfile.open.append(f"{path}:{child.start_point[0] + 1} registers a session by calling {_text(child.child_by_field_name('function'))}")
        elif child.type in ("expression_statement", "if_statement", "block", "else_clause", "elif_clause", "try_statement",
                            "with_statement", "for_statement", "assignment"):
            _walk(child, noxfile, path)


def _is_session(function: Any) -> bool:
    return function is not None and _text(function) in ("nox.session", "session", "nox.registry.session_decorator")


def _decorated(node: Any, noxfile: Noxfile, path: str) -> None:
    definition = node.child_by_field_name("definition")
    if definition is None or definition.type != "function_definition":
        return
    name_node = definition.child_by_field_name("name")
    session: Session | None = None
    parametrized = False
    for decorator in (c for c in node.named_children if c.type == "decorator"):
        expression = decorator.named_children[0] if decorator.named_children else None
        if expression is None:
            continue
        call = expression if expression.type == "call" else None
        function = call.child_by_field_name("function") if call is not None else expression
        if _text(function) in ("nox.parametrize", "parametrize"):
            parametrized = True
        if not _is_session(function):
            continue
        session = Session(_text(name_node), decorator.start_point[0] + 1)
        arguments = call.child_by_field_name("arguments") if call is not None else None
        for keyword in (a for a in (arguments.named_children if arguments is not None else []) if a.type == "keyword_argument"):
            key, value = _text(keyword.child_by_field_name("name")), keyword.child_by_field_name("value")
            if key == "name":
                literal = string_value(value) if value.type == "string" else None
                if literal is None:
                    noxfile.open.append(f"{path}:{session.line} names a session with a computed name")
                    session = None
                    break
                session.name = literal
            elif key == "python":
                session.pythons = _strings(value)
            elif key == "tags":
                session.tags = _strings(value) or []
                if _strings(value) is None:
                    noxfile.open.append(f"{path}:{session.line} gives a session computed tags")
    if session is not None:
        session.parametrized = parametrized
        noxfile.sessions.setdefault(session.name, session)


def _strings(node: Any) -> list[str] | None:
    """A string or a list/tuple of string literals; None when any part is computed (`False`/`None` mean no variants)."""
    if node.type == "string":
        value = string_value(node)
        return None if value is None else [value]
    if node.type in ("list", "tuple"):
        values = [string_value(c) if c.type == "string" else None for c in node.named_children]
        return None if any(v is None for v in values) else [v for v in values if v is not None]
    if node.type in ("false", "none", "true"):
        return []
    return None


def verify_nox(invocation: Invocation, context: Context) -> AnchorResult:
    words = list(invocation.args)
    wanted: list[tuple[str, str]] = []
    noxfile_arg: str | None = None
    while words:
        word = words.pop(0)
        if word == "--":
            break
        name, eq, value = word.partition("=")
        if name in _VALUE_OPTIONS and not eq:
            values = []
            while words and not words[0].startswith("-"):  # `-s a b` names several sessions
                values.append(words.pop(0))
                if name not in _SESSION_OPTIONS and name not in ("-t", "--tags"):
                    break
            value = ",".join(values)
        if name in _SESSION_OPTIONS:
            wanted.extend(("session", v) for v in value.split(",") if v)
        elif name in ("-t", "--tags"):
            wanted.extend(("tag", v) for v in value.split(",") if v)
        elif name == "-k":
            return unknown(invocation, f"-k {value} selects sessions by an expression anchorcheck does not evaluate")
        elif name in ("-f", "--noxfile"):
            noxfile_arg = value
    try:
        if noxfile_arg is not None:
            path = named_file(context, invocation, invocation.cwd, noxfile_arg, "noxfile")
            if isinstance(path, AnchorResult):
                return path
        else:
            path = nearest(context, invocation.cwd, ["noxfile.py"])
            if path is None:
                return no_config(invocation, "no noxfile.py here or above", invocation.cwd, ["noxfile.py"])
        noxfile = read_noxfile(context, path)
    except ConfigError as error:
        return unusable(invocation, error)
    if not wanted:
        return verified(invocation, f"{path} defines {len(noxfile.sessions)} sessions", [Evidence(path, None, "noxfile")])
    evidence, reasons = [], []
    for kind, value in wanted:
        found = _find(noxfile, kind, value)
        if isinstance(found, str):
            return unknown(invocation, found) if noxfile.open or dynamic(value) else refuted(invocation, found, [Evidence(path, None, "sessions")])
        evidence.append(Evidence(path, found.line, f"session {found.name}"))
        reasons.append(f"{kind} {value} is {'session ' + found.name if kind == 'tag' else 'defined'} at {path}:{found.line}")
    return verified(invocation, "; ".join(reasons), evidence)


def _find(noxfile: Noxfile, kind: str, value: str) -> Session | str:
    """The session a `-s` name or `-t` tag selects, or why there is none (with the open reason when absence is unknown)."""
    if kind == "tag":
        for session in noxfile.sessions.values():
            if value in session.tags:
                return session
        why = f"no session of {noxfile.path} has the tag {value}"
        return f"{why}; {noxfile.open[0]}" if noxfile.open else why
    base = re.sub(r"\(.*\)$", "", value)
    if base in noxfile.sessions and (base == value or noxfile.sessions[base].parametrized):
        return noxfile.sessions[base]
    for name, session in noxfile.sessions.items():
        if base.startswith(name + "-"):
            version = base[len(name) + 1:]
            if session.pythons is None or version in session.pythons:
                return session
    why = f"no session {value} in {noxfile.path} (sessions: {listed(noxfile.sessions)})"
    return f"{why}; {noxfile.open[0]}" if noxfile.open else why


@hookimpl
def register_runners(register):  # noqa: ANN001, ANN201 - hook signature
    register(Runner(name="nox", programs=("nox",), verify=verify_nox, configs=("noxfile.py",), summary="noxfile.py sessions, read with tree-sitter"))
