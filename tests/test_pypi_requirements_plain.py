"""A requirement string of the common shapes (a name, extras, release specifiers, a marker of plain
comparisons) is read without packaging; every other one by packaging. Either way the declaration is the
one packaging gives, byte for byte."""

from __future__ import annotations

import re
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from anchorcheck.evidence.packages import ManifestError
from anchorcheck_plugins.ecosystems.pypi_common import _parsed, declare, normalize
from tests._pkg_support import MANIFESTS, needs_corpus

_NAME = st.from_regex(r"[A-Za-z0-9]([A-Za-z0-9._-]{0,6}[A-Za-z0-9])?", fullmatch=True)
_OPERATOR = st.sampled_from(["", ">=", "<=", "==", "!=", "~=", "<", ">", "===", "= ", ">= ", "=="])
_VERSION = st.from_regex(r"(\d{1,3}(\.\d{1,3}){0,3}|\d+\.\*|1\.0a1|2\.x|0\.)", fullmatch=True)
_TAIL = st.sampled_from(["", ",<3", " ", "[extra]", " ; python_version<'3.12'", "@ https://x/y.whl", ",", ".0"])


def _by_packaging(text: str) -> tuple[str, str] | str:
    try:
        return _parsed(text, 1)
    except ManifestError as exc:
        return str(exc)


def _by_declare(text: str) -> tuple[str, str] | str:
    try:
        found = declare(text, "direct", "f", 1)
    except ManifestError as exc:
        return str(exc)
    assert found.name == canonicalize_name(found.written)
    return found.written, found.specifier


@given(_NAME, _OPERATOR, _VERSION, _TAIL)
def test_a_requirement_reads_as_packaging_reads_it(name: str, operator: str, version: str, tail: str) -> None:
    text = f"{name}{operator}{version if operator else ''}{tail}"
    assert _by_declare(text) == _by_packaging(text)


@pytest.mark.parametrize("text", ["requests", "requests>=2", "Django~=5.2", "a.b_c-d==1.0.0", "x!=01", "y<2", "z>1.2.3.4"])
def test_a_plain_requirement_does_not_import_packaging(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "packaging.requirements", None)  # an import of it would raise
    found = declare(text, "direct", "f", 3)
    assert (found.written, found.specifier) == (Requirement(text).name, str(Requirement(text).specifier))


_SPECIFIERS = st.lists(st.tuples(st.sampled_from([">=", "<=", "==", "!=", "~=", "<", ">", "==="]), _VERSION, st.sampled_from(["", " "])), max_size=3)
_COMPARISON = st.tuples(
    st.sampled_from(["python_version", "python_full_version", "sys_platform", "os_name", "platform_machine", "extra", "os.name", "implementation_name"]),
    st.sampled_from(["==", "!=", "<", ">=", "~=", " in ", " not in ", "in", "===", " not  in "]),
    st.sampled_from(["'3.12'", '"win32"', "'x86_64 aarch64'", "'Foo_Bar'", "''", "'a\"b'", "3"]),
)
_MARKER = st.lists(st.tuples(_COMPARISON, st.sampled_from([" and ", " or ", "and ", " AND ", ") or ("])), min_size=1, max_size=3)


@given(_NAME, st.sampled_from(["", "[x]", "[ a , b ]", "[]", "[-x]"]), _SPECIFIERS, st.none() | _MARKER, st.sampled_from(["", " ", ";"]))
def test_a_requirement_with_extras_specifiers_and_a_marker_reads_as_packaging_reads_it(name, extras, specifiers, marker, space) -> None:
    text = name + extras + ",".join(f"{space}{op}{version}" for op, version, space in specifiers)
    if marker is not None:
        text += space + ";" + "".join(f"{var}{op}{value}{joiner}" for (var, op, value), joiner in marker)[: -len(marker[-1][1])]
    assert _by_declare(text) == _by_packaging(text)


@pytest.mark.parametrize(
    "text",
    ["celery[redis]", "flit_core>=3.11,<4", "gha-update ; python_full_version >= '3.12'", "a[x, y] >=1 ; platform_machine in 'x86_64 aarch64'",
     "pywin32>=300; sys_platform == 'win32' and python_version < '3.13' or os_name == \"nt\"", "x>=1.0, !=1.5.*, <2"],
)
def test_a_common_requirement_does_not_import_packaging(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = _parsed(text, 3)
    monkeypatch.setitem(sys.modules, "packaging.requirements", None)
    found = declare(text, "direct", "f", 3)
    assert (found.written, found.specifier) == expected


@pytest.mark.parametrize("text", ["x~=1", "x>=2.*", "x>=1.0a1", "x===1", "-x", "x;(os_name=='nt')", "x; extra == 'Foo_Bar'", "x>=1,>=1.0", "x @ https://h/x.whl"])
def test_anything_else_is_packagings(text: str) -> None:
    assert _by_declare(text) == _by_packaging(text)


@given(st.text(alphabet="AbZ09._- \t", max_size=12))
def test_normalize_is_packagings_canonical_name(name: str) -> None:
    assert normalize(name) == canonicalize_name(name.strip())


@needs_corpus
def test_every_requirement_of_the_corpus_reads_as_packaging_reads_it() -> None:
    assert MANIFESTS is not None
    texts = {m for path in MANIFESTS.rglob("*.toml") for m in re.findall(r'"([A-Za-z0-9][^"\n]{0,80})"', path.read_text(errors="replace"))}
    texts |= {line.strip() for path in MANIFESTS.rglob("*.txt") for line in path.read_text(errors="replace").splitlines()}
    assert len(texts) > 50
    assert {t: _by_declare(t) for t in texts} == {t: _by_packaging(t) for t in texts}
