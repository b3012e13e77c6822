"""`env:` over committed configuration, scopes, and values that must never be printed."""

from __future__ import annotations

import json

import pytest
from tests._source_support import check, lines, verifier, write

from anchorcheck import Verdict
from anchorcheck.cli import main

CONFIG = {
    ".env.example": "export DOTENV_KEY=hunter2-secret\n# SKIPPED=1\nEMPTY_KEY=\n",
    "deploy/prod.env": "PROD_KEY=topsecret\n",
    "Dockerfile": "FROM python\nARG BUILD_VER=1\nENV RUN_A=1 \\\n    RUN_B=\"two\"\nENV LEGACY value with spaces\n",
    "docker-compose.yml": "services:\n  web:\n    environment:\n      - LIST_KEY=s3cret\n      - BARE_KEY\n  db:\n    environment:\n      MAP_KEY: x\n      \"QUOTED_KEY\": y\n",
    ".github/workflows/ci.yml": "env:\n  TOP_KEY: a\njobs:\n  test:\n    env: {FLOW_KEY: b}\n    steps:\n      - env:\n          STEP_KEY: ${{ secrets.TOKEN }}\n",
    "app.py": "import os\nos.getenv('CODE_KEY')\n",
}


@pytest.fixture()
def tree(tmp_path):
    return write(tmp_path, CONFIG)


@pytest.mark.parametrize(
    ("key", "where"),
    [
        ("DOTENV_KEY", (".env.example", 1)),
        ("EMPTY_KEY", (".env.example", 3)),
        ("PROD_KEY", ("deploy/prod.env", 1)),
        ("BUILD_VER", ("Dockerfile", 2)),
        ("RUN_A", ("Dockerfile", 3)),
        ("RUN_B", ("Dockerfile", 3)),
        ("LEGACY", ("Dockerfile", 5)),
        ("LIST_KEY", ("docker-compose.yml", 4)),
        ("BARE_KEY", ("docker-compose.yml", 5)),
        ("MAP_KEY", ("docker-compose.yml", 8)),
        ("QUOTED_KEY", ("docker-compose.yml", 9)),
        ("TOP_KEY", (".github/workflows/ci.yml", 2)),
        ("FLOW_KEY", (".github/workflows/ci.yml", 5)),
        ("STEP_KEY", (".github/workflows/ci.yml", 8)),
        ("CODE_KEY", ("app.py", 2)),
    ],
)
def test_defined_in_config_or_code(tree, key, where):
    result = check(tree, f"env:{key}")
    assert result.verdict is Verdict.VERIFIED, result.reason
    assert lines(result) == [where]


def test_absent_everywhere_is_refuted(tree):
    result = check(tree, "env:SKIPPED")
    assert result.verdict is Verdict.REFUTED
    assert "configuration file" in result.reason


def test_scope_limits_config_too(tree):
    assert check(tree, "env:PROD_KEY in:deploy/").verdict is Verdict.VERIFIED
    assert check(tree, "env:DOTENV_KEY in:deploy/").verdict is Verdict.REFUTED


def test_values_are_never_printed(tree, monkeypatch, capsys):
    monkeypatch.chdir(tree)
    main(["anchor", "--no-cache", "--format", "json", "env:DOTENV_KEY", "env:LIST_KEY", "env:PROD_KEY", "env:STEP_KEY"])
    out = capsys.readouterr().out
    assert all(r["verdict"] == "VERIFIED" for r in json.loads(out)["results"])
    for secret in ("hunter2", "s3cret", "topsecret", "secrets.TOKEN"):
        assert secret not in out


def test_env_search_parses_only_what_can_change_the_answer(tmp_path):
    from anchorcheck.evidence.index import SourceIndex

    files = {f"svc/m{i}.py": f"import os\nA{i} = os.getenv('OTHER_{i}')\n" for i in range(12)}
    files["svc/reads.py"] = "import os\nURL = os.environ['REDIS_URL']\n"
    files["svc/dyn.py"] = "import os\ndef get(name):\n    return os.environ[name]\n"
    write(tmp_path, files)
    v = verifier(tmp_path)
    present = v.check("env:REDIS_URL")
    assert present.verdict is Verdict.VERIFIED and [(e.path, e.line) for e in present.evidence] == [("svc/reads.py", 2)]
    assert SourceIndex.of(v.context).parsed == 1  # the one file naming the key
    absent = v.check("env:NOT_THERE")
    assert absent.verdict is Verdict.INCONCLUSIVE and "svc/dyn.py:3" in absent.reason
    del files["svc/dyn.py"]
    (tmp_path / "svc/dyn.py").unlink()
    refuted = verifier(tmp_path).check("env:NOT_THERE")  # no computed key: absence needs every reader parsed
    assert refuted.verdict is Verdict.REFUTED and "13 read in full" in refuted.reason


def test_a_file_that_spells_the_key_but_cannot_read_the_environment_is_not_parsed(tmp_path):
    """Every read of the environment holds one of its language's markers (`environ`, `getenv`): a view
    reading the WSGI `META["PATH_INFO"]` spells the key and reads nothing, so it is not parsed, and a
    file that spells a key without a marker cannot make its absence unsure, broken or not."""
    from anchorcheck.evidence.index import SourceIndex

    views = {f"app/view{i}.py": f"def view(request):\n    return request.META['PATH_INFO'] * {i}\n" for i in range(5)}
    v = verifier(write(tmp_path, {**views, "app/reads.py": "import os\nP = os.environ['PATH_INFO']\n", "app/broken.py": "NAME = 'UNREAD_KEY'\ndef broken(:\n"}))
    present = v.check("env:PATH_INFO")
    assert present.verdict is Verdict.VERIFIED and [(e.path, e.line) for e in present.evidence] == [("app/reads.py", 2)]
    assert SourceIndex.of(v.context).parsed == 1
    absent = check(tmp_path, "env:UNREAD_KEY")
    assert absent.verdict is Verdict.REFUTED, absent.reason
    assert "1 read in full" in absent.reason


def test_broken_yaml_that_could_define_the_key_is_not_evidence_of_absence(tmp_path):
    """A workflow that does not parse may define more than can be read from it: like a source file
    with a syntax error, it makes absence INCONCLUSIVE when its bytes hold the key, and only then."""
    tree = write(tmp_path, {".github/workflows/ci.yml": "on: push\njobs:\n  a:\n    steps: [\n  env:\n    BROKEN_KEY: 1\n   bad: : :\n"})
    result = check(tree, "env:BROKEN_KEY")
    assert result.verdict is Verdict.INCONCLUSIVE, result.reason
    assert ".github/workflows/ci.yml" in result.reason
    assert check(tree, "env:OTHER_KEY").verdict is Verdict.REFUTED


def test_dockerfile_lines_are_counted_by_newline_and_continue_past_trailing_blanks(tmp_path):
    """Docker continues an instruction on a backslash followed by blanks, and only `\\n` ends a
    line: a form feed in a RUN command must not shift the evidence lines after it."""
    tree = write(tmp_path, {"Dockerfile": b"FROM x\r\nENV CONT_A=1 \\  \r\n    CONT_B=2\r\nRUN printf '\x0c'\r\nENV AFTER_FF=1\r\n"})
    assert lines(check(tree, "env:CONT_B")) == [("Dockerfile", 2)]
    assert lines(check(tree, "env:AFTER_FF")) == [("Dockerfile", 5)]


def test_dockerfile_continuation_skips_comment_and_empty_lines(tmp_path):
    tree = write(tmp_path, {"Dockerfile": "FROM x\nENV SKIP_A=1 \\\n    # why B\n    SKIP_B=2 \\\n\n    SKIP_C=3\nENV SKIP_D=4\n"})
    for key in ("SKIP_A", "SKIP_B", "SKIP_C"):
        assert lines(check(tree, f"env:{key}")) == [("Dockerfile", 2)], key
    assert lines(check(tree, "env:SKIP_D")) == [("Dockerfile", 7)]


def test_config_with_a_byte_order_mark(tmp_path):
    tree = write(tmp_path, {".env.example": b"\xef\xbb\xbfBOM_KEY=1\nNEXT_KEY=2\n", "Dockerfile": b"\xef\xbb\xbfARG BOM_ARG\nFROM x\n"})
    assert lines(check(tree, "env:BOM_KEY")) == [(".env.example", 1)]
    assert lines(check(tree, "env:BOM_ARG")) == [("Dockerfile", 1)]


def test_compose_environment_through_yaml_anchors_and_merge_keys(tmp_path):
    compose = (
        "x-env: &env\n  ANCHORED: '1'\n  SHARED: '2'\nservices:\n  web:\n    environment: *env\n"
        "  worker:\n    environment:\n      <<: *env\n      OWN: '3'\n"
    )
    tree = write(tmp_path, {"docker-compose.yml": compose})
    assert lines(check(tree, "env:ANCHORED")) == [("docker-compose.yml", 2)]
    assert lines(check(tree, "env:SHARED")) == [("docker-compose.yml", 3)]
    assert lines(check(tree, "env:OWN")) == [("docker-compose.yml", 10)]
    assert check(tree, "env:x-env").verdict is Verdict.REFUTED  # the anchor's own key is not a variable
