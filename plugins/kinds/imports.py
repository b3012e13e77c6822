"""`import:MODULE` — the parsed source imports that module or a submodule of it.

Matching is by whole segments (`import:mcp` matches `mcp.server.fastmcp`,
never `mcpx`), with each language's own separator. Absence is a closed-world
claim over the files in scope that some language plugin parses: a file whose
bytes lack the module's first segment cannot import it and is ruled out
unparsed; a candidate that failed to parse or read makes absence INCONCLUSIVE.
"""

from __future__ import annotations

from anchorcheck import AnchorKind, AnchorResult, Verdict, hookimpl
from anchorcheck.anchors import Anchor, AnchorSyntaxError
from anchorcheck.context import Context
from anchorcheck.facts import Facts
from anchorcheck.index import SourceIndex
from anchorcheck.registry import Language
from anchorcheck_plugins.kinds._source import MAX_EVIDENCE, coverage, evidence, places, scope_words


def parse_import(value: str) -> str:
    if not value or value.startswith((".", "/")) or any(c.isspace() for c in value):
        raise AnchorSyntaxError("expected an absolute module name such as 'redis' or 'mcp.server'", column=1)
    return value


def _segments(language: Language, module: str) -> tuple[str, ...]:
    split = language.import_segments
    return split(module) if split is not None else (module,)


def imports_of(facts: Facts, path: str, language: Language, context: Context) -> list[tuple[str, int, str]]:
    """The file's imports with relative ones resolved to absolute module names."""
    resolved = []
    for module, line, flag in facts.imports:
        if module.startswith(".") and language.resolve_import is not None:
            absolute = language.resolve_import(module, path, context.repo)
            if absolute is None:
                continue
            module = absolute
        resolved.append((module, line, flag))
    return resolved


def verify_import(anchor: Anchor, context: Context) -> AnchorResult:
    module = anchor.detail or parse_import(anchor.value)
    shown = str(anchor)
    index = SourceIndex.of(context)

    def needles(language: Language) -> list[bytes]:
        first = _segments(language, module)[0]
        return list({first.encode(), first.replace("-", "_").encode()})

    def always(path: str, language: Language) -> bool:
        # A relative import names no package: keep files that live inside the package.
        first = _segments(language, module)[0]
        return language.resolve_import is not None and first in path.split("/")[:-1]

    search = index.search(anchor.scope, needles, always)
    found, shaky = [], []
    for path, facts in search.hits:
        language = index.language(path)
        assert language is not None  # search only returns files a language parses
        target = _segments(language, module)
        lines = set()
        for name, line, flag in imports_of(facts, path, language, context):
            if line not in lines and _segments(language, name)[: len(target)] == target:
                lines.add(line)
                found.append(evidence(path, line, f"imports {name}", flag))
        if facts.error is not None:
            shaky.append(f"{path}:{facts.error}")
    where = scope_words(anchor.scope)
    if found:
        flags = {e.detail for e in found}
        reason = f"{module} is imported{where} {places(found)}"
        if all("type-checking" in d or "optional" in d for d in flags):
            reason += "; every import is optional or TYPE_CHECKING-only"
        return AnchorResult(shown, Verdict.VERIFIED, reason, found[:MAX_EVIDENCE], state="imported", details={"imports": len(found)})
    if search.searched == 0:
        return AnchorResult(shown, Verdict.INCONCLUSIVE, f"no source file{where} is in a language anchorcheck parses", state="no-source")
    if search.unreadable or shaky:
        bad = [*search.unreadable, *(f"{s} (syntax error)" for s in shaky)]
        return AnchorResult(
            shown,
            Verdict.INCONCLUSIVE,
            f"no import of {module} found{where}, but {len(bad)} candidate file(s) could not be read or parsed: {', '.join(bad[:3])}",
            state="unparsed",
        )
    return AnchorResult(shown, Verdict.REFUTED, f"nothing{where} imports {module}; {coverage(search)}", state="not-imported")


@hookimpl
def register_anchor_kinds(register):  # noqa: ANN001, ANN201 - hook signature
    register(
        AnchorKind(
            prefix="import",
            verify=verify_import,
            parse=parse_import,
            scoped=True,
            summary="the parsed source imports the module or a submodule of it",
            example="import:redis in:src/",
        )
    )
