"""The tox runner (env lists, factors, sections, labels, every config file) and the nox runner (sessions via tree-sitter)."""

from __future__ import annotations

from anchorcheck import Verdict
from tests._cmd_support import check, verdicts
from tests.conftest import write_tree

V, R, I = Verdict.VERIFIED, Verdict.REFUTED, Verdict.INCONCLUSIVE

TOX_INI = """\
[tox]
envlist =
    # the matrix
    py3{10-12}-django{42,50}
    lint, docs
labels =
    static = lint, docs

[testenv]
deps = pytest

[testenv:lint]
commands = ruff check

[testenv:{py311,py312}-mysql]
commands = pytest
"""


def test_tox_environments(make_tree) -> None:
    root = make_tree({"tox.ini": TOX_INI})
    got = verdicts(
        root,
        "tox", "tox -e lint", "tox -e py311-django50", "tox -e py312-django42,docs", "tox -elint", "tox -e py312-mysql",
        "tox r -e lint", "tox -e py313-django42", "tox -e py3.13", "tox -m static", "tox -f django42",
        "tox -e nosuch", "tox -e py312-flask", "tox -m nosuch", "tox -e '{env}'",
    )
    assert got == {
        "tox": V, "tox -e lint": V, "tox -e py311-django50": V, "tox -e py312-django42,docs": V, "tox -elint": V,
        "tox -e py312-mysql": V, "tox r -e lint": V,
        "tox -e py313-django42": V, "tox -e py3.13": V,  # tox composes them from known and Python factors
        "tox -m static": V, "tox -f django42": V,
        "tox -e nosuch": R, "tox -e py312-flask": R, "tox -m nosuch": R, "tox -e '{env}'": I,
    }
    [lint] = check(root, "tox -e py310-django42")
    assert (lint.evidence[0].path, lint.evidence[0].line) == ("tox.ini", 4)


def test_tox_in_other_files(tmp_path) -> None:
    for number, files in enumerate((
        {"setup.cfg": "[metadata]\nname = x\n\n[tox:tox]\nenvlist = py312, lint\n"},
        {"pyproject.toml": '[tool.tox]\nlegacy_tox_ini = """\n[tox]\nenvlist = py312, lint\n"""\n'},
        {"pyproject.toml": '[tool.tox]\nenv_list = ["py312", "lint"]\n[tool.tox.env.docs]\ncommands = [["sphinx"]]\n'},
        {"tox.toml": 'env_list = ["py312", "lint"]\n[env.docs]\ncommands = [["sphinx"]]\n'},
    )):
        root = write_tree(tmp_path / str(number), files)
        got = verdicts(root, "tox -e lint", "tox -e nosuch")
        assert got == {"tox -e lint": V, "tox -e nosuch": R}, files
    root = write_tree(tmp_path / "plain", {"setup.cfg": "[metadata]\nname = x\n"})
    assert verdicts(root, "tox -e py") == {"tox -e py": R}


NOXFILE = '''\
import nox
from nox import session

nox.options.sessions = ["lint"]


@nox.session(reuse_venv=True, tags=["style"])
def lint(session: nox.Session) -> None:
    session.run("ruff")


@nox.session(python=["3.11", "3.12"])
def tests(session):
    session.run("pytest")


@session(name="build-docs")
def docs(session):
    session.run("sphinx-build")


@nox.session
@nox.parametrize("django", ["4.2", "5.0"])
def compat(session, django):
    session.install(f"django=={django}")


def helper():
    pass
'''


def test_nox_sessions(make_tree) -> None:
    root = make_tree({"noxfile.py": NOXFILE})
    got = verdicts(
        root,
        "nox", "nox -s lint", "nox -s tests", "nox -s tests-3.12", "nox -s build-docs", "nox --session=lint", "nox -s lint tests",
        "nox -e lint", "nox -t style", "nox -s compat", "nox -s 'compat(django=\"4.2\")'", "nox -s tests -- -k x",
        "nox -s docs", "nox -s helper", "nox -s tests-3.9", "nox -t nosuch", "nox -k 'not lint'", "nox -f other.py -s lint",
    )
    assert got == {
        "nox": V, "nox -s lint": V, "nox -s tests": V, "nox -s tests-3.12": V, "nox -s build-docs": V, "nox --session=lint": V,
        "nox -s lint tests": V, "nox -e lint": V, "nox -t style": V, "nox -s compat": V, "nox -s 'compat(django=\"4.2\")'": V,
        "nox -s tests -- -k x": V,
        "nox -s docs": R,  # renamed with name=
        "nox -s helper": R, "nox -s tests-3.9": R, "nox -t nosuch": R, "nox -k 'not lint'": I, "nox -f other.py -s lint": R,
    }
    [lint] = check(root, "nox -s lint")
    assert (lint.evidence[0].path, lint.evidence[0].line) == ("noxfile.py", 7)


def test_nox_open_world_and_errors(tmp_path) -> None:
    root = write_tree(tmp_path / "a", {"noxfile.py": "import nox\nNAME = 'x'\n\n@nox.session(name=NAME)\ndef a(s):\n    pass\n"})
    assert verdicts(root, "nox -s x") == {"nox -s x": I}
    root = write_tree(tmp_path / "b", {"noxfile.py": "import nox\nfor n in ['a', 'b']:\n    nox.session(lambda s: None, name=n)\n"})
    assert verdicts(root, "nox -s a") == {"nox -s a": I}
    root = write_tree(tmp_path / "c", {"noxfile.py": "import nox\n\n@nox.session\ndef a(s:\n    pass\n"})
    [broken] = check(root, "nox -s a")
    assert broken.verdict is I and "noxfile.py:" in broken.reason and "syntax error" in broken.reason
    root = write_tree(tmp_path / "d", {"setup.py": ""})
    assert verdicts(root, "nox -s a") == {"nox -s a": R}


def test_tox_bounds(tmp_path) -> None:
    # one entry whose brace product is a million names, and a list longer than anchorcheck keeps
    huge = write_tree(tmp_path / "huge", {"tox.ini": "[tox]\nenvlist = py{0-999}-a{0-999}, lint\n"})
    assert verdicts(huge, "tox -e lint", "tox -e py1-a1") == {"tox -e lint": V, "tox -e py1-a1": I}
    long = write_tree(tmp_path / "long", {"tox.ini": "[tox]\nenvlist = " + ", ".join(f"e{n}-{{a,b}}" for n in range(60_000)) + "\n"})
    assert verdicts(long, "tox -e e0-a", "tox -e nosuch") == {"tox -e e0-a": V, "tox -e nosuch": I}


def test_nested_launchers_stop(make_tree) -> None:
    root = make_tree({"pyproject.toml": "[project]\nname = 'x'\n"})
    [result] = check(root, "uv run " * 20 + "pytest")
    assert result.verdict is I and "nested more than 8 deep" in result.reason


def test_a_file_a_command_names_is_judged_alike_by_every_runner(make_tree) -> None:
    """`just -f`, `compose -f`, `nox -f`, `task -t`, `tox -c`: a missing file is REFUTED naming it, and one the shell
    computes (`$VAR`) or that leaves the repository is unknown, not missing."""
    root = make_tree({"justfile": "build:\n\techo\n", "noxfile.py": "import nox\n", "tox.ini": "[tox]\nenvlist = lint\n",
                      "compose.yaml": "services:\n  web:\n    image: x\n", "Taskfile.yml": "version: '3'\ntasks:\n  build:\n    cmds: [echo]\n"})
    written = {"just": "just -f {} build", "compose": "docker compose -f {} up web", "nox": "nox -f {} -s lint",
               "task": "task -t {} build", "tox": "tox -c {} -e lint"}
    for tool, line in written.items():
        missing, computed, outside = check(root, line.format("gone.cfg"), line.format("$CONFIG"), line.format("../other.cfg"))
        assert missing.verdict is R and "gone.cfg does not exist" in missing.reason, (tool, missing.reason)
        for unknown in (computed, outside):
            assert unknown.verdict is I and "is outside the repository or computed" in unknown.reason, (tool, unknown.reason)
    assert check(root, "docker compose -f - up web")[0].verdict is I  # standard input
    write_tree(root, {"sub/tox.ini": "[tox]\nenvlist = py\n"})
    assert verdicts(root, "tox -c sub -e py", "tox -c sub -e nosuch") == {"tox -c sub -e py": V, "tox -c sub -e nosuch": R}  # a folder: its tox.ini
