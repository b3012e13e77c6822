"""`sym:PATH::Qualified.Name` and `sym:py:package.module.Name` — the file defines that name.

Names are qualified with dots in every language (`RedisCache.get`,
`Type.Method` in Go, `S.method` for a Rust impl). The module form resolves
through the source roots (the top level, `src/`, `lib/`, `python/`, plus the
plugin setting `source-roots`), so an src layout works unconfigured.
"""

from __future__ import annotations

from dataclasses import dataclass

from anchorcheck import AnchorKind, AnchorResult, Evidence, Verdict, hookimpl
from anchorcheck.anchors import Anchor, AnchorSyntaxError, decode_path
from anchorcheck.context import Context
from anchorcheck.facts import Facts
from anchorcheck.index import SourceIndex
from anchorcheck_plugins.languages.python import SOURCE_ROOTS, resolve_import

_PLUGIN = "sym"


@dataclass(frozen=True)
class Symbol:
    """A parsed `sym:` value: either a file and a name in it, or a dotted Python path."""

    path: str | None
    name: str
    module_path: str | None = None


def parse_sym(value: str) -> Symbol:
    if value.startswith("py:"):
        dotted = value[3:]
        parts = dotted.split(".")
        if len(parts) < 2 or not all(p.isidentifier() for p in parts):
            raise AnchorSyntaxError("expected py:package.module.Name", column=4)
        return Symbol(None, "", dotted)
    path, sep, name = value.partition("::")
    if not sep or not path:
        raise AnchorSyntaxError("expected PATH::Qualified.Name or py:package.module.Name", column=1)
    if not name or any(not part for part in name.split(".")):
        raise AnchorSyntaxError("expected a qualified name after '::'", column=len(path) + 3)
    return Symbol(decode_path(path), name)


def verify_sym(anchor: Anchor, context: Context) -> AnchorResult:
    symbol: Symbol = anchor.detail or parse_sym(anchor.value)
    shown = str(anchor)
    if symbol.module_path is not None:
        resolved = _resolve_module(symbol.module_path, context)
        if resolved is None:
            top = symbol.module_path.split(".")[0]
            if _first_party(symbol.module_path, context):
                return AnchorResult(shown, Verdict.REFUTED, f"no module of {symbol.module_path} exists under the source roots", state="missing")
            return AnchorResult(shown, Verdict.INCONCLUSIVE, f"{top} is not a first-party package under the source roots", state="not-first-party")
        path, name = resolved
    else:
        path, name = symbol.path, symbol.name
    assert path is not None
    if not context.repo.is_file(path):
        return AnchorResult(shown, Verdict.REFUTED, f"{path} does not exist", state="missing")
    index = SourceIndex.of(context)
    if index.language(path) is None:
        return AnchorResult(shown, Verdict.INCONCLUSIVE, f"no language plugin parses {path}", state="unsupported")
    try:
        facts = index.facts(path)
    except OSError as exc:
        return AnchorResult(shown, Verdict.INCONCLUSIVE, f"cannot read {path}: {exc}", state="unreadable")
    assert facts is not None
    lines = [line for qualified, line in facts.defs if qualified == name]
    if lines:
        return AnchorResult(shown, Verdict.VERIFIED, f"{path}:{lines[0]} defines {name}", [Evidence(path, lines[0], f"defines {name}")], state="defined")
    reexported = _reexported(path, name, facts, context, set()) if symbol.module_path is not None else None
    if reexported:
        first, last = reexported[0], reexported[-1]
        reason = f"{first.location()} {first.detail}, re-exported at {last.location()}"
        if len(reexported) == 1:
            reason = f"{last.location()} imports {name} from another distribution"
        return AnchorResult(shown, Verdict.VERIFIED, reason, reexported, state="defined")
    if facts.error is not None:
        return AnchorResult(shown, Verdict.INCONCLUSIVE, f"{name} not found, but {path} does not parse cleanly (line {facts.error})", state="unparsed")
    last = name.rsplit(".", 1)[-1]
    similar = [f"{q} (line {n})" for q, n in facts.defs if q.rsplit(".", 1)[-1] == last][:3]
    reason = f"{path} does not define {name}"
    if similar:
        reason += f"; it defines {', '.join(similar)}"
    return AnchorResult(shown, Verdict.REFUTED, reason, state="undefined")


def _first_party(dotted: str, context: Context) -> bool:
    """Whether the top-level package of a dotted name lives under one of the source roots."""
    top = dotted.split(".")[0]
    return any(context.repo.exists(f"{root}{top}") or context.repo.exists(f"{root}{top}.py") for root in _roots(context))


def _reexported(path: str, name: str, facts: Facts, context: Context, seen: set[tuple[str, str]]) -> list[Evidence] | None:
    """Evidence that a module binds `name` by a module-level `from m import n [as name]` (or
    `from m import *`), as a package's `__init__.py` re-exports its API: the definition it leads
    to, then each re-export on the way. None when nothing binds it, or first-party code lacks it."""
    head, _, rest = name.partition(".")
    for local, source, line in facts.bound:
        target = resolve_import(source, path, context.repo) if local in (head, "*") else None
        if target is None:
            continue
        if local == "*":
            dotted = f"{target[: -len('.*')]}.{name}"
        else:
            dotted = f"{target}.{rest}" if rest else target
        found = _defined(dotted, context, seen)
        if found is not None and (found or local != "*"):  # a star import from elsewhere says nothing
            return [*found, Evidence(path, line, f"re-exports {head}")]
    return None


def _defined(dotted: str, context: Context, seen: set[tuple[str, str]]) -> list[Evidence] | None:
    """Where a dotted name is defined, following re-exports (each module and name once: imports
    may be circular); [] for a name of another distribution, None when first-party code lacks it."""
    resolved = _resolve_module(dotted, context)
    if resolved is None:
        return None if _first_party(dotted, context) else []
    if resolved in seen:
        return None
    seen.add(resolved)
    path, name = resolved
    try:
        facts = SourceIndex.of(context).facts(path)
    except OSError:
        return None
    lines = [line for qualified, line in facts.defs if qualified == name] if facts is not None else []
    if lines:
        return [Evidence(path, lines[0], f"defines {name}")]
    return _reexported(path, name, facts, context, seen) if facts is not None else None


def _roots(context: Context) -> list[str]:
    configured = context.settings(_PLUGIN).get("source-roots", [])
    roots = ["", *(f"{r}/" for r in SOURCE_ROOTS)]
    roots += [f"{str(r).strip('/')}/" for r in configured if isinstance(r, str) and str(r).strip("/")]
    return roots


def _resolve_module(dotted: str, context: Context) -> tuple[str, str] | None:
    """The longest module prefix that is a file under a source root, and the name left in it."""
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        module = "/".join(parts[:cut])
        for root in _roots(context):
            for candidate in (f"{root}{module}.py", f"{root}{module}/__init__.py", f"{root}{module}.pyi"):
                if context.repo.is_file(candidate):
                    return candidate, ".".join(parts[cut:])
    return None


@hookimpl
def register_anchor_kinds(register):  # noqa: ANN001, ANN201 - hook signature
    register(
        AnchorKind(
            prefix="sym",
            verify=verify_sym,
            parse=parse_sym,
            summary="the file defines that qualified name (classes, functions, methods, constants)",
            example="sym:src/cache.py::RedisCache.get",
        )
    )
