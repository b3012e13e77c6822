"""Calibrated loud failures: inline code that only looks like an anchor does not block a commit
(issue 28, finding 3). Script names a runner knows are never anchors; a near miss is a warning in
prose and an error in a typed anchor list or with --strict."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from anchorcheck import AnchorKind, AnchorResult, Verdict, hookimpl
from anchorcheck.base.entrypoints import entry_points
from anchorcheck.cli import main
from anchorcheck.verify import loading as plugin_loading
from anchorcheck.verify.loading import ENTRY_POINT_GROUP, PROVIDES_GROUP

from tests.conftest import write_tree

SCRIPTS = {"pkgs:sync": "pnpm -r sync", "docs:dev": "vitepress dev", "file:gen": "node gen.js", "env:setup": "node env.js"}
NOTES = "# Dev\n\n- After pulling run `pkgs:sync`, then `docs:dev` for the docs.\n- Regenerate with `file:gen`; `env:setup` writes .env.\n"


def check(root: Path, *args: str) -> int:
    return main(["check", "--no-cache", "--root", str(root), *args])


def test_script_names_of_package_json_in_inline_code_are_never_anchors(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    root = write_tree(tmp_path, {"package.json": json.dumps({"name": "web", "scripts": SCRIPTS}), "CLAUDE.md": NOTES})
    assert check(root, "--strict") == 0
    out = capsys.readouterr().out
    assert not any(name in out for name in SCRIPTS), out  # not REFUTED as a file, not checked as a variable, no typo
    assert "Checked 0 anchors" in out


def test_a_near_miss_is_a_warning_in_prose_and_an_error_in_a_typed_list_or_with_strict(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    root = write_tree(tmp_path, {"CLAUDE.md": "- We run tasks on `imprt:anyio`.\n"})
    assert check(root, str(root / "CLAUDE.md")) == 0
    out = capsys.readouterr().out
    assert "did you mean `import:`?; written in prose, so a warning" in out and "written wrongly" not in out
    assert check(root, "--strict", str(root / "CLAUDE.md")) == 1
    assert "1 written wrongly" in capsys.readouterr().out
    write_tree(root, {"team.memories.toml": 'version = 1\n\n[[memory]]\nid = "io"\ntext = "anyio"\nanchors = ["imprt:anyio"]\n'})
    assert check(root, str(root / "team.memories.toml")) == 1
    assert "1 written wrongly" in capsys.readouterr().out


class _DocKind:
    """A third-party plugin registering a `doc:` kind: `docs:dev` is now a near miss of it."""

    @hookimpl
    def register_anchor_kinds(self, register: Any) -> None:
        register(AnchorKind("doc", lambda a, c: AnchorResult(str(a), Verdict.VERIFIED, "a doc")))


class _EntryPoint:
    def __init__(self, group: str, value: object) -> None:
        self.name, self.group, self.value, self._object, self.dist = "doc", group, "thirdparty:doc", value, None

    def load(self) -> object:
        return self._object


@pytest.fixture
def doc_kind_installed(monkeypatch: pytest.MonkeyPatch) -> Any:
    found = entry_points(ENTRY_POINT_GROUP, PROVIDES_GROUP)
    plugin = _EntryPoint(ENTRY_POINT_GROUP, _DocKind())
    monkeypatch.setattr(plugin_loading, "entry_points", lambda *groups: {ENTRY_POINT_GROUP: [*found[ENTRY_POINT_GROUP], plugin], PROVIDES_GROUP: found[PROVIDES_GROUP]})
    plugin_loading._default.cache_clear()
    yield
    plugin_loading._default.cache_clear()


def test_installing_a_kind_does_not_turn_a_script_name_into_an_error(tmp_path: Path, capsys, doc_kind_installed) -> None:  # noqa: ANN001
    root = write_tree(tmp_path, {"package.json": json.dumps({"name": "web", "scripts": SCRIPTS}), "CLAUDE.md": NOTES})
    assert check(root, "--strict") == 0
    assert "docs:dev" not in capsys.readouterr().out
