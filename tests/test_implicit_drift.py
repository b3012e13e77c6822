"""The drift mode of benchmarks/implicit.py on a tiny repository made here: references, injection, scoring, checkout.

The benchmark's figures are only as good as its machinery: the references it
drifts must be the ones written, each rule must make the drift it names (and
leave configuration parseable), a reset must undo it, and a trial must count as
caught exactly when `check` says REFUTED about that reference.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, needs_git

pytestmark = needs_git

sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
import implicit_drift as drift  # noqa: E402
import implicit_drift_refs as refs  # noqa: E402

AGENTS = """\
# Agents

The entry point is `src/app.py`; the docs live in `docs/`.
Build with `npm run build`, lint with `make lint`.
Requests go through `load_config()`.

```sh
npm run build
```
"""
FILES = {
    "AGENTS.md": AGENTS,
    "src/app.py": "def load_config():\n    return {}\n",
    "src/main.py": "from app import load_config\n\nload_config()\n",
    "docs/index.md": "# Docs\n",
    "package.json": json.dumps({"name": "x", "scripts": {"build": "tsc", "test": "vitest"}}, indent=2) + "\n",
    "Makefile": "lint:\n\truff check .\n",
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    drift.git(root.parent, "init", "-q", str(root))
    drift.git(root, "add", "-A")
    drift.git(root, "commit", "-q", "-m", "init")
    return root


def _committed_references(repo: Path, write: dict[str, str]) -> dict[tuple[str, str], refs.Reference]:
    """The references of AGENTS.md, by kind and name, once `write` is committed."""
    for rel, text in write.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    drift.git(repo, "add", "-A")
    drift.git(repo, "commit", "-q", "-m", "more")
    return {(r.kind, r.name): r for r in refs.references(refs.Tree(repo), ["AGENTS.md"])}


def test_references_are_what_the_file_writes_and_the_tree_defines(repo: Path) -> None:
    found = {(r.kind, r.name): r for r in refs.references(refs.Tree(repo), ["AGENTS.md"])}
    assert set(found) == {
        ("path-file", "src/app.py"), ("path-folder", "docs"), ("script", "build"), ("target", "lint"),
        ("function", "load_config"),
    }
    assert found[("script", "build")].sites == (("AGENTS.md", 4), ("AGENTS.md", 8))
    assert (found[("target", "lint")].config, found[("target", "lint")].line) == ("Makefile", 1)
    assert (found[("function", "load_config")].config, found[("function", "load_config")].line) == ("src/app.py", 1)


def test_each_rule_makes_its_drift_as_a_commit_and_reset_undoes_it(repo: Path) -> None:
    base = drift.git(repo, "rev-parse", "HEAD").strip()
    found = {r.kind: r for r in refs.references(refs.Tree(repo), ["AGENTS.md"])}
    expected = {
        ("path-file", "file renamed"): lambda: (repo / "src/app-renamed.py").is_file() and not (repo / "src/app.py").exists(),
        ("path-file", "file moved"): lambda: (repo / "moved/src/app.py").is_file(),
        ("path-folder", "folder renamed"): lambda: (repo / "docs-renamed/index.md").is_file(),
        ("script", "script renamed"): lambda: "build-renamed" in json.loads((repo / "package.json").read_text())["scripts"],
        ("target", "target renamed"): lambda: (repo / "Makefile").read_text().startswith("lint-renamed:"),
        ("function", "function or class renamed"): lambda: "load_config_renamed()" in (repo / "src/main.py").read_text(),
    }
    for (kind, name), made in expected.items():
        assert drift.inject(repo, found[kind], name) is not None
        assert made(), name
        assert drift.git(repo, "log", "-1", "--format=%s").startswith(f"drift: {name}")
        drift.reset(repo, base)
        assert drift.git(repo, "status", "--porcelain") == ""
        assert (repo / "src/app.py").is_file()


def test_a_block_s_cd_a_program_path_and_a_gradle_project_are_drawn_and_a_project_rename_moves_its_folder(repo: Path) -> None:
    # `cd web` scopes the block's later line (web/package.json's script); `./gradlew :app:sub:test` names `:app:sub`.
    write = {
        "AGENTS.md": "```sh\ncd web\nnpm run dev\n```\n\n```sh\n./scripts/gen.sh --check\n./gradlew :app:sub:test\n```\n",
        "web/package.json": json.dumps({"scripts": {"dev": "vite"}}, indent=2) + "\n", "scripts/gen.sh": "",
        "gradlew": "", "settings.gradle.kts": 'include(\n    ":app:sub",\n)\n', "app/sub/build.gradle.kts": "",
    }
    found = _committed_references(repo, write)
    assert {("path-folder", "web"), ("script", "dev"), ("path-file", "scripts/gen.sh"), ("path-file", "gradlew")} <= set(found)
    assert found[("script", "dev")].config == "web/package.json"
    project = found[("gradle-project", "sub")]
    assert (project.config, project.line) == ("settings.gradle.kts", 2)
    assert drift.inject(repo, project, "project renamed") == "renamed-sub"
    assert '":app:renamed-sub"' in (repo / "settings.gradle.kts").read_text() and (repo / "app/renamed-sub/build.gradle.kts").is_file()


def test_a_dependency_removal_keeps_the_manifest_parseable(repo: Path) -> None:
    (repo / "package.json").write_text('{\n  "name": "x",\n  "dependencies": {\n    "zod": "^3",\n    "left-pad": "1"\n  }\n}\n')
    drift.git(repo, "commit", "-qam", "deps")
    ref = refs.dependency_reference(refs.Tree(repo), "AGENTS.md", "left-pad")
    assert ref is not None and (ref.config, ref.line) == ("package.json", 5)
    drift.inject(repo, ref, "dependency removed")
    assert json.loads((repo / "package.json").read_text())["dependencies"] == {"zod": "^3"}


def test_sampling_is_seeded_and_capped_per_kind() -> None:
    pool = [refs.Reference("path-file", f"f{i}.py", sites=(("AGENTS.md", i),)) for i in range(10)]
    first = drift.sample("o/r", pool, 3)
    assert first == drift.sample("o/r", list(reversed(pool)), 3)
    assert [d for d, _ in first] == ["file renamed"] * 3 + ["file moved"] * 3


def test_caught_only_when_refuted_about_that_reference() -> None:
    ref = refs.Reference("target", "lint", "Makefile", 1, (("AGENTS.md", 4),))
    about = {"memory_file": "AGENTS.md", "line": 4, "anchor": "cmd:make lint", "details": {"written": "make lint"}}
    trial = drift.Trial("o/r", "target renamed", ref)
    drift.score(trial, [{**about, "anchor": "cmd:make lint-all", "details": {}, "verdict": "REFUTED", "reason": "other"}])
    assert not trial.caught and trial.said == "silent: not read"
    drift.score(trial, [{**about, "verdict": "INCONCLUSIVE", "reason": "a file lint may be built"}])
    assert not trial.caught and trial.said == "INCONCLUSIVE: a file lint may be built"
    drift.score(trial, [{**about, "verdict": "REFUTED", "reason": "no target lint"}])
    assert trial.caught


def test_checkout_leaves_blobs_the_mirror_lacks_empty(repo: Path, tmp_path: Path) -> None:
    blob = drift.git(repo, "rev-parse", "HEAD:docs/index.md").strip()
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    head = drift.git(repo, "rev-parse", "HEAD").strip()
    root = tmp_path / "clone"
    drift.checkout(repo / ".git", head, root)
    assert (root / "docs/index.md").read_bytes() == b""
    assert (root / "src/app.py").read_text() == FILES["src/app.py"]
    assert drift.git(root, "status", "--porcelain") == ""
    assert "absent from the mirror" in drift.git(root, "log", "-1", "--format=%s")


def test_measure_runs_check_per_trial(repo: Path) -> None:
    run = drift.measure("o/r", repo, per_kind=1)
    by_kind = {t.drift: t for t in run.trials}
    assert set(by_kind) == {"file renamed", "file moved", "folder renamed", "folder moved", "script renamed", "target renamed", "function or class renamed"}
    assert by_kind["file renamed"].caught
    assert subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True).stdout == ""


def test_a_cd_after_a_block_s_cd_back_is_read_from_where_the_block_is_and_its_line_is_a_site(repo: Path) -> None:
    # sequin's AGENTS.md: `cd cli` … `cd ..`, then `cd assets`: the folder is assets/ (not ../assets), and the
    # `cd assets` line, which `check` REFUTES once the folder moved, is one of the folder's sites.
    write = {
        "AGENTS.md": "```sh\ncd cli\ngo vet ./...\ncd ..\n\nmake lint\n\ncd assets\nnpm run tsc\ncd ..\n```\n",
        "cli/main.go": "package main\n", "assets/package.json": json.dumps({"scripts": {"tsc": "tsc"}}, indent=2) + "\n",
    }
    found = _committed_references(repo, write)
    assert ("AGENTS.md", 8) in found[("path-folder", "assets")].sites  # the `cd assets` line itself
    assert found[("script", "tsc")].config == "assets/package.json"
    assert ("AGENTS.md", 6) in found[("target", "lint")].sites  # after `cd ..`: the root Makefile's
    assert ("AGENTS.md", 9) not in found[("path-folder", "cli")].sites


def test_a_dependency_drift_in_pyproject_removes_a_requirement_not_any_quoted_word(repo: Path) -> None:
    # netbox (held-out-13): the drift removed names from `[tool.ruff.lint.isort] known-first-party`, no dependency
    (repo / "pyproject.toml").write_text(
        '[project]\nname = "x"\nkeywords = [\n    "netbox",\n]\ndependencies = [\n    "django>=5",\n]\n'
        '[dependency-groups]\ndev = [\n    "pytest",\n]\n[tool.ruff.lint.isort]\nknown-first-party = [\n    "dcim",\n]\n')
    drift.git(repo, "add", "-A")
    drift.git(repo, "commit", "-qm", "pyproject")
    tree = refs.Tree(repo)
    assert refs.dependency_reference(tree, "AGENTS.md", "dcim") is None
    assert refs.dependency_reference(tree, "AGENTS.md", "netbox") is None
    assert (refs.dependency_reference(tree, "AGENTS.md", "django") or refs.Reference("", "")).line == 7
    assert (refs.dependency_reference(tree, "AGENTS.md", "pytest") or refs.Reference("", "")).line == 11


def test_a_deno_task_is_drawn_from_deno_json_or_jsonc_and_its_rename_is_a_drift(repo: Path) -> None:
    """denoland/std's `deno task ok`: a deno.json(c) task is a name a drift renames, as a package.json script is."""
    found = _committed_references(repo, {
        "AGENTS.md": AGENTS + "\nRun `deno task ok`, then `deno task --cwd web dev` and `deno fmt`.\n",
        "deno.jsonc": '{\n  // tasks\n  "tasks": {\n    "ok": "deno lint"\n  }\n}\n',
    })
    ref = found[("deno-task", "ok")]
    assert (ref.config, ref.line) == ("deno.jsonc", 4) and not any(kind == "deno-task" and name != "ok" for kind, name in found)
    assert drift.inject(repo, ref, "deno task renamed") == "ok-renamed" and '"ok-renamed"' in (repo / "deno.jsonc").read_text()


def test_a_target_is_renamed_at_its_rule_not_at_a_target_specific_variable(repo: Path) -> None:
    # held-out-15's nuclei: `test: GOFLAGS = -v` came first; renaming it left the rule, so the text stayed true
    found = _committed_references(repo, {"Makefile": "lint: RUFF = ruff\nlint:\n\t$(RUFF) check .\n"})
    assert (found[("target", "lint")].config, found[("target", "lint")].line) == ("Makefile", 2)
