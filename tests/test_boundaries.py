"""The layers of the core and the plugin boundary hold: what `lint-imports` checks, run as CI runs it.

The contracts live in pyproject.toml (and in the test plugin distribution's):
the core's layers import only downward, even inside a function; plugins
import only `anchorcheck` and `anchorcheck.plugin`; the core imports no
plugin; a kind reaches no language's or ecosystem's module. What
import-linter cannot say is checked here directly: a layer's package imports
nothing of its own, so reaching one module of a layer costs no other.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
HEADING = REPO_ROOT / "tests" / "thirdparty" / "anchorcheck-heading"


def _lint(config: Path, path: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(path), env.get("PYTHONPATH")]))
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo", str(config)], cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300
    )


@pytest.mark.skipif(not LINT_IMPORTS.exists(), reason="import-linter is not installed (the `test` extra)")
def test_the_layers_and_the_plugin_api_hold() -> None:
    done = _lint(REPO_ROOT / "pyproject.toml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


@pytest.mark.skipif(not LINT_IMPORTS.exists(), reason="import-linter is not installed (the `test` extra)")
def test_the_test_plugin_distribution_uses_only_the_plugin_api() -> None:
    done = _lint(HEADING / "pyproject.toml", HEADING / "src")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_a_layer_package_imports_nothing() -> None:
    heavy = {}
    for init in sorted((REPO_ROOT / "anchorcheck").glob("*/__init__.py")):
        body = ast.parse(init.read_bytes()).body
        if init.parent.name in {"cli", "report"}:  # the command line and the output formats are modules of their own
            continue
        if not (len(body) == 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)):
            heavy[init.parent.name] = len(body)
    assert heavy == {}


# A room of the core stays small enough to read: a module over ~600 lines or a class over ~300
# holds more than one job. A file or class that truly cannot be split is named here, with why.
MODULE_LINES, CLASS_LINES = 600, 300
LARGE_MODULES: dict[str, str] = {}
LARGE_CLASSES: dict[str, str] = {}


def _core_sizes() -> tuple[dict[str, int], dict[str, int]]:
    modules, classes = {}, {}
    for path in sorted((REPO_ROOT / "anchorcheck").rglob("*.py")):
        name = path.relative_to(REPO_ROOT).as_posix()
        text = path.read_text(encoding="utf-8")
        modules[name] = len(text.splitlines())
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef):
                classes[f"{name}::{node.name}"] = node.end_lineno - node.lineno + 1
    return modules, classes


def test_no_core_module_or_class_is_a_big_room() -> None:
    modules, classes = _core_sizes()
    big_modules = {name: lines for name, lines in modules.items() if lines > MODULE_LINES and name not in LARGE_MODULES}
    big_classes = {name: lines for name, lines in classes.items() if lines > CLASS_LINES and name not in LARGE_CLASSES}
    assert big_modules == {} and big_classes == {}
