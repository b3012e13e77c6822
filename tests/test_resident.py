"""A long-lived Verifier (a memory store, the MCP server, `check --watch`) sees every edit: files
edited, added and deleted between its calls give the new truth at the next call, and only the
files that changed are read and parsed again."""

from __future__ import annotations

import os
import shutil

import pytest
from tests._source_support import verifier, write
from tests.conftest import git, init_repo, needs_git

from anchorcheck import Memory, Verdict, Verifier
from anchorcheck.evidence.freshness import _Inotify
from anchorcheck.evidence.index import SourceIndex


@pytest.fixture(autouse=True, params=["events", "stat"])
def _how_changes_are_seen(request, monkeypatch):
    """Every test twice: with inotify's events where the platform has them, and with the stat pass alone."""
    if request.param == "stat":
        monkeypatch.setattr(_Inotify, "watching", classmethod(lambda cls, directories, root: None))


def _parsed(v) -> int:
    return SourceIndex.of(v.context).parsed


@pytest.mark.parametrize("in_git", [pytest.param(True, marks=needs_git), False])
def test_edits_additions_and_deletions_are_seen(tmp_path, in_git):
    write(tmp_path, {"app/a.py": "import json\n", "app/b.py": "def f():\n    pass\n", "README.md": "x\n"})
    if in_git:
        init_repo(tmp_path)
    v = verifier(tmp_path)
    assert v.check("import:redis").verdict is Verdict.REFUTED
    assert v.check("sym:app/b.py::g").verdict is Verdict.REFUTED
    (tmp_path / "app/a.py").write_text("import json\nimport redis\n")  # edited
    assert v.check("import:redis").verdict is Verdict.VERIFIED
    (tmp_path / "app/b.py").write_text("def f():\n    pass\n\ndef g():\n    pass\n")
    assert v.check("sym:app/b.py::g").verdict is Verdict.VERIFIED
    write(tmp_path, {"app/new/c.py": "import celery\n"})  # added, in a new directory
    assert v.verify(Memory(anchors=["import:celery", "file:app/new/c.py"])).verdict is Verdict.VERIFIED
    (tmp_path / "app/new/c.py").unlink()  # deleted
    assert v.check("import:celery").verdict is Verdict.REFUTED
    assert v.check("file:app/new/c.py").verdict is Verdict.REFUTED
    (tmp_path / "app/a.py").unlink()
    assert v.check("import:redis").verdict is Verdict.REFUTED
    if in_git:
        git(tmp_path, "add", "-A")  # the index moves: listed again, same truth
        assert v.check("import:redis").verdict is Verdict.REFUTED
        assert v.check("sym:app/b.py::g").verdict is Verdict.VERIFIED


@needs_git
def test_files_that_come_and_go_are_taken_in_without_listing_the_checkout_again(tmp_path, monkeypatch):
    """A file added, deleted or renamed in a folder the snapshot watches is taken in by itself where
    inotify names it (git is asked only whether an untracked one is ignored): the checkout is not
    listed again, and every answer, an ignored file's among them, equals a new Verifier's."""
    write(tmp_path, {"src/a.py": "import json\n", "src/b.py": "class B:\n    pass\n", ".gitignore": "*.log\nsrc/gen.py\n"})
    init_repo(tmp_path)
    anchors = ["import:yaml", "import:json", "import:toml", "file:src/c.py", "sym:src/c.py::C", "file:notes.log", "file:src/b.py", "sym:src/b.py::B"]

    def answers(v: Verifier) -> list[dict]:
        return [v.verify(Memory(id=anchor, anchors=[anchor])).to_dict() for anchor in anchors]

    v = verifier(tmp_path)
    assert answers(v) == answers(verifier(tmp_path))
    relisted: list[bool] = []
    relist = v.repo.relist
    monkeypatch.setattr(v.repo, "relist", lambda: relisted.append(True) or relist())
    changes = [
        lambda: write(tmp_path, {"src/c.py": "import yaml\nclass C:\n    pass\n"}),  # added, untracked
        lambda: write(tmp_path, {"notes.log": "x\n", "src/gen.py": "import toml\n"}),  # added, ignored: not listed, but there
        lambda: (tmp_path / "src/b.py").unlink(),  # a tracked file deleted
        lambda: (tmp_path / "src/c.py").rename(tmp_path / "src/b.py"),  # renamed over the deleted one's name
        lambda: (tmp_path / "src/a.py").unlink(),  # the only importer of json goes
        lambda: write(tmp_path, {"src/a.py": "import json\n"}),  # and comes back
    ]
    for change in changes:
        change()
        assert answers(v) == answers(verifier(tmp_path))
    assert not relisted or v._snapshot._events is None  # the stat pass sees a folder changed: it lists again


@needs_git
def test_a_file_that_comes_or_goes_works_out_again_only_the_searches_it_can_change(tmp_path, monkeypatch):
    """A file added or deleted where no search takes it (no needle in its bytes, no folder that forces it
    in) leaves every kept search standing: what moves is how many files were searched, which an absent
    anchor's reason says as a new Verifier does. One a search takes whatever its bytes (in the folder a
    relative import lives in), the first file of a language, a binary one: worked out again."""
    write(tmp_path, {
        "src/shop/__init__.py": "",
        "src/shop/cache/__init__.py": "",
        "src/app.py": "import json\nimport os\nKEY = os.environ.get('KEY')\n",
    })
    init_repo(tmp_path)
    anchors = ["import:json", "import:zlib", "env:KEY", "env:ABSENT", "import:shop.cache", "import:lodash", "env:WEB_KEY"]

    def answers(v: Verifier) -> list[dict]:
        return [v.verify(Memory(id=anchor, anchors=[anchor])).to_dict() for anchor in anchors]

    v = verifier(tmp_path)
    assert answers(v) == answers(verifier(tmp_path))
    searched: list[object] = []
    searches = SourceIndex.of(v.context).searches
    search = searches._search
    monkeypatch.setattr(searches, "_search", lambda *args: searched.append(args) or search(*args))
    write(tmp_path, {"src/plain.py": "X = 1\n"})  # no search takes it
    assert answers(v) == answers(verifier(tmp_path))
    assert "searched 4 source files" in v.check("import:zlib").reason
    assert not searched or v._snapshot._events is None  # the stat pass lists the checkout again
    (tmp_path / "src/plain.py").unlink()
    assert answers(v) == answers(verifier(tmp_path))
    assert "searched 3 source files" in v.check("env:ABSENT").reason
    assert not searched or v._snapshot._events is None
    changes = [
        lambda: write(tmp_path, {"src/shop/cache/rel.py": "from . import helper\n"}),  # forced in, whatever its bytes
        lambda: write(tmp_path, {"src/web.js": 'import lodash from "lodash";\nconst k = process.env.WEB_KEY;\n'}),  # the first JavaScript
        lambda: write(tmp_path, {"src/blob.py": b"import zlib\x00\x01\n"}),  # binary: not source
        lambda: (tmp_path / "src/blob.py").unlink(),
        lambda: (tmp_path / "src/shop/cache/rel.py").unlink(),
    ]
    for change in changes:
        change()
        assert answers(v) == answers(verifier(tmp_path))
    assert v.check("import:lodash").verdict is Verdict.VERIFIED


@needs_git
def test_only_the_changed_file_is_parsed_again(tmp_path):
    files = {f"m{i}.py": f'import os\nA{i} = os.environ.get("A{i}")\n' for i in range(20)}
    init_repo(write(tmp_path, files))
    v = verifier(tmp_path)
    assert v.check("env:B").verdict is Verdict.REFUTED  # every file reads the environment: all parsed
    parsed = _parsed(v)
    assert parsed == 20
    assert v.check("env:B").verdict is Verdict.REFUTED and _parsed(v) == parsed  # nothing changed: nothing read
    (tmp_path / "m7.py").write_text('import os\nB = os.environ["B"]\n')
    result = v.check("env:B")
    assert result.verdict is Verdict.VERIFIED and [e.path for e in result.evidence] == ["m7.py"]
    assert _parsed(v) == parsed + 1
    write(tmp_path, {"m20.py": 'import os\nC = os.getenv("C")\n'})
    assert v.check("env:C").verdict is Verdict.VERIFIED and _parsed(v) == parsed + 2


def test_a_same_size_rewrite_within_the_clock_tick_is_seen(tmp_path):
    write(tmp_path, {"a.py": "import aaaaa\n"})
    v = verifier(tmp_path)
    assert v.check("import:aaaaa").verdict is Verdict.VERIFIED
    stat = os.stat(tmp_path / "a.py")
    (tmp_path / "a.py").write_text("import bbbbb\n")
    os.utime(tmp_path / "a.py", ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same size, same mtime
    assert v.check("import:aaaaa").verdict is Verdict.REFUTED
    assert v.check("import:bbbbb").verdict is Verdict.VERIFIED


_PROJECT = {
    "pyproject.toml": '[project]\nname = "app"\nversion = "1"\ndependencies = ["requests"]\n',
    "Makefile": "build:\n\techo build\n",
    **{f"app/m{i}.py": f'import json\nimport os\nA{i} = os.environ.get("A{i}")\n\ndef f{i}():\n    return json\n' for i in range(12)},
}
_ANCHORS = ["import:json", "import:redis", "env:A3", "env:B", "sym:app/m3.py::f3", "sym:app/m3.py::g", "pkg:pypi/requests", "cmd:make build", "file:app/m4.py"]


def _reading(v, monkeypatch) -> list[str]:
    """The paths the Verifier's checkout reads from now on."""
    reads: list[str] = []
    read = v.repo._read
    monkeypatch.setattr(v.repo, "_read", lambda path, cap, amount=-1: reads.append(path) or read(path, cap, amount))
    return reads


def _verdicts(v) -> dict[str, str]:
    return {anchor: v.check(anchor).verdict.value for anchor in _ANCHORS}


@pytest.mark.parametrize("in_git", [pytest.param(True, marks=needs_git), False])
def test_a_recall_after_an_edit_reads_and_parses_only_the_edited_file(tmp_path, monkeypatch, in_git):
    write(tmp_path, _PROJECT)
    if in_git:
        init_repo(tmp_path)
    v = verifier(tmp_path)
    first = _verdicts(v)
    assert first == {
        "import:json": "VERIFIED", "import:redis": "REFUTED", "env:A3": "VERIFIED", "env:B": "REFUTED",
        "sym:app/m3.py::f3": "VERIFIED", "sym:app/m3.py::g": "REFUTED", "pkg:pypi/requests": "VERIFIED",
        "cmd:make build": "VERIFIED", "file:app/m4.py": "VERIFIED",
    }
    reads, parsed = _reading(v, monkeypatch), _parsed(v)
    assert _verdicts(v) == first and reads == []  # nothing changed: every answer is kept, nothing is read
    (tmp_path / "app/m7.py").write_text(_PROJECT["app/m7.py"] + "# a comment\n")  # changes no answer
    assert _verdicts(v) == first
    assert set(reads) == {"app/m7.py"} and _parsed(v) <= parsed + 1
    reads.clear()
    (tmp_path / "app/m3.py").write_text('import redis\nimport os\nB = os.environ["B"]\n\ndef g():\n    pass\n')
    now = _verdicts(v)
    assert now == {**first, "import:redis": "VERIFIED", "env:A3": "REFUTED", "env:B": "VERIFIED", "sym:app/m3.py::f3": "REFUTED", "sym:app/m3.py::g": "VERIFIED"}
    assert set(reads) == {"app/m3.py"}
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "app"\nversion = "1"\ndependencies = []\n')
    assert _verdicts(v) == {**now, "pkg:pypi/requests": "REFUTED"}


@pytest.mark.parametrize("in_git", [pytest.param(True, marks=needs_git), False])
def test_answers_kept_across_calls_follow_added_and_deleted_files(tmp_path, in_git):
    write(tmp_path, _PROJECT)
    if in_git:
        init_repo(tmp_path)
    v = verifier(tmp_path)
    first = _verdicts(v)
    write(tmp_path, {"app/new/x.py": 'import redis\nimport os\nB = os.getenv("B")\n', "justfile": "build:\n    echo\n"})
    added = _verdicts(v)
    assert added == {**first, "import:redis": "VERIFIED", "env:B": "VERIFIED"}
    (tmp_path / "app/m4.py").unlink()
    (tmp_path / "app/m3.py").unlink()
    assert _verdicts(v) == {**added, "env:A3": "REFUTED", "sym:app/m3.py::f3": "REFUTED", "file:app/m4.py": "REFUTED"}
    (tmp_path / "Makefile").unlink()
    assert v.check("cmd:make build").verdict is not Verdict.VERIFIED
    (tmp_path / "app/new/x.py").unlink()
    assert v.check("import:redis").verdict is Verdict.REFUTED and v.check("env:B").verdict is Verdict.REFUTED


def test_a_file_no_listing_holds_is_read_again_at_every_call(tmp_path):
    write(tmp_path, {"app.py": "import json\n", "build/gen.py": "def made():\n    pass\n"})  # build/ is skipped
    v = verifier(tmp_path)
    assert v.check("sym:build/gen.py::made").verdict is Verdict.VERIFIED
    (tmp_path / "build/gen.py").write_text("def other():\n    pass\n")  # no snapshot watches it
    assert v.check("sym:build/gen.py::made").verdict is Verdict.REFUTED


def test_the_checkout_of_a_verifier_that_answered_still_pickles(tmp_path):
    """A worker gets a copy of the checkout; what the Verifier's memo holds (searches, their watches)
    does not travel with it."""
    import pickle

    write(tmp_path, _PROJECT)
    v = verifier(tmp_path)
    assert v.check("env:B").verdict is Verdict.REFUTED
    copy = pickle.loads(pickle.dumps(v.repo))
    assert copy.paths() == v.repo.paths() and copy.read_bytes("app/m1.py") == (tmp_path / "app/m1.py").read_bytes()


_TREE = {
    "pkg/__init__.py": "",
    "pkg/util/__init__.py": "",
    "pkg/util/log.py": "import logging\n",
    "pkg/core.py": "from pkg.util import log\nimport os\nHOME = os.environ.get('HOME')\n",
    **{f"pkg/m{i}.py": f"from pkg.core import HOME\nimport os\nX{i} = os.getenv('X{i}')\n" for i in range(8)},
    **{f"tests/test_m{i}.py": f"import pkg.util.log\nfrom pkg import m{i}\n" for i in range(4)},
    "pkg/util/sub/__init__.py": "",
    "pkg/util/sub/rel.py": "from .. import log\n",
    "docs/example.py": "from pkg.util.log import logging\n",
}
# Anchors whose searches keep per-file verdicts across edits: dotted (ranked, cited), relative, env, absent.
_KEPT = ["import:pkg.util.log", "import:pkg.util.log in:pkg/", "import:pkg.core", "import:pkg.nothere", "env:HOME", "env:X3", "env:NOPE", "import:logging"]


def _json(v) -> list[dict]:
    return [v.verify(Memory(id=anchor, anchors=[anchor])).to_dict() for anchor in _KEPT]


@pytest.mark.parametrize("in_git", [pytest.param(True, marks=needs_git), False])
def test_recalls_after_edits_additions_and_deletions_equal_a_new_verifiers(tmp_path, in_git):
    """A kept search is patched for the changed files only (their prefilter verdicts, clauses and
    ranking judged again): every answer, evidence and count equals a new Verifier's, step by step."""
    write(tmp_path, _TREE)
    if in_git:
        init_repo(tmp_path)
    v = verifier(tmp_path)
    assert _json(v) == _json(verifier(tmp_path))
    steps = [
        lambda: (tmp_path / "pkg/core.py").write_text("import os\nHOME = os.environ['HOME']\n"),  # an importer no more
        lambda: (tmp_path / "pkg/m3.py").write_text("import pkg.util.log\nimport pkg.nothere\n"),  # now one, X3 gone
        lambda: write(tmp_path, {"pkg/new/x.py": "from pkg.util import log as l\nimport os\nN = os.getenv('NOPE')\n"}),
        lambda: (tmp_path / "tests/test_m1.py").unlink(),
        lambda: (tmp_path / "pkg/util/sub/rel.py").write_text("from . import other\n"),  # the relative import goes
        lambda: (tmp_path / "pkg/m3.py").unlink(),
        lambda: (tmp_path / "pkg/new/x.py").write_bytes(b"\x00\x01 log binary now\n"),  # not source any more
        lambda: (tmp_path / "docs/example.py").write_text("import logging\n"),
        lambda: write(tmp_path, {"logging.py": "X = 1\n"}),  # `logging` is first-party code now
        lambda: (tmp_path / "logging.py").write_text("X = 2\n"),
        lambda: (tmp_path / "logging.py").unlink(),
    ]
    for step in steps:
        step()
        assert _json(v) == _json(verifier(tmp_path)), step
    if in_git:
        git(tmp_path, "add", "-A")  # the index moves: listed again, same truth
        assert _json(v) == _json(verifier(tmp_path))


def test_a_recall_after_an_edit_judges_only_the_edited_file(tmp_path, monkeypatch):
    """After an edit, a search whose answer the file feeds judges that file's bytes, not every
    candidate's again (the kept prefilter verdicts, clauses and ranking of the others stand)."""
    write(tmp_path, _TREE)
    v = verifier(tmp_path)
    before = _json(v)
    index = SourceIndex.of(v.context)
    judged: list[str] = []
    judge = index.prefilter.judge
    monkeypatch.setattr(index.prefilter, "judge", lambda files, wanted, result: judged.extend(p for p, _ in files) or judge(files, wanted, result))
    (tmp_path / "pkg/core.py").write_text((tmp_path / "pkg/core.py").read_text() + "# edited\n")
    assert _json(v) == before
    assert set(judged) == {"pkg/core.py"}


@pytest.mark.parametrize("in_git", [pytest.param(True, marks=needs_git), False])
def test_a_write_through_a_listed_symlink_is_seen(tmp_path, in_git):
    """Only the listed files that may be links are looked at when the snapshot is taken: a write to
    the file a link names changes what a read of the link gets."""
    write(tmp_path, {"real/target.py": "def f():\n    pass\n"})
    (tmp_path / "alias.py").symlink_to("real/target.py")
    if in_git:
        init_repo(tmp_path)
    v = verifier(tmp_path)
    assert v.check("sym:alias.py::g").verdict is Verdict.REFUTED
    (tmp_path / "real/target.py").write_text("def f():\n    pass\n\ndef g():\n    pass\n")
    assert v.check("sym:alias.py::g").verdict is Verdict.VERIFIED


def test_when_the_event_queue_overflows_every_file_counts_as_changed(tmp_path, monkeypatch):
    """The kernel drops events past its queue's size: the snapshot then has no signature to compare
    with, so everything is looked at again, and the answer is the new truth."""
    write(tmp_path, _TREE)
    v = verifier(tmp_path)
    assert v.check("import:redis").verdict is Verdict.REFUTED
    (tmp_path / "pkg/m5.py").write_text("import redis\n")
    if v._snapshot._events is not None:
        monkeypatch.setattr(type(v._snapshot._events), "happened", lambda self: None)
    assert v.check("import:redis").verdict is Verdict.VERIFIED
    assert _json(v) == _json(verifier(tmp_path))


def test_an_edit_of_a_module_file_does_not_ask_again_where_modules_live(tmp_path, monkeypatch):
    """Whether a path exists, and as what, changes only with a new listing: after an edit of
    `pkg/__init__.py`, whether `pkg` is first-party code is not asked of the disk again."""
    write(tmp_path, _TREE)
    v = verifier(tmp_path)
    before = _json(v)
    asked: list[str] = []
    for name in ("is_file", "is_dir", "exists"):
        probe = getattr(v.repo, name)
        monkeypatch.setattr(v.repo, name, lambda path, probe=probe: asked.append(path) or probe(path))
    (tmp_path / "pkg/__init__.py").write_text("# edited\n")
    assert _json(v) == before == _json(verifier(tmp_path))
    assert asked == []


def _edit_while_listing(monkeypatch, edit) -> None:
    """Run `edit` once, right after the listing of a new snapshot looked at the checkout (git's commands
    or the walk are done) and before that snapshot returns: where a change used to go unseen."""
    from anchorcheck.repo.checkout import Repository

    pending = [edit]

    def after(result):
        while pending:
            pending.pop()()
        return result

    git_listing, walk = Repository._git_listing, Repository._walk_files
    monkeypatch.setattr(Repository, "_git_listing", lambda self: after(git_listing(self)))
    monkeypatch.setattr(Repository, "_walk_files", lambda self: after(list(walk(self))))


@pytest.mark.parametrize(("in_git", "prefetch"), [pytest.param(True, False, marks=needs_git), pytest.param(True, True, marks=needs_git), (False, False)])
def test_files_added_while_the_first_look_lists_the_checkout_are_seen(tmp_path, monkeypatch, in_git, prefetch):
    """Also where git's listing is fetched in the background from the start (`check --watch`)."""
    write(tmp_path, {"app/a.py": "import json\n", "scratch/s.py": "import json\n"})
    if in_git:
        init_repo(tmp_path)
        write(tmp_path, {"scratch/s.py": "import json\n", "scratch/t.py": "import json\n"})  # git tracks no file there
        (tmp_path / "scratch/s.py").unlink()
        git(tmp_path, "rm", "-q", "--cached", "scratch/s.py")
    _edit_while_listing(monkeypatch, lambda: write(tmp_path, {"app/late.py": "import redis\n", "scratch/late.py": "import celery\n"}))
    v = Verifier(tmp_path, options={"cache": False, "prefetch_listing": prefetch})
    assert v.check("import:json").verdict is Verdict.VERIFIED  # the first look, the files added during it
    assert v.check("import:redis").verdict is Verdict.VERIFIED
    assert v.check("import:celery").verdict is Verdict.VERIFIED
    assert v.verify(Memory(anchors=["file:app/late.py", "file:scratch/late.py"])).verdict is Verdict.VERIFIED


@needs_git
def test_a_tracked_file_edited_while_the_first_look_lists_the_checkout_is_read_again(tmp_path, monkeypatch):
    """Git said the file matched its index entry, so its blob id named its bytes, and the facts and verdicts
    stored on disk for that blob would answer: the edit made after git looked must still be seen."""
    write(tmp_path, {"app/a.py": "import json\n", "app/b.py": "import os\n"})
    init_repo(tmp_path)
    cache = tmp_path.parent / "cache"
    assert verifier(tmp_path, cache).check("import:redis").verdict is Verdict.REFUTED  # stored for this tree state
    v = verifier(tmp_path, cache)
    _edit_while_listing(monkeypatch, lambda: (tmp_path / "app/a.py").write_text("import json\nimport redis\n"))
    assert v.check("import:os").verdict is Verdict.VERIFIED
    assert v.check("import:redis").verdict is Verdict.VERIFIED


@pytest.mark.parametrize("in_git", [pytest.param(True, marks=needs_git), False])
def test_an_edit_while_a_new_configuration_is_taken_in_is_seen(tmp_path, monkeypatch, in_git):
    """The configuration changed: a new view of the checkout and a new snapshot. What changed between
    the look that found it and the new snapshot's watches comes from the old snapshot."""
    import anchorcheck.verify.resident as resident_module

    write(tmp_path, {"app/a.py": "import json\n", "gen/g.py": "import yaml\n"})
    if in_git:
        init_repo(tmp_path)
    v = verifier(tmp_path)
    assert v.check("import:redis").verdict is Verdict.REFUTED and v.check("import:yaml").verdict is Verdict.VERIFIED
    snapshot = resident_module._snapshot

    def edited_first(repo, *args):
        (tmp_path / "app/a.py").write_text("import json\nimport redis\n")
        monkeypatch.setattr(resident_module, "_snapshot", snapshot)
        return snapshot(repo, *args)

    write(tmp_path, {".anchorcheck.toml": 'exclude = ["gen/"]\n'})
    monkeypatch.setattr(resident_module, "_snapshot", edited_first)
    assert v.check("import:yaml").verdict is Verdict.REFUTED  # the new configuration is in force
    assert v.check("import:redis").verdict is Verdict.VERIFIED


@needs_git
def test_a_snapshot_of_a_checkout_listed_before_it_reports_what_changed_since_the_listing(tmp_path):
    """No watch or signature was on while it was listed: a file git vouched for that was written since is
    compared with git's blob (an edit is reported, an untouched file is not), a new file asks for a new listing."""
    from anchorcheck.evidence.freshness import Snapshot
    from anchorcheck.repo.checkout import Repository

    init_repo(write(tmp_path, {"a.py": "import json\n", "b.py": "import os\n"}))
    repo = Repository(tmp_path)
    assert repo.paths() == ["a.py", "b.py"]
    (tmp_path / "a.py").write_text("import redis\n")
    write(tmp_path, {"c.py": "import celery\n"})
    changes = Snapshot(repo).changes()
    assert changes.modified == {"a.py"} and changes.relist


_PATCHED = {
    "pkg/__init__.py": "",
    "pkg/util/__init__.py": "",
    "pkg/util/log.py": "import logging\n",
    "pkg/solo.py": "X = 1\n",
    "pkg/user.py": "from pkg import solo\n",  # the only importer of pkg.solo
    "pkg/quiet.py": "import os\nQ = 1\n",
    **{f"pkg/l{i}.py": f"import pkg.util.log\n{'Z = 0' * i}\n" for i in range(5)},  # five importers, smallest first
    "pkg/conf.py": "import os\nHOME = os.environ['HOME']\n",
    "tests/test_solo.py": "import pkg.solo\n",
    "tests/test_log.py": "from pkg.util import log\n",
    "docs/example.py": "import pkg.solo\nimport os\nD = os.getenv('HOME')\n",
}
_PATCHED_ANCHORS = ["import:pkg.util.log", "import:pkg.solo", "import:pkg.nothere", "import:os", "env:HOME", "env:NOPE"]


def _answers(v) -> list[dict]:
    return [v.verify(Memory(id=anchor, anchors=[anchor])).to_dict() for anchor in _PATCHED_ANCHORS]


@pytest.mark.parametrize("cached", [False, True])
@pytest.mark.parametrize("in_git", [pytest.param(True, marks=needs_git), False])
def test_a_kept_search_is_patched_for_an_edit_not_worked_out_again(tmp_path, monkeypatch, in_git, cached):
    """An edit in place patches each kept goal search for the edited file alone (its candidacy, its
    facts counted against the goal, its place in the order files are parsed and cited): no search
    goes over its candidates again, only the edited file is judged and parsed, and every answer,
    evidence and count equals a new Verifier's. A file moved between production and tests is taken in
    by the listing file by file where inotify names it in git (each kept search patched for both
    paths), else the checkout is listed again and those searches worked out anew: the same truth."""
    root = tmp_path / "repo"
    write(root, _PATCHED)
    if in_git:
        init_repo(root)
    v = verifier(root, tmp_path / "cache" if cached else None)
    assert _answers(v) == _answers(verifier(root))
    # The first search of each goal judged files only as far as it parsed (a lazy walk): the first
    # one after an edit goes over every candidate once, and keeps that answer to patch. The edit holds
    # a needle of every search (an `env:` search looks for the environment's readers, not the key).
    (root / "pkg/quiet.py").write_text("import os\nQ = 1  # solo log nothere HOME NOPE environ\n")
    assert _answers(v) == _answers(verifier(root))
    index = SourceIndex.of(v.context)
    rebuilt, judged = [], []
    answer, judge = index.searches.answer, index.prefilter.judge
    monkeypatch.setattr(index.searches, "answer", lambda *args: rebuilt.append(args) or answer(*args))
    monkeypatch.setattr(index.prefilter, "judge", lambda files, wanted, result: judged.extend(p for p, _ in files) or judge(files, wanted, result))
    # Each edit, and the files the next recalls parse: the edited one where a search needs its facts,
    # and the next candidate in size order where the goal (three production importers) needs one more.
    edits = [
        ("pkg/user.py", "X = 2\n", []),  # the only production importer of pkg.solo goes: only in tests now
        ("pkg/quiet.py", "import os\nimport pkg.solo\nQ = 1\n", ["pkg/quiet.py"]),  # a new importer
        ("pkg/l0.py", "import pkg.util.log\n" + "# grown past the others\n" * 40, ["pkg/l3.py"]),  # now parsed and cited last
        # No longer parses cleanly (pkg.nothere is unsure now), and l4 is smaller: parsed first to meet the goal.
        ("pkg/l1.py", "import pkg.util.log  # nothere\ndef broken(:\n", ["pkg/l1.py", "pkg/l4.py"]),
        ("pkg/l2.py", "X = os.environ['HOME'] + 'log'\n", ["pkg/l2.py"]),  # no importer now, reads HOME: l1, l3, l4 are
        ("pkg/conf.py", "import os\nHOME = os.environ.get('NOPE')\n", ["pkg/conf.py"]),  # reads another key
        ("pkg/solo.py", "import pkg.nothere\n", ["pkg/solo.py"]),  # the absent module is imported now
    ]
    edited, parsed = set(), []
    store = index.store.add
    monkeypatch.setattr(index.store, "add", lambda path, *args: parsed.append(path) or store(path, *args))
    for path, text, parses in edits:
        judged.clear()
        parsed.clear()
        (root / path).write_text(text)
        edited.add(path)
        assert _answers(v) == _answers(verifier(root)), path
        assert not rebuilt, path
        assert path in judged and set(judged) <= edited  # a search not run since an earlier edit judges that file too
        assert sorted(parsed) == parses, path
        if path == "pkg/l1.py":
            assert _answers(v)[2]["results"][0]["verdict"] == "INCONCLUSIVE"
    assert [r["results"][0]["verdict"] for r in _answers(v)] == ["VERIFIED"] * 6
    (root / "tests/test_log.py").rename(root / "pkg/free.py")  # from tests into production
    assert _answers(v) == _answers(verifier(root))
    assert bool(rebuilt) == (v._snapshot._events is None or not in_git)


@pytest.mark.parametrize("in_git", [pytest.param(True, marks=needs_git), False])
def test_an_invalid_configuration_is_an_error_at_every_call_until_it_is_fixed(tmp_path, in_git):
    """A new Verifier raises ConfigError; a long-lived one raised it once, then answered under the
    old configuration as if nothing had changed."""
    from anchorcheck.repo.config import ConfigError

    write(tmp_path, {"app/a.py": "import json\n", "gen/g.py": "import yaml\n"})
    if in_git:
        init_repo(tmp_path)
    v = verifier(tmp_path)
    assert v.check("import:yaml").verdict is Verdict.VERIFIED
    write(tmp_path, {".anchorcheck.toml": "exclude = 3\n"})
    for _ in range(2):
        with pytest.raises(ConfigError):
            v.check("import:yaml")
    write(tmp_path, {".anchorcheck.toml": 'exclude = ["gen/"]\n'})
    assert v.check("import:yaml").verdict is Verdict.REFUTED


@pytest.mark.parametrize("in_git", [pytest.param(True, marks=needs_git), False])
def test_a_new_size_cap_judges_every_file_again(tmp_path, in_git):
    """The facts of a file parsed under the old cap were kept after `max-file-size` shrank below its
    size: a new Verifier does not parse it, so absence it might hide is INCONCLUSIVE."""
    write(tmp_path, {"app/a.py": "import json  # not redis\n" + "# padding\n" * 20, "app/b.py": "import os\n"})
    if in_git:
        init_repo(tmp_path)
    v = verifier(tmp_path)
    assert v.check("import:redis").verdict is Verdict.REFUTED
    write(tmp_path, {".anchorcheck.toml": "max-file-size = 100\n"})
    assert v.check("import:redis").to_dict() == verifier(tmp_path).check("import:redis").to_dict()
    assert v.check("import:redis").verdict is Verdict.INCONCLUSIVE


@pytest.mark.parametrize("in_git", [pytest.param(True, marks=needs_git), False])
def test_a_file_replaced_by_a_rename_or_a_link_is_read_again(tmp_path, in_git):
    """An editor's atomic save (a new file renamed over the old), a file deleted and written again, a
    file replaced by a link, a directory swapped for another of the same name: the paths are listed
    as before, so only the events' names say which files to read again (they said only "relist")."""
    write(tmp_path, {"app/a.py": "import json\n", "app/b.py": "import os\n", "pkg/m.py": "import os\n", "other/m.py": "import celery\n", "docs/x.py": "import yaml\n"})
    if in_git:
        init_repo(tmp_path)
    v = verifier(tmp_path)
    assert [v.check(a).verdict for a in ("import:redis", "import:yaml", "import:celery in:pkg/")] == [Verdict.REFUTED, Verdict.VERIFIED, Verdict.REFUTED]
    write(tmp_path, {"app/a.py.tmp": "import redis\n"})
    os.replace(tmp_path / "app/a.py.tmp", tmp_path / "app/a.py")  # saved atomically
    assert v.check("import:redis").verdict is Verdict.VERIFIED
    (tmp_path / "app/b.py").unlink()
    (tmp_path / "app/b.py").symlink_to("../docs/x.py")
    (tmp_path / "docs/x.py").unlink()
    write(tmp_path, {"docs/x.py": "import flask\n"})  # deleted and written again
    assert v.check("import:yaml").verdict is Verdict.REFUTED
    assert v.check("import:flask").to_dict() == verifier(tmp_path).check("import:flask").to_dict()
    os.rename(tmp_path / "pkg", tmp_path / "old")
    os.rename(tmp_path / "other", tmp_path / "pkg")  # a directory swapped for another
    assert v.check("import:celery in:pkg/").verdict is Verdict.VERIFIED


@pytest.mark.parametrize("in_git", [pytest.param(True, marks=needs_git), False])
def test_a_file_created_in_a_directory_no_listed_file_lives_in_is_seen(tmp_path, in_git):
    """An empty directory (there from the start, or emptied since), or one holding only ignored files:
    no listed file named it, so nothing watched it, and a file created there later went unseen."""
    write(tmp_path, {"app/a.py": "import json\n", "old/x.py": "import json\n", "logs/run.log": "x\n", ".gitignore": "*.log\n"})
    (tmp_path / "empty/deeper").mkdir(parents=True)
    if in_git:
        init_repo(tmp_path)
    v = verifier(tmp_path)
    assert v.check("import:redis").verdict is Verdict.REFUTED
    write(tmp_path, {"empty/deeper/b.py": "import redis\n"})
    assert v.check("import:redis").verdict is Verdict.VERIFIED
    (tmp_path / "old/x.py").unlink()  # the directory stays, empty
    assert v.check("import:celery").verdict is Verdict.REFUTED
    write(tmp_path, {"old/y.py": "import celery\n"})
    assert v.check("import:celery").verdict is Verdict.VERIFIED
    write(tmp_path, {"logs/z.py": "import yaml\n"})
    assert v.check("import:yaml").verdict is Verdict.VERIFIED


def test_where_an_absent_key_may_be_read_is_what_a_new_search_meets(tmp_path):
    """A search for an absent key stops at the first file it knows of that reads the environment
    wholesale or by a computed key: a long-lived Verifier knew one from its past (parsed when it was
    the first), and said "computed key" there where a new Verifier says "whole environment" at the
    smaller file edited since. Now both name the files a new search meets, smallest first."""
    write(tmp_path, {
        "app/a.py": "import os  # environ\n",
        "app/big.py": "import os\nVALUE = os.environ[name]\n" + "# padding\n" * 30,
    })
    v = verifier(tmp_path)
    assert v.check("env:NOPE").state == "computed-key"
    (tmp_path / "app/a.py").write_text("import os\nALL = dict(os.environ)\n")
    result = v.check("env:NOPE")
    assert result.to_dict() == verifier(tmp_path).check("env:NOPE").to_dict()
    assert result.state == "whole-environment" and "app/a.py:2" in result.reason and "big" not in result.reason


@needs_git
def test_a_tracked_link_is_never_named_by_its_blob(tmp_path):
    """Git's blob of a tracked symlink is the link's text: the facts stored on disk under it (and the
    prefilter's verdict remembered for it) answered for a new process after the file the link points
    to was rewritten, though the link itself did not change."""
    write(tmp_path, {"real/target.py": "import json\n", "app/b.py": "import os\n"})
    (tmp_path / "alias.py").symlink_to("real/target.py")
    init_repo(tmp_path)
    cache = tmp_path.parent / "cache"
    assert verifier(tmp_path, cache).check("import:redis in:alias.py").verdict is Verdict.REFUTED
    (tmp_path / "real/target.py").write_text("import redis\n")
    git(tmp_path, "add", "-A")  # the link's blob and the index as they were but for the target
    assert verifier(tmp_path, cache).check("import:redis in:alias.py").verdict is Verdict.VERIFIED
    assert verifier(tmp_path, cache).check("import:redis in:alias.py").verdict is Verdict.VERIFIED


def test_a_new_plugins_setting_loads_the_plugins_a_new_verifier_would(tmp_path):
    """The configuration's `plugins` key changed: a long-lived Verifier went on with the plugins it
    had loaded, answering anchors no plugin a new Verifier loads would check."""
    write(tmp_path, {"app/a.py": "import json\n", "README.md": "x\n"})
    v = verifier(tmp_path)
    assert v.check("import:json").verdict is Verdict.VERIFIED
    write(tmp_path, {".anchorcheck.toml": 'plugins = ["file"]\n'})
    assert v.check("import:json").to_dict() == verifier(tmp_path).check("import:json").to_dict()
    assert v.check("import:json").verdict is Verdict.INCONCLUSIVE
    assert v.check("file:README.md").verdict is Verdict.VERIFIED


def test_workers_check_under_the_configuration_of_the_checkout_now(tmp_path):
    """`verify_many` with an executor hands each worker the Verifier's configuration: after it changed
    in the checkout, the workers still checked under the old one."""
    from concurrent.futures import ThreadPoolExecutor

    write(tmp_path, {"app/a.py": "import json\n", "gen/g.py": "import yaml\n"})
    v = verifier(tmp_path)
    memories = [Memory(id="yaml", anchors=["import:yaml"])]
    with ThreadPoolExecutor(2) as pool:
        assert v.verify_many(memories, executor=pool)[0].verdict is Verdict.VERIFIED
        write(tmp_path, {".anchorcheck.toml": 'exclude = ["gen/"]\n'})
        assert v.verify_many(memories, executor=pool)[0].verdict is Verdict.REFUTED


@pytest.mark.parametrize("in_git", [pytest.param(True, marks=needs_git), False])
def test_a_link_to_a_file_no_listing_holds_follows_that_file(tmp_path, in_git):
    """A listed link to a file in a skipped directory: nothing watched that directory, so a write to
    the file, or its deletion (the link dangles: no longer listed), went unseen with inotify."""
    write(tmp_path, {"build/gen.py": "import json\n", "app/a.py": "import os\n"})
    (tmp_path / "app/alias.py").symlink_to("../build/gen.py")
    if in_git:
        init_repo(tmp_path)
    v = verifier(tmp_path)
    assert v.check("import:redis").verdict is Verdict.REFUTED
    (tmp_path / "build/gen.py").write_text("import redis\n")
    assert v.check("import:redis").verdict is Verdict.VERIFIED
    (tmp_path / "build/gen.py").unlink()
    assert v.check("import:redis").to_dict() == verifier(tmp_path).check("import:redis").to_dict()
    assert v.check("import:redis").verdict is Verdict.REFUTED


@pytest.mark.parametrize("in_git", [pytest.param(True, marks=needs_git), False])
def test_a_file_an_edited_gitignore_no_longer_ignores_is_listed(tmp_path, in_git):
    """A `.gitignore` edited in place changes which files exist for the listing, though no directory
    changed: the stat pass took it for an edit of one file, and the ignored files stayed out."""
    write(tmp_path, {".gitignore": "scripts/\n", "app/a.py": "import json\n", "scripts/s.py": "import redis\n"})
    if in_git:
        init_repo(tmp_path)
    v = verifier(tmp_path)
    assert v.check("import:redis").verdict is Verdict.REFUTED
    (tmp_path / ".gitignore").write_text("# none\n")
    assert v.check("import:redis").verdict is Verdict.VERIFIED
    if in_git:
        (tmp_path / ".git/info/exclude").write_text("scripts/\n")
        assert v.check("import:redis").verdict is Verdict.REFUTED


def test_a_link_to_a_link_follows_every_link_of_the_chain(tmp_path):
    """`a.py` -> `b.py` -> `c.py`: only the end of the chain was noted, so `b.py` replaced by a file
    of its own changed what `a.py` reads, unseen with inotify."""
    write(tmp_path, {"c.py": "import json\n", "app/x.py": "import os\n"})
    (tmp_path / "b.py").symlink_to("c.py")
    (tmp_path / "a.py").symlink_to("b.py")
    v = verifier(tmp_path)
    assert v.check("import:redis in:a.py").verdict is Verdict.REFUTED
    (tmp_path / "b.py").unlink()
    write(tmp_path, {"b.py": "import redis\n"})
    assert v.check("import:redis in:a.py").verdict is Verdict.VERIFIED


@needs_git
def test_a_file_the_prefilter_on_disk_skipped_is_judged_again_once_edited(tmp_path, monkeypatch):
    """A tracked file over the size cap, recorded as skipped by the prefilter another process kept on
    disk: a long-lived Verifier that recalled that record never noted the file as read, so when it
    shrank below the cap its searches kept counting it out."""
    root = tmp_path / "repo"
    write(root, {".anchorcheck.toml": "max-file-size = 120\n", "app/a.py": "import json\n", "tests/t.py": "import os\n" + "# pad\n" * 30})
    init_repo(root)
    cache = tmp_path / "cache"
    first = verifier(root, cache)  # the prefilter's verdicts recorded on disk
    assert first.check("import:json").verdict is Verdict.VERIFIED and first.check("import:celery").verdict is Verdict.REFUTED
    v = verifier(root, cache)
    assert v.check("import:json").verdict is Verdict.VERIFIED
    (root / "app/a.py").write_text("import json\nimport os\n")  # a change seen: verdicts stored on disk no longer answer
    assert v.check("import:celery").to_dict() == verifier(root).check("import:celery").to_dict()
    (root / "tests/t.py").write_text("import os\n")
    assert v.check("import:celery").to_dict() == verifier(root).check("import:celery").to_dict()
    assert v.check("import:redis in:tests/").verdict is Verdict.REFUTED


@pytest.mark.parametrize("in_git", [pytest.param(True, marks=needs_git), False])
def test_an_edited_gitignore_changes_what_a_missing_path_means(tmp_path, in_git):
    """The ignore files' patterns are kept on the Repository between calls: an edit of one (in place, the
    same size, in the same clock tick) still changes the answer on a missing path at the next recall."""
    write(tmp_path, {".gitignore": "*.log\n", "web/.gitignore": "/out/\n", "web/app.js": "x\n"})
    if in_git:
        init_repo(tmp_path)
    v = verifier(tmp_path)

    def ignored(path: str) -> bool:
        return bool(v.context.ignored_because(path))

    v.check("file:web/out/app.js")
    assert ignored("logs/run.log") and ignored("web/out/app.js") and not ignored("web/gen/app.js")
    (tmp_path / ".gitignore").write_text("*.txt\n")  # same size
    (tmp_path / "web/.gitignore").write_text("/gen/\n")
    v.check("file:web/out/app.js")
    assert not ignored("logs/run.log") and not ignored("web/out/app.js") and ignored("web/gen/app.js")
    if in_git:  # and what it means to a missing typed path: history is asked only of what git could have held
        (tmp_path / "web/.gitignore").write_text("/out/\n")
        assert "history" not in v.check("file:web/out/app.js").details
        (tmp_path / "web/.gitignore").unlink()
        assert v.check("file:web/out/app.js").details["history"]["change"] is None  # never in history


@needs_git
def test_a_git_init_under_a_verifier_lists_the_checkout_as_git_does(tmp_path):
    """The walk's seed 4 without git: `git init` and `git add -A` in a tree outside git, then a `.gitignore`
    of `docs/`. Git still lists the tracked `docs/example.py` (a new Verifier finds flask imported); the
    long-lived one kept the no-`.git` it found first, walked the tree and left the ignored folder out.
    And `.git` deleted again: the tree is walked, `docs/` ignored, as a new Verifier does."""
    write(tmp_path, {"docs/example.py": "import flask\n", "src/a.py": "import json\n"})
    v = verifier(tmp_path)
    assert v.check("import:flask").verdict is Verdict.VERIFIED
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    write(tmp_path, {".gitignore": "*.js\ndocs/\nAGENTS.md\n"})
    assert git(tmp_path, "ls-files", "docs/").split() == ["docs/example.py"]  # tracked, though ignored
    assert v.check("import:flask").to_dict() == verifier(tmp_path).check("import:flask").to_dict()
    assert v.check("import:flask").verdict is Verdict.VERIFIED
    shutil.rmtree(tmp_path / ".git")
    assert v.check("import:flask").to_dict() == verifier(tmp_path).check("import:flask").to_dict()
    assert v.check("import:flask").verdict is Verdict.REFUTED


@needs_git
def test_a_rename_history_gives_is_judged_against_the_tree_as_it_is_now(tmp_path):
    """The walk's seed 28: `lint` renamed to `test` in a commit, so `make lint` is REFUTED "renamed to `test`" with a
    fix; then the Makefile is edited (not committed) and `test` goes too. History's answer is kept by HEAD, which did
    not move, but whether the new name holds is the tree's: no rename to a target that is not there, as a new
    Verifier says, from memory and from the disk cache alike."""
    write(tmp_path, {"Makefile": "lint:\n\techo lint\n"})
    init_repo(tmp_path)
    write(tmp_path, {"Makefile": "test:\n\techo lint\n"})
    git(tmp_path, "commit", "-qam", "lint is test")
    cache = tmp_path.parent / f"{tmp_path.name}-cache"
    v = verifier(tmp_path, cache)
    first = v.check("cmd:make lint")
    assert first.verdict is Verdict.REFUTED and "renamed to `test`" in first.reason and first.details["fix"]["to"] == "test"
    write(tmp_path, {"Makefile": "check:\n\techo lint\n"})
    again = v.check("cmd:make lint")
    for other in (again, verifier(tmp_path, cache).check("cmd:make lint"), verifier(tmp_path).check("cmd:make lint")):
        assert other.verdict is Verdict.REFUTED and "renamed to" not in other.reason and "fix" not in other.details, other.reason


@needs_git
def test_a_dependency_a_manifest_declares_again_is_no_longer_dropped_for_a_long_lived_verifier(tmp_path):
    """What a manifest's history dropped is asked of the manifests as they are at each call: a `wrapt` in a memory's
    code after pyproject.toml dropped it is stale, and once the manifest declares it again (or a new manifest in the
    memory's folder does), a long-lived Verifier says so, as a new one would."""
    from anchorcheck.memory.references import MENTION
    from anchorcheck.model.reference import Reference

    pyproject = '[project]\nname = "app"\ndependencies = [\n  "wrapt>=1.14",\n]\n'
    write(tmp_path, {"pyproject.toml": pyproject, "web/x.py": "x = 1\n"})
    init_repo(tmp_path)
    write(tmp_path, {"pyproject.toml": pyproject.replace('  "wrapt>=1.14",\n', "")})
    git(tmp_path, "commit", "-qam", "drop wrapt")
    memory = Memory(text="Wrap calls with `wrapt`.", anchors=[Reference("pkg", "pkg:wrapt", "wrapt", 1, 17, 22, MENTION)])
    v = verifier(tmp_path)
    assert v.verify(memory).results[0].verdict is Verdict.REFUTED
    write(tmp_path, {"pyproject.toml": pyproject})  # declared again, not committed
    assert v.verify(memory).results[0].verdict is Verdict.INCONCLUSIVE
    assert verifier(tmp_path).verify(memory).results[0].verdict is Verdict.INCONCLUSIVE
