"""Plugin boundaries: the core imports no plugin, and a kind reaches no language's or ecosystem's module.

What a kind needs from a language or an ecosystem is a capability they
register (`Language.module_files`, `Ecosystem.import_names`, ...), so a
third-party language or ecosystem gets the same evidence as a built-in one.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import REPO_ROOT


def _imported(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_bytes())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_the_core_imports_no_plugin():
    offenders = {
        str(path.relative_to(REPO_ROOT)): sorted(n for n in _imported(path) if n.startswith("anchorcheck_plugins"))
        for path in (REPO_ROOT / "anchorcheck").rglob("*.py")
    }
    assert {path: names for path, names in offenders.items() if names} == {}


def test_kinds_reach_no_language_or_ecosystem_module():
    offenders = {
        str(path.relative_to(REPO_ROOT)): sorted(
            n for n in _imported(path) if n.startswith(("anchorcheck_plugins.languages", "anchorcheck_plugins.ecosystems"))
        )
        for path in (REPO_ROOT / "plugins" / "kinds").glob("*.py")
    }
    assert {path: names for path, names in offenders.items() if names} == {}
