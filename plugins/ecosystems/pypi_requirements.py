"""pip requirements files (`requirements*.txt`, `*.in`, `requirements/*.txt`), read as pip reads them.

Handled: comments, `\\` line continuations, PEP 508 lines with markers and
`name @ url`, per-requirement options (`--hash=...`), `-r`/`--requirement`
and `-c`/`--constraint` followed relative to the including file (a cycle is
an error naming the line, not a hang), `-e`/`--editable` with `#egg=`, bare
wheel and sdist URLs or paths, and global options (`-i`, `--index-url`,
`--find-links`...) that declare nothing. Constraint files are parsed (a broken
one makes the evidence incomplete) but declare nothing: a constraint only
limits a version if something else requires the package. An editable or URL
whose distribution name cannot be read statically makes the file dynamic.

A file whose name says dev, test, lint, doc, or typing (`requirements-dev.txt`,
`requirements/test.in`) declares a dev group of that name; others declare
direct dependencies.
"""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING

from anchorcheck.plugin import (
    brief,
    later,
    DEV,
    DIRECT,
    Declaration,
    FileFacts,
    ManifestError,
    ManifestStatus,
    decode_manifest,
    load_manifest,
    UnsafePathError,
    check_relative,
)
from anchorcheck_plugins.ecosystems.pypi_common import declare, normalize

if TYPE_CHECKING:
    from anchorcheck.plugin import Context

PATTERN = re.compile(r"(?:[^/]*requirements[^/]*|requirements/[^/]+)\.(?:txt|in)")
_DEV_WORDS = later(r"dev|test|lint|doc|typing")
_COMMENT = later(r"(^|\s)#.*$")
_INCLUDE = later(r"^(-r|--requirement|-c|--constraint)(?:\s*=\s*|\s+|(?<=^-r)|(?<=^-c))(\S+)$")
_EDITABLE = later(r"^(?:-e|--editable)(?:\s*=\s*|\s+)(\S+)$")
_EGG = later(r"[#&]egg=([A-Za-z0-9][A-Za-z0-9._-]*)")
_OPTION = later(r"\s--?[a-z][a-z-]*(?:[ =]\S+)?")
_MAX_DEPTH = 32


def logical_lines(data: bytes) -> list[tuple[int, str]]:
    """(1-based line, text) of each logical line: comments dropped, continuations joined, blanks skipped."""
    out: list[tuple[int, str]] = []
    pending: list[str] = []
    start = 0
    for number, raw in enumerate(decode_manifest(data).splitlines(), 1):
        if not pending:
            start = number
        stripped = _COMMENT.sub("", raw).rstrip()
        if stripped.endswith("\\"):
            pending.append(stripped[:-1])
            continue
        text = " ".join([*pending, stripped]).strip()
        pending = []
        if text:
            out.append((start, text))
    if pending and " ".join(pending).strip():
        out.append((start, " ".join(pending).strip()))
    return out


def relation_for(path: str) -> tuple[str, str | None]:
    """What a requirements file declares, judged by its name: `requirements-dev.txt` is dev group "dev"."""
    stem = posixpath.basename(path).rsplit(".", 1)[0].lower()
    if _DEV_WORDS.search(stem):
        return DEV, stem.replace("requirements", "").strip("-_.") or "dev"
    return DIRECT, None


def parse_requirements(context: Context, path: str) -> FileFacts:
    found: list[Declaration] = []
    dynamic: list[str] = []
    _read(context, path, (path,), found, dynamic, declaring=True)
    status = ManifestStatus(path, dynamic=bool(dynamic), error="; ".join(dynamic) or None)
    return FileFacts(found, status)


def _read(context: Context, path: str, chain: tuple[str, ...], found: list[Declaration], dynamic: list[str], declaring: bool) -> None:
    relation, group = relation_for(chain[0])
    for line, text in load_manifest(context, path, logical_lines):
        context.check_deadline()
        include = _INCLUDE.match(text)
        if include:
            _follow(context, path, line, include.group(1), include.group(2), chain, found, dynamic, declaring)
            continue
        if not declaring:
            continue
        decl = _declaration(text, path, line, relation, group, dynamic)
        if decl is not None:
            found.append(decl)


def _follow(
    context: Context,
    path: str,
    line: int,
    option: str,
    target: str,
    chain: tuple[str, ...],
    found: list[Declaration],
    dynamic: list[str],
    declaring: bool,
) -> None:
    if "://" in target:
        dynamic.append(f"{path}:{line} includes a remote file {target}")
        return
    included = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
    try:
        check_relative(included)
        if not context.repo.is_file(included):
            raise ManifestError(f"{option} {target}: no such file", line)
    except UnsafePathError as exc:
        raise ManifestError(f"{option} {target}: refused ({exc.why})", line) from None
    except OSError as exc:  # a name too long for the file system, a loop of symlinks
        raise ManifestError(f"{option} {brief(target)}: cannot read ({exc.strerror or exc})", line) from None
    if included in chain:
        raise ManifestError(f"{option} {target} includes a file already being read ({' -> '.join(chain)})", line)
    if len(chain) >= _MAX_DEPTH:
        raise ManifestError(f"includes nested deeper than {_MAX_DEPTH}", line)
    try:
        _read(context, included, (*chain, included), found, dynamic, declaring and option in ("-r", "--requirement"))
    except ManifestError as exc:
        # Name the file where the problem is, and the line that led there.
        where = f"{included}:{exc.line}" if exc.line else included
        raise ManifestError(f"{option} {target}: {where}: {exc.message}", line) from None


def _declaration(text: str, path: str, line: int, relation: str, group: str | None, dynamic: list[str]) -> Declaration | None:
    editable = _EDITABLE.match(text)
    if editable:
        target = editable.group(1)
        egg = _EGG.search(target)
        if egg:
            return Declaration(normalize(egg.group(1)), relation, path, line, specifier=f"-e {target}", group=group, written=egg.group(1))
        if target not in (".", "./"):  # `-e .` is the project itself, declared by its own manifest
            dynamic.append(f"{path}:{line} editable {target} names no distribution (#egg=)")
        return None
    if text.startswith("-"):
        return None  # a global option: --index-url, --find-links, --pre, --require-hashes...
    requirement = _OPTION.sub("", " " + text).strip()
    if _looks_like_location(requirement):
        name = _name_from_location(requirement)
        if name is None:
            dynamic.append(f"{path}:{line} {requirement} names no distribution")
            return None
        return Declaration(normalize(name), relation, path, line, specifier=f"@ {requirement}", group=group, written=name)
    return declare(requirement, relation, path, line, group=group)


def _looks_like_location(text: str) -> bool:
    head = text.split(";", 1)[0].strip()
    return "://" in head.split("@", 1)[0] or head.startswith((".", "/")) or head.endswith((".whl", ".tar.gz", ".zip"))


def _name_from_location(text: str) -> str | None:
    egg = _EGG.search(text)
    if egg:
        return egg.group(1)
    from packaging.utils import InvalidSdistFilename, InvalidWheelFilename, parse_sdist_filename, parse_wheel_filename  # a path or URL line only

    filename = text.split(";", 1)[0].strip().split("#", 1)[0].rstrip("/").rsplit("/", 1)[-1]
    try:
        return str(parse_wheel_filename(filename)[0])
    except InvalidWheelFilename:
        pass
    try:
        return str(parse_sdist_filename(filename)[0])
    except InvalidSdistFilename:
        return None
