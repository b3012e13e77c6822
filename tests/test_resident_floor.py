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
