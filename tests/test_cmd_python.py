"""The Python project tools: uv/poetry/pdm/hatch/rye/poe scripts, dependencies' console scripts, groups, `python -m`."""

from __future__ import annotations

from anchorcheck import Verdict
from tests._cmd_support import check, verdicts

V, R, I = Verdict.VERIFIED, Verdict.REFUTED, Verdict.INCONCLUSIVE

PYPROJECT = """\
[project]
name = "tracker"
dependencies = ["httpx>=0.27"]

[project.optional-dependencies]
redis = ["redis>=5"]

[project.scripts]
tracker = "tracker.cli:main"

[dependency-groups]
dev = ["pytest>=8", "ruff", "tox"]
docs = ["sphinx<8"]

[tool.pdm.scripts]
lint = "ruff check ."

[tool.rye.scripts]
serve = "python -m tracker.server"

[tool.poe.tasks]
fmt = "ruff format ."

[tool.hatch.envs.default.scripts]
cov = "pytest --cov"

[tool.hatch.envs.docs]
dependencies = ["mkdocs"]

[tool.hatch.envs.docs.scripts]
build = "mkdocs build"
"""

TREE = {
    "pyproject.toml": PYPROJECT,
    "src/tracker/__init__.py": "",
    "src/tracker/__main__.py": "",
    "src/tracker/server.py": "",
    "src/tracker/api/__init__.py": "",
    "scripts/seed.py": "",
    "tox.ini": "[tox]\nenv_list = py312, lint\n",
}


def test_run_scripts_files_and_console_scripts(make_tree) -> None:
    root = make_tree(TREE)
    got = verdicts(
        root,
        "uv run tracker", "uv run pytest -x", "uv run --frozen ruff check .", "uv run scripts/seed.py", "uv run python scripts/seed.py",
        "poetry run pytest", "pdm run lint", "pdm lint", "rye run serve", "hatch run cov", "hatch run docs:build",
        "hatch run docs:mkdocs serve", "uv run --with black black .", "uv run tox -e lint",
        "uv run mypy .", "uv run scripts/gone.py", "uv run my-internal-tool", "pdm run nosuch", "hatch run nosuch:build",
        "uv run tox -e nosuch",
    )
    assert got == {
        "uv run tracker": V, "uv run pytest -x": V, "uv run --frozen ruff check .": V, "uv run scripts/seed.py": V,
        "uv run python scripts/seed.py": V, "poetry run pytest": V, "pdm run lint": V, "pdm lint": V, "rye run serve": V,
        "hatch run cov": V, "hatch run docs:build": V, "hatch run docs:mkdocs serve": V, "uv run --with black black .": V,
        "uv run tox -e lint": V,  # handed to the tox runner
        "uv run mypy .": R,  # a known tool the complete manifests neither declare nor lock
        "uv run scripts/gone.py": R,
        "uv run my-internal-tool": I,  # some dependency may provide it
        "pdm run nosuch": I, "hatch run nosuch:build": R, "uv run tox -e nosuch": R,
    }
    [pytest] = check(root, "uv run pytest")
    assert (pytest.evidence[0].path, pytest.evidence[0].line) == ("pyproject.toml", 12) and "dependency group dev" in pytest.reason


def test_what_a_run_adds_provides_its_program_however_it_is_written(make_tree) -> None:
    """`--with` takes PEP 508 requirements (`mypy~=1.10` named `mypy~` once, which made a true command
    REFUTED); a path, an archive, a requirements file or an editable folder may install the program, so
    nothing it adds rules it out."""
    root = make_tree(TREE)
    added = [
        "uv run --with 'mypy~=1.10' mypy .", "uv run --with 'mypy ==1.10' mypy .", "uv run --with 'mypy!=1.9' mypy .",
        "uv run --with 'mypy[reports]>=1' mypy .", "uv run --with 'mypy @ https://example.com/mypy.whl' mypy .",
        "uv run --with 'ruff,mypy>1' mypy .", "uv run --with \"mypy; python_version > '3.8'\" mypy .",
    ]
    unknowable = [
        "uv run --with ./dist/mypy-1.10-py3-none-any.whl mypy .", "uv run --with mypy-1.10.tar.gz mypy .",
        "uv run --with-requirements tools.txt mypy .", "uv run --with-editable tools mypy .",
    ]
    got = verdicts(root, *added, *unknowable, "uv run --with black mypy .")
    assert got == {**dict.fromkeys(added, V), **dict.fromkeys(unknowable, I), "uv run --with black mypy .": R}
    [editable] = check(root, "uv run --with-editable tools mypy .")
    assert editable.reason == "mypy may come from `--with-editable tools`, added to the run: what that installs is not looked into"


def test_groups_extras_and_project_commands(make_tree) -> None:
    root = make_tree(TREE)
    got = verdicts(
        root, "uv sync", "uv sync --group docs", "uv run --group docs sphinx-build docs out", "uv sync --extra redis",
        "uv sync --all-extras", "poetry install", "hatch test", "uv sync --group nosuch", "uv run --extra nosuch pytest",
        "uv tool install ruff", "uvx ruff check", "uv pip install -e .",
    )
    assert got == {
        "uv sync": V, "uv sync --group docs": V, "uv run --group docs sphinx-build docs out": V, "uv sync --extra redis": V,
        "uv sync --all-extras": V, "poetry install": V, "hatch test": V, "uv sync --group nosuch": R,
        "uv run --extra nosuch pytest": R, "uv tool install ruff": I, "uvx ruff check": I, "uv pip install -e .": I,
    }


def test_no_pyproject(make_tree) -> None:
    """poetry and `uv sync` need a project; `uv run` does not: it runs a script (`uv run tool.py`, inline
    metadata or none) or a command in whatever environment it finds, which the repository does not name."""
    root = make_tree({"package.json": "{}", "tools/seed.py": "print(1)\n"})
    got = verdicts(
        root, "uv run pytest", "poetry install", "poetry run pytest", "uv sync", "uv run tools/seed.py", "uv run python tools/seed.py",
        "uv run --with rich tools/seed.py", "uv run tools/gone.py", "uv run",
    )
    assert got == {
        "uv run pytest": I, "poetry install": R, "poetry run pytest": R, "uv sync": R, "uv run tools/seed.py": V,
        "uv run python tools/seed.py": V, "uv run --with rich tools/seed.py": V, "uv run tools/gone.py": R, "uv run": I,
    }


def test_python_modules(make_tree) -> None:
    root = make_tree(TREE)
    got = verdicts(
        root,
        "python -m tracker", "python3 -m tracker.server", "uv run -m tracker", "uv run python -m tracker.server --port 1",
        "python -m venv .venv", "python -m http.server", "python -m pytest", "python -mpytest",
        "python -m tracker.gone", "python -m tracker.api", "python -m unknownpkg", "python -c 'print(1)'",
        "python scripts/seed.py", "python scripts/gone.py",
    )
    assert got == {
        "python -m tracker": V, "python3 -m tracker.server": V, "uv run -m tracker": V, "uv run python -m tracker.server --port 1": V,
        "python -m venv .venv": V, "python -m http.server": V,  # the standard library
        "python -m pytest": V, "python -mpytest": V,  # a declared dependency
        "python -m tracker.gone": R,  # the package is in the repository and has no such module
        "python -m tracker.api": R,  # a package without __main__.py
        "python -m unknownpkg": I, "python -c 'print(1)'": I,
        "python scripts/seed.py": V, "python scripts/gone.py": R,
    }


def test_poe(make_tree) -> None:
    root = make_tree(TREE)
    assert verdicts(root, "poe fmt", "uv run poe fmt", "poe nosuch") == {"poe fmt": V, "uv run poe fmt": V, "poe nosuch": R}
    root = make_tree({"pyproject.toml": '[tool.poe]\ninclude = "tasks.toml"\n[tool.poe.tasks]\na = "x"\n'})
    assert verdicts(root, "poe b") == {"poe b": I}


def test_unreadable_pyproject(make_tree) -> None:
    root = make_tree({"pyproject.toml": "[project\nname = 1\n"})
    [result] = check(root, "uv run pytest")
    assert result.verdict is I and "pyproject.toml:1" in result.reason


def test_a_console_script_cites_the_project_it_runs_in_before_a_workspace_member(make_tree) -> None:
    # python-sdk: `uv run --frozen pytest` cited examples/clients/simple-auth's dev group, not the root's.
    root = make_tree(
        {
            "pyproject.toml": '[project]\nname = "mcp"\n\n[tool.uv.workspace]\nmembers = ["examples/*"]\n\n[dependency-groups]\ndev = ["pytest>=8"]\n',
            "examples/auth/pyproject.toml": '[project]\nname = "auth"\n\n[dependency-groups]\ndev = ["pytest>=8"]\n',
        }
    )
    [result] = check(root, "uv run --frozen pytest")
    assert result.verdict is V
    assert [(e.path, e.line) for e in result.evidence] == [("pyproject.toml", 8)]
    assert "workspace member" not in result.reason
