"""What every PyPI reader shares: name normalization and PEP 508 requirement strings as declarations.

packaging (its requirement parser imports markers, tags, logging and platform: about half of a
`python -c pass`, 61 ms of reading one pyproject.toml) is imported only for a requirement string
beyond the common shapes read here as packaging reads them: a name, extras, release specifiers and a
marker of plain comparisons joined by `and`/`or` (`requests`, `django~=5.2`, `celery[redis]`,
`flit_core>=3.11,<4`, `gha-update ; python_full_version >= '3.12'`). No marker is evaluated: a
declaration with one is declared whatever the platform.
"""

from __future__ import annotations

import re

from anchorcheck.plugin import Declaration, ManifestError, later

_SEPARATORS = re.compile(r"[-_.]+")
# A PEP 508 name alone, or followed by one specifier on a release of digits: what packaging reads back
# as the same name and `operator + version`, verbatim. Anything else (extras, markers, URLs, spaces,
# several specifiers, which packaging sorts and deduplicates by version) goes to packaging.
_PLAIN = re.compile(r"([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)(?:(>=|<=|==|!=|<|>)([0-9]+(?:\.[0-9]+)*)|(~=)([0-9]+(?:\.[0-9]+)+))?")
# The common shapes beyond it, each part as packaging writes it back: `str(SpecifierSet)` is the distinct
# specifiers (blanks dropped) sorted; `str(Marker)` each comparison as `variable op "value"`. Outside them
# (parentheses, `extra`, legacy dotted names, pre-releases, URLs): packaging. Compiled at their first use
# (about 1.3 ms): a manifest of plain requirements never needs them.
_IDENT = r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?"
_SPEC = r"\s*(?:(?:>=|<=|<|>)\s*[0-9]+(?:\.[0-9]+)*|(?:==|!=)\s*[0-9]+(?:\.[0-9]+)*(?:\.\*)?|~=\s*[0-9]+(?:\.[0-9]+)+)\s*"
_VARIABLE = (
    r"(?:python_version|python_full_version|os_name|sys_platform|platform_release|platform_system|platform_version"
    r"|platform_machine|platform_python_implementation|implementation_name|implementation_version)"
)
_COMPARISON = rf"\s*{_VARIABLE}\s*(?:==|!=|<=|>=|<|>|~=|\s(?:not\s+)?in\s)\s*(?:'[^'\"]*'|\"[^'\"]*\")\s*"
_COMMON = later(rf"\s*({_IDENT})\s*(\[\s*(?:{_IDENT}(?:\s*,\s*{_IDENT})*)?\s*\])?\s*((?:{_SPEC})(?:,{_SPEC})*)?\s*(?:;({_COMPARISON}(?:(?:and|or){_COMPARISON})*))?")
_SPECIFIER_PART = later(r"(~=|==|!=|<=|>=|<|>)\s*([0-9.*]+)")
_MARKER_PART = later(rf"({_VARIABLE})\s*(==|!=|<=|>=|<|>|~=|not\s+in|in)\s*['\"]([^'\"]*)['\"]|\b(and|or)\b")


def canonical(name: str) -> str:
    """PEP 503: `Flask_SQLAlchemy` and `flask.sqlalchemy` are the same distribution (packaging's
    `canonicalize_name`, without importing it)."""
    return _SEPARATORS.sub("-", name).lower()


def normalize(name: str) -> str:
    """A name as written in a manifest, surrounding blanks dropped, in its PEP 503 form."""
    return canonical(name.strip())


def declare(
    text: str,
    relation: str,
    file: str,
    line: int | None,
    group: str | None = None,
) -> Declaration:
    """A PEP 508 requirement string as a Declaration; ManifestError (with the line) when invalid."""
    plain = _PLAIN.fullmatch(text)
    if plain is not None:
        name, operator, version, compatible, release = plain.groups()
        specifier = (operator or compatible or "") + (version or release or "")
    else:
        name, specifier = _common(text) or _parsed(text, line)
    return Declaration(name=normalize(name), relation=relation, file=file, line=line, specifier=specifier, group=group, written=name)


def is_common(text: str) -> bool:
    """Whether a requirement string is one this module reads without packaging (it is then valid)."""
    return _PLAIN.fullmatch(text) is not None or _common(text) is not None


def _common(text: str) -> tuple[str, str] | None:
    """The name and specifier of a requirement of the common shapes (see the module's docstring), as
    packaging would give them; None for any other."""
    found = _COMMON.fullmatch(text)
    if found is None:
        return None
    name, _, specifiers, marker = found.groups()
    parts = set(_SPECIFIER_PART.findall(specifiers or ""))
    if len({op for op, _ in parts}) != len(parts):
        return None  # `>=1,>=1.0`: packaging keeps one of two equal specifiers, which one by hash order
    specifier = ",".join(sorted(op + version for op, version in parts))
    if marker:
        words = [joiner or f'{variable} {" ".join(op.split())} "{value}"' for variable, op, value, joiner in _MARKER_PART.findall(marker)]
        specifier = f"{specifier} ; {' '.join(words)}" if specifier else f"; {' '.join(words)}"
    return name, specifier


def _parsed(text: str, line: int | None) -> tuple[str, str]:
    """The name and specifier (URL and marker included) packaging reads in a requirement string."""
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        requirement = Requirement(text)
    except InvalidRequirement as exc:
        raise ManifestError(f"invalid requirement {text!r}: {str(exc).splitlines()[0]}", line) from None
    specifier = str(requirement.specifier)
    if requirement.url:
        specifier = f"@ {requirement.url}"
    if requirement.marker is not None:
        specifier = f"{specifier} ; {requirement.marker}" if specifier else f"; {requirement.marker}"
    return requirement.name, specifier


def string_list(value: object, where: str, line: int | None = None) -> list[str]:
    """A list of requirement strings, as the formats require; anything else is a ManifestError."""
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ManifestError(f"{where} should be a list of requirement strings", line)
    return value
