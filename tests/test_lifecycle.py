"""Lifecycle fields: expires, resolve_after and as_of, judged by Verifier.verify."""

from __future__ import annotations

import datetime as dt

import pytest

from anchorcheck import Memory, Verdict, Verifier
from anchorcheck.memory.lifecycle import LifecycleError, parse_time
from tests.conftest import git, needs_git

UTC = dt.timezone.utc
NOW = dt.datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def tree(make_tree):
    return make_tree({"README.md": "hi\n"})


def verify(root, anchors, **metadata):
    return Verifier(root).verify(Memory("fact", anchors, id="m", metadata=metadata), now=NOW)


def test_parse_time_accepts_toml_values_and_iso_strings():
    assert parse_time(dt.date(2027, 1, 1), "expires") == dt.datetime(2027, 1, 1, tzinfo=UTC)
    assert parse_time("2027-01-01T10:00:00Z", "expires") == dt.datetime(2027, 1, 1, 10, tzinfo=UTC)
    assert parse_time(dt.datetime(2027, 1, 1, 10), "expires").tzinfo is UTC
    with pytest.raises(LifecycleError, match="expires"):
        parse_time("next tuesday", "expires")
    with pytest.raises(LifecycleError):
        parse_time(3, "resolve_after")


def test_expired_memory_is_inconclusive_but_refuted_stays_refuted(tree):
    past = dt.date(2026, 11, 30)
    expired = verify(tree, ["file:README.md"], expires=past)
    assert expired.verdict is Verdict.INCONCLUSIVE and "expired on 2026-11-30" in expired.reason
    assert verify(tree, ["file:README.md"], expires=dt.date(2027, 1, 1)).verdict is Verdict.VERIFIED
    assert verify(tree, ["file:gone.md"], expires=past).verdict is Verdict.REFUTED


def test_resolve_after_is_pending_until_then(tree):
    pending = verify(tree, ["file:gone.md"], resolve_after="2027-03-01")
    assert pending.verdict is Verdict.INCONCLUSIVE
    assert "pending until 2027-03-01" in pending.reason and "REFUTED" in pending.reason
    assert verify(tree, ["file:gone.md"], resolve_after="2026-03-01").verdict is Verdict.REFUTED


def test_malformed_field_is_inconclusive_naming_it(tree):
    report = verify(tree, ["file:README.md"], expires="soon")
    assert report.verdict is Verdict.INCONCLUSIVE and "expires" in report.reason
    assert all(r.reason.startswith("not checked") for r in report.results)


@needs_git
def test_as_of_checks_anchors_at_the_past_revision(make_repo):
    root = make_repo({"src/redis_cache.py": "import redis\n"})
    git(root, "tag", "v1")
    git(root, "mv", "src/redis_cache.py", "src/memcached.py")
    git(root, "commit", "-q", "-m", "swap")
    historical = verify(root, ["file:src/redis_cache.py", "!file:src/memcached.py"], as_of="v1")
    assert historical.verdict is Verdict.VERIFIED and "as of v1" in historical.reason
    assert verify(root, ["file:src/redis_cache.py"]).verdict is Verdict.REFUTED
    missing = verify(root, ["file:src/redis_cache.py"], as_of="v7")
    assert missing.verdict is Verdict.INCONCLUSIVE and "v7" in missing.reason


def test_as_of_outside_git_is_inconclusive(tree):
    report = verify(tree, ["file:README.md"], as_of="v1")
    assert report.verdict is Verdict.INCONCLUSIVE and "not a git checkout" in report.reason


def test_verify_many_applies_the_rules_in_workers_too(tree):
    from concurrent.futures import ThreadPoolExecutor

    memories = [
        Memory("expired", ["file:README.md"], id="a", metadata={"expires": "2026-01-01"}),
        Memory("fine", ["file:README.md"], id="b"),
    ]
    with ThreadPoolExecutor(max_workers=1) as pool:
        pooled = Verifier(tree).verify_many(memories, pool, now=NOW)
    here = Verifier(tree).verify_many(memories, now=NOW)
    for reports in (pooled, here):
        assert [r.verdict for r in reports] == [Verdict.INCONCLUSIVE, Verdict.VERIFIED]
        assert "expired" in reports[0].reason


def test_text_report_prints_the_lifecycle_reason(tree, tmp_path, capsys):
    from anchorcheck.cli import main

    memories = tmp_path / "facts.memories.toml"
    memories.write_text(
        'version = 1\n[[memory]]\nid = "m"\ntext = "readme"\nanchors = ["file:README.md"]\nexpires = 2026-01-01\n'
    )
    assert main(["check", "--root", str(tree), str(memories)]) == 0
    assert "expired on 2026-01-01" in capsys.readouterr().out


@needs_git
def test_as_of_relocates_a_span_to_where_the_file_was_at_that_revision(make_repo):
    from anchorcheck import bank

    root = make_repo({"a.py": "import os\n\n\ndef f():\n    return 1\n\n\nx = 2\n"})
    citation = bank(root, "a.py", 4, 5)
    git(root, "mv", "a.py", "b.py")
    git(root, "commit", "-q", "-m", "rename")
    git(root, "tag", "v2")
    git(root, "mv", "b.py", "c.py")
    git(root, "commit", "-q", "-m", "rename again")
    report = Verifier(root).verify(Memory("f returns 1", [citation], metadata={"as_of": "v2"}), now=NOW)
    assert report.verdict is Verdict.VERIFIED
    assert report.results[0].evidence[0].path == "b.py"
