"""`sym:` edge cases: gone files, unparseable files, unsupported languages, malformed values."""

from __future__ import annotations

from tests._source_support import check, lines, verifier, write

from anchorcheck import Verdict


def test_gone_file_is_refuted(tmp_path):
    assert check(tmp_path, "sym:src/gone.py::X").verdict is Verdict.REFUTED


def test_unparseable_file_lacking_the_name_is_inconclusive_while_it_writes_the_name(tmp_path):
    # The parse error may hide a definition of a name the file writes; one it never writes it cannot define.
    write(tmp_path, {"a.py": "def ok(): pass\ndef (:\n    missing = 1\n", "b.py": "def ok(): pass\ndef (:\n", "w.py": "x = 1\ndef (:\n"})
    write(tmp_path, {"u.py": "def missing(): pass\n".encode("utf-16")})
    assert check(tmp_path, "sym:a.py::ok").verdict is Verdict.VERIFIED
    result = check(tmp_path, "sym:a.py::missing")
    assert result.verdict is Verdict.INCONCLUSIVE and "line 2" in result.reason
    assert check(tmp_path, "sym:b.py::missing").verdict is Verdict.REFUTED
    assert check(tmp_path, "sym:u.py::missing").verdict is not Verdict.REFUTED  # text in another encoding: not read as words


def test_language_without_plugin_is_inconclusive(tmp_path):
    write(tmp_path, {"Main.scala": "class Main {}\n"})
    assert check(tmp_path, "sym:Main.scala::Main").verdict is Verdict.INCONCLUSIVE


def test_refuted_names_a_near_miss(tmp_path):
    write(tmp_path, {"a.py": "class Cache:\n    def get(self): pass\n"})
    result = check(tmp_path, "sym:a.py::Other.get")
    assert result.verdict is Verdict.REFUTED and "Cache.get (line 2)" in result.reason


def test_malformed_values(tmp_path):
    for text in ("sym:a.py", "sym:a.py::", "sym:a.py::A..b", "sym:py:single", "sym:py:a.1b"):
        assert check(tmp_path, text).state == "malformed", text


def test_path_outside_repo_is_refused(tmp_path):
    assert check(tmp_path, "sym:../x.py::A").verdict is Verdict.INCONCLUSIVE


def test_module_form_follows_package_reexports(tmp_path):
    # `from app import Client` works because app/__init__.py re-exports it: `sym:py:app.Client` is true.
    write(
        tmp_path,
        {
            "src/app/__init__.py": "from .client import Client, make as build\nfrom .models import *\nfrom requests import Session\n",
            "src/app/client.py": "import os\n\nclass Client:\n    def get(self): pass\n\ndef make(): pass\n",
            "src/app/models.py": "from .base import Model\n",
            "src/app/base.py": "class Model: pass\n",
        },
    )
    for anchor, where in [
        ("sym:py:app.Client", ("src/app/client.py", 3)),
        ("sym:py:app.Client.get", ("src/app/client.py", 4)),
        ("sym:py:app.build", ("src/app/client.py", 6)),
        ("sym:py:app.Model", ("src/app/base.py", 1)),
        ("sym:py:app.Session", ("src/app/__init__.py", 3)),
    ]:
        result = check(tmp_path, anchor)
        assert result.verdict is Verdict.VERIFIED, result.reason
        assert lines(result)[0] == where
    assert check(tmp_path, "sym:py:app.Client.put").verdict is Verdict.REFUTED
    assert check(tmp_path, "sym:py:app.make").verdict is Verdict.REFUTED, "bound as build, not make"
    assert check(tmp_path, "sym:py:app.os").verdict is Verdict.REFUTED, "client.py's own import is not re-exported"


def test_module_form_is_unsure_where_re_exports_cannot_be_followed(tmp_path):
    """Compiled or third-party modules have no source here: a name they may provide is not
    REFUTED, and a star import of a module with no `.py` ends (it once grew without end)."""
    write(
        tmp_path,
        {
            "pkg/__init__.py": "from ._core import *\nfrom ._speedups import encode\nfrom .compat import *\n",
            "pkg/_core.pyx": "def thing(): pass\n",
            "pkg/compat.py": "from six.moves import *\n",
            "lazy/__init__.py": "def __getattr__(name):\n    return name\n",
            "plain/__init__.py": "from .a import A\n",
            "plain/a.py": "class A: pass\n",
        },
    )
    encode = check(tmp_path, "sym:py:pkg.encode")
    assert encode.verdict is Verdict.VERIFIED and lines(encode) == [("pkg/__init__.py", 2)], encode.reason
    for anchor in ("sym:py:pkg.thing", "sym:py:pkg._core.thing", "sym:py:pkg.urllib", "sym:py:lazy.anything"):
        result = verifier(tmp_path).check(anchor, deadline=5)
        assert result.verdict is Verdict.INCONCLUSIVE, (anchor, result.reason)
    assert "pkg/__init__.py:1 imports * from pkg._core" in check(tmp_path, "sym:py:pkg.thing").reason
    assert check(tmp_path, "sym:py:plain.B").verdict is Verdict.REFUTED  # every import followed: truly absent


def test_module_form_finds_packages_of_workspace_members(tmp_path):
    """A uv workspace (or any repository of several projects) keeps each package in its project's
    folder: `graph/graph/__init__.py`, `libs/slim/src/slim/`. The member folder `graph/` at the top
    level made `graph` look first-party, and `sym:py:graph.End` was REFUTED "no module exists"; a
    class importing its base from another member is followed there."""
    write(
        tmp_path,
        {
            "pyproject.toml": "[project]\nname = 'suite'\n[tool.uv.workspace]\nmembers = ['graph', 'libs/*']\n",
            "graph/pyproject.toml": "[project]\nname = 'graph'\n",
            "graph/graph/__init__.py": "from .nodes import End\n",
            "graph/graph/nodes.py": "class End:\n    def result(self): pass\n",
            "libs/slim/pyproject.toml": "[project]\nname = 'slim'\n",
            "libs/slim/src/slim/__init__.py": "from graph import End\n\nclass Stop(End):\n    pass\n",
            "tools/setup.py": "from setuptools import setup\nsetup(name='tools')\n",
            "tools/tools.py": "def run(): pass\n",
            # A test fixture that fakes a third-party package is no project of the repository (uv's
            # test/packages/anyio_local/anyio/ made sym:py:anyio.to_thread REFUTED).
            "test/packages/anyio_local/pyproject.toml": "[project]\nname = 'anyio'\n",
            "test/packages/anyio_local/anyio/__init__.py": "def run(): pass\n",
        },
    )
    fake = check(tmp_path, "sym:py:anyio.to_thread")
    assert fake.verdict is Verdict.INCONCLUSIVE and fake.state == "not-first-party", fake.reason
    end = check(tmp_path, "sym:py:graph.End.result")
    assert end.verdict is Verdict.VERIFIED and lines(end)[0] == ("graph/graph/nodes.py", 2), end.reason
    for anchor in ("sym:py:slim.Stop.result", "sym:py:tools.run", "sym:libs/slim/src/slim/__init__.py::Stop.result"):
        result = check(tmp_path, anchor)
        assert result.verdict is Verdict.VERIFIED, (anchor, result.reason)
    assert check(tmp_path, "sym:py:graph.Start").verdict is Verdict.REFUTED
    assert check(tmp_path, "sym:py:slim.Stop.close").verdict is Verdict.REFUTED
