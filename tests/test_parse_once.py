"""Each file's content is parsed once per run: fact extraction and the plugins that read a file's tree
(setup.py as a manifest, a compose file's environment) share one tree (issue 29)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from tests._source_support import verifier, write
from tests.conftest import init_repo, needs_git

from anchorcheck import Verdict, Verifier
from anchorcheck.evidence import trees

SETUP = """\
import os
from setuptools import setup

MODE = os.environ.get("APP_MODE")

setup(name="app", install_requires=["requests>=2"])
"""
FILES = {
    "setup.py": SETUP,
    "src/app/__init__.py": "",
    "src/app/client.py": "import os\nimport requests\n\nTOKEN = os.environ['APP_MODE']\n",
    "src/app/other.py": "import json\n",
    "compose.yaml": "services:\n  web:\n    environment:\n      APP_MODE: prod\n",
}


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> tuple[Counter[bytes], Counter[bytes]]:
    """(asked, parsed): how often each content's tree was asked for, and how often tree-sitter parsed it."""
    asked: Counter[bytes] = Counter()
    parsed: Counter[bytes] = Counter()

    class Held(trees._Held):
        def get(self, key):  # noqa: ANN001, ANN202
            asked[key[1]] += 1
            return super().get(key)

    real_parse = trees._parse

    def parse_counted(grammar, data, until):  # noqa: ANN001, ANN202
        parsed[bytes(data)] += 1
        return real_parse(grammar, data, until)

    monkeypatch.setattr(trees, "_HELD", Held(trees._HELD_BYTES))  # and nothing parsed by an earlier test
    monkeypatch.setattr(trees, "_parse", parse_counted)
    return asked, parsed


def project(root: Path) -> Verifier:
    write(root, FILES)
    init_repo(root)
    return verifier(root)


@needs_git
def test_a_file_read_for_facts_and_as_a_manifest_is_parsed_once(tmp_path, counted) -> None:
    asked, parsed = counted
    v = project(tmp_path)
    assert v.check("env:APP_MODE").verdict is Verdict.VERIFIED  # setup.py and client.py read it; compose defines it
    assert v.check("import:requests").verdict is Verdict.VERIFIED
    assert v.check("pkg:pypi/requests").verdict is Verdict.VERIFIED  # setup.py read as a manifest
    setup = SETUP.encode()
    assert asked[setup] >= 2  # extraction and the setuptools reader both wanted its tree
    assert parsed[setup] == 1
    assert set(parsed.values()) == {1}  # every content parsed once, whoever asked
    assert parsed.keys() <= asked.keys()  # and nothing parsed that was not asked for


@needs_git
def test_an_edited_file_is_parsed_again(tmp_path, counted) -> None:
    """Trees are kept by content: the edited bytes are a new content, never answered with the old tree."""
    _, parsed = counted
    v = project(tmp_path)
    assert v.check("import:requests").verdict is Verdict.VERIFIED
    (tmp_path / "src/app/client.py").write_text("import os\n# requests no more\n")  # still a candidate: it is parsed
    result = v.check("import:requests")
    assert result.verdict is Verdict.REFUTED
    assert parsed[b"import os\n# requests no more\n"] == 1


def test_trees_kept_stay_within_their_byte_cap() -> None:
    held = trees._Held(1000)
    for i in range(50):
        data = b"x = %d\n" % i * 20
        held.put(("python", data), None)
    assert held.size <= 1000 and len(held.trees) < 50
    held.put(("python", b"y" * 300), None)  # over a quarter of the cap: never kept
    assert ("python", b"y" * 300) not in held.trees


@needs_git
def test_a_compose_file_is_parsed_only_for_a_key_it_spells(tmp_path, counted) -> None:
    _, parsed = counted
    v = project(tmp_path)
    absent = v.check("env:NEVER_SET_ANYWHERE")
    assert absent.verdict is Verdict.REFUTED and "1 configuration file read" in absent.reason
    assert FILES["compose.yaml"].encode() not in parsed  # it cannot define a name it does not spell
    assert v.check("env:APP_MODE").verdict is Verdict.VERIFIED
    assert parsed[FILES["compose.yaml"].encode()] == 1


@needs_git
def test_a_compose_file_too_deep_to_parse_leaves_any_key_unproven(tmp_path) -> None:
    deep = "services:\n" + "".join("  " * (level + 1) + f"k{level}:\n" for level in range(100)) + "  " * 101 + "x: 1\n"
    write(tmp_path, {"app.py": "import os\n", "compose.yaml": deep})
    init_repo(tmp_path)
    result = verifier(tmp_path).check("env:NEVER_SET_ANYWHERE")
    assert result.verdict is Verdict.INCONCLUSIVE and "compose.yaml:" in result.reason and "levels deep" in result.reason
