"""Semver ranges in the npm, Cargo and Go dialects, against the rules those tools document."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from anchorcheck_plugins.ecosystems.semver import RangeError, SemVer, matches, same_version


@pytest.mark.parametrize(
    ("dialect", "spec", "yes", "no"),
    [
        ("npm", "^1.2.3", ["1.2.3", "1.9.0"], ["2.0.0", "1.2.2", "2.0.0-rc.1"]),
        ("npm", "^0.2.3", ["0.2.9"], ["0.3.0"]),
        ("npm", "^0.0.3", ["0.0.3"], ["0.0.4"]),
        ("npm", "~1.2", ["1.2.0", "1.2.99"], ["1.3.0"]),
        ("npm", "1.x", ["1.0.0", "1.99.0"], ["2.0.0"]),
        ("npm", "1.2", ["1.2.5"], ["1.3.0"]),
        ("npm", ">=1.2 <2", ["1.5.0"], ["2.0.0", "1.1.0"]),
        ("npm", ">=1.2,<2", ["1.5.0"], ["2.0.0"]),
        ("npm", "1.0.0 - 2.3", ["2.3.9"], ["2.4.0"]),
        ("npm", "<1 || >=3", ["0.5.0", "3.1.0"], ["2.0.0"]),
        ("npm", "*", ["0.0.1"], []),
        ("npm", ">1.2", ["1.3.0"], ["1.2.9"]),
        ("npm", "<=1.2", ["1.2.9"], ["1.3.0"]),
        ("cargo", "1.2", ["1.9.0"], ["2.0.0", "1.1.0"]),
        ("cargo", "=1.2", ["1.2.7"], ["1.3.0"]),
        ("cargo", "~1", ["1.9.9"], ["2.0.0"]),
        ("cargo", ">=1.0, <1.5", ["1.4.9"], ["1.5.0"]),
        ("cargo", "0.*", ["0.9.0"], ["1.0.0"]),
        ("golang", ">=v1.8.0,<v2.0.0", ["v1.9.0", "v1.8.0"], ["v2.0.0", "v1.7.9"]),
        ("golang", "<v0.0.0", ["v0.0.0-20210101000000-abcdef123456"], ["v0.0.0"]),  # a pseudo-version is a pre-release
    ],
)
def test_ranges(dialect: str, spec: str, yes: list[str], no: list[str]) -> None:
    for version in yes:
        assert matches(spec, version, dialect), (spec, version)
    for version in no:
        assert not matches(spec, version, dialect), (spec, version)


def test_precedence_and_equality() -> None:
    assert SemVer.parse("1.0.0-alpha") < SemVer.parse("1.0.0-alpha.1") < SemVer.parse("1.0.0-beta") < SemVer.parse("1.0.0")
    assert SemVer.parse("1.0.0-2") < SemVer.parse("1.0.0-10") < SemVer.parse("1.0.0-a")
    assert same_version("v1.0.9", "1.0.9") and same_version("1.0.0+build", "1.0.0")
    assert matches(">=v2", "v2.0.0+incompatible", "golang")


@pytest.mark.parametrize(("spec", "dialect"), [("^one", "npm"), ("1.x.2", "npm"), ("v1.2", "golang"), (">=1", "gem")])
def test_unreadable_ranges(spec: str, dialect: str) -> None:
    with pytest.raises(RangeError):
        matches(spec, "1.2.3", dialect)


@given(st.text(alphabet="0123456789.xX*^~<>=|, -v", max_size=20), st.sampled_from(["npm", "cargo", "golang"]))
def test_any_range_matches_or_raises_range_error(spec: str, dialect: str) -> None:
    try:
        assert matches(spec, "1.2.3", dialect) in (True, False)
    except RangeError:
        pass
