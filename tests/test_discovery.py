"""Which files `check` reads: the known memory files with no arguments; files, directories and globs otherwise."""

from __future__ import annotations

import fnmatch
from pathlib import Path

import pytest

from anchorcheck.cli import main
from anchorcheck.base.globs import fnmatch_any
from anchorcheck.memory.memoryfiles import MemoryFileError, discover, expand
from anchorcheck.verify.loading import default_registry
from anchorcheck.repo.checkout import Repository
from tests._instructions_support import CORPUS_NAMES, INSTRUCTIONS, listing
from tests.conftest import REPO_ROOT, needs_git

MEMORY_FILES = {
    "CLAUDE.md": "- Entry point `file:src/app.py`.\n",
    "AGENTS.md": "- Same `file:src/app.py`.\n",
    "services/api/CLAUDE.md": "- Local notes `file:src/app.py`.\n",
    "memory-bank/techContext.md": "- Stack `file:src/app.py`.\n",
    ".cursor/rules/style.mdc": "---\nglobs: '*.py'\n---\n- Style `file:src/app.py`.\n",
    ".github/copilot-instructions.md": "- Copilot `file:src/app.py`.\n",
    ".github/instructions/py.instructions.md": "---\napplyTo: '**/*.py'\n---\n- Py `file:src/app.py`.\n",
    ".github/skills/analyze/SKILL.md": "- A Copilot project skill `file:src/app.py`.\n",  # held-out-9's PowerShell kept one here
    ".opencode/agents/review.md": "- An OpenCode agent `file:src/app.py`.\n",  # held-out-10's workerd kept 41 files there
    "pkg/.agents/skills/convert/SKILL.md": "- A package's skill `file:src/app.py`.\n",  # docling/.agents/skills/ (held-out-10)
    "rust/AGENT.md": "- Amp's first name for AGENTS.md `file:src/app.py`.\n",  # firezone's CLAUDE.md sends agents to rust/AGENT.md
    ".serena/memories/backend/core.md": "- A Serena memory `file:src/app.py`.\n",  # penpot keeps 55 (dev-s37d)
    "store/team.memories.toml": 'version = 1\n[[memory]]\nid = "a"\ntext = "t"\nanchors = ["file:src/app.py"]\n',
    ".mcp/memory.jsonl": '{"type": "entity", "name": "app", "entityType": "x", "observations": ["`file:src/app.py`"]}\n',
}
NOT_MEMORY = {
    "README.md": "- `file:missing.py`\n",
    "docs/guide.md": "- `file:missing.py`\n",
    "node_modules/pkg/CLAUDE.md": "- `file:missing.py`\n",
    "ignored/CLAUDE.md": "- `file:missing.py`\n",
    ".gitignore": "ignored/\n",
    "src/app.py": "print('hi')\n",
}


@needs_git
def test_discovers_the_known_memory_files_only(make_repo) -> None:  # noqa: ANN001
    root = make_repo({**MEMORY_FILES, **NOT_MEMORY})
    found = discover(Repository(root), default_registry())
    assert found == sorted(MEMORY_FILES)


@needs_git
def test_memory_files_setting_replaces_the_defaults(make_repo) -> None:  # noqa: ANN001
    root = make_repo({**MEMORY_FILES, **NOT_MEMORY})
    assert discover(Repository(root), default_registry(), ["docs/*.md"]) == ["docs/guide.md"]


@needs_git
def test_check_without_arguments_checks_discovered_files(make_repo, capsys, monkeypatch) -> None:  # noqa: ANN001
    root = make_repo({**MEMORY_FILES, **NOT_MEMORY})
    monkeypatch.chdir(root)
    assert main(["check"]) == 0
    out = capsys.readouterr().out
    assert f"in {len(MEMORY_FILES)} files" in out and "missing.py" not in out


@needs_git
def test_from_a_subfolder_files_are_shown_relative_to_it(make_repo, capsys, monkeypatch) -> None:  # noqa: ANN001
    root = make_repo({"AGENTS.md": "- `file:src/gone.py`\n", "src/app.py": ""})
    monkeypatch.chdir(root / "src")
    assert main(["check", "--fail-on", "refuted"]) == 1  # a path that never existed: REFUTED, a warning
    out = capsys.readouterr().out
    assert "../AGENTS.md:1:" in out and str(root) not in out


def test_directories_and_globs_expand(make_tree, monkeypatch) -> None:  # noqa: ANN001
    root = make_tree({**MEMORY_FILES, "src/app.py": ""})
    monkeypatch.chdir(root)
    registry, repo = default_registry(), Repository(root)
    assert [p.as_posix() for p in expand(["memory-bank"], repo, registry)] == [f"{root}/memory-bank/techContext.md"]
    globbed = expand([".github/**/*.md"], repo, registry)
    assert sorted(p.as_posix() for p in globbed) == [
        ".github/copilot-instructions.md", ".github/instructions/py.instructions.md", ".github/skills/analyze/SKILL.md"]
    twice = expand(["CLAUDE.md", "./CLAUDE.md"], repo, registry)
    assert len(twice) == 1


@pytest.mark.parametrize(("argument", "message"), [("nope.md", "no such file"), ("nothing/*.md", "no file matches")])
def test_missing_names_are_errors(make_tree, monkeypatch, argument: str, message: str) -> None:  # noqa: ANN001
    root = make_tree({"CLAUDE.md": "x\n"})
    monkeypatch.chdir(root)
    with pytest.raises(MemoryFileError, match=message):
        expand([argument], Repository(root), default_registry())


def test_cli_errors_name_the_file(make_tree, capsys, monkeypatch) -> None:  # noqa: ANN001
    root = make_tree({
        "notes.txt": "x\n", "bad.memories.toml": "version = 1\n[[memory]]\nid = 3\n", "bin.md": b"ok\n\xff\x00",
        "AGENTS.md": "- Tests: `tests/`\n".encode("utf-16"),  # what some Windows editors save as "Unicode"
    })
    monkeypatch.chdir(root)
    assert main(["check", "notes.txt"]) == 2
    assert "notes.txt: unknown memory file format" in capsys.readouterr().err
    # a memory file that cannot be read is one INCONCLUSIVE finding at its line, not the end of the run
    for name, where, message in [
        ("bad.memories.toml", 2, "[[memory]] needs an 'id' string"),
        ("bin.md", 2, "not valid UTF-8"),
        ("AGENTS.md", 1, "UTF-16 text (it starts with a UTF-16 byte-order mark); save it as UTF-8"),
    ]:
        assert main(["check", "--fail-on", "inconclusive", name]) == 1
        out = capsys.readouterr().out
        assert f"{name}:{where}:1: INCONCLUSIVE {name} — the memory file could not be read" in out and message in out


def test_no_memory_files_is_a_warning_not_an_error(make_tree, capsys, monkeypatch) -> None:  # noqa: ANN001
    root = make_tree({"src/app.py": ""})
    monkeypatch.chdir(root)
    assert main(["check"]) == 0
    assert "no memory files found" in capsys.readouterr().err


def test_directory_outside_the_repository_is_refused(make_tree, tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    root = make_tree({"CLAUDE.md": "x\n"})
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    with pytest.raises(MemoryFileError, match="outside the repository"):
        expand([str(outside)], Repository(root), default_registry())


@pytest.mark.skipif(INSTRUCTIONS is None, reason="shared/corpora/instructions is not beside the checkout")
@pytest.mark.parametrize("corpus", CORPUS_NAMES)
def test_the_discovery_globs_match_what_fnmatch_matches_path_by_path(corpus: str) -> None:
    """The formats' globs as one matcher pick out of a real repository's listing exactly the paths that
    `fnmatch.fnmatchcase` does pattern by pattern, and so do globs a `memory-files` setting may hold."""
    assert INSTRUCTIONS is not None
    paths = listing(INSTRUCTIONS / corpus)
    setting = ["docs/*.md", "*/CLAUDE.md", "notes/[a-c]*.md", "a?c/*", "[!.]*.toml", "exact/name.md", "**/*.mdc", "[z-a]", "x[", "*"]
    for globs in ([p for fmt in default_registry().formats.values() for p in fmt.patterns], setting):
        matches = fnmatch_any(globs)
        chosen = [path for path in paths if matches(path)]
        assert chosen == [path for path in paths if any(fnmatch.fnmatchcase(path, g) for g in globs)]
        assert chosen  # every listing has memory files, and "*" matches everything


# Where agents' files live, and what is not one: the pre-commit hook must pick exactly what discovery picks.
HOOK_SAMPLES = [
    *MEMORY_FILES, *NOT_MEMORY, "GEMINI.md", "packages/web/GEMINI.md", ".claude/skills/deploy/SKILL.md",
    ".claude/agents/reviewer.md", ".claude/commands/release.md", ".claude/rules/python/style.md", ".agents/skills/x/SKILL.md",
    ".windsurf/rules/style.md", ".kiro/steering/product.md", ".junie/guidelines.md", ".roo/rules-code/a.md", ".clinerules",
    ".opencode/command/ship.md", ".opencode/skills/x/SKILL.md", "web/.claude/skills/y/SKILL.md", ".opencode/opencode.json",
    "AGENTS.override.md", "CONVENTIONS.md", "src/CONVENTIONS.md", "docs/MEMORY.md", "CLAUDE.md.bak", "xCLAUDE.md", ".claude/settings.json",
    "AGENT.md", "rust/AGENT.md", ".serena/memories/backend/core.md", ".serena/project.yml", "AGENT.md.orig",
]


def test_the_pre_commit_hook_files_pattern_is_derived_from_discovery() -> None:
    """A stale path in a SKILL.md was "(no files to check) Skipped": the hook's `files:` now comes from the same globs."""
    import re

    import yaml

    from anchorcheck.base.globs import glob_regex
    from anchorcheck.memory.memoryfiles import discovery_globs

    globs = discovery_globs(default_registry())
    expected = glob_regex(globs)
    hooks = {hook["id"]: hook for hook in yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))}
    assert hooks["anchorcheck"]["files"] == expected, f"paste into .pre-commit-hooks.yaml as `files: |`:\n{expected}"
    pattern, discovered = re.compile(expected), fnmatch_any(globs)
    assert {p for p in HOOK_SAMPLES if pattern.search(p)} == {p for p in HOOK_SAMPLES if discovered(p)}
    assert pattern.search(".claude/skills/deploy/SKILL.md") and pattern.search(".kiro/steering/product.md")
    assert not pattern.search("src/app.py")

