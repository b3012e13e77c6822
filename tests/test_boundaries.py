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
