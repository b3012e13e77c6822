"""The pre-commit hooks, run by the real `pre-commit` program (`pre-commit try-repo`).

pre-commit would install a `language: python` hook into a fresh virtualenv
from the package index, and tests have no network; so the hook repository
used here is a git repository holding our `.pre-commit-hooks.yaml` with only
`language` switched to `system`, the `anchorcheck` of this test environment
on PATH. Everything else (ids, entry, file pattern, always_run,
pass_filenames) is the manifest users get, parsed and run by pre-commit.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, git, needs_git, write_tree

PRE_COMMIT = shutil.which("pre-commit", path=str(Path(sys.executable).parent)) or shutil.which("pre-commit")
pytestmark = [needs_git, pytest.mark.skipif(PRE_COMMIT is None, reason="pre-commit is not installed (the test extra)")]

CODE = 'VERSION = "1.4.0"\nCODENAME = "lark"\n\n\ndef version() -> str:\n    return VERSION\n'
MEMORY = "# Memory\n\n- The version string is at the top of src/app.py. `span:src/app.py#L1-L2`\n- The app exists. `file:src/app.py`\n"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    return dict(
        os.environ,
        PATH=path,
        PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"),
        GIT_AUTHOR_NAME="Test", GIT_AUTHOR_EMAIL="test@example.com",
        GIT_COMMITTER_NAME="Test", GIT_COMMITTER_EMAIL="test@example.com",
        GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_SYSTEM=os.devnull,
        NO_COLOR="1",
    )


@pytest.fixture
def hook_repo(tmp_path: Path) -> Path:
    manifest = (REPO_ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    assert manifest.count("language: python") == 2
    root = write_tree(tmp_path / "hooks", {".pre-commit-hooks.yaml": manifest.replace("language: python", "language: system")})
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "hooks")
    return root


@pytest.fixture
def project(tmp_path: Path, env: dict[str, str]) -> Path:
    """A repository with a memory file whose span anchor is banked in anchorcheck.lock."""
    root = write_tree(tmp_path / "project", {"src/app.py": CODE, "CLAUDE.md": MEMORY})
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "code and memories")
    subprocess.run(["anchorcheck", "lock"], cwd=root, env=env, check=True, capture_output=True)
    git(root, "add", "anchorcheck.lock")
    git(root, "commit", "-q", "-m", "lock")
    return root


def try_repo(project: Path, hooks: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PRE_COMMIT, "try-repo", str(hooks), *args, "--color", "never"],
        cwd=project, env=env, capture_output=True, text=True, timeout=300,
    )


def test_repo_hook_passes_on_fresh_memories_and_fails_after_a_code_edit(project: Path, hook_repo: Path, env: dict[str, str]) -> None:
    fresh = try_repo(project, hook_repo, env, "anchorcheck-repo", "--all-files")
    assert fresh.returncode == 0, fresh.stdout + fresh.stderr
    assert "anchorcheck (all memory files)" in fresh.stdout and "Passed" in fresh.stdout

    (project / "src/app.py").write_text(CODE.replace('"1.4.0"', '"1.5.0"'))
    git(project, "add", "src/app.py")  # only code is staged: the memory file is untouched
    stale = try_repo(project, hook_repo, env, "anchorcheck-repo")
    assert stale.returncode == 1, stale.stdout + stale.stderr
    assert "Failed" in stale.stdout
    assert "CLAUDE.md:3:" in stale.stdout and "REFUTED span:src/app.py#L1-L2" in stale.stdout
    assert "-VERSION = \"1.4.0\"" in stale.stdout, "the stale span shows what changed"


def test_file_hook_runs_only_for_memory_files(project: Path, hook_repo: Path, env: dict[str, str]) -> None:
    (project / "src/app.py").write_text(CODE.replace('"1.4.0"', '"1.5.0"'))
    code_only = try_repo(project, hook_repo, env, "anchorcheck", "--files", "src/app.py")
    assert code_only.returncode == 0 and "no files to check" in code_only.stdout.lower()
    memory = try_repo(project, hook_repo, env, "anchorcheck", "--files", "CLAUDE.md", "src/app.py")
    assert memory.returncode == 1, memory.stdout + memory.stderr
    assert "REFUTED span:src/app.py#L1-L2" in memory.stdout


def readme_hook_config() -> str:
    """The `.pre-commit-config.yaml` block of the README, as a user copies it."""
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("```yaml\n# .pre-commit-config.yaml\n", 1)[1].split("```", 1)[0]
    return "# .pre-commit-config.yaml\n" + block


def test_the_readme_snippet_works_as_written_in_a_fresh_repository(project: Path, env: dict[str, str]) -> None:
    (project / ".pre-commit-config.yaml").write_text(readme_hook_config(), encoding="utf-8")
    git(project, "add", ".pre-commit-config.yaml")
    fresh = subprocess.run([PRE_COMMIT, "run", "--all-files", "--color", "never"], cwd=project, env=env, capture_output=True, text=True, timeout=300)
    assert fresh.returncode == 0, fresh.stdout + fresh.stderr
    assert "anchorcheck (all memory files)" in fresh.stdout and "Passed" in fresh.stdout

    (project / "src/app.py").write_text(CODE.replace('"1.4.0"', '"1.5.0"'))
    git(project, "add", "src/app.py")
    stale = subprocess.run([PRE_COMMIT, "run", "--color", "never"], cwd=project, env=env, capture_output=True, text=True, timeout=300)
    assert stale.returncode == 1 and "REFUTED span:src/app.py#L1-L2" in stale.stdout, stale.stdout + stale.stderr


def test_file_hook_checks_a_skill_file(project: Path, hook_repo: Path, env: dict[str, str]) -> None:
    """Skills, subagents, GEMINI.md, .kiro/.windsurf rules: what `check` reads, the hook runs on."""
    write_tree(project, {"src/version.py": "V = 1\n", ".claude/skills/release/SKILL.md": "# Release\n\n- Bump `src/version.py` first.\n"})
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "version, and the skill that bumps it")
    git(project, "rm", "-q", "src/version.py")  # the skill named a file since deleted in history: stale, an error
    git(project, "commit", "-q", "-m", "drop version.py")
    skill = try_repo(project, hook_repo, env, "anchorcheck", "--files", ".claude/skills/release/SKILL.md")
    assert skill.returncode == 1, skill.stdout + skill.stderr
    assert "no files to check" not in skill.stdout.lower()
    assert "src/version.py" in skill.stdout and "REFUTED" in skill.stdout


def test_a_warning_passes_the_hooks_and_is_shown(project: Path, hook_repo: Path, env: dict[str, str]) -> None:
    """Issue 27 item 5: the hooks block on errors only and show warnings. pre-commit prints a passing hook's
    output only when the hook is `verbose`: without it, a path that never existed (a warning) passed unseen."""
    (project / "CLAUDE.md").write_text(MEMORY + "- The config lives in `conf/never_here.toml`.\n")
    git(project, "add", "CLAUDE.md")
    for run in (try_repo(project, hook_repo, env, "anchorcheck-repo"), try_repo(project, hook_repo, env, "anchorcheck", "--files", "CLAUDE.md")):
        assert run.returncode == 0, run.stdout + run.stderr
        assert "Passed" in run.stdout and "conf/never_here.toml" in run.stdout, run.stdout
    (project / ".pre-commit-config.yaml").write_text(readme_hook_config(), encoding="utf-8")
    git(project, "add", ".pre-commit-config.yaml")
    run = subprocess.run([PRE_COMMIT, "run", "--color", "never"], cwd=project, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and "conf/never_here.toml" in run.stdout, run.stdout + run.stderr
