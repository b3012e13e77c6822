"""A recall right after an edit does no more than the edited file needs (issue 29): a `sym:` anchor on a
file whose facts are not known is answered from its definitions alone, a listed file is judged by one
status, a kept search's candidates are not copied per recall. Each shortcut must answer as a new
Verifier does, whatever the edit made of the file."""

from __future__ import annotations

import os

import pytest
from tests._source_support import verifier, write
from tests.conftest import init_repo, needs_git

from anchorcheck import Memory, Verdict
from anchorcheck.evidence import extraction
from anchorcheck.evidence.freshness import _Inotify


@pytest.fixture(autouse=True, params=["events", "stat"])
def _how_changes_are_seen(request, monkeypatch):
    """Every test twice: with inotify's events where the platform has them, and with the stat pass alone."""
    if request.param == "stat":
        monkeypatch.setattr(_Inotify, "watching", classmethod(lambda cls, directories, root: None))

_SOURCE = """\
import json
import os


class C:
    slots = 1

    def __init__(self):
        self.attr = os.environ.get("K")

    def m(self):
        return json.dumps({})


def f():
    return 1
"""

_ANCHORS = [
    "sym:src/a.py::C.m",
    "sym:src/a.py::C.attr",  # an instance attribute: in the facts, not in the definitions' walk
    "sym:src/a.py::f",
    "sym:src/a.py::C.gone",
    "sym:py:src.a.C.m",
    "import:json in:src/",
    "env:K",
    "file:src/a.py",
]


def _answers(v) -> list[dict]:
    return [v.verify(Memory(id=anchor, anchors=[anchor])).to_dict() for anchor in _ANCHORS]


@pytest.mark.parametrize("in_git", [pytest.param(True, marks=needs_git), False])
def test_recalls_right_after_edits_of_a_cited_file_equal_a_new_verifiers(tmp_path, in_git):
    """Each anchor recalled alone right after each edit (so a `sym:` one meets the file's facts unknown),
    then all of them: every answer, evidence and reason equals a new Verifier's."""
    outside = tmp_path / "outside.py"
    outside.write_text("class C:\n    def m(self):\n        pass\n")
    root = tmp_path / "repo"
    write(root, {"src/a.py": _SOURCE, "src/b.py": "import json\n"})
    if in_git:
        init_repo(root)
    a = root / "src/a.py"
    v = verifier(root)
    assert _answers(v) == _answers(verifier(root))
    steps = [
        lambda: a.write_text("\n\n" + _SOURCE),  # every line moves
        lambda: a.write_text(_SOURCE.replace("def m(self)", "def n(self)")),  # C.m goes: refuted, with what it defines
        lambda: a.write_text(_SOURCE.replace("self.attr", "self.other")),  # the attribute goes
        lambda: a.write_text(_SOURCE + "\ndef broken(:\n"),  # a syntax error after the definitions
        lambda: a.write_text("class C(\n"),  # too broken to query
        lambda: a.write_text(_SOURCE.replace("class C:", "class C(Base):").replace("import os", "import os\nfrom .base import Base")),
        lambda: a.write_text(_SOURCE),
        lambda: (a.unlink(), a.symlink_to(outside)),  # a link out of the checkout: refused, as a new Verifier refuses it
        lambda: (a.unlink(), a.write_text(_SOURCE)),
        lambda: a.unlink(),
        lambda: a.write_text(_SOURCE),
    ]
    for number, step in enumerate(steps):
        step()
        alone = [v.verify(Memory(id=anchor, anchors=[anchor])).to_dict() for anchor in _rotated(number)]
        fresh = verifier(root)
        assert alone == [fresh.verify(Memory(id=anchor, anchors=[anchor])).to_dict() for anchor in _rotated(number)], number
        assert _answers(v) == _answers(verifier(root)), number


def _rotated(number: int) -> list[str]:
    """The anchors, a different one first after each step: the first recall after an edit meets the file unknown."""
    at = number % len(_ANCHORS)
    return _ANCHORS[at:] + _ANCHORS[:at]


def test_a_name_the_file_defines_is_verified_without_extracting_the_rest_of_its_facts(tmp_path, monkeypatch):
    """Right after an edit, a `sym:` anchor whose name the file's definitions hold costs their parse and
    walk (no imports, environment reads or members extracted); one they do not hold asks the full
    facts, which then find an instance attribute."""
    write(tmp_path, {"src/a.py": _SOURCE})
    v = verifier(tmp_path)
    assert v.check("sym:src/a.py::C.m").verdict is Verdict.VERIFIED
    extracted: list[int] = []
    real = extraction.extract_facts
    monkeypatch.setattr(extraction, "extract_facts", lambda *args, **kw: extracted.append(1) or real(*args, **kw))
    (tmp_path / "src/a.py").write_text("\n" + _SOURCE)
    found = v.check("sym:src/a.py::C.m")
    assert (found.verdict, found.reason, extracted) == (Verdict.VERIFIED, "src/a.py:12 defines C.m", [])
    assert v.check("sym:src/a.py::C.attr").verdict is Verdict.VERIFIED
    assert extracted == [1]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_a_listed_file_turned_into_a_link_out_of_the_checkout_is_refused(tmp_path):
    """A listed file is judged by one status while it stays a regular file; once a link, its path is
    resolved again: a link out of the checkout is refused, not read."""
    (tmp_path / "secret.py").write_text("class C:\n    def m(self):\n        pass\n")
    root = tmp_path / "repo"
    write(root, {"src/a.py": "class D:\n    pass\n"})
    v = verifier(root)
    assert v.check("file:src/a.py").verdict is Verdict.VERIFIED
    (root / "src/a.py").unlink()
    (root / "src/a.py").symlink_to(tmp_path / "secret.py")
    for anchor in ("file:src/a.py", "sym:src/a.py::C.m"):
        assert v.check(anchor).to_dict() == verifier(root).check(anchor).to_dict()
        assert v.check(anchor).verdict is not Verdict.VERIFIED


def test_an_anchor_parsed_once_answers_alike_and_a_malformed_one_stays_malformed(tmp_path):
    """A long-lived Verifier parses each anchor's text once: a recall answers as the first check did,
    and a text that does not parse is reported malformed at every recall, not remembered as parsed."""
    write(tmp_path, {"src/a.py": _SOURCE})
    v = verifier(tmp_path)
    for anchor in ("sym:src/a.py::C.m", "sym:src/a.py::", "imprt:json", "!file:src/a.py"):
        first = v.check(anchor).to_dict()
        (tmp_path / "src/a.py").write_text(_SOURCE + "# touched\n")
        assert v.check(anchor).to_dict() == first == verifier(tmp_path).check(anchor).to_dict()
    assert v.check("sym:src/a.py::").state == "malformed"


_OTHER_LANGUAGES = {  # path: (source, a name the definitions' walk holds, its line, one only the rest of the facts hold)
    "web/a.js": ("class C extends B {\n  constructor() { super(); this.x = 1; }\n  m() { return 1; }\n}\n", "C.m", 3, "C.x"),
    "web/b.ts": ("export class C {\n  a = 1;\n  m(): number { return this.a; }\n}\n", "C.m", 3, None),
    "web/c.tsx": ("export function App() {\n  return <div />;\n}\nexport class C { m() {} }\n", "C.m", 4, None),
    "go/s.go": ("package s\n\ntype S struct {\n\tA int\n}\n\nfunc (s *S) M() {}\n", "S.M", 7, None),
    "rs/s.rs": ("struct S;\n\nimpl S {\n    fn m(&self) {}\n}\n", "S.m", 4, None),
    "java/C.java": ("package p;\n\nclass C {\n  void m() {}\n}\n", "C.m", 4, None),
    "rb/c.rb": ("module M\n  class C\n    def m\n    end\n  end\nend\n", "M.C.m", 3, None),
}


@pytest.mark.parametrize("path", sorted(_OTHER_LANGUAGES))
def test_every_bundled_language_answers_a_name_it_defines_from_the_definitions_alone(tmp_path, monkeypatch, path):
    """Right after an edit, a `sym:` anchor on a file of any bundled language is answered from the walk of its
    definitions (no imports, environment reads or members extracted), as a new Verifier answers it; a name
    only the rest of the facts hold (a JavaScript member assigned in the constructor) asks for them."""
    source, walked, line, member = _OTHER_LANGUAGES[path]
    write(tmp_path, {path: source})
    v = verifier(tmp_path)
    assert v.check(f"sym:{path}::{walked}").verdict is Verdict.VERIFIED
    extracted: list[int] = []
    real = extraction.extract_facts
    monkeypatch.setattr(extraction, "extract_facts", lambda *args, **kw: extracted.append(1) or real(*args, **kw))
    comment = "#" if path.endswith(".rb") else "//"
    (tmp_path / path).write_text(f"{comment} moved down a line\n{source}")
    found = v.check(f"sym:{path}::{walked}")
    assert (found.verdict, extracted) == (Verdict.VERIFIED, [])
    assert found.to_dict() == verifier(tmp_path).check(f"sym:{path}::{walked}").to_dict()
    assert found.reason == f"{path}:{line + 1} defines {walked}"
    if member is not None:
        assert v.check(f"sym:{path}::{member}").verdict is Verdict.VERIFIED
        assert extracted == [1]


@pytest.mark.parametrize("path", sorted(_OTHER_LANGUAGES))
def test_the_definitions_alone_are_the_first_of_the_full_facts_definitions(tmp_path, path):
    """What lets a `sym:` be answered from the walk: a name found there is found at the same first line
    in the full facts, whose `defs` start with it, whatever the language adds after."""
    language = verifier(tmp_path).plugins.registry.language_for(path)
    data = _OTHER_LANGUAGES[path][0].encode()
    walked = extraction.definitions_only(language, data)
    assert walked and extraction.extract_facts(language, data).defs[: len(walked)] == walked
