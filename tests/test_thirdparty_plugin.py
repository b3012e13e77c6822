"""A third-party plugin distribution, pip-installed with the project into a fresh virtual environment.

This is the path a real plugin author takes: an `anchorcheck` entry point in
their own pyproject, no access to anything private.
"""

from __future__ import annotations

import json
import subprocess
import venv
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, write_tree

PLUGIN = Path(__file__).parent / "thirdparty" / "anchorcheck-heading"


@pytest.fixture(scope="module")
def plugin_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    env_dir = tmp_path_factory.mktemp("plugin-venv")
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    done = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", str(REPO_ROOT), str(PLUGIN)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    if done.returncode != 0:
        pytest.fail(f"pip install failed:\n{done.stdout}\n{done.stderr}")
    return env_dir


def test_plugins_lists_the_third_party_plugin(plugin_env: Path) -> None:
    done = subprocess.run([str(plugin_env / "bin" / "anchorcheck"), "plugins", "--format", "json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    heading = next(p for p in data["plugins"] if p["name"] == "heading")
    assert heading["distribution"] == "anchorcheck-heading"
    assert heading["version"] == "1.2.0"
    assert heading["hooks"] == ["register_anchor_kinds"]
    assert data["kinds"]["heading"] == "heading"
    text = subprocess.run([str(plugin_env / "bin" / "anchorcheck"), "plugins"], capture_output=True, text=True).stdout
    assert "heading (anchorcheck-heading 1.2.0)  hooks: register_anchor_kinds" in text


def test_anchor_command_verifies_the_new_kind(plugin_env: Path, tmp_path: Path) -> None:
    root = write_tree(tmp_path / "proj", {"docs/guide.md": "# Guide\n\n## Install\n\npip install it\n"})
    exe = str(plugin_env / "bin" / "anchorcheck")
    ok = subprocess.run([exe, "anchor", "--root", str(root), "heading:docs/guide.md#Install"], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "VERIFIED heading:docs/guide.md#Install — heading found in docs/guide.md" in ok.stdout
    assert "evidence: docs/guide.md:3 ## Install" in ok.stdout
    bad = subprocess.run([exe, "anchor", "--root", str(root), "heading:docs/guide.md#Uninstall"], capture_output=True, text=True)
    assert bad.returncode == 1 and "has no heading 'Uninstall'" in bad.stdout


def test_the_wheel_has_no_generic_plugins_module(plugin_env: Path) -> None:
    probe = "import importlib.util as u; print(u.find_spec('plugins') is None, u.find_spec('anchorcheck_plugins') is not None)"
    done = subprocess.run([str(plugin_env / "bin" / "python"), "-c", probe], capture_output=True, text=True, cwd=plugin_env)
    assert done.stdout.split() == ["True", "True"]


def test_restricting_plugins_by_environment(plugin_env: Path, tmp_path: Path) -> None:
    env = {"ANCHORCHECK_PLUGINS": "file", "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [str(plugin_env / "bin" / "anchorcheck"), "plugins", "--format", "json"], capture_output=True, text=True, env=env
    )
    assert [p["name"] for p in json.loads(done.stdout)["plugins"]] == ["file"]


def test_a_third_party_ecosystem_gets_import_evidence(plugin_env: Path, tmp_path: Path) -> None:
    """The package <-> import-name mapping is a capability: a plugin's own ecosystem gets what PyPI's gets."""
    root = write_tree(tmp_path / "proj", {"vendor.txt": "acme-tools acmetools\n", "app.py": "import acmetools\n"})
    anchors = ["pkg:vendorlist/acme-tools", "import:acmetools", "import:acme-tools"]
    done = subprocess.run(
        [str(plugin_env / "bin" / "anchorcheck"), "anchor", "--no-cache", "--root", str(root), "--format", "json", *anchors],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    package, imported, renamed = json.loads(done.stdout)["results"]
    assert package["details"]["imported_at"] == "app.py:1"
    assert imported["details"]["packages"]["vendorlist"] == ["acme-tools"]
    assert renamed["verdict"] == "VERIFIED" and renamed["details"]["imported_as"] == "acmetools"


def test_a_third_party_language_gets_module_and_symbol_evidence(plugin_env: Path, tmp_path: Path) -> None:
    """Source roots, module files and the module form are language capabilities: Lua, registered by
    the plugin, gets `sym:lua:...` and first-party `import:` evidence as Python does."""
    root = write_tree(
        tmp_path / "proj",
        {
            "lua/app/util.lua": "local M = {}\nfunction M.greet(name) return name end\nM.version = 1\nreturn M\n",
            "main.lua": 'local util = require("app.util")\n',
        },
    )
    anchors = ["sym:lua:app.util.M.greet", "sym:lua:app.util.M.farewell", "sym:lua:other.M.x", "import:app.util"]
    done = subprocess.run(
        [str(plugin_env / "bin" / "anchorcheck"), "anchor", "--no-cache", "--root", str(root), "--format", "json", *anchors],
        capture_output=True,
        text=True,
    )
    greet, farewell, other, imported = json.loads(done.stdout)["results"]
    assert greet["verdict"] == "VERIFIED" and greet["evidence"][0]["path"] == "lua/app/util.lua", greet
    assert farewell["verdict"] == "REFUTED" and "lua/app/util.lua does not define M.farewell" in farewell["reason"]
    assert other["verdict"] == "INCONCLUSIVE" and "not a first-party package" in other["reason"]
    assert imported["verdict"] == "VERIFIED" and imported["details"].get("first_party") is True, imported


def test_declared_third_party_plugins_are_imported_only_when_needed(plugin_env: Path, tmp_path: Path) -> None:
    """The distribution declares its ecosystem and language (`anchorcheck.provides`): a check that needs
    neither imports neither; the undeclared `heading` kind is imported at once and still works."""
    root = write_tree(
        tmp_path / "proj",
        {"CLAUDE.md": "- Guide: `file:docs/guide.md`, `heading:docs/guide.md#Install`.\n", "docs/guide.md": "## Install\n", "main.lua": "x = 1\n"},
    )

    def imported(*argv: str) -> str:
        probe = (
            f"import sys; from anchorcheck.cli import main; code = main({[*argv, '--no-cache', '--root', str(root)]!r});"
            "print(code, sorted(m for m in sys.modules if m.startswith('anchorcheck_heading')))"
        )
        done = subprocess.run([str(plugin_env / "bin" / "python"), "-c", probe], capture_output=True, text=True, cwd=root)
        return done.stdout.splitlines()[-1] if done.stdout else done.stderr

    assert imported("check", str(root / "CLAUDE.md")) == "0 ['anchorcheck_heading', 'anchorcheck_heading.provides']"
    assert imported("anchor", "sym:main.lua::x") == "0 ['anchorcheck_heading', 'anchorcheck_heading.lualang', 'anchorcheck_heading.provides']"


def test_the_installed_package_is_typed(plugin_env: Path) -> None:
    """PEP 561: a memory store type-checks its calls into anchorcheck only if the wheel ships py.typed."""
    probe = "import anchorcheck, pathlib; print((pathlib.Path(anchorcheck.__file__).parent / 'py.typed').is_file())"
    done = subprocess.run([str(plugin_env / "bin" / "python"), "-c", probe], capture_output=True, text=True, cwd=plugin_env)
    assert done.stdout.split() == ["True"], done.stderr
