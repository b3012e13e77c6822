"""The anchor grammar: every surface form parses, formats back, and fails at the right column."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from anchorcheck.model.anchors import Anchor, AnchorSyntaxError, format_anchor, parse_anchor
from anchorcheck.model.registry import AnchorKind


def _never(anchor, context):  # the grammar tests never verify
    raise AssertionError("not called")


def _span_value(value: str) -> tuple[str, int]:
    path, _, lines = value.partition("#L")
    if not path or not lines.split("-L")[0].isdigit():
        raise AnchorSyntaxError("expected PATH#L<start>-L<end>", column=len(path) + 1)
    return path, int(lines.split("-L")[0])


KINDS = {
    "file": AnchorKind("file", _never),
    "span": AnchorKind("span", _never, parse=_span_value),
    "pkg": AnchorKind("pkg", _never, scoped=True),
    "import": AnchorKind("import", _never, scoped=True),
    "env": AnchorKind("env", _never, scoped=True),
    "sym": AnchorKind("sym", _never, scoped=True),
}


@pytest.mark.parametrize(
    "text, expected",
    [
        ("file:docs/adr/0003.md", Anchor("file", "docs/adr/0003.md")),
        ("span:src/cache.py#L10-L20", Anchor("span", "src/cache.py#L10-L20")),
        ("pkg:pypi/redis", Anchor("pkg", "pypi/redis")),
        ("pkg:npm/%40scope/x@1.2.3", Anchor("pkg", "npm/%40scope/x@1.2.3")),
        ("pkg:golang/github.com/spf13/pflag", Anchor("pkg", "golang/github.com/spf13/pflag")),
        ("pkg:redis", Anchor("pkg", "redis")),
        ("!pkg:pypi/celery", Anchor("pkg", "pypi/celery", negated=True)),
        ("import:mcp.server.fastmcp", Anchor("import", "mcp.server.fastmcp")),
        ("import:sqlite3 in:src/incidents/", Anchor("import", "sqlite3", scope="src/incidents/")),
        ("env:REDIS_URL in:src/**/*.py", Anchor("env", "REDIS_URL", scope="src/**/*.py")),
        ("sym:src/cache.py::RedisCache.get", Anchor("sym", "src/cache.py::RedisCache.get")),
        ("!import:redis in:docs/my%20notes", Anchor("import", "redis", negated=True, scope="docs/my notes")),
        ("  file:README.md  ", Anchor("file", "README.md")),
    ],
)
def test_every_surface_form_parses(text: str, expected: Anchor) -> None:
    assert parse_anchor(text, KINDS) == expected


def test_format_is_canonical() -> None:
    anchor = parse_anchor("!import:redis   in:docs/my%20notes", KINDS)
    assert format_anchor(anchor) == "!import:redis in:docs/my%20notes"


@pytest.mark.parametrize(
    "text, column, fragment",
    [
        ("", 1, "got nothing"),
        ("redis", 1, "anchor kind followed by ':'"),
        ("!!pkg:redis", 2, "anchor kind"),
        ("Pkg:redis", 1, "anchor kind"),
        ("nope:x", 1, "unknown anchor kind 'nope'"),
        ("pkg:", 5, "expected a value"),
        ("pkg:redis extra", 11, "' in:PATH' or the end"),
        ("pkg:redis in:", 14, "path, directory or glob"),
        ("file:a.txt in:src/", 12, "do not take an 'in:' scope"),
        ("import:x in:src/ more", 18, "expected the end of the anchor"),
        ("span:src/a.py#Lx", 14, "PATH#L<start>-L<end>"),
        ("file:a\nb", 7, "one line"),
    ],
)
def test_malformed_anchor_names_column(text: str, column: int, fragment: str) -> None:
    with pytest.raises(AnchorSyntaxError) as caught:
        parse_anchor(text, KINDS)
    assert caught.value.column == column
    assert fragment in str(caught.value)


def test_non_string_is_a_syntax_error() -> None:
    with pytest.raises(AnchorSyntaxError, match="expected an anchor string"):
        parse_anchor(42, KINDS)  # type: ignore[arg-type]


_value = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zs", "Zl", "Zp"), blacklist_characters="\x85\xa0"),
    min_size=1,
    max_size=30,
).filter(lambda v: not any(ch.isspace() for ch in v))
_scope = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\x00"), min_size=1, max_size=20
).filter(lambda s: s.strip() == s and s != "")


@given(
    kind=st.sampled_from(["pkg", "import", "env", "sym"]),
    value=_value,
    negated=st.booleans(),
    scope=st.none() | _scope,
)
def test_parse_format_round_trip(kind: str, value: str, negated: bool, scope: str | None) -> None:
    """Every anchor the grammar accepts comes back unchanged; a scope that is no valid glob (`[1-0]`) is
    the documented syntax error, never a different anchor."""
    anchor = Anchor(kind, value, negated, scope)
    try:
        parsed = parse_anchor(format_anchor(anchor), KINDS)
    except AnchorSyntaxError as exc:
        assert "invalid glob" in str(exc)
        assert scope is not None and set("*?[") & set(scope)
        return
    assert parsed == anchor


@given(value=_value, negated=st.booleans())
def test_round_trip_unscoped_kinds(value: str, negated: bool) -> None:
    anchor = Anchor("file", value, negated)
    assert parse_anchor(format_anchor(anchor), KINDS) == anchor
