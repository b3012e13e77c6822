"""TypeScript and TSX: the JavaScript walk plus `import x = require("y")` and type-only imports.

Two grammars (`typescript` for .ts, `tsx` for .tsx) share one set of queries.
"""

from __future__ import annotations

from anchorcheck import Language, hookimpl
from anchorcheck.plugin import Facts, Parsed, string_value
from anchorcheck_plugins.languages import javascript

QUERIES = {
    **javascript.QUERIES,
    "require_clause": "(import_require_clause source: (string) @source) @stmt",
}


def extract(parsed: Parsed) -> Facts:
    facts = javascript.extract(parsed)
    for stmt in parsed.captures("require_clause").get("stmt", []):
        source = stmt.child_by_field_name("source")
        value = string_value(source) if source is not None else None
        if value:
            facts.imports.append((value, Parsed.line(stmt), ""))
    return facts


def _language(name: str, extensions: tuple[str, ...]) -> Language:
    return Language(
        name=name,
        extensions=extensions,
        grammar=name,
        queries=QUERIES,
        extract=extract,
        import_segments=javascript.import_segments,
        env_markers=javascript.ENV_MARKERS,
        module_files=javascript.LANGUAGE.module_files,
        definitions=javascript.definitions_of,  # `extract` is JavaScript's, its definitions first
    )


LANGUAGES = (_language("typescript", (".ts", ".mts", ".cts")), _language("tsx", (".tsx",)))


@hookimpl
def register_languages(register):  # noqa: ANN001, ANN201 - hook signature
    for language in LANGUAGES:
        register(language)
