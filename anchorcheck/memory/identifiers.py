"""Identifiers a memory names in inline code, and the variables a shell command sets: `sym:` and `env:` claims.

"Call `load_config()`", "`SourceIndex` keeps the facts", "set
`ANCHORCHECK_CACHE_DIR`" and `FOO_BAR=1 pnpm test` say that the repository
defines a function or class, or reads a variable. Which of them are claims
about this repository is decided on evidence when the memory is checked
(`anchorcheck.verify.identifiers`): defined now, or defined once and gone
(git history), else not read at all. This module only says which code spans
can be identifiers at all, by their shape, so that ordinary words never are:
`test`, `main`, `run`, `Redis` and `README` are not; `parse_config`,
`loadConfig`, `SourceIndex` (two humps), `CACHE_DIR` (screaming case with an
underscore: a variable) and anything written as a call (`run()`) are. A
reference read here holds the name as written (`sym:parse_config`,
`env:CACHE_DIR`): no anchor until the check resolves it (`unresolved`).
"""

from __future__ import annotations

from anchorcheck.base.lazyregex import later
from anchorcheck.model.reference import Reference

IDENTIFIER_KINDS = ("sym", "env")
_PART = later(r"[A-Za-z_][A-Za-z0-9_]*")
_SNAKE = later(r"_?[a-z][a-z0-9]*(?:_[a-z0-9]+)+")  # parse_config, _private_helper (not __init__)
_CAMEL = later(r"_?[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+")  # loadConfig, _loadConfig
_PASCAL = later(r"_?[A-Z](?=[A-Za-z0-9]*[a-z])[A-Za-z0-9]*(?:[a-z0-9][A-Z]|[A-Z][A-Z][a-z])[A-Za-z0-9]*")  # SourceIndex, HTTPServer, _BaseTrainer
# C's Module_function and Type_Name (htop's `Htop_Reaction`, `Panel_new`): capitalized parts joined by `_`, a lower-case
# letter in them (all capitals is an environment variable's shape).
_UNDERSCORED = later(r"_?[A-Z](?=[A-Za-z0-9_]*[a-z])[A-Za-z0-9]*(?:_[A-Za-z0-9]+)+")
_SCREAMING = later(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")  # CACHE_DIR: an environment variable (or a constant)
_VARIABLE = later(r"\$\{?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\}?")  # $CACHE_DIR, ${CACHE_DIR}


def identifier(token: str) -> tuple[str, str] | None:
    """The kind (`sym` or `env`) and name of a code span shaped like an identifier; None for anything else.

    A dotted name (`SourceIndex.of`) counts when one of its parts has the shape; a call (`main()`) always
    does, written so. Arguments (`f(x)`), paths, commands and plain words are not identifiers here."""
    variable = _VARIABLE.fullmatch(token)
    if variable is not None:
        return "env", variable.group(1)
    called = token.endswith("()")
    name = _scoped(token[:-2] if called else token)
    parts = name.split(".")
    if not all(_PART.fullmatch(p) for p in parts) or len(parts) > 3:
        return None
    if len(parts) == 1 and _SCREAMING.fullmatch(name):
        return "env", name
    if called or any(_SNAKE.fullmatch(p) or _CAMEL.fullmatch(p) or _PASCAL.fullmatch(p) or _UNDERSCORED.fullmatch(p) for p in parts):
        return "sym", name
    return None


_STANDARD = frozenset({"std", "core", "alloc", "boost"})  # C++ and Rust standard (and Boost) namespaces


def _scoped(name: str) -> str:
    """`Conn::Send`, `facade::OpStatus`, `crate::config::Settings::load` as the dotted names definitions have: a
    C++, Rust, Ruby or PHP scope is a dot, and the lowercase namespaces and modules before the first type are
    dropped (a C++ namespace and a Rust module do not qualify a definition's name; `std::env::var` is `var`)."""
    if "::" not in name or "." in name:
        return name
    parts = name.split("::")
    if parts[0] in _STANDARD:  # `std::fs::read_to_string`, `std::make_unique`: the language's, whatever this repository defines
        return ""
    first_type = next((n for n, part in enumerate(parts) if part[:1].isupper()), len(parts) - 1)
    return ".".join(parts[first_type:])


def reference(token: str, line: int, column: int) -> Reference | None:
    """The reference a code span at (line, 1-based column) makes, when it is shaped like an identifier."""
    found = identifier(token)
    if found is None:
        return None
    kind, name = found
    return Reference(kind, f"{kind}:{name}", token, line, column, column + len(token), "code")


def assignments(command: str, argv: list[str], line: int, column: int, form: str) -> list[Reference]:
    """`FOO_BAR=1 pnpm test`: each variable a command line sets for the program it runs, as an `env:` reference
    where its name is written (`argv` is the line split as a shell would)."""
    found = []
    at = 0
    for word in argv:
        name, equals, _ = word.partition("=")
        if not equals or not _PART.fullmatch(name):
            break
        start = command.find(name + "=", at)
        at = max(start, at)
        found.append(Reference("env", f"env:{name}", name, line, column + at, column + at + len(name), form))
    return found


def unresolved(reference: Reference) -> bool:
    """An identifier reference whose definition the check has not looked up yet (`sym:parse_config`, `env:X`)."""
    return reference.kind in IDENTIFIER_KINDS and "::" not in reference.anchor


def name_of(reference: Reference) -> str:
    """The name an identifier reference speaks of, as written (without `()` or `$`)."""
    found = identifier(reference.written)
    return found[1] if found is not None else reference.value.rsplit("::", 1)[-1]
