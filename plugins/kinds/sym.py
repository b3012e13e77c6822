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
from anchorcheck.index import SourceIndex
from anchorcheck_plugins.languages.python import SOURCE_ROOTS

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
            if any(context.repo.exists(f"{root}{top}") or context.repo.exists(f"{root}{top}.py") for root in _roots(context)):
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
    if facts.error is not None:
        return AnchorResult(shown, Verdict.INCONCLUSIVE, f"{name} not found, but {path} does not parse cleanly (line {facts.error})", state="unparsed")
    last = name.rsplit(".", 1)[-1]
    similar = [f"{q} (line {n})" for q, n in facts.defs if q.rsplit(".", 1)[-1] == last][:3]
    reason = f"{path} does not define {name}"
    if similar:
        reason += f"; it defines {', '.join(similar)}"
    return AnchorResult(shown, Verdict.REFUTED, reason, state="undefined")


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
