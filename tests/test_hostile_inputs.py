"""Hostile repositories through the real CLI (issue 17): no crash, no traceback, no blow-up, no hang.

Every input is built here, small, the way the security campaign built it. Each one
killed the process, printed a traceback, took minutes or gigabytes before its fix.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests._hostile_support import LOOPING_TSX, run_cli
from tests.conftest import write_tree


def _memory(root: Path, files: dict[str, str | bytes]) -> Path:
    return write_tree(root, {"AGENTS.md": "- note `span:a.py#L1-L1`\n", "a.py": "x = 1\n", **files})


# -- segfaults: YAML nested past what tree-sitter-yaml's scanner can hold ----------------------------------


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("docker-compose.yml", "- " * 1000 + "\n"),  # 2 KB
        ("compose.yaml", "services:\n" + "".join("  " * i + "- k:\n" for i in range(1, 200))),
        (".github/workflows/ci.yml", "".join(" " * i + "env:\n" for i in range(400))),
    ],
)
def test_deep_yaml_configuration_is_inconclusive_not_a_segfault(tmp_path: Path, path: str, text: str) -> None:
    write_tree(tmp_path, {path: text})
    run = run_cli(tmp_path, "anchor", "env:FOO")
    run.assert_clean()
    assert run.returncode == 0
    assert "INCONCLUSIVE env:FOO" in run.stdout
    assert f"{path}:" in run.stdout and "nested more than" in run.stdout


def test_ordinary_nesting_is_still_read(tmp_path: Path) -> None:
    compose = "services:\n  web:\n    environment:\n      - FOO=1\n"
    write_tree(tmp_path, {"docker-compose.yml": compose})
    run = run_cli(tmp_path, "anchor", "env:FOO")
    assert run.returncode == 0 and "VERIFIED env:FOO" in run.stdout


# -- memory: alias and dotted-key bombs ---------------------------------------------------------------------


def _alias_bomb() -> str:
    """Nine levels of nine aliases each, spelt `{"k":*a}` so no blank precedes the `*` (the old guard's blind spot)."""
    lines = ["name: x", 'a: &a ["x","x","x","x","x","x","x","x","x"]']
    previous = "a"
    for level in range(1, 9):
        lines.append(f"b{level}: &b{level} [" + ",".join([f'{{"k":*{previous}}}'] * 9) + "]")
        previous = f"b{level}"
    lines.append(f'dependencies:\n  - {{"k":*{previous}}}')
    return "\n".join(lines) + "\n"


def test_an_alias_bomb_in_environment_yml_is_refused_with_a_short_message(tmp_path: Path) -> None:
    bomb = _alias_bomb()
    assert len(bomb) < 1000
    write_tree(tmp_path, {"environment.yml": bomb})
    run = run_cli(tmp_path, "anchor", "pkg:pypi/redis")
    run.assert_clean()
    assert "INCONCLUSIVE pkg:pypi/redis" in run.stdout
    assert "environment.yml:3" in run.stdout and "alias" in run.stdout


def _dotted_bomb(parts: int = 20_000) -> str:
    return ".".join(["a"] * parts) + " = 1\n"


def test_a_dotted_key_bomb_in_uv_lock_is_an_error_not_gigabytes(tmp_path: Path) -> None:
    write_tree(tmp_path, {"pyproject.toml": '[project]\nname = "x"\ndependencies = []\n', "uv.lock": "version = 1\n" + _dotted_bomb()})
    run = run_cli(tmp_path, "anchor", "pkg:pypi/redis")
    run.assert_clean()
    assert "uv.lock:2" in run.stdout and "dotted keys" in run.stdout


def test_a_dotted_key_bomb_with_quoted_values_is_refused_and_a_quoted_key_with_dots_is_not(tmp_path: Path) -> None:
    """Lines whose quotes come after the `=` (a lockfile's `version = "1.2.3"`) are read by the fast path:
    the dotted keys before them still count; dots inside a quoted key are not key parts."""
    bomb = "".join(f'{".".join(["a"] * 400)}.k{i} = "1.2.3"\n' for i in range(200))
    write_tree(tmp_path / "bomb", {"pyproject.toml": '[project]\nname = "x"\ndependencies = []\n', "uv.lock": "version = 1\n" + bomb})
    run = run_cli(tmp_path / "bomb", "anchor", "pkg:pypi/redis")
    run.assert_clean()
    assert "uv.lock:" in run.stdout and "dotted keys" in run.stdout
    quoted = "".join(f'"{".".join(["a"] * 400)}{i}" = "1.2.3"\n' for i in range(200))
    write_tree(tmp_path / "quoted", {"pyproject.toml": '[project]\nname = "x"\ndependencies = ["redis"]\n[tool.x]\n' + quoted})
    run = run_cli(tmp_path / "quoted", "anchor", "pkg:pypi/redis")
    run.assert_clean()
    assert "dotted keys" not in run.stdout and "VERIFIED pkg:pypi/redis" in run.stdout


def test_a_dotted_key_bomb_in_the_lock_is_exit_2(tmp_path: Path) -> None:
    _memory(tmp_path, {"anchorcheck.lock": "version = 1\n" + _dotted_bomb()})
    run = run_cli(tmp_path, "check", "AGENTS.md")
    run.assert_clean()
    assert run.returncode == 2
    assert run.stderr.startswith("anchorcheck: error: anchorcheck.lock:2: ")


# -- tracebacks: over-long integers, deep nesting, lone surrogates, bad patterns ---------------------------------

LONG = "9" * 5000


def test_a_span_line_of_5000_digits_is_a_syntax_error(tmp_path: Path) -> None:
    run = run_cli(tmp_path, "anchor", f"span:a.py#L1-L{LONG}")
    run.assert_clean()
    assert run.returncode == 2 and "stop at" in run.stderr
    assert len(run.stderr) < 500  # the anchor is shortened in the message


@pytest.mark.parametrize(
    ("lock", "where"),
    [
        (f'version = 1\n[[citation]]\nanchor = "span:a.py#L1-L1"\nstart_line = {LONG}\n', "anchorcheck.lock:4: "),
        ("version = 1\nx = " + "[" * 5000 + "]" * 5000 + "\n", "anchorcheck.lock: "),
    ],
    ids=["long-integer", "deep-nesting"],
)
def test_a_malformed_lock_is_one_line_and_exit_2(tmp_path: Path, lock: str, where: str) -> None:
    _memory(tmp_path, {"anchorcheck.lock": lock})
    run = run_cli(tmp_path, "check", "AGENTS.md")
    run.assert_clean()
    assert run.returncode == 2
    assert run.stderr.startswith(f"anchorcheck: error: {where}") and run.stderr.count("\n") == 1


@pytest.mark.parametrize(
    "extra",
    [f', "n": {LONG}', ', "n": ' + "[" * 100_000 + "]" * 100_000],
    ids=["long-integer", "deep-nesting"],
)
def test_a_malformed_jsonl_memory_is_one_finding(tmp_path: Path, extra: str) -> None:
    write_tree(tmp_path, {"memory.jsonl": '{"type": "relation"}\n{"type": "entity", "name": "x", "observations": []' + extra + "}\n"})
    run = run_cli(tmp_path, "check", "--fail-on", "inconclusive", "memory.jsonl")
    run.assert_clean()
    assert run.returncode == 1
    assert "memory.jsonl:2:1: INCONCLUSIVE memory.jsonl — the memory file could not be read, so none of its memories were checked: invalid JSON" in run.stdout


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_lone_surrogates_in_jsonl_anchors_are_malformed_anchors(tmp_path: Path, fmt: str) -> None:
    observation = "see `file:a\\ud800.py` and `import:os in:\\udc00` and `file:\\udcff`"
    write_tree(tmp_path, {"memory.jsonl": '{"type": "entity", "name": "x\\udfff", "observations": ["' + observation + '"]}\n'})
    run = run_cli(tmp_path, "check", "--format", fmt, "memory.jsonl")
    run.assert_clean()
    assert run.returncode in (0, 1)  # three malformed anchors, INCONCLUSIVE (written wrongly: exit 1)
    assert run.stdout.count("lone surrogate") == 3
    if fmt in ("json", "sarif"):
        json.loads(run.stdout)


@pytest.mark.parametrize("pattern", ["!", "[z-a]"])
def test_an_invalid_exclude_pattern_is_a_config_error(tmp_path: Path, pattern: str) -> None:
    write_tree(tmp_path, {"pyproject.toml": f'[tool.anchorcheck]\nexclude = ["{pattern}"]\n'})
    run = run_cli(tmp_path, "anchor", "file:x")
    run.assert_clean()
    assert run.returncode == 2
    assert run.stderr.startswith("anchorcheck: error: pyproject.toml:2: invalid exclude pattern")


@pytest.mark.parametrize("pattern", ["!", "[z-a]"])
def test_an_invalid_gitignore_line_outside_git_leaves_the_others_in_force(tmp_path: Path, pattern: str) -> None:
    write_tree(tmp_path, {".gitignore": f"{pattern}\nbuild/\n", "build/gen.py": "import os\n", "app.py": "import sys\n"})
    run = run_cli(tmp_path, "anchor", "import:os", "import:sys")
    run.assert_clean()
    assert "failed" not in run.stdout  # it was "plugin 'import' failed: GitIgnorePatternError"
    assert "REFUTED import:os" in run.stdout  # build/ is still ignored
    assert "VERIFIED import:sys" in run.stdout


def test_an_invalid_scope_glob_is_an_anchor_syntax_error(tmp_path: Path) -> None:
    run = run_cli(tmp_path, "anchor", "import:os in:src/[z-a]")
    run.assert_clean()
    assert run.returncode == 2 and "column 14: invalid glob" in run.stderr


# -- super-linear time ------------------------------------------------------------------------------------


def test_a_markdown_line_of_growing_backtick_runs(tmp_path: Path) -> None:
    line = "- " + "a".join("`" * i for i in range(1, 400)) + "\n"  # no run closes another: all literal
    write_tree(tmp_path, {"AGENTS.md": line + "- and `file:a.py`\n", "a.py": ""})
    run = run_cli(tmp_path, "check", "-v", "AGENTS.md")
    run.assert_clean()
    assert run.returncode == 0 and "VERIFIED file:a.py" in run.stdout


def test_a_pyproject_with_200000_blank_lines(tmp_path: Path) -> None:
    write_tree(tmp_path, {"pyproject.toml": '[project]\nname = "x"\ndependencies = []\n' + "\n" * 200_000})
    run = run_cli(tmp_path, "anchor", "pkg:pypi/redis")
    run.assert_clean()
    assert "REFUTED pkg:pypi/redis" in run.stdout


def test_a_dockerfile_of_200000_continued_env_lines(tmp_path: Path) -> None:
    write_tree(tmp_path, {"Dockerfile": "FROM x\nENV " + "A=1 \\\n" * 200_000 + "LAST=2\n"})
    run = run_cli(tmp_path, "anchor", "env:LAST")
    run.assert_clean()
    assert "VERIFIED env:LAST" in run.stdout and "Dockerfile:2" in run.stdout


def test_a_justfile_line_of_thousands_of_blanks(tmp_path: Path) -> None:
    # Found by the 20,000-input campaign: the recipe-header pattern backtracked cubically over the blanks.
    write_tree(tmp_path, {"justfile": "set shell := ['bash']\na" + " " * 6000 + "lias b := build\nbuild:\n  cargo build\n"})
    run = run_cli(tmp_path, "anchor", "cmd:just build")
    run.assert_clean()
    assert "VERIFIED cmd:just build" in run.stdout


def test_a_config_with_many_newlines(tmp_path: Path) -> None:
    write_tree(tmp_path, {".anchorcheck.toml": "\n" * 400_000 + "bogus = 1\n"})
    run = run_cli(tmp_path, "anchor", "file:x")
    run.assert_clean()
    assert run.returncode == 2 and ".anchorcheck.toml:400001: unknown key 'bogus'" in run.stderr


# `^\s*` in a multiline search runs on over every blank line below each line start: a key after 400,000
# blank lines took minutes (cargo's alias config ran past 60 s), and a go.mod's `module` line the same.
BLANK_LINES = "\n" * 400_000
AFTER_BLANK_LINES = {
    "cargo alias": ({"Cargo.toml": '[package]\nname = "a"\n', ".cargo/config.toml": BLANK_LINES + '[alias]\nxt = "build"\n'}, "cmd:cargo xt", "VERIFIED"),
    "taskfile": ({"Taskfile.yml": "version: '3'\ntasks:" + BLANK_LINES + "  build:\n    cmds: [make]\n"}, "cmd:task build", "VERIFIED"),
    "turbo": ({"package.json": '{"name": "r"}', "turbo.json": '{"tasks": {' + BLANK_LINES + '  "build": {}}}'}, "cmd:turbo run build", "VERIFIED"),
    "pyproject script": ({"pyproject.toml": "[project]\nname = 'a'\n[project.scripts]" + BLANK_LINES + "serve = 'a:main'\n"}, "cmd:uv run serve", "VERIFIED"),
    "go.mod": ({"go.mod": BLANK_LINES + "module example.com/m\n", "main.go": "package main\n"}, "cmd:go run .", "VERIFIED"),
}


@pytest.mark.parametrize("case", sorted(AFTER_BLANK_LINES))
def test_a_runner_configuration_key_after_400000_blank_lines(tmp_path: Path, case: str) -> None:
    files, anchor, verdict = AFTER_BLANK_LINES[case]
    write_tree(tmp_path, files)
    run = run_cli(tmp_path, "anchor", anchor)
    run.assert_clean()
    assert f"{verdict} {anchor}" in run.stdout, run.stdout


# Error recovery that leaves one ERROR node of 150,000 children makes any tree-sitter query over it
# quadratic (56 s for Go), with no callback able to stop it: without a deadline that was a hang.
WIDE_ERRORS = {
    "main.go": b'package main\nimport "os"\nvar x = ' + b"[" * 150_000,
    "main.rs": b"use std::env;\nfn main() { let x = " + b"[" * 150_000,
}


@pytest.mark.parametrize("name", sorted(WIDE_ERRORS))
def test_a_file_of_150000_open_brackets_is_unparseable_without_a_deadline(tmp_path: Path, name: str) -> None:
    write_tree(tmp_path, {name: WIDE_ERRORS[name]})
    module = "os" if name.endswith(".go") else "std"
    run = run_cli(tmp_path, "anchor", "--no-cache", f"import:{module}")
    run.assert_clean()
    assert f"INCONCLUSIVE import:{module}" in run.stdout and f"{name}:1 (syntax error)" in run.stdout


def test_a_grammar_that_never_returns_is_stopped_by_the_parse_budget(tmp_path: Path) -> None:
    write_tree(tmp_path, {"app.tsx": LOOPING_TSX})
    run = run_cli(tmp_path, "anchor", "--no-cache", "import:os")
    run.assert_clean()  # the budget is 5 s a file; this run never returned before it
    assert "INCONCLUSIVE import:os" in run.stdout and "app.tsx:1 (syntax error)" in run.stdout


def test_a_duplicate_key_in_an_inline_table_of_a_memory_file_is_one_line(tmp_path: Path) -> None:
    """Found by benchmarks/hostile.py: tomlkit raised KeyAlreadyPresent, which is no ParseError."""
    memories = 'version = 1\n[[memory]]\nid = "m"\ntext = "x"\nmetadata = { a = "1", a = "2" }\n'
    write_tree(tmp_path, {"notes.memories.toml": memories})
    run = run_cli(tmp_path, "check", "--fail-on", "inconclusive", "notes.memories.toml")
    run.assert_clean()
    assert run.returncode == 1 and "notes.memories.toml:5:1: INCONCLUSIVE notes.memories.toml — " in run.stdout and "invalid TOML" in run.stdout


def test_a_requirements_include_of_a_name_too_long_is_a_manifest_error(tmp_path: Path) -> None:
    """Found by benchmarks/hostile.py: `-r` of a 1,000-character name raised OSError (ENAMETOOLONG)."""
    write_tree(tmp_path, {"requirements.txt": "-r " + "other" * 200 + "\nredis\n"})
    run = run_cli(tmp_path, "anchor", "pkg:pypi/flask")
    run.assert_clean()
    assert "INCONCLUSIVE pkg:pypi/flask" in run.stdout and "requirements.txt:1" in run.stdout


@pytest.mark.parametrize(
    ("files", "anchor"),
    [
        ({"package.json": '{"scripts": {"build": "tsc"}, "n": ' + LONG + "}\n"}, "cmd:npm run build"),
        ({".cargo/config.toml": f'[alias]\nxtask = "run"\nn = {LONG}\n'}, "cmd:cargo xtask"),
    ],
    ids=["package.json", "cargo-config"],
)
def test_runner_configuration_with_a_5000_digit_integer_names_the_line(tmp_path: Path, files: dict[str, str], anchor: str) -> None:
    write_tree(tmp_path, files)
    run = run_cli(tmp_path, "anchor", anchor)
    run.assert_clean()
    assert "INCONCLUSIVE" in run.stdout and "a number too long" in run.stdout and "plugin" not in run.stdout


@pytest.mark.parametrize(
    ("files", "anchor"),
    [
        ({"Makefile": "include " + "inc" * 400 + ".mk\nbuild:\n\techo\n"}, "cmd:make build"),
        ({"justfile": "import '" + "inc" * 400 + ".just'\nbuild:\n  echo\n"}, "cmd:just build"),
        ({"file.txt": ""}, "file:" + "a" * 400),
    ],
    ids=["make-include", "just-import", "file"],
)
def test_a_name_longer_than_the_file_system_allows_names_nothing(tmp_path: Path, files: dict[str, str], anchor: str) -> None:
    """Found by benchmarks/hostile.py: pathlib's is_file() lets ENAMETOOLONG through (a plugin failure)."""
    write_tree(tmp_path, files)
    run = run_cli(tmp_path, "anchor", anchor)
    run.assert_clean()
    assert "plugin" not in run.stdout and "OSError" not in run.stdout, run.stdout
