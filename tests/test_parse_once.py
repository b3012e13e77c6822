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

    def parse_counted(grammar, data, until, **incremental):  # noqa: ANN001, ANN003, ANN202
        parsed[bytes(data)] += 1
        return real_parse(grammar, data, until, **incremental)

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


_SOURCES = {
    "python": "import os\n\n\nclass C(Base):\n    x = 1\n\n    def m(self, a):\n        return os.environ.get('K', a)\n\n\n@wrap\ndef f():\n    '''doc'''\n    return [i for i in range(3)]\n",
    "javascript": "import x from './x';\nexport class C extends B {\n  m(a) { return `t${a}`; }\n}\nfunction f() { return process.env.K; }\nconst g = () => ({ a: 1 });\n",
    "typescript": "import type { T } from './t';\nexport interface I { a: number }\nexport class C<T> implements I {\n  a = 1;\n  m(x: T): T { return x; }\n}\nexport function f(): string { return process.env['K'] ?? ''; }\n",
    "go": "package p\n\nimport \"os\"\n\ntype S struct {\n\tA int\n}\n\nfunc (s *S) M() string {\n\treturn os.Getenv(\"K\")\n}\n\nfunc F() {}\n",
    "rust": "use std::env;\n\npub struct S { a: i32 }\n\nimpl S {\n    pub fn m(&self) -> String {\n        env::var(\"K\").unwrap_or_default()\n    }\n}\n\nfn f() -> i32 { 1 }\n",
    "java": "package p;\n\nimport java.util.List;\n\npublic class C extends B {\n  int a;\n  public String m() { return System.getenv(\"K\"); }\n}\n",
    "ruby": "require 'json'\n\nmodule M\n  class C < B\n    def m\n      ENV['K']\n    end\n  end\nend\n",
}


def _nodes(tree) -> list[tuple]:  # noqa: ANN001
    """Every node of a tree, in order, with its field, range and flags: two trees alike in this are alike."""
    found, cursor = [], tree.walk()
    while True:
        node = cursor.node
        found.append((cursor.field_name, node.type, node.start_byte, node.end_byte, node.start_point, node.is_missing, node.has_error))
        if cursor.goto_first_child() or cursor.goto_next_sibling():
            continue
        while cursor.goto_parent():
            if cursor.goto_next_sibling():
                break
        else:
            return found


@pytest.mark.parametrize("grammar", sorted(_SOURCES))
def test_an_edited_content_parsed_from_its_last_tree_is_the_tree_a_new_parse_gives(grammar, monkeypatch) -> None:
    """A named content is parsed incrementally from the last one parsed under that name: random edits
    (lines added, dropped, copied or swapped, which mostly leave the file clean; pieces of the file
    inserted and spans deleted or replaced, which mostly do not) give, node for node, what a parse from
    nothing gives, and a tree that reads its own bytes. (Where the edited file does not parse cleanly
    tree-sitter's recovery from an old tree may differ: such a content is parsed again from nothing.)"""
    import random

    monkeypatch.setattr(trees, "_HELD", trees._Held(trees._HELD_BYTES))
    rnd = random.Random(grammar)
    source = data = _SOURCES[grammar].encode()
    reused = 0
    real = trees._parse

    def counted(grammar, data, until, **old):  # noqa: ANN001, ANN003, ANN202
        nonlocal reused
        tree = real(grammar, data, until, **old)
        reused += bool(old) and not tree.root_node.has_error
        return tree

    monkeypatch.setattr(trees, "_parse", counted)
    trees.parse(grammar, data, None, "a")
    for step in range(120):
        if step % 4 == 0:
            data = source  # back to a clean file, from a broken one as often as not
        lines = data.split(b"\n")
        line, other = rnd.randrange(len(lines)), rnd.randrange(len(lines))
        at = rnd.randrange(len(data) + 1)
        end = at + rnd.randrange(30)
        start = rnd.randrange(len(data) + 1)
        piece = data[start : start + rnd.randrange(40)]
        edits = [
            lambda: [*lines[:line], lines[other], *lines[line:]],
            lambda: lines[:line] + lines[line + 1 :] or [b""],
            lambda: [*lines[:line], lines[line] + b" ", *lines[line + 1 :]],
            lambda: [data[:at] + piece + data[at:]],
            lambda: [data[:at] + data[end:]],
            lambda: [data[:at] + piece + data[end:]],
        ]
        data = b"\n".join(edits[rnd.randrange(3) if step % 4 < 3 else rnd.randrange(3, 6)]())
        tree = trees.parse(grammar, data, None, "a")
        assert _nodes(tree) == _nodes(real(grammar, data, None)), data
        root = tree.root_node
        assert root.text == data[root.start_byte : root.end_byte]
    assert reused >= 20


def test_a_content_that_does_not_parse_cleanly_is_parsed_from_nothing(monkeypatch) -> None:
    """Found by random edits: from the old tree, tree-sitter recovers from this JavaScript's errors
    otherwise than a parse from nothing does (a class declaration where it finds a program in error)."""
    monkeypatch.setattr(trees, "_HELD", trees._Held(trees._HELD_BYTES))
    before = b"import x from './x';\nexport class C extexport class C extnds B {\n  m(a) { return `t${rocess.env.K; }\nconst g = () => ({ a: 1 });\n"
    after = before.replace(b"const g =", b"const g) { return `t${rocess.env. =")
    trees.parse("javascript", before, None, "a.js")
    tree = trees.parse("javascript", after, None, "a.js")
    assert _nodes(tree) == _nodes(trees._parse("javascript", after, None))
    assert tree.root_node.type == "ERROR"
