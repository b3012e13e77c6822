"""`anchorcheck.suggest(root, text)`: each suggestion source, and nothing ambiguous proposed."""

from __future__ import annotations

from pathlib import Path

import pytest

import anchorcheck
from anchorcheck import Suggestion, Verdict, Verifier
from anchorcheck.evidence.index import SourceIndex
from anchorcheck.verify.suggestions import Suggester

PYPROJECT = """\
[project]
name = "shop"
version = "1.0"
dependencies = ["redis>=5", "click>=8", "sentry-sdk>=2", "requests>=2"]

[dependency-groups]
dev = ["fakeredis>=2"]
"""
UV_LOCK = """\
version = 1
requires-python = ">=3.11"

[[package]]
name = "redis"
version = "5.2.1"
source = { registry = "https://pypi.org/simple" }

[[package]]
name = "click"
version = "8.1.7"
source = { registry = "https://pypi.org/simple" }
"""
CACHE = """\
import os

import redis


class RedisCache:
    def __init__(self):
        self.client = redis.Redis.from_url(os.environ["REDIS_URL"])

    def get(self, key):
        return self.client.get(key)


def helper():
    return 1
"""
FILES = {
    "pyproject.toml": PYPROJECT,
    "uv.lock": UV_LOCK,
    "src/shop/__init__.py": "",
    "src/shop/cache.py": CACHE,
    "src/shop/cli.py": "import click\nimport sentry_sdk\n\n\ndef helper():\n    return 2\n\nMAX_RETRIES = 5  # tuned in 2024\n",
    "tests/test_cache.py": "import fakeredis\nimport requests\n\nMAX_RETRIES = 5  # tuned in 2024\n",
    "examples/demo.py": "import requests\n",
    "web/api.ts": "export class Client {\n  list(): number { return 1; }\n}\n",
    "Makefile": "lint:\n\truff check .\n",
}


@pytest.fixture
def shop(make_repo) -> Path:  # noqa: ANN001
    return make_repo(FILES)


def anchors(root: Path, text: str, existing: tuple[str, ...] = ()) -> list[str]:
    return [s.anchor for s in anchorcheck.suggest(root, text, existing)]


def test_every_suggestion_verifies_now_and_round_trips(shop: Path) -> None:
    text = "RedisCache.get reads through Redis (REDIS_URL); we do not use Celery. See `src/shop/cache.py:L10-L11`."
    found = anchorcheck.suggest(shop, text)
    assert found and all(isinstance(s, Suggestion) for s in found)
    verifier = Verifier(shop)
    for s in found:
        assert s.reason and s.confidence in ("high", "medium")
        assert Suggestion.from_dict(s.to_dict()) == s
        if s.citation is None:
            assert verifier.check(s.anchor).verdict is Verdict.VERIFIED, s.anchor
        else:
            assert verifier.check(anchorcheck.Citation.from_dict(s.citation)).state == "fresh"


def test_paths_commands_and_installs_as_check_reads_them(shop: Path) -> None:
    assert anchors(shop, "The cache is in `src/shop/cache.py`.") == ["file:src/shop/cache.py"]
    assert anchors(shop, "See [the cache](src/shop/cache.py) for details.") == ["file:src/shop/cache.py"]
    assert anchors(shop, "Run `make lint` before pushing.") == ["cmd:make lint"]
    assert anchors(shop, "Run `make deploy` to ship.") == []  # the Makefile has no such target
    assert anchors(shop, "The design is in `docs/gone.md`.") == []  # no such file
    assert anchors(shop, "Add it with `uv add redis`.")[0] == "pkg:pypi/redis"


def test_symbols_path_form_module_form_and_ambiguity(shop: Path) -> None:
    assert anchors(shop, "The read path is RedisCache.get.") == ["sym:py:shop.cache.RedisCache.get"]
    assert anchors(shop, "Use `src/shop/cache.py::RedisCache` for reads.") == ["file:src/shop/cache.py", "sym:src/shop/cache.py::RedisCache"]
    assert anchors(shop, "The board lists through Client.list.") == ["sym:web/api.ts::Client.list"]
    assert anchors(shop, "Call `helper` to get one.") == []  # two files define helper: ambiguous
    assert anchors(shop, "Call RedisCache.fetch first.") == []  # nothing defines it


def test_env_names_that_code_reads(shop: Path) -> None:
    assert anchors(shop, "The cache URL comes from REDIS_URL.") == ["env:REDIS_URL"]
    assert anchors(shop, "Set `$REDIS_URL` before starting.") == ["env:REDIS_URL"]
    assert anchors(shop, "Nothing reads OTHER_SETTING.") == []


def test_packages_from_words_with_production_scoped_imports(shop: Path) -> None:
    found = {s.anchor: s for s in anchorcheck.suggest(shop, "We cache with Redis.")}
    assert list(found) == ["pkg:pypi/redis", "import:redis in:src/shop/cache.py"]
    assert "production code imports redis" in found["import:redis in:src/shop/cache.py"].reason
    # requests is declared but imported only by tests and examples: the package, never an import anchor
    assert anchors(shop, "HTTP calls use the requests library.") == ["pkg:pypi/requests"]
    # dev group packages are named too; imported only in tests, so no import: anchor
    assert anchors(shop, "Tests use fakeredis.") == ["pkg:pypi/fakeredis"]
    assert anchors(shop, "Errors go to the Sentry SDK.") == ["pkg:pypi/sentry-sdk", "import:sentry_sdk in:src/shop/cli.py"]


def test_a_package_name_that_is_an_english_word_needs_code_context(shop: Path) -> None:
    assert anchors(shop, "click the button twice to retry.") == []
    assert anchors(shop, "Users click through the wizard.") == []
    assert anchors(shop, "The CLI is built with the click library.")[0] == "pkg:pypi/click"
    assert anchors(shop, "The CLI is built on `click`.")[0] == "pkg:pypi/click"
    # capitalised is not enough for an English word: "Windows" is the system far more often than the crate
    assert anchors(shop, "The CLI is built with Click.") == []
    assert anchors(shop, "Errors go to Sentry.") == []
    assert anchors(shop, "The CLI is built with the Click package.")[0] == "pkg:pypi/click"


def test_versions_only_when_the_lock_agrees(shop: Path) -> None:
    assert anchors(shop, "uv.lock pins redis 5.2.1.")[0] == "pkg:pypi/redis@5.2.1"
    assert anchors(shop, "We are on redis 4.0.0.") == []  # stated version is wrong: no weaker anchor either


def test_negations_need_an_explicit_cue_and_absence(shop: Path) -> None:
    assert anchors(shop, "There is no task queue: we do not use Celery.") == ["!pkg:pypi/celery"]
    assert anchors(shop, "Celery would be nice one day.") == []  # no cue
    assert anchors(shop, "We don't use Redis for sessions.") == []  # declared: the negation is false
    assert anchors(shop, "We do not use caching.") == []  # an English word, not a package name
    assert anchors(shop, "Tests run instead of a live Redis server.") == []  # named as what is not used


def test_spans_from_line_citations_and_unique_passages(shop: Path) -> None:
    [cited] = [s for s in anchorcheck.suggest(shop, "The getter is at `src/shop/cache.py:L10-L11`.") if s.citation]
    assert cited.anchor == "span:src/shop/cache.py#L10-L11" and cited.citation["sha256"]
    assert anchors(shop, "See `src/shop/cache.py` lines 10-11.") == ["span:src/shop/cache.py#L10-L11", "file:src/shop/cache.py"]
    [quoted] = anchorcheck.suggest(shop, "The client is made with `self.client = redis.Redis.from_url(os.environ[\"REDIS_URL\"])`.")
    assert quoted.anchor == "span:src/shop/cache.py#L8" and "nowhere else" in quoted.reason
    assert anchors(shop, "Retries: `MAX_RETRIES = 5  # tuned in 2024`.") == []  # in two files: ambiguous
    assert anchors(shop, "See `src/shop/cache.py:L90-L99`.") == []  # past the end: cannot be banked


def test_existing_anchors_are_not_proposed_again(shop: Path) -> None:
    first = anchors(shop, "We cache with Redis.")
    assert anchors(shop, "We cache with Redis.", tuple(first)) == []
    suggester = Suggester(Verifier(shop))
    assert [s.anchor for s in suggester.suggest("We cache with Redis.", ["pkg:pypi/redis"])] == ["import:redis in:src/shop/cache.py"]


def test_definitions_are_looked_up_in_the_files_that_write_the_name(make_repo) -> None:  # noqa: ANN001
    files = {f"src/mod{n}.py": f"def step_{n}():\n    return {n}\n" for n in range(30)}
    files["src/runner.py"] = "class ProbeRunner:\n    pass\n"
    files["src/main.py"] = "from runner import ProbeRunner\n"
    verifier = Verifier(make_repo(files), options={"cache": False})
    found = Suggester(verifier).suggest("Runs go through `ProbeRunner`.")
    assert [s.anchor for s in found] == ["sym:py:runner.ProbeRunner"]
    assert SourceIndex.of(verifier.context).parsed <= 2  # the two files that write the name, not the 32 of the tree
