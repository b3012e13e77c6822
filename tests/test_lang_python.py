"""Python: every import, environment and definition construct, with its verdict and evidence line."""

from __future__ import annotations

import pytest
from tests._source_support import check, lines, write

from anchorcheck import Verdict

MODULE = '''
import os as o
import a.b.c, plain
from os import environ as E, getenv as ge
from typing import TYPE_CHECKING
from mcp.server.fastmcp import FastMCP
from .. import helpers
from ..x import y
from . import sibling
if TYPE_CHECKING:
    import redis
else:
    import fallback_mod
try:
    import ujson
except ImportError:
    ujson = None
def f():
    import inner_mod
    loader = importlib.import_module("dyn.loaded")
    old = __import__("legacy")
    return o.getenv("A_KEY"), E["B_KEY"], ge("C_KEY"), o.environ.get("D_KEY"), "E_KEY" in o.environ
def g(name):
    return o.environ[name]
CONSTANT = 3
TYPED: int = 4
first, second = 1, 2
class Cache(Base):
    ttl = 10
    size: int
    def get(self, key): pass
    class Inner:
        deep = 1
@decorator
def decorated(): pass
type Alias = list[int]
match command:
    case [_, "x"]:
        MATCHED = 1
type Pair[T] = tuple[T, T]
'''


@pytest.fixture()
def tree(tmp_path):
    return write(tmp_path, {"pkg/__init__.py": "", "pkg/sub/__init__.py": "", "pkg/sub/mod.py": MODULE})


@pytest.mark.parametrize(
    ("anchor", "line", "flag"),
    [
        ("import:os", 1, ""),
        ("import:a.b", 2, ""),
        ("import:a.b.c", 2, ""),
        ("import:plain", 2, ""),
        ("import:mcp", 5, ""),
        ("import:mcp.server.fastmcp", 5, ""),
        ("import:pkg.helpers", 6, ""),
        ("import:pkg.x", 7, ""),
        ("import:pkg.sub.sibling", 8, ""),
        ("import:redis", 10, "type-checking"),
        ("import:fallback_mod", 12, ""),
        ("import:ujson", 14, "optional"),
        ("import:inner_mod", 18, ""),
        ("import:dyn", 19, ""),
        ("import:legacy", 20, ""),
    ],
)
def test_imports(tree, anchor, line, flag):
    result = check(tree, anchor)
    assert result.verdict is Verdict.VERIFIED, result.reason
    assert lines(result)[0] == ("pkg/sub/mod.py", line)
    assert ("production" in result.evidence[0].detail) and (flag in result.evidence[0].detail)


@pytest.mark.parametrize("anchor", ["import:mc", "import:mcp.serverx", "import:a.b.d", "import:numpy"])
def test_segment_prefix_only(tree, anchor):
    assert check(tree, anchor).verdict is Verdict.REFUTED


@pytest.mark.parametrize(("key", "line"), [("A_KEY", 21), ("B_KEY", 21), ("C_KEY", 21), ("D_KEY", 21), ("E_KEY", 21)])
def test_env_reads(tree, key, line):
    result = check(tree, f"env:{key}")
    assert result.verdict is Verdict.VERIFIED
    assert lines(result) == [("pkg/sub/mod.py", line)]


def test_computed_key_breaks_the_closed_world(tree):
    result = check(tree, "env:UNSEEN")
    assert result.verdict is Verdict.INCONCLUSIVE
    assert "pkg/sub/mod.py:23" in result.reason


@pytest.mark.parametrize(
    ("name", "line"),
    [
        ("f", 17),
        ("g", 22),
        ("CONSTANT", 24),
        ("TYPED", 25),
        ("first", 26),
        ("second", 26),
        ("Cache", 27),
        ("Cache.ttl", 28),
        ("Cache.size", 29),
        ("Cache.get", 30),
        ("Cache.Inner", 31),
        ("Cache.Inner.deep", 32),
        ("decorated", 33),
        ("ujson", 16),
        ("Alias", 35),
        ("MATCHED", 38),
        ("Pair", 39),
    ],
)
def test_definitions(tree, name, line):
    result = check(tree, f"sym:pkg/sub/mod.py::{name}")
    assert result.verdict is Verdict.VERIFIED, result.reason
    assert lines(result) == [("pkg/sub/mod.py", line)]


def test_module_form_with_src_layout(tmp_path):
    write(tmp_path, {"src/app/__init__.py": "", "src/app/cache.py": "class Redis:\n    def get(self): pass\n"})
    assert lines(check(tmp_path, "sym:py:app.cache.Redis.get")) == [("src/app/cache.py", 2)]
    assert check(tmp_path, "sym:py:app.cache.Memcached").verdict is Verdict.REFUTED
    assert check(tmp_path, "sym:py:app.gone.X").verdict is Verdict.REFUTED
    assert check(tmp_path, "sym:py:requests.get").verdict is Verdict.INCONCLUSIVE


def test_namespace_package_relative_import(tmp_path):
    write(tmp_path, {"src/ns/a.py": "from .b import thing\n"})
    assert lines(check(tmp_path, "import:ns.b")) == [("src/ns/a.py", 1)]


def test_a_relative_import_above_the_top_level_package_imports_nothing(tmp_path):
    # Python raises "attempted relative import beyond top-level package" for both forms.
    write(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": "from ..pkg2 import y\nfrom .. import z\n", "pkg2/__init__.py": "y = 1\n"})
    assert check(tmp_path, "import:pkg2").verdict is Verdict.REFUTED
    assert check(tmp_path, "import:z").verdict is Verdict.REFUTED
    write(tmp_path, {"pkg/sub/__init__.py": "", "pkg/sub/b.py": "from ..a import x\n"})
    assert lines(check(tmp_path, "import:pkg.a")) == [("pkg/sub/b.py", 1)]


def test_key_named_by_a_module_constant_is_read_by_name(tmp_path):
    root = write(
        tmp_path,
        {
            "settings.py": "import os\nURL_ENV = 'CACHE_URL'\nTWICE = 'A'\nTWICE = 'B'\n"
            "url = os.environ.get(URL_ENV)\nother = os.getenv(TWICE)\n",
        },
    )
    result = check(root, "env:CACHE_URL")
    assert result.verdict is Verdict.VERIFIED and lines(result) == [("settings.py", 5)]
    rebound = check(root, "env:B")
    assert rebound.verdict is Verdict.INCONCLUSIVE, "a name bound twice is not a constant"
    assert "settings.py:6" in rebound.reason


def test_membership_tests_read_the_environment(tmp_path):
    # `if "K" not in os.environ: raise ...` is how a required setting is checked.
    root = write(tmp_path, {"settings.py": "import os\nif 'REQUIRED' not in os.environ:\n    raise SystemExit('set REQUIRED')\n"})
    result = check(root, "env:REQUIRED")
    assert result.verdict is Verdict.VERIFIED, result.reason
    assert lines(result) == [("settings.py", 2)]


def test_key_passed_by_keyword_is_read_by_name(tmp_path):
    root = write(tmp_path, {"settings.py": "import os\nurl = os.getenv(key='DB_URL', default='sqlite://')\n"})
    assert lines(check(root, "env:DB_URL")) == [("settings.py", 2)]
    assert check(root, "env:OTHER").verdict is Verdict.REFUTED, "a literal keyword key is not a computed read"


def test_environment_kept_in_a_local_name(tmp_path):
    # `env = os.environ; env["X"]` reads X: a REFUTED here would contradict the code.
    root = write(tmp_path, {"settings.py": "import os\nenv = os.environ\nurl = env['DATABASE_URL']\n\ndef port():\n    e = os.environ\n    return e.get('PORT')\n"})
    assert lines(check(root, "env:DATABASE_URL")) == [("settings.py", 3)]
    assert lines(check(root, "env:PORT")) == [("settings.py", 7)]


def test_only_what_runs_under_type_checking_alone_is_flagged(tmp_path):
    source = (
        "from typing import TYPE_CHECKING\n"
        "if not TYPE_CHECKING:\n    import runtime_mod\nelse:\n    import typing_mod\n"
        "if TYPE_CHECKING or sys.version_info < (3, 8):\n    import compat_mod\n"
        "if typing.TYPE_CHECKING:\n    import stub_mod\n"
    )
    root = write(tmp_path, {"a.py": source})
    for module, line, flagged in [("runtime_mod", 3, False), ("typing_mod", 5, True), ("compat_mod", 7, False), ("stub_mod", 9, True)]:
        result = check(root, f"import:{module}")
        assert lines(result) == [("a.py", line)]
        assert ("type-checking" in result.evidence[0].detail) is flagged, result.evidence[0].detail


def test_a_future_import_imports_future(tmp_path):
    """`from __future__ import annotations` is an import of __future__ (the soundness benchmark found it REFUTED)."""
    tree = write(tmp_path, {"m.py": "from __future__ import annotations\nimport os\n"})
    result = check(tree, "import:__future__")
    assert result.verdict is Verdict.VERIFIED and lines(result) == [("m.py", 1)]
