"""The index parses only what the byte prefilter lets through, and honours the deadline."""

from __future__ import annotations

from tests._source_support import verifier, write
from tests.conftest import init_repo, needs_git

from anchorcheck import Memory, Verdict, Verifier
from anchorcheck.evidence.goals import Goal
from anchorcheck.evidence.index import SourceIndex
from anchorcheck.evidence.listing import classify
from anchorcheck_plugins.kinds._source import ENOUGH_EVIDENCE


def test_prefilter_parses_only_candidates(tmp_path):
    files = {f"pkg/m{i}.py": f"import json\nX{i} = {i}\n" for i in range(30)}
    files["pkg/uses.py"] = "import redis\n"
    write(tmp_path, files)
    v = verifier(tmp_path)
    result = v.check("import:redis")
    index = SourceIndex.of(v.context)
    assert result.verdict is Verdict.VERIFIED
    assert index.parsed == 1
    refuted = v.check("import:celery")
    # every file lacks "celery", the one parsed for redis included: the prefilter does not depend on order
    assert refuted.verdict is Verdict.REFUTED and "31 never mention it" in refuted.reason
    assert index.parsed == 1


def test_files_past_the_kept_bytes_are_read_once_per_search(tmp_path):
    """Bytes not kept in memory (a tree over the prefilter's memory) are judged for every needle
    at one read: a search with two needles reads each such file once, not once per needle."""
    write(tmp_path, {f"m{i}.py": f"import json\nX{i} = {i}\n" for i in range(20)} | {"hit.py": "import os\nos.getenv('MY_KEY')\n"})
    v = Verifier(tmp_path, options={"cache": False, "prefilter_memory": 0})
    reads = []
    real = v.context.repo.read_bytes
    v.context.repo.read_bytes = lambda path: reads.append(path) or real(path)
    result = v.check("env:MY_KEY")  # three needles: the key, environ and getenv
    assert result.verdict is Verdict.VERIFIED
    misses = [path for path in reads if path != "hit.py"]
    assert sorted(misses) == sorted({*misses}) and len(misses) == 20  # hit.py is read again to be parsed


def test_facts_are_shared_between_anchors(tmp_path):
    write(tmp_path, {"a.py": "import redis\nimport os\nos.getenv('K')\n"})
    v = verifier(tmp_path)
    v.verify(Memory(anchors=["import:redis", "import:os", "env:K", "sym:a.py::nothing"]))
    assert SourceIndex.of(v.context).parsed == 1


def test_deadline_makes_anchors_inconclusive(tmp_path):
    write(tmp_path, {f"m{i}.py": "import redis\n" for i in range(50)})
    report = verifier(tmp_path).verify(Memory(anchors=["import:redis", "env:X"]), deadline=1e-9)
    assert [r.verdict for r in report.results] == [Verdict.INCONCLUSIVE, Verdict.INCONCLUSIVE]
    assert all("budget" in r.reason for r in report.results)


def test_classify():
    assert classify("src/app.py") == "production"
    assert classify("tests/unit/x.py") == "test"
    assert classify("pkg/thing_test.go") == "test"
    assert classify("web/a.spec.ts") == "test"
    assert classify("examples/basic.py") == "example"
    assert classify("third_party/lib/x.py") == "vendored"


def test_many_misses_parse_in_worker_processes(tmp_path):
    from anchorcheck.evidence.facts_store import PARALLEL_PARSE

    files = {f"m{i}.py": f"import mod{i}\nimport os\nos.getenv('K{i}')\nclass C{i}: pass\n" for i in range(PARALLEL_PARSE + 5)}
    write(tmp_path, files)
    serial = verifier(tmp_path)
    serial.context.options["workers"] = 1
    pooled = verifier(tmp_path)
    pooled.context.options["workers"] = 2
    a = SourceIndex.of(serial.context).everything()
    b = SourceIndex.of(pooled.context).everything()
    assert [(p, f.to_dict()) for p, f in a.hits] == [(p, f.to_dict()) for p, f in b.hits]
    assert SourceIndex.of(pooled.context).parsed == len(files)
    assert pooled.check("env:K7").evidence[0].location() == "m7.py:3"


def test_positive_answer_stops_after_enough_evidence(tmp_path):
    files = {f"m{i:02}.py": "import redis\n" for i in range(30)}
    files.update({f"n{i:02}.py": "# mentions redis only\n" for i in range(10)})
    write(tmp_path, files)
    v = verifier(tmp_path)
    result = v.check("import:redis")
    assert result.verdict is Verdict.VERIFIED and "at least" in result.reason
    assert result.details["complete"] is False
    assert SourceIndex.of(v.context).parsed == ENOUGH_EVIDENCE  # likely importers first, none of the mentions


def test_mentions_are_not_parsed_once_the_likely_importers_are(tmp_path):
    # Two real importers, forty files that only mention the name: after the importers, the
    # answer is VERIFIED whatever the mentions hold, so they stay unparsed.
    files = {"a.py": "import mypy\n", "b.py": "from mypy.nodes import Node\n"}
    files.update({f"m{i:02}.py": "# type: ignore  # mypy wants this\nX = 1\n" for i in range(40)})
    write(tmp_path, files)
    v = verifier(tmp_path)
    result = v.check("import:mypy")
    assert result.verdict is Verdict.VERIFIED and "at least 1 other place" in result.reason
    assert [e.location() for e in result.evidence] == ["a.py:1", "b.py:1"]
    assert SourceIndex.of(v.context).parsed == 2


def test_small_likely_importers_are_parsed_first(tmp_path):
    # Twelve files import redis; the two huge ones are not needed for enough evidence.
    files = {f"m{i:02}.py": "import redis\n" for i in range(10)}
    files.update({f"big{i}.py": "import redis\n" + "X = [1, 2, 3]\n" * 20000 for i in range(2)})
    write(tmp_path, files)
    v = verifier(tmp_path)
    result = v.check("import:redis")
    assert result.verdict is Verdict.VERIFIED
    assert not any(e.path.startswith("big") for e in result.evidence)
    assert SourceIndex.of(v.context).parsed == ENOUGH_EVIDENCE


def test_guarded_imports_need_the_whole_search(tmp_path):
    files = {f"m{i:02}.py": "try:\n    import redis\nexcept ImportError:\n    redis = None\n" for i in range(30)}
    write(tmp_path, files)
    v = verifier(tmp_path)
    result = v.check("import:redis")
    assert "optional" in result.reason  # said only after the whole search
    assert SourceIndex.of(v.context).parsed == 30
    assert result.details["imports"] == 3 and result.details["complete"] is False  # the evidence cites three


def test_a_language_plugin_failing_on_a_file_makes_it_unparseable(tmp_path):
    from anchorcheck import Language, hookimpl
    from anchorcheck.evidence.facts import Facts

    def extract(parsed):  # noqa: ANN001, ANN202
        if b"boom" in parsed.source:
            raise RuntimeError("plugin bug")
        return Facts(imports=[("redis", 1, "")])

    class Plugin:
        @hookimpl
        def register_languages(self, register):  # noqa: ANN001, ANN201
            register(Language(name="toy", extensions=(".toy",), grammar="python", extract=extract))

    write(tmp_path, {"a.toy": "redis\n", "b.toy": "boom redis\n"})
    from anchorcheck import Verifier

    v = Verifier(tmp_path, plugins=[Plugin()], options={"cache": False})
    assert v.check("import:redis").verdict is Verdict.VERIFIED
    write(tmp_path / "other", {"b.toy": "boom celery\n"})
    other = Verifier(tmp_path / "other", plugins=[Plugin()], options={"cache": False}).check("import:celery")
    assert other.verdict is Verdict.INCONCLUSIVE and "b.toy:1" in other.reason


@needs_git
def test_binary_and_oversized_sources_are_skipped_not_unreadable(tmp_path):
    # The index judges binary and size from the bytes it reads, as `Repository.files` would; an
    # oversized file without the needle is no candidate (one with it: tests/test_hostile_wrong_answers.py).
    write(tmp_path, {
        "pyproject.toml": "[tool.anchorcheck]\nmax-file-size = 1024\n",
        "blob.py": b"import redis\x00\x01",
        "big.py": "import celery\n" + "#" * 4096,
        "ok.py": "import os\n",
    })
    init_repo(tmp_path)
    v = verifier(tmp_path)
    result = v.check("import:redis")
    assert result.verdict is Verdict.REFUTED
    assert "searched 1 source file:" in result.reason
    assert SourceIndex.of(v.context).parsed == 0


def test_a_lazy_search_judges_binary_and_oversized_files_as_the_first_search_does(tmp_path):
    # A later search walks the tree lazily; the files it read as binary or oversized are judged as a
    # first search judges them: an oversized one spelling the module makes absence unsure.
    write(tmp_path, {
        "pyproject.toml": "[tool.anchorcheck]\nmax-file-size = 1024\n",
        "blob.py": b"import celery\x00\x01",
        "big.py": "import celery\n" + "#" * 4096,
        "ok.py": "import os\n",
    })
    v = verifier(tmp_path)
    assert v.check("import:os").verdict is Verdict.VERIFIED  # reads the tree: the next search walks
    lazily = v.check("import:celery")
    assert lazily.verdict is Verdict.INCONCLUSIVE and "big.py" in lazily.reason
    assert lazily.to_dict() == verifier(tmp_path).check("import:celery").to_dict()


def test_facts_list_imports_in_document_order():
    # py-tree-sitter hands query captures over in a set's order, which moves between processes.
    from anchorcheck.evidence.extraction import extract_facts
    from anchorcheck.verify.loading import load_plugins

    languages = load_plugins().registry.languages
    source = "".join(f"import m{i}\n" for i in range(40)).encode()
    assert [line for _, line, _ in extract_facts(languages["python"], source).imports] == list(range(1, 41))
    go = b"package p\n\nimport (\n" + b"".join(b'\t"m%d"\n' % i for i in range(40)) + b")\n"
    assert [module for module, _, _ in extract_facts(languages["go"], go).imports] == [f"m{i}" for i in range(40)]


def test_python_imports_are_found_wherever_they_stand():
    # The import queries run only around the `import` keywords (the whole tree when it has an error).
    from anchorcheck.evidence.extraction import extract_facts
    from anchorcheck.verify.loading import load_plugins

    python = load_plugins().registry.languages["python"]
    body = "x = 1\n" * 500
    source = f"import a\n{body}def f():\n    try:\n        from b.c import (\n            d,\n        )\n    except ImportError:\n        pass\n{body}m = importlib.import_module(\n    'e'\n)\n"
    clean = extract_facts(python, source.encode())
    assert [(m, line) for m, line, _ in clean.imports] == [("a", 1), ("b.c", 504), ("b.c.d", 505), ("e", 1009)]
    broken = extract_facts(python, (source + "def (:\n").encode())
    assert broken.imports == clean.imports and broken.error is not None


def test_extraction_reads_the_bytes_once_not_once_per_node(monkeypatch):
    """The parse goes through a read callback (so a deadline can stop it); the facts must then be
    taken from a tree that holds the bytes, or every node's text is fetched through the callback
    again (0.3 ms a node on a 100 KB file: extraction cost four times the parse)."""
    from anchorcheck.evidence import extraction, trees
    from anchorcheck_plugins.languages.python import LANGUAGE

    reads = {"parse": 0, "after": 0}
    phase = ["parse"]

    def counting(parser, data, until):  # noqa: ANN001, ANN202, ARG001
        def read(at, _point):  # noqa: ANN001, ANN202
            reads[phase[0]] += 1
            return data[at : at + 65536]

        tree = parser.parse(read)
        phase[0] = "after"
        return tree

    monkeypatch.setattr(trees, "_bounded_parse", counting)
    monkeypatch.setattr(trees, "_HELD", trees._Held(trees._HELD_BYTES))  # no tree of an earlier test
    source = "".join(f"import mod{i}\nclass C{i}:\n    def m(self):\n        self.x = os.environ['K{i}']\n" for i in range(500))
    facts = extraction.extract_facts(LANGUAGE, source.encode())
    assert len(facts.imports) == 500 and ("K7", 4 * 7 + 4) in facts.env
    assert reads["parse"] > 0 and reads["after"] == 0  # the parse's own reads, none per node


def test_a_language_claiming_a_file_by_its_name_is_asked_per_name(tmp_path):
    """Languages are looked up once per extension, but a name a language claims whole (`Rakefile`)
    is not an extension: after `Makefile` (no language, no extension) it is still Ruby's."""
    write(tmp_path, {"Makefile": "all:\n\techo redis\n", "Rakefile": "require 'redis'\n"})
    result = verifier(tmp_path).check("import:redis")
    assert result.verdict is Verdict.VERIFIED
    assert [e.location() for e in result.evidence] == ["Rakefile:1"]


def test_a_positive_search_stops_scanning_where_it_stops_parsing(tmp_path):
    """Enough production evidence answers before most test files are even scanned for the needle;
    asking for every candidate (as absence, or a listing, does) scans the rest, and finds them all."""
    files = {f"app/m{i}.py": "import redis\n" for i in range(ENOUGH_EVIDENCE)}
    files |= {f"tests/test_{i}.py": "import redis\n" + "x = 1\n" * i for i in range(300)}
    write(tmp_path, files)
    v = verifier(tmp_path)
    index = SourceIndex.of(v.context)
    assert v.check("import:celery").verdict is Verdict.REFUTED  # the first search reads (and judges) every file
    goal = Goal(lambda path, facts: classify(path) == "production", ENOUGH_EVIDENCE, lambda language, data: True)
    search = index.search(None, lambda language: [b"redis"], goal=goal)
    assert not search.complete and index.parsed == ENOUGH_EVIDENCE
    assert len(search.found) < 100 and search.ruled_out == 0  # scanned: the production files and a few tests
    assert len(search.candidates) == 303 and len(search.found) == 303
    assert v.check("import:redis").verdict is Verdict.VERIFIED
    assert v.check("import:celery").verdict is Verdict.REFUTED  # absence scans every file


@needs_git
def test_a_lazy_search_remembers_on_disk_only_what_it_scanned(tmp_path):
    """The prefilter kept on disk covers the files a lazy search judged; a later process judges the
    others from their bytes and gives the same answers."""
    files = {f"app/m{i}.py": "import redis\n" for i in range(ENOUGH_EVIDENCE)}
    files |= {f"tests/test_{i}.py": "import redis\n" if i % 2 else "import json\n" for i in range(200)}
    write(tmp_path, files)
    init_repo(tmp_path)
    cache = tmp_path.parent / "cache"
    anchors = ("import:celery", "import:redis", "import:json")  # the first search of a Verifier judges every file
    v = verifier(tmp_path, cache)
    first = [v.check(anchor).to_dict() for anchor in anchors]
    v = verifier(tmp_path, cache)
    second = [v.check(anchor).to_dict() for anchor in anchors]
    assert first == second
    assert [r["verdict"] for r in second] == ["REFUTED", "VERIFIED", "VERIFIED"]
    # The same needles as import:redis, so the record it left answers; every candidate is listed.
    later = verifier(tmp_path, cache)
    assert len(SourceIndex.of(later.context).search(None, lambda language: [b"redis"]).candidates) == ENOUGH_EVIDENCE + 100


def test_a_lazy_search_counts_the_importers_an_earlier_search_parsed(tmp_path):
    """A walk whose goal the files an earlier search parsed already meet must still return them:
    `import:junction` then `import:fs_err` on uv said "nothing imports fs_err" (REFUTED) while 40
    files call `fs_err::`. The big importers are known; the walk stopped at the first small unknown
    candidate, before reaching their block, and returned that one alone."""
    files = {f"src/big{i}.rs": "use common::x;\nfn f() { fs_err::read(\"x\"); }\n" + "// padding\n" * 400 for i in range(ENOUGH_EVIDENCE)}
    files |= {f"src/small{i}.rs": f"fn s{i}() {{}}\n" + "// filler\n" * 10 for i in range(70)}
    files["src/mention.rs"] = "// fs_err\n"  # the smallest file: the first candidate the walk reaches
    write(tmp_path, files)
    v = verifier(tmp_path)
    assert v.check("import:common").verdict is Verdict.VERIFIED  # reads the tree, parses the big files
    result = v.check("import:fs_err")
    assert result.verdict is Verdict.VERIFIED, result.reason
    assert {e.path for e in result.evidence} == {f"src/big{i}.rs" for i in range(ENOUGH_EVIDENCE)}
