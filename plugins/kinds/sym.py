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
    unsure: list[str] = []
    reexported = _reexported(path, name, facts, context, {(path, name)}, unsure) if symbol.module_path is not None else None
    if reexported:
        first, last = reexported[0], reexported[-1]
        reason = f"{first.location()} {first.detail}" + (f", re-exported at {last.location()}" if len(reexported) > 1 else "")
        return AnchorResult(shown, Verdict.VERIFIED, reason, reexported, state="defined")
    if facts.error is not None:
        return AnchorResult(shown, Verdict.INCONCLUSIVE, f"{name} not found, but {path} does not parse cleanly (line {facts.error})", state="unparsed")
    if unsure:
        return AnchorResult(shown, Verdict.INCONCLUSIVE, f"{path} does not define {name}, but {unsure[0]}", state="unfollowed")
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


def _reexported(path: str, name: str, facts: Facts, context: Context, seen: set[tuple[str, str]], unsure: list[str]) -> list[Evidence] | None:
    """Evidence that a module binds `name` by a module-level `from m import n [as name]` (or
    `from m import *`), as a package's `__init__.py` re-exports its API: the definition it leads
    to, then each re-export on the way. None when nothing that can be followed binds it; `unsure`
    gets why a binding could not be followed (a star import of compiled or third-party code, a
    module `__getattr__`), which makes absence unprovable."""
    if any(qualified == "__getattr__" for qualified, _ in facts.defs):
        unsure.append(f"{path} defines a module __getattr__, which may provide any name")
    head, _, rest = name.partition(".")
    for local, source, line in facts.bound:
        target = resolve_import(source, path, context.repo) if local in (head, "*") else None
        if target is None:
            continue
        context.check_deadline()
        module, _, imported = target.rpartition(".")
        wanted = name if local == "*" else ".".join(part for part in (imported, rest) if part)
        found = _followed(module, wanted, context, seen, unsure)
        if found is None and local != "*" and rest and _module_file(f"{module}.{imported}", context):
            found = _followed(f"{module}.{imported}", rest, context, seen, unsure)  # `from pkg import sub`
        if found:
            return [*found, Evidence(path, line, f"re-exports {head}")]
        if found is None:
            continue  # its source lacks the name: this import fails, it binds nothing
        if local != "*" and not rest:  # the import binds the name, from code there is no source of here
            return [Evidence(path, line, f"imports {head} from {module} (not followed: no Python source for it here)")]
        unsure.append(f"{path}:{line} imports {'*' if local == '*' else head} from {module}, which has no Python source here")
    return None


def _followed(module: str, name: str, context: Context, seen: set[tuple[str, str]], unsure: list[str]) -> list[Evidence] | None:
    """Where a module's name is defined, following its re-exports (each module and name once:
    imports may be circular). [] when the module has no Python source here (another
    distribution, a compiled extension), None when its source lacks the name."""
    path = _module_file(module, context)
    if path is None:
        return []
    if (path, name) in seen:
        return None
    seen.add((path, name))
    try:
        facts = SourceIndex.of(context).facts(path)
    except OSError:
        unsure.append(f"cannot read {path}")
        return None
    if facts is None:
        return []
    lines = [line for qualified, line in facts.defs if qualified == name]
    if lines:
        return [Evidence(path, lines[0], f"defines {name}")]
    return _reexported(path, name, facts, context, seen, unsure)


def _roots(context: Context) -> list[str]:
    configured = context.settings(_PLUGIN).get("source-roots", [])
    roots = ["", *(f"{r}/" for r in SOURCE_ROOTS)]
    roots += [f"{str(r).strip('/')}/" for r in configured if isinstance(r, str) and str(r).strip("/")]
    return roots


def _resolve_module(dotted: str, context: Context) -> tuple[str, str] | None:
    """The longest module prefix that is a file under a source root, and the name left in it."""
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        path = _module_file(".".join(parts[:cut]), context)
        if path is not None:
            return path, ".".join(parts[cut:])
    return None


def _module_file(module: str, context: Context) -> str | None:
    """The Python source of exactly this module under a source root, if there is one."""
    base = module.replace(".", "/")
    for root in _roots(context):
        for candidate in (f"{root}{base}.py", f"{root}{base}/__init__.py", f"{root}{base}.pyi"):
            if context.repo.is_file(candidate):
                return candidate
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
