"""PyPI manifests and lockfiles: the real corpus (flask, rich, pdm, conda) and small fixtures for the rest."""

from __future__ import annotations

from pathlib import Path

from tests._pkg_support import corpus, index, names, needs_corpus, verdict, verifier, write

from anchorcheck.evidence.packages import BUILD, CONDA, DEV, DIRECT, GROUP, LOCKED, OPTIONAL, PROJECT


@needs_corpus
def test_flask_pep621_extras_groups_and_uv_lock() -> None:
    idx = index(corpus("flask"), "pypi")
    assert names(idx, DIRECT) == {"blinker", "click", "itsdangerous", "jinja2", "markupsafe", "werkzeug"}
    assert names(idx, OPTIONAL, "async") == {"asgiref"}
    assert names(idx, OPTIONAL, "dotenv") == {"python-dotenv"}
    assert names(idx, GROUP, "dev") == {"ruff", "tox", "tox-uv"}
    assert names(idx, GROUP, "gha-update") == {"gha-update"}
    assert names(idx, GROUP, "tests") == {"asgiref", "greenlet", "pytest", "python-dotenv"}
    assert names(idx, BUILD) == {"flit-core"}
    assert names(idx, PROJECT) == {"flask"}
    assert len(names(idx, LOCKED)) == 81  # uv.lock: 83 [[package]] entries, 81 distinct names
    marker = next(d for d in idx.declarations if d.name == "gha-update" and d.relation == GROUP)
    assert "python_full_version" in marker.specifier and marker.line == 52


@needs_corpus
def test_flask_nested_example_is_not_a_member_unless_scoped() -> None:
    root = corpus("flask")
    assert verdict(root, "pkg:pypi/celery") == "REFUTED"  # examples/celery is not a uv workspace member
    assert verdict(root, "pkg:pypi/celery in:examples/celery") == "VERIFIED"
    assert verdict(root, "pkg:pypi/celery in:examples/celery/pyproject.toml") == "VERIFIED"
    result = verifier(root).check("pkg:pypi/werkzeug@3.1.8")
    assert result.verdict.value == "VERIFIED"
    assert [(e.path, e.line) for e in result.evidence] == [("pyproject.toml", 29), ("uv.lock", 1805)]
    mismatch = verifier(root).check("pkg:pypi/werkzeug@<3")
    assert mismatch.verdict.value == "REFUTED" and "3.1.8" in mismatch.reason and "<3" in mismatch.reason


@needs_corpus
def test_rich_poetry_dependencies_extras_dev_and_lock() -> None:
    idx = index(corpus("rich"), "pypi")
    assert names(idx, DIRECT) == {"pygments", "markdown-it-py"}
    assert names(idx, OPTIONAL, "jupyter") == {"ipywidgets"}
    assert names(idx, DEV, "dev") == {"pytest", "black", "mypy", "pytest-cov", "attrs", "pre-commit", "typing-extensions"}
    assert "python" not in names(idx, DIRECT)
    assert len(names(idx, LOCKED)) == 49
    assert verdict(corpus("rich"), "pkg:pypi/Pygments@^2") == "INCONCLUSIVE"  # Poetry's caret is not PEP 440
    assert verdict(corpus("rich"), "pkg:pypi/Pygments@>=2.13") == "VERIFIED"


@needs_corpus
def test_pdm_groups_include_group_dev_dependencies_and_lock() -> None:
    idx = index(corpus("pdm-fixture"), "pypi")
    assert names(idx, DIRECT) == {"arrow", "pkginfo", "urllib3"}
    assert names(idx, OPTIONAL, "baz") == {"click", "isort"}
    assert names(idx, OPTIONAL, "bar") == {"requests"}
    assert names(idx, GROUP, "all") == {"certifi", "packaging"}  # include-group resolved
    assert names(idx, DEV, "lint") == {"black", "mypy"}
    assert names(idx, DEV, "test") == {"pytest", "pytest-cov"}
    assert verdict(corpus("pdm-fixture"), "pkg:pypi/requests@2.32.5") == "VERIFIED"


@needs_corpus
def test_conda_environment() -> None:
    idx = index(corpus("conda-fixture"), "pypi")
    assert names(idx, CONDA) == {"requests"}  # python itself is not a package
    assert verdict(corpus("conda-fixture"), "pkg:pypi/flask") == "REFUTED"


def test_conda_pip_list(tmp_path: Path) -> None:
    write(tmp_path, {"environment.yml": "dependencies:\n  - numpy>=1.2\n  - conda-forge::scipy\n  - pip:\n    - Flask>=3\n"})
    idx = index(tmp_path, "pypi")
    assert names(idx, CONDA) == {"numpy", "scipy"}
    assert names(idx, DIRECT) == {"flask"}


def test_requirements_files(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "requirements.txt": (
                "# the app\n--index-url https://example.invalid/simple\n-r requirements/base.in\n-c constraints.txt\n"
                "requests[socks]>=2.31 \\\n    --hash=sha256:abc \\\n    --hash=sha256:def\n"
                "tomli ; python_version < '3.11'  # marker\n"
                "mylib @ https://example.invalid/mylib-1.0.tar.gz\n"
                "https://example.invalid/wheels/Other_Pkg-2.0-py3-none-any.whl\n"
                "-e git+https://example.invalid/repo.git#egg=editable_one\n-e .\n"
            ),
            "requirements/base.in": "flask==3.0.3\n",
            "constraints.txt": "urllib3<3\n",
            "requirements-dev.txt": "pytest\n",
        },
    )
    idx = index(tmp_path, "pypi")
    assert names(idx, DIRECT) == {"flask", "requests", "tomli", "mylib", "other-pkg", "editable-one"}
    assert names(idx, DEV, "dev") == {"pytest"}
    assert "urllib3" not in {d.name for d in idx.declarations}  # a constraint declares nothing
    requests = next(d for d in idx.declarations if d.name == "requests")
    assert (requests.file, requests.line, requests.specifier) == ("requirements.txt", 5, ">=2.31")
    flask = next(d for d in idx.declarations if d.name == "flask")
    assert (flask.file, flask.line) == ("requirements/base.in", 1)
    assert not idx.problems()
    assert verdict(tmp_path, "pkg:pypi/flask@3.0.3") == "VERIFIED"  # pinned, no lockfile
    assert verdict(tmp_path, "pkg:pypi/django") == "REFUTED"


def test_requirements_including_itself_is_inconclusive(tmp_path: Path) -> None:
    write(tmp_path, {"requirements.txt": "flask\n-r requirements.txt\n"})
    result = verifier(tmp_path).check("pkg:pypi/django")
    assert result.verdict.value == "INCONCLUSIVE"
    assert "requirements.txt:2" in result.reason and "already being read" in result.reason


def test_requirements_editable_without_name_is_dynamic(tmp_path: Path) -> None:
    write(tmp_path, {"requirements.txt": "-e ./libs/thing\n"})
    result = verifier(tmp_path).check("pkg:pypi/django")
    assert result.verdict.value == "INCONCLUSIVE" and "libs/thing" in result.reason


def test_pipfile_and_lock(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "Pipfile": '[[source]]\nurl = "https://example.invalid"\n[packages]\nrequests = "*"\nflask = {version = ">=3"}\n'
            '[dev-packages]\npytest = "*"\n[docs]\nsphinx = "*"\n[requires]\npython_version = "3.12"\n',
            "Pipfile.lock": '{"_meta": {}, "default": {"requests": {"version": "==2.32.3"}, "idna": {"version": "==3.7"}},'
            ' "develop": {"pytest": {"version": "==8.2.0"}}}',
        },
    )
    idx = index(tmp_path, "pypi")
    assert names(idx, DIRECT) == {"requests", "flask"}
    assert names(idx, DEV, "dev") == {"pytest"}
    assert names(idx, GROUP, "docs") == {"sphinx"}
    assert verdict(tmp_path, "pkg:pypi/idna") == "VERIFIED"
    assert verdict(tmp_path, "pkg:pypi/requests@2.32.3") == "VERIFIED"
    assert verdict(tmp_path, "pkg:pypi/pytest@8.1") == "REFUTED"


def test_pylock(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pyproject.toml": '[project]\nname = "app"\ndependencies = ["attrs"]\n',
            "pylock.toml": 'lock-version = "1.0"\ncreated-by = "test"\n\n[[packages]]\nname = "attrs"\nversion = "25.1.0"\n'
            '[[packages.wheels]]\nurl = "https://example.invalid/attrs-25.1.0-py3-none-any.whl"\n'
            '[packages.wheels.hashes]\nsha256 = "00"\n',
        },
    )
    result = verifier(tmp_path).check("pkg:pypi/attrs@25.1.0")
    assert result.verdict.value == "VERIFIED"
    assert ("pylock.toml", 4) in [(e.path, e.line) for e in result.evidence]


def test_requirements_and_named_pylock_files_are_both_read(tmp_path: Path) -> None:
    """Both patterned readers (requirements files, `pylock.<name>.toml`) find their files in one pass over
    the listing, each file read by its own reader, in a project folder as at the root."""
    lock = (
        'lock-version = "1.0"\ncreated-by = "test"\n\n[[packages]]\nname = "{0}"\nversion = "{1}"\n'
        '[[packages.wheels]]\nurl = "https://example.invalid/{0}-{1}-py3-none-any.whl"\n[packages.wheels.hashes]\nsha256 = "00"\n'
    )
    write(
        tmp_path,
        {
            "requirements-dev.txt": "pytest>=8\n",
            "pylock.dev.toml": lock.format("pytest", "8.3.4"),
            "svc/pyproject.toml": '[project]\nname = "svc"\ndependencies = []\n',
            "svc/requirements/base.in": "redis>=5\n",
            "svc/pylock.prod.toml": lock.format("redis", "5.0.1"),
            "svc/notes.txt": "requirements are in requirements/\n",
        },
    )
    check = verifier(tmp_path).check
    for anchor, files in [
        ("pkg:pypi/pytest@8.3.4", {"requirements-dev.txt", "pylock.dev.toml"}),
        ("pkg:pypi/redis@5.0.1 in:svc/", {"svc/requirements/base.in", "svc/pylock.prod.toml"}),
    ]:
        result = check(anchor)
        assert result.verdict.value == "VERIFIED", result.reason
        assert {e.path for e in result.evidence} == files


def test_setup_cfg_and_static_setup_py(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "setup.cfg": "[metadata]\nname = old\n[options]\ninstall_requires =\n    requests>=2\n    six\n"
            "[options.extras_require]\nyaml = PyYAML\n",
            "setup.py": "from setuptools import setup\nsetup(name='old', install_requires=['click'], extras_require={'fast': ['orjson']})\n",
        },
    )
    idx = index(tmp_path, "pypi")
    assert names(idx, DIRECT) == {"requests", "six", "click"}
    assert names(idx, OPTIONAL, "yaml") == {"pyyaml"}
    assert names(idx, OPTIONAL, "fast") == {"orjson"}
    assert verdict(tmp_path, "pkg:pypi/django") == "REFUTED"


def test_setup_calls_by_how_the_callee_is_written(tmp_path: Path) -> None:
    """`setup(...)`, `setuptools.setup(...)` and `distutils.core.setup(...)` declare; another object's
    `.setup(...)`, a name that only starts with setup, and `setup` in a comment or a string do not."""
    write(
        tmp_path,
        {
            "setup.py": "import setuptools, distutils.core\n# setup(install_requires=['commented'])\n"
            "NOTE = \"setup(install_requires=['quoted'])\"\nconfig.setup(install_requires=['other'])\n"
            "setup_helpers(install_requires=['helper'])\nsetuptools.setup(install_requires=['click'])\n"
            "if True:\n    distutils.core.setup(extras_require={'fast': ['orjson']})\n",
        },
    )
    idx = index(tmp_path, "pypi")
    assert names(idx, DIRECT) == {"click"}
    assert names(idx, OPTIONAL, "fast") == {"orjson"}
    assert [(d.name, d.line) for d in idx.declarations] == [("click", 6), ("orjson", 8)]


def test_computed_setup_py_and_dynamic_pyproject_are_inconclusive(tmp_path: Path) -> None:
    write(tmp_path / "a", {"setup.py": "from setuptools import setup\nREQS = open('r.txt').read().split()\nsetup(install_requires=REQS)\n"})
    result = verifier(tmp_path / "a").check("pkg:pypi/django")
    assert result.verdict.value == "INCONCLUSIVE" and "install_requires at line 3 is computed" in result.reason
    write(tmp_path / "b", {"pyproject.toml": '[project]\nname = "x"\ndynamic = ["dependencies"]\n'})
    result = verifier(tmp_path / "b").check("pkg:pypi/django")
    assert result.verdict.value == "INCONCLUSIVE" and "pyproject.toml:3" in result.reason
    write(tmp_path / "c", {"setup.cfg": "[options]\ninstall_requires = file: requirements.in\n"})
    assert verdict(tmp_path / "c", "pkg:pypi/django") == "INCONCLUSIVE"


def test_poetry_yields_to_project_dependencies(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pyproject.toml": '[project]\nname = "p"\ndependencies = ["httpx>=0.27"]\n'
            '[tool.poetry.dependencies]\nhttpx = {source = "internal"}\nlegacy = "^1"\n'
            '[tool.poetry.group.test.dependencies]\npytest = "^8"\n'
        },
    )
    idx = index(tmp_path, "pypi")
    assert names(idx, DIRECT) == {"httpx"}
    assert names(idx, GROUP, "test") == {"pytest"}
    assert verdict(tmp_path, "pkg:pypi/legacy") == "REFUTED"


def test_uv_workspace_members_and_dev_dependencies(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pyproject.toml": '[project]\nname = "root"\ndependencies = []\n[tool.uv]\ndev-dependencies = ["pytest"]\n'
            '[tool.uv.workspace]\nmembers = ["packages/*"]\nexclude = ["packages/skip"]\n',
            "packages/core/pyproject.toml": '[project]\nname = "core"\ndependencies = ["pydantic"]\n',
            "packages/skip/pyproject.toml": '[project]\nname = "skip"\ndependencies = ["django"]\n',
            "examples/demo/pyproject.toml": '[project]\nname = "demo"\ndependencies = ["celery"]\n',
        },
    )
    idx = index(tmp_path, "pypi")
    assert names(idx, DIRECT, member="packages/core") == {"pydantic"}
    assert names(idx, DEV, "dev") == {"pytest"}
    assert verdict(tmp_path, "pkg:pypi/django") == "REFUTED"
    assert verdict(tmp_path, "pkg:pypi/celery") == "REFUTED"
    assert verdict(tmp_path, "pkg:pypi/celery in:examples/demo") == "VERIFIED"
    result = verifier(tmp_path).check("pkg:pypi/core")
    assert result.verdict.value == "VERIFIED" and "workspace member packages/core" in result.reason


def test_tool_only_pyproject_proves_no_absence(tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": "[tool.black]\nline-length = 100\n"})
    result = verifier(tmp_path).check("pkg:pypi/django")
    assert result.verdict.value == "INCONCLUSIVE" and "no pypi manifest" in result.reason


@needs_corpus
def test_reading_a_pyproject_with_markers_and_groups_imports_no_packaging() -> None:
    """flask's pyproject.toml and uv.lock (a marker, extras, a range, PEP 735 groups without include-group):
    every declaration is read, and packaging (61 ms of such a read) is never imported."""
    import subprocess
    import sys

    probe = (
        "import sys\nfrom tests._pkg_support import corpus, index\n"
        "idx = index(corpus('flask'), 'pypi')\n"
        "print(len(idx.declarations), sorted(m for m in sys.modules if m.startswith('packaging')))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=Path(__file__).parents[1])
    count, imported = done.stdout.split(" ", 1)
    assert int(count) > 20 and imported.strip() == "[]"
