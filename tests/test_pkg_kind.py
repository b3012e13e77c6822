"""The `pkg:` kind: value parsing, shorthand, scopes, negation, versions, and the closed-world rules."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anchorcheck.model.anchors import AnchorSyntaxError, format_anchor, parse_anchor
from anchorcheck.verify.loading import default_registry
from anchorcheck_plugins.kinds.pkg import PackageRef, parse_pkg
from tests._pkg_support import verdict, verifier, write

PYPROJECT = '[project]\nname = "svc"\ndependencies = ["redis>=5,<6", "Flask_SQLAlchemy"]\n'
LOCK = 'version = 1\n[[package]]\nname = "redis"\nversion = "5.2.1"\n'


@pytest.mark.parametrize(
    ("value", "ref"),
    [
        ("pypi/redis", PackageRef("pypi", "redis")),
        ("npm/%40scope/x@1.2.3", PackageRef("npm", "@scope/x", "1.2.3")),
        ("cargo/serde@^1.0", PackageRef("cargo", "serde", "^1.0")),
        ("golang/github.com/spf13/pflag@v1.0.9", PackageRef("golang", "github.com/spf13/pflag", "v1.0.9")),
        ("pypi/redis@>=5,<6", PackageRef("pypi", "redis", ">=5,<6")),
        ("redis", PackageRef(None, "redis")),
        ("redis@5.2.1", PackageRef(None, "redis", "5.2.1")),
    ],
)
def test_parse(value: str, ref: PackageRef) -> None:
    assert parse_pkg(value) == ref


def test_range_or_exact() -> None:
    assert parse_pkg("pypi/redis@5.2.1").is_range is False
    assert parse_pkg("npm/react@18.x").is_range is True
    assert parse_pkg("npm/react@^18").is_range is True
    assert parse_pkg("pypi/redis@>=5,<6").is_range is True


@pytest.mark.parametrize(
    ("text", "column"),
    [("pkg:pypi/redis?extra=x", 15), ("pkg:re dis", 1), ("pkg:redis@", 11), ("pkg:%%%", 5)],
)
def test_malformed_values_name_the_column(text: str, column: int) -> None:
    with pytest.raises(AnchorSyntaxError) as caught:
        parse_anchor(text, default_registry().kinds)
    if " " not in text:
        assert caught.value.column == column


def test_round_trip_with_scope_and_negation() -> None:
    kinds = default_registry().kinds
    for text in ("!pkg:pypi/celery", "pkg:npm/%40types/node in:web/", "pkg:redis@5.2.1"):
        assert format_anchor(parse_anchor(text, kinds)) == text


def test_verdicts(tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": PYPROJECT, "uv.lock": LOCK})
    v = verifier(tmp_path)
    assert v.check("pkg:pypi/redis").verdict.value == "VERIFIED"
    assert v.check("pkg:pypi/flask-sqlalchemy").verdict.value == "VERIFIED"  # PEP 503
    assert v.check("pkg:pypi/flask.sqlalchemy").verdict.value == "VERIFIED"
    assert v.check("!pkg:pypi/celery").verdict.value == "VERIFIED"
    assert v.check("!pkg:pypi/redis").verdict.value == "REFUTED"
    assert v.check("pkg:redis@5.2.1").verdict.value == "VERIFIED"
    refuted = v.check("pkg:pypi/redis@5.0.0")
    assert refuted.verdict.value == "REFUTED" and "5.2.1" in refuted.reason and "5.0.0" in refuted.reason
    unversioned = v.check("pkg:pypi/flask-sqlalchemy@3.1")
    assert unversioned.verdict.value == "INCONCLUSIVE" and "no lockfile" in unversioned.reason
    stdlib = v.check("pkg:pypi/sqlite3")
    assert stdlib.verdict.value == "INCONCLUSIVE" and "standard library" in stdlib.reason
    assert v.check("pkg:npm/redis").verdict.value == "INCONCLUSIVE"  # no npm manifest
    unknown = v.check("pkg:gem/rails")
    assert unknown.verdict.value == "INCONCLUSIVE" and "gem" in unknown.reason
    bad_range = v.check("pkg:pypi/redis@>=>5")
    assert bad_range.verdict.value == "INCONCLUSIVE"


def test_evidence_names_file_line_relation_specifier_and_lock(tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": PYPROJECT, "uv.lock": LOCK})
    result = verifier(tmp_path).check("pkg:pypi/redis")
    assert [(e.path, e.line) for e in result.evidence] == [("pyproject.toml", 3), ("uv.lock", 2)]
    assert result.evidence[0].detail == "a direct dependency, specifier <6,>=5, locked 5.2.1"
    assert result.evidence[1].detail == "lockfile entry, locked 5.2.1"
    assert result.reason == "redis is a direct dependency"


def test_shorthand_any_ecosystem(tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": PYPROJECT, "web/package.json": '{"dependencies": {"zod": "^3"}}'})
    assert verdict(tmp_path, "pkg:zod") == "VERIFIED"
    assert verdict(tmp_path, "pkg:redis") == "VERIFIED"
    assert verdict(tmp_path, "pkg:left-pad") == "REFUTED"  # every present ecosystem refutes
    assert verdict(tmp_path / "web", "pkg:redis") == "REFUTED"
    write(tmp_path, {"setup.py": "import os\nsetup(install_requires=os.environ['X'].split())\n"})
    assert verdict(tmp_path, "pkg:left-pad") == "INCONCLUSIVE"  # pypi is now dynamic
    tools = write(tmp_path / "js", {"package.json": '{"dependencies": {"zod": "^3"}}', "pyproject.toml": "[tool.black]\n"})
    assert verdict(tools, "pkg:left-pad") == "REFUTED"  # a tool-only pyproject.toml is not a pypi manifest
    empty = tmp_path / "empty"
    empty.mkdir()
    assert verdict(empty, "pkg:redis") == "INCONCLUSIVE"


def test_scope_to_a_missing_directory_is_inconclusive(tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": PYPROJECT})
    assert verdict(tmp_path, "pkg:pypi/redis in:nowhere/") == "INCONCLUSIVE"
    assert verdict(tmp_path, "pkg:pypi/redis in:../elsewhere") == "INCONCLUSIVE"
    assert verdict(tmp_path, "pkg:pypi/redis in:*.toml") == "VERIFIED"


def test_each_manifest_parsed_once_per_verifier(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from anchorcheck_plugins.ecosystems import parsing

    write(tmp_path, {"pyproject.toml": PYPROJECT, "uv.lock": LOCK})
    calls = []
    original = parsing.parse_toml
    monkeypatch.setattr(parsing, "parse_toml", lambda data: calls.append(len(data)) or original(data))
    v = verifier(tmp_path)
    for anchor in ("pkg:pypi/redis", "pkg:pypi/celery", "pkg:redis", "pkg:pypi/redis in:pyproject.toml", "pkg:pypi/x in:."):
        v.check(anchor)
    assert len(calls) == 2  # pyproject.toml and uv.lock, once each


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_any_value_parses_or_raises_a_syntax_error(value: str) -> None:
    try:
        ref = parse_pkg(value)
    except AnchorSyntaxError as exc:
        assert exc.column >= 1
    else:
        assert ref.name
