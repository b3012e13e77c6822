"""What every PyPI reader shares: name normalization and PEP 508 requirement strings as declarations.

packaging (its requirement parser imports markers, tags, logging and platform: about half of a
`python -c pass`) is imported only for a requirement string that is more than a name and at most one
plain release specifier (`requests`, `requests>=2`, `django~=5.2`), which most manifests hold only.
"""

from __future__ import annotations

import re

from anchorcheck.plugin import Declaration, ManifestError

_SEPARATORS = re.compile(r"[-_.]+")
# A PEP 508 name alone, or followed by one specifier on a release of digits: what packaging reads back
# as the same name and `operator + version`, verbatim. Anything else (extras, markers, URLs, spaces,
# several specifiers, which packaging sorts and deduplicates by version) goes to packaging.
_PLAIN = re.compile(r"([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)(?:(>=|<=|==|!=|<|>)([0-9]+(?:\.[0-9]+)*)|(~=)([0-9]+(?:\.[0-9]+)+))?")


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
        name, specifier = _parsed(text, line)
    return Declaration(name=normalize(name), relation=relation, file=file, line=line, specifier=specifier, group=group, written=name)


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
