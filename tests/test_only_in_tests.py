"""Evidence that rests only on tests, examples or vendored code says so everywhere (issue 15): the
reason, `details["only_in"]`, the prompt mark, and the text and SARIF reports."""

from __future__ import annotations

import json

import pytest
from tests._source_support import check, verifier, write

import anchorcheck
from anchorcheck import Verdict
from anchorcheck.cli import main
from anchorcheck.report.render import render_prompt

ONLY_IN_TESTS = {
    "go": ({"go.mod": "module example.com/x\n\ngo 1.22\n", "x.go": "package x\n\nfunc F() {}\n",
            "x_test.go": 'package x\n\nimport "os/exec"\n\nfunc TestF() { _ = exec.Command }\n'}, "import:os/exec", "x_test.go"),
    "python": ({"src/app.py": "import json\n", "tests/test_app.py": "import responses\n"}, "import:responses", "tests/test_app.py"),
    "javascript": ({"src/index.js": "module.exports = 1;\n", "src/index.test.js": 'const nock = require("nock");\n'}, "import:nock", "src/index.test.js"),
    "rust": ({"src/lib.rs": "pub fn f() {}\n", "tests/it.rs": "use proptest::prelude::*;\n"}, "import:proptest", "tests/it.rs"),
    "env python": ({"src/app.py": "import os\nos.getenv('A')\n", "tests/conftest.py": "import os\nos.environ.get('TEST_ONLY_KEY')\n"}, "env:TEST_ONLY_KEY", "tests/conftest.py"),
    "env ruby": ({"lib/a.rb": "ENV['A']\n", "spec/a_spec.rb": "ENV.fetch('TEST_ONLY_KEY')\n"}, "env:TEST_ONLY_KEY", "spec/a_spec.rb"),
}


@pytest.mark.parametrize("case", sorted(ONLY_IN_TESTS))
def test_evidence_only_in_test_code_says_so(tmp_path, case):
    files, anchor, where = ONLY_IN_TESTS[case]
    result = check(write(tmp_path, files), anchor)
    assert result.verdict is Verdict.VERIFIED, result.reason
    assert result.details["only_in"] == "test" and "; only in test code" in result.reason
    assert result.evidence[0].path == where


def test_production_evidence_is_not_marked(tmp_path):
    tree = write(tmp_path, {"src/run.py": "import subprocess\n", "tests/test_run.py": "import subprocess\n"})
    result = check(tree, "import:subprocess")
    assert "only_in" not in result.details and "only in" not in result.reason


def test_many_test_imports_do_not_hide_a_production_one(tmp_path):
    """Three test files would be enough evidence, but not enough to say "only in tests": the search
    goes on until it finds production code (or has seen every candidate)."""
    files = {f"tests/test_{i}.py": "import redis\n" for i in range(5)}
    files["src/zz/late.py"] = "x = 1\n" * 200 + "import redis\n"  # the largest file, parsed last
    tree = write(tmp_path, files)
    result = check(tree, "import:redis")
    assert "only_in" not in result.details, result.reason
    assert any(e.path == "src/zz/late.py" for e in result.evidence)
    env = write(tmp_path / "env", {**{f"tests/test_{i}.py": "import os\nos.getenv('K')\n" for i in range(5)},
                                  "src/zz/late.py": "import os\n" + "x = 1\n" * 200 + "os.getenv('K')\n"})
    assert "only_in" not in check(env, "env:K").details


def test_examples_and_vendored_code(tmp_path):
    tree = write(tmp_path, {"src/a.py": "x = 1\n", "examples/demo.py": "import redis\n", "third_party/lib.py": "import redis\n"})
    result = check(tree, "import:redis")
    assert result.details["only_in"] == "example or vendored"


@pytest.fixture()
def trapped(tmp_path):
    files, _, _ = ONLY_IN_TESTS["go"]
    tree = write(tmp_path, {**files, "MEMORY.md": "- We shell out with os/exec. `import:os/exec`\n- Plain. `file:x.go`\n"})
    return tree


def test_mark_rendering_shows_it(trapped):
    v = verifier(trapped)
    report = v.verify(anchorcheck.Memory(text="We shell out with os/exec", anchors=["import:os/exec"]))
    assert report.verdict is Verdict.VERIFIED
    rendered = render_prompt([report])
    assert "import:os/exec holds only in test code" in rendered.text and rendered.marked == 1


def test_text_and_sarif_reports_mark_it(trapped, monkeypatch, capsys):
    monkeypatch.chdir(trapped)
    assert main(["check", "--no-cache", "MEMORY.md"]) == 0
    text = capsys.readouterr().out
    assert "VERIFIED (only in test code) import:os/exec" in text
    assert "file:x.go" not in text  # a plain VERIFIED memory stays quiet
    assert main(["check", "--no-cache", "--format", "sarif", "MEMORY.md"]) == 0
    results = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    assert [(r["properties"]["anchor"], r["level"], r["kind"], r["properties"]["onlyIn"]) for r in results] == [
        ("import:os/exec", "note", "review", "test")
    ]
