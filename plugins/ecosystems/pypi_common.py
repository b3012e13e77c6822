"""What every PyPI reader shares: name normalization and PEP 508 requirement strings as declarations."""

from __future__ import annotations

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from anchorcheck.packages import Declaration, ManifestError


def normalize(name: str) -> str:
    """PEP 503: `Flask_SQLAlchemy` and `flask.sqlalchemy` are the same distribution."""
    return canonicalize_name(name.strip())


def declare(
    text: str,
    relation: str,
    file: str,
    line: int | None,
    group: str | None = None,
) -> Declaration:
    """A PEP 508 requirement string as a Declaration; ManifestError (with the line) when invalid."""
    try:
        requirement = Requirement(text)
    except InvalidRequirement as exc:
        raise ManifestError(f"invalid requirement {text!r}: {str(exc).splitlines()[0]}", line) from None
    specifier = str(requirement.specifier)
    if requirement.url:
        specifier = f"@ {requirement.url}"
    if requirement.marker is not None:
        specifier = f"{specifier} ; {requirement.marker}" if specifier else f"; {requirement.marker}"
    return Declaration(
        name=normalize(requirement.name),
        relation=relation,
        file=file,
        line=line,
        specifier=specifier,
        group=group,
        written=requirement.name,
    )


def string_list(value: object, where: str, line: int | None = None) -> list[str]:
    """A list of requirement strings, as the formats require; anything else is a ManifestError."""
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ManifestError(f"{where} should be a list of requirement strings", line)
    return value
