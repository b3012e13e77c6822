"""`anchorcheck check` on un-anchored memory files: implicit references end to end, through the real CLI."""

from __future__ import annotations

import io
import json
import os
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from anchorcheck import Language, Verifier, hookimpl
from anchorcheck.cli import main
from anchorcheck.memory.memoryfiles import ReferenceReading, load
from tests.conftest import git, init_repo, needs_git, write_tree

AGENTS = """\
# Agent notes

- The API lives in `src/app/api.py`; the old one was `src/app/legacy.py`.
- Build outputs go to `dist/bundle.js`.
- Read [the ADR](docs/adr/0001.md#why) first.
- Typed too: `file:src/app/api.py`.
"""


def run(root: Path, *args: str) -> tuple[int, str]:
    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(root)
    try:
        with redirect_stdout(out):
            code = main(["check", *args])
    finally:
        os.chdir(cwd)
    return code, out.getvalue()


def results(root: Path, *args: str) -> list[dict]:
    _, out = run(root, "--format", "json", "-v", *args)
    return json.loads(out)["results"]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    write_tree(
        tmp_path,
        {
            "AGENTS.md": AGENTS,
            "src/app/api.py": "x = 1\n",
            "docs/adr/0001.md": "# ADR\n",
            ".gitignore": "dist/\n",
        },
    )
    return tmp_path


def test_stale_path_in_prose_fails_the_run_and_is_marked_implicit(repo: Path) -> None:
    code, out = run(repo)
    assert code == 1
    assert "AGENTS.md:3:55: REFUTED file:src/app/legacy.py (implicit) — src/app/legacy.py does not exist" in out
    rows = {(r["anchor"], r.get("implicit", False)): r for r in results(repo)}
    assert rows[("file:src/app/api.py", True)]["verdict"] == "VERIFIED"
    assert rows[("file:src/app/api.py", False)]["verdict"] == "VERIFIED"  # the typed anchor keeps its own result
    assert rows[("file:docs/adr/0001.md", True)]["verdict"] == "VERIFIED"
    ignored = rows[("file:dist/bundle.js", True)]
    assert ignored["verdict"] == "INCONCLUSIVE" and "dist/" in ignored["reason"]
    stale = rows[("file:src/app/legacy.py", True)]
    assert (stale["memory_file"], stale["line"], stale["column"]) == ("AGENTS.md", 3, 55)
    assert stale["details"]["written"] == "src/app/legacy.py"


@pytest.mark.parametrize("ignore", ["docs/api/*\n", "!\n[z-a]\ndocs/api/*\n"])
def test_a_folder_whose_contents_are_ignored_is_not_stale(tmp_path: Path, ignore: str) -> None:
    # openai-agents-js ignores its generated TypeDoc output as `docs/src/content/docs/openai/*`.
    write_tree(tmp_path, {"AGENTS.md": "- Generated docs live in `docs/api/`, see `docs/api`.\n", ".gitignore": ignore, "docs/guide.md": ""})
    rows = [r for r in results(tmp_path) if r.get("implicit")]
    assert rows and all(r["verdict"] == "INCONCLUSIVE" for r in rows)
    assert all("ignored by .gitignore" in r["reason"] for r in rows)


def test_no_implicit_option_and_config_turn_it_off(repo: Path) -> None:
    assert run(repo, "--no-implicit")[0] == 0
    assert not any(r.get("implicit") for r in results(repo, "--no-implicit"))
    (repo / ".anchorcheck.toml").write_text("implicit = false\n")
    assert run(repo)[0] == 0
    (repo / ".anchorcheck.toml").write_text('implicit = ["cmd"]\n')
    assert run(repo)[0] == 0
    (repo / ".anchorcheck.toml").write_text('implicit = ["files"]\n')
    code, _ = run(repo)
    assert code == 2


def test_sarif_has_implicit_rule_ids(repo: Path) -> None:
    _, out = run(repo, "--format", "sarif")
    log = json.loads(out)
    ids = {r["ruleId"] for r in log["runs"][0]["results"]}
    assert "implicit-file/refuted" in ids and "implicit-file/inconclusive" in ids
    [stale] = [r for r in log["runs"][0]["results"] if r["ruleId"] == "implicit-file/refuted"]
    assert stale["properties"]["implicit"] is True
    region = stale["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (3, 55)


def test_paths_resolve_against_the_memory_folder_root_and_named_folders(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "web/AGENTS.md": (
                "- Components in `src/ui/button.tsx`, shared code in `packages/shared/index.ts`.\n"
                "- The package is `src/pkg/`: see `mod.py` there.\n"
                "- Written from a source root: `pkg/mod.py`; a tail of one path: `ui/button.tsx`.\n"
                "- Gone: `src/ui/old.tsx`. Elsewhere: `../../sibling/README.md`, `lib/other.py`.\n"
                "- Ambiguous: `x/util.py`.\n"
            ),
            "web/src/ui/button.tsx": "",
            "packages/shared/index.ts": "",
            "src/pkg/mod.py": "",
            "a/x/util.py": "",
            "b/x/util.py": "",
        },
    )
    rows = {r["details"]["written"]: r for r in results(tmp_path) if r.get("implicit")}
    assert rows["src/ui/button.tsx"]["anchor"] == "file:web/src/ui/button.tsx"
    assert rows["packages/shared/index.ts"]["verdict"] == "VERIFIED"
    assert rows["mod.py"]["anchor"] == "file:src/pkg/mod.py"
    assert rows["pkg/mod.py"]["verdict"] == "VERIFIED"
    assert rows["ui/button.tsx"]["anchor"] == "file:web/src/ui/button.tsx"
    assert rows["src/ui/old.tsx"]["verdict"] == "REFUTED" and rows["src/ui/old.tsx"]["anchor"] == "file:web/src/ui/old.tsx"
    assert "../../sibling/README.md" not in rows  # leaves the repository: not read
    assert rows["lib/other.py"]["verdict"] == "INCONCLUSIVE"  # no folder lib/ here: another checkout's path
    assert rows["x/util.py"]["verdict"] == "INCONCLUSIVE" and "2 paths end with it" in rows["x/util.py"]["reason"]


def test_a_leading_slash_path_is_read_only_below_a_top_level_folder(tmp_path: Path) -> None:
    write_tree(tmp_path, {"AGENTS.md": "- Docs at `/docs/gone.md`; the route `/api/users` is not a path.\n", "docs/a.md": ""})
    rows = [r for r in results(tmp_path) if r.get("implicit")]
    assert [(r["anchor"], r["verdict"]) for r in rows] == [("file:docs/gone.md", "REFUTED")]


@needs_git
def test_a_file_reached_through_symlinks_is_checked_once(tmp_path: Path) -> None:
    write_tree(tmp_path, {"AGENTS.md": "- See `src/gone.py`.\n", "src/a.py": ""})
    (tmp_path / "CLAUDE.md").symlink_to("AGENTS.md")
    (tmp_path / "GEMINI.md").symlink_to("CLAUDE.md")
    init_repo(tmp_path)
    _, out = run(tmp_path, "--format", "json")
    data = json.loads(out)
    assert data["summary"]["files"] == 1
    assert [r["memory_file"] for r in data["results"]] == ["AGENTS.md"]


def test_imports_are_followed_once(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "CLAUDE.md": "@docs/agents.md\n",
            "docs/agents.md": "- Stale: `src/gone.py`. Back: @../CLAUDE.md\n",
            "src/a.py": "",
        },
    )
    _, out = run(tmp_path, "--format", "json", "-v", "CLAUDE.md")
    data = json.loads(out)
    assert data["summary"]["files"] == 2
    assert sorted({r["memory_file"] for r in data["results"]}) == ["CLAUDE.md", "docs/agents.md"]
    assert [r["verdict"] for r in data["results"] if r["anchor"] == "file:src/gone.py"] == ["REFUTED"]


@pytest.mark.parametrize(
    "name",
    [
        "GEMINI.md",
        "CLAUDE.local.md",
        ".claude/CLAUDE.md",
        ".claude/rules/python/style.md",
        "AGENTS.override.md",
        "services/api/AGENTS.md",
        "services/api/CLAUDE.md",
        ".github/instructions/py.instructions.md",
        ".cursorrules",
        ".windsurfrules",
        ".windsurf/rules/style.md",
        ".clinerules",
        ".clinerules/testing.md",
        ".roo/rules/style.md",
        ".roo/rules-code/style.md",
        ".roorules",
        ".kiro/steering/product.md",
        ".junie/guidelines.md",
        "CONVENTIONS.md",
        ".claude/skills/release/SKILL.md",
        ".claude/skills/release/references/checklist.md",
        ".claude/agents/reviewer.md",
        ".claude/commands/ship.md",
        ".agents/skills/docs-sync/SKILL.md",
    ],
)
def test_every_agents_convention_is_discovered(tmp_path: Path, name: str) -> None:
    write_tree(tmp_path, {name: "- The entry point is `src/gone.py`.\n", "src/a.py": ""})
    code, out = run(tmp_path, "--format", "json")
    data = json.loads(out)
    assert code == 1, out
    assert [r["memory_file"] for r in data["results"]] == [name]


@needs_git
def test_an_ignored_claude_local_md_is_still_checked(tmp_path: Path) -> None:
    write_tree(tmp_path, {"src/gone.py": "", "src/a.py": ""})
    init_repo(tmp_path)
    git(tmp_path, "rm", "-q", "src/gone.py")
    git(tmp_path, "commit", "-q", "-m", "drop gone.py")
    write_tree(tmp_path, {"CLAUDE.local.md": "- `src/gone.py`\n", ".gitignore": "CLAUDE.local.md\n"})
    code, out = run(tmp_path, "--format", "json")
    assert code == 1 and json.loads(out)["results"][0]["memory_file"] == "CLAUDE.local.md"


def test_applyto_front_matter_is_not_read_as_prose(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            ".github/instructions/py.instructions.md": '---\napplyTo: "src/**/*.py"\ndescription: see `src/gone.py`\n---\n- Use `src/a.py`.\n',
            "src/a.py": "",
        },
    )
    code, out = run(tmp_path, "--format", "json", "-v")
    assert code == 0
    assert [r["anchor"] for r in json.loads(out)["results"]] == ["file:src/a.py"]


def test_commands_are_checked_from_the_named_folder_the_memory_folder_or_the_root(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "package.json": '{"scripts": {"dev:web": "turbo dev", "lint": "eslint ."}}\n',
            "web/package.json": '{"scripts": {"build": "next build"}}\n',
            "packages/ai/package.json": '{"scripts": {"test:node": "vitest"}}\n',
            "web/AGENTS.md": (
                "- Build with `pnpm run build`; start everything with `pnpm run dev:web`.\n"
                "- Gone: `pnpm run storybook`. Not read: `git status`, `ls -la`.\n"
            ),
            "AGENTS.md": (
                "Run these from `packages/ai`:\n"
                "\n"
                "| command | what |\n"
                "| --- | --- |\n"
                "| `pnpm test:node` | node tests |\n"
                "\n"
                "```sh\n"
                "cd web\n"
                "pnpm build\n"
                "```\n"
            ),
        },
    )
    rows = {(r["memory_file"], r["details"]["written"]): r for r in results(tmp_path) if r.get("implicit")}
    assert rows[("web/AGENTS.md", "pnpm run build")]["anchor"] == "cmd:pnpm run build in:web/"
    assert rows[("web/AGENTS.md", "pnpm run build")]["verdict"] == "VERIFIED"
    assert rows[("web/AGENTS.md", "pnpm run dev:web")]["verdict"] == "VERIFIED"  # the root defines it
    stale = rows[("web/AGENTS.md", "pnpm run storybook")]
    assert stale["verdict"] == "REFUTED" and "nor as cmd:pnpm run storybook" in stale["reason"]
    assert rows[("AGENTS.md", "pnpm test:node")]["anchor"] == "cmd:pnpm test:node in:packages/ai/"
    assert rows[("AGENTS.md", "pnpm build")]["anchor"] == "cmd:pnpm build in:web/"
    assert not any("git" in written or "ls" in written for _, written in rows)


def test_a_refuted_command_gives_the_reason_of_the_reading_that_found_its_configuration(tmp_path: Path) -> None:
    """A skill file's `make test-mvcc` is read from its folder and from the root: when both refute, the reason is
    the root's ("no target test-mvcc in Makefile"), not the folder's "no Makefile in .claude/skills/mvcc/"."""
    write_tree(tmp_path, {"Makefile": "all:\n\ttrue\ntest:\n\ttrue\n", ".claude/skills/mvcc/SKILL.md": "Run:\n\n```bash\nmake test-mvcc\n```\n"})
    [row] = [r for r in results(tmp_path, ".claude/skills/mvcc/SKILL.md") if r.get("implicit")]
    assert row["verdict"] == "REFUTED" and row["reason"].startswith("no target test-mvcc in Makefile (targets: all, test)")
    assert row["reason"].endswith("(nor as cmd:make test-mvcc in:.claude/skills/mvcc/)")


def test_a_folder_named_right_after_a_command_is_where_it_runs(tmp_path: Path) -> None:
    """sentry-javascript's e2e skill: "Run `yarn build:tarball` at the repo root, then `yarn test:prepare` in
    `dev-packages/e2e-tests`" was REFUTED: the folder came after the command, and only folders named before were hints."""
    write_tree(
        tmp_path,
        {
            "package.json": '{"scripts": {"build:tarball": "x"}}\n',
            "dev/e2e/package.json": '{"scripts": {"test:prepare": "y"}}\n',
            "AGENTS.md": "- Run `yarn build:tarball` at the root, then `yarn test:prepare` in `dev/e2e`.\n- Not `yarn test:gone` in `dev/e2e`.\n",
        },
    )
    rows = {r["details"]["written"]: r for r in results(tmp_path) if r.get("implicit") and r["anchor"].startswith("cmd:")}
    assert rows["yarn build:tarball"]["verdict"] == "VERIFIED"
    assert rows["yarn test:prepare"]["verdict"] == "VERIFIED" and rows["yarn test:prepare"]["anchor"] == "cmd:yarn test:prepare in:dev/e2e/"
    assert rows["yarn test:gone"]["verdict"] == "REFUTED" and "dev/e2e/package.json" in rows["yarn test:gone"]["reason"]


def test_install_commands_are_package_claims(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "pyproject.toml": '[project]\nname = "x"\nversion = "1"\ndependencies = ["redis>=5"]\n',
            "AGENTS.md": "- Caching needs `pip install redis`; queues need `uv add celery`.\n",
        },
    )
    rows = {r["anchor"]: r for r in results(tmp_path) if r.get("implicit")}
    assert rows["pkg:pypi/redis"]["verdict"] == "VERIFIED"
    # the command adds celery: it claims nothing of the manifest declaring it now (coolify's `pnpm add date-fns`)
    celery = rows["pkg:pypi/celery"]
    assert celery["verdict"] == "INCONCLUSIVE" and celery["severity"] == "note" and "install command adds it" in celery["reason"]


def test_the_package_an_install_command_adds_is_never_refuted_and_its_other_claims_are_read(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "package.json": '{"name": "root", "private": true}\n',
            "pnpm-workspace.yaml": "packages:\n  - web\n",
            "web/package.json": '{"name": "web", "dependencies": {"zod": "1"}}\n',
            "AGENTS.md": "- Use this for installs (e.g. `pnpm add date-fns` vs `npm install date-fns`).\n"
                         "- `pnpm --filter nosuch add zod` and `yarn add zod`.\n",
        },
    )
    rows = {r["anchor"]: r["verdict"] for r in results(tmp_path, "--no-cache") if r.get("implicit")}
    assert rows["pkg:npm/date-fns"] == "INCONCLUSIVE" and rows["pkg:npm/zod"] == "VERIFIED"
    assert rows["cmd:pnpm --filter nosuch add zod"] == "REFUTED"  # the package filtered to must still exist


def test_mistakes_in_anchors_fail_the_run_with_their_own_rules_and_a_fix(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "CLAUDE.md": (
                "- Cache: `imprt:redis`.\n"
                "- Package: `pkg:pypi/`.\n"
                "- Span: `span:src/a.py#L20-L10` and `span:src/a.py#L1-L2`.\n"
                "- Prose, not typos: `spam:eggs` `localhost:3000` `note: x`.\n"
            ),
            "src/a.py": "a\nb\n",
        },
    )
    code, out = run(tmp_path, "--no-implicit", "--strict")
    assert code == 1
    assert "CLAUDE.md:1:11: INCONCLUSIVE imprt:redis — unknown anchor kind 'imprt': did you mean `import:`?" in out
    assert "4 written wrongly" in out
    code, out = run(tmp_path, "--no-implicit")  # in prose, only the unbanked span is an error; the others are warnings
    assert code == 1 and "1 written wrongly" in out and out.count("so a warning (`--strict` makes it an error)") == 3
    _, sarif = run(tmp_path, "--no-implicit", "--strict", "--format", "sarif")
    rules = [(r["ruleId"], r["level"]) for r in json.loads(sarif)["runs"][0]["results"]]
    assert rules == [
        ("anchor/unknown-kind", "error"),
        ("anchor/malformed", "error"),
        ("anchor/malformed", "error"),
        ("span/unbanked", "error"),
    ]


def test_config_keys_labels_and_urls_in_code_spans_are_prose_not_anchors_written_wrongly(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "AGENTS.md": (
                "- Keep `watch: false` in the config, and `env: { CI: true }` in the workflow.\n"
                "- `file: ./data.csv`, `import: false`, `pkg: string`, `span: 3` are YAML keys.\n"
                "- Errors print as `file:line:col: message`; open `file://x/y` in a browser.\n"
                "- Real: `file:a.py`.\n"
            ),
            "a.py": "",
        },
    )
    code, out = run(tmp_path, "--no-implicit")
    assert code == 0, out
    assert "written wrongly" not in out and "malformed" not in out
    assert "Checked 1 anchor" in out


def test_a_location_format_in_a_code_span_is_prose_not_a_file_anchor(tmp_path: Path) -> None:
    """sentry-javascript's triage skill: "code pointers (`file:line` format)" was REFUTED as the anchor file:line
    ("line does not exist"), failing the run even with --no-implicit. `file:LICENSE` is still an anchor."""
    write_tree(tmp_path, {"CLAUDE.md": "- Give pointers (`file:line` format), or `file:line:col`, `path:lineno`.\n- Licensed: `file:LICENSE`.\n", "LICENSE": "MIT\n"})
    code, out = run(tmp_path, "--no-implicit", "-v")
    assert code == 0 and "REFUTED" not in out and "written wrongly" not in out
    assert "VERIFIED file:LICENSE" in out


def test_the_summary_counts_anchors_that_can_never_be_refuted(tmp_path: Path) -> None:
    write_tree(tmp_path, {"CLAUDE.md": "- Uses `pkg:pypi/redis` and `file:a.py`.\n", "a.py": ""})
    code, out = run(tmp_path)
    assert code == 0
    assert "1 can never be refuted as written" in out  # no manifest at all: pkg absence cannot be judged


def test_claude_memory_checks_the_auto_memory_of_this_checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = write_tree(tmp_path / "my_app.v2", {"AGENTS.md": "- `src/a.py`\n", "src/a.py": ""})
    config = tmp_path / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    encoded = str(repo.resolve()).replace("/", "-").replace(".", "-").replace("_", "-")
    memory = config / "projects" / encoded / "memory"
    write_tree(memory, {"MEMORY.md": "- The parser moved to `src/parser.py`.\n", "notes.txt": "`src/gone.py`\n"})
    assert run(repo)[0] == 0  # not read unless asked
    code, out = run(repo, "--claude-memory", "--format", "json")
    data = json.loads(out)
    assert code == 1 and data["summary"]["files"] == 2
    [stale] = [r for r in data["results"] if r["verdict"] == "REFUTED"]
    assert stale["anchor"] == "file:src/parser.py" and stale["memory_file"].endswith("/memory/MEMORY.md")


def test_claude_memory_without_an_auto_memory_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:  # noqa: ANN001
    write_tree(tmp_path / "repo", {"AGENTS.md": "- `src/a.py`\n", "src/a.py": ""})
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "none"))
    code, _ = run(tmp_path / "repo", "--claude-memory")
    assert code == 0
    assert "no Claude Code auto-memory at" in capsys.readouterr().err


def test_json_output_validates_against_the_documented_schema(repo: Path) -> None:
    import jsonschema

    from tests.conftest import REPO_ROOT

    schema = json.loads((REPO_ROOT / "docs" / "results.schema.json").read_text(encoding="utf-8"))
    _, out = run(repo, "--format", "json", "-v")
    data = json.loads(out)
    jsonschema.Draft202012Validator(schema).validate(data)
    assert any(r.get("implicit") for r in data["results"])
    bad = {**data, "results": [{**data["results"][0], "implicit": False}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(schema).validate(bad)


def test_a_reference_in_copied_files_is_one_finding_with_every_location(tmp_path: Path) -> None:
    note = "- The parser is `src/parser.py`.\n"
    write_tree(tmp_path, {"AGENTS.md": note, "web/AGENTS.md": "Intro.\n\n" + note, "GEMINI.md": note, "src/a.py": "", "web/x": ""})
    _, out = run(tmp_path, "--format", "sarif")
    copied, nested = json.loads(out)["runs"][0]["results"]  # web/AGENTS.md also tried web/src/parser.py: its own finding
    places = [(p["physicalLocation"]["artifactLocation"]["uri"], p["physicalLocation"]["region"]["startLine"]) for p in copied["locations"]]
    assert places == [("AGENTS.md", 1), ("GEMINI.md", 1)]
    assert [p["physicalLocation"]["artifactLocation"]["uri"] for p in nested["locations"]] == ["web/AGENTS.md"]
    _, text = run(tmp_path)
    assert "AGENTS.md:1:18: REFUTED file:src/parser.py (implicit) — src/parser.py does not exist in the repository\n    also at: GEMINI.md:1:18\n" in text
    assert "GEMINI.md" not in text.replace("also at: GEMINI.md", "")
    _, github = run(tmp_path, "--format", "github")
    assert sum(line.startswith("::error file=") and "src/parser.py —" in line for line in github.splitlines()) == 3


def test_global_tool_installs_are_not_read_from_memory_files(tmp_path: Path) -> None:
    from tests.test_references import GLOBAL_INSTALLS

    project = {"pyproject.toml": '[project]\nname = "a"\n', "package.json": "{}\n", "Cargo.toml": '[package]\nname = "a"\n', "go.mod": "module a\n"}
    lines = "".join(f"- Install with `{command}`.\n" for command in GLOBAL_INSTALLS)
    write_tree(tmp_path, {**project, "AGENTS.md": lines + "- Test with `uv run pytest`.\n"})
    assert [r["anchor"] for r in results(tmp_path)] == ["cmd:uv run pytest"]


class LuaRoots:
    """A third-party language whose modules live under `lua/` (as Neovim plugins keep them): it declares the source root."""

    __name__ = "anchorcheck-lua-roots"

    @hookimpl
    def register_languages(self, register) -> None:  # noqa: ANN001 - hook signature
        register(Language(name="lua", extensions=(".lua",), grammar="lua", source_roots=("lua",)))


def test_a_third_party_language_contributes_its_source_roots(tmp_path: Path) -> None:
    write_tree(tmp_path, {"AGENTS.md": "- Helpers: `app/util.lua`; the old `app/gone.lua`.\n", "lua/app/util.lua": "", "examples/app/util.lua": ""})

    def verdicts(verifier: Verifier) -> dict[str, tuple[str, str]]:
        reading = ReferenceReading(verifier.repo, frozenset({"file"}))
        [(_, memories)] = load([str(tmp_path / "AGENTS.md")], verifier.repo, verifier.registry, (), reading)
        return {r.details["written"]: (r.verdict.value, r.anchor) for m in memories for r in verifier.verify(m).results}

    assert verdicts(Verifier(tmp_path, plugins=[LuaRoots()])) == {
        "app/util.lua": ("VERIFIED", "file:lua/app/util.lua"),  # read below the language's root, though two paths end with it
        "app/gone.lua": ("REFUTED", "file:lua/app/gone.lua"),  # lua/app/ is a folder here that lost the file
    }
    assert verdicts(Verifier(tmp_path)) == {  # no language says lua/ is a source root: ambiguous, and no folder app/
        "app/util.lua": ("INCONCLUSIVE", "file:app/util.lua"),
        "app/gone.lua": ("INCONCLUSIVE", "file:app/gone.lua"),
    }


def test_copied_and_imported_files_print_each_reference_once_and_count_it_once(tmp_path: Path) -> None:
    notes = "- Build with `make build`.\n- The parser is `src/parser.py`.\n"
    write_tree(
        tmp_path,
        {
            "AGENTS.md": notes,
            "CLAUDE.md": notes,  # a copy beside it, as real repositories ship
            "web/CLAUDE.md": "@../docs/shared.md\n",
            "api/CLAUDE.md": "@../docs/shared.md\n",  # the same import from two places: the file is read once
            "docs/shared.md": "- The old entry point is `src/old.py`.\n",
            "src/a.py": "",
        },
    )
    code, text = run(tmp_path)
    lines = text.splitlines()
    assert code == 1
    assert [line for line in lines if " REFUTED " in line and "memory:" not in line] == [
        "AGENTS.md:1:15: REFUTED cmd:make build (implicit) — no Makefile in the repository root",
        "AGENTS.md:2:18: REFUTED file:src/parser.py (implicit) — src/parser.py does not exist in the repository",
        "docs/shared.md:1:27: REFUTED file:src/old.py (implicit) — src/old.py does not exist in the repository (nor docs/src/old.py)",
    ]
    assert lines.count("    also at: CLAUDE.md:1:15") == 1 and lines.count("    also at: CLAUDE.md:2:18") == 1
    assert not any(line.startswith("CLAUDE.md") for line in lines)  # nothing else to say there
    assert lines[-1].startswith("Checked 4 references in 5 files: 3 refuted, 1 verified; 3 memories refuted in ")
    verbose = run(tmp_path, "-v")[1]
    assert "api/CLAUDE.md:1:1: VERIFIED file:docs/shared.md (implicit)" in verbose and "    also at: web/CLAUDE.md:1:1" in verbose
    data = json.loads(run(tmp_path, "--format", "json")[1])
    assert data["summary"]["anchors"] == {"VERIFIED": 1, "REFUTED": 3, "INCONCLUSIVE": 0}
    assert sum(data["summary"]["memories"].values()) == 4
    import jsonschema

    from tests.conftest import REPO_ROOT

    jsonschema.Draft202012Validator(json.loads((REPO_ROOT / "docs" / "results.schema.json").read_text(encoding="utf-8"))).validate(data)
    rows = data["results"]
    copies = {(r["memory_file"], r["anchor"]): rows[r["copy_of"]]["memory_file"] for r in rows if "copy_of" in r}
    assert copies == {("CLAUDE.md", "cmd:make build"): "AGENTS.md", ("CLAUDE.md", "file:src/parser.py"): "AGENTS.md", ("web/CLAUDE.md", "file:docs/shared.md"): "api/CLAUDE.md"}


def test_a_byte_copy_of_a_memory_file_is_read_and_checked_once_and_reported_at_both(tmp_path: Path, monkeypatch) -> None:
    """langgraph ships CLAUDE.md as a byte copy of AGENTS.md: its memories are the first file's, placed in
    the copy (the same as reading it would give), and each is checked once; the report is unchanged."""
    import anchorcheck.memory.memoryfiles as memoryfiles
    import anchorcheck.verify.verifier as verifier_module

    notes = "# Notes\n\n- Build with `make build`; the parser is `src/parser.py`.\n- Typed: `file:src/a.py`.\n\n```sh\nuv run pytest\n```\n"
    write_tree(tmp_path, {"AGENTS.md": notes, "CLAUDE.md": notes, "web/CLAUDE.md": notes, "src/a.py": "", "pyproject.toml": '[project]\nname = "a"\n'})
    monkeypatch.chdir(tmp_path)
    repo_verifier = Verifier(tmp_path)
    reading = ReferenceReading(repo_verifier.repo, frozenset(repo_verifier.config.implicit))
    loaded = dict(load([], repo_verifier.repo, repo_verifier.registry, (), reading))
    for shown in ("CLAUDE.md", "web/CLAUDE.md"):  # the copy beside it, and a file of the same bytes elsewhere (read)
        read = memoryfiles.read_memory_file(tmp_path / shown, shown, repo_verifier.registry, reading, root=tmp_path)
        assert [m.to_dict() for m in loaded[shown]] == [m.to_dict() for m in read] and len(read) == 3
    parsed, checked = [], []
    read_file, verify_one = memoryfiles.read_memory_file, verifier_module.Verifier._verify_one
    monkeypatch.setattr(memoryfiles, "read_memory_file", lambda path, shown, *a, **k: parsed.append(shown) or read_file(path, shown, *a, **k))
    monkeypatch.setattr(verifier_module.Verifier, "_verify_one", lambda self, memory, now: checked.append(memory.id) or verify_one(self, memory, now))
    data = json.loads(run(tmp_path, "--format", "json", "-v")[1])
    assert sorted(parsed) == ["AGENTS.md", "web/CLAUDE.md"]
    # web/CLAUDE.md's references are read from web/ (another memory); its typed anchor is the same memory as AGENTS.md:4
    assert checked == ["AGENTS.md:3", "AGENTS.md:4", "AGENTS.md:7", "web/CLAUDE.md:3", "web/CLAUDE.md:7"]
    rows = [(r["memory_file"], r["memory_id"], r["line"], r["anchor"], r.get("copy_of")) for r in data["results"]]
    assert rows == [
        ("AGENTS.md", "AGENTS.md:3", 3, "cmd:make build", None),
        ("AGENTS.md", "AGENTS.md:3", 3, "file:src/parser.py", None),
        ("AGENTS.md", "AGENTS.md:4", 4, "file:src/a.py", None),
        ("AGENTS.md", "AGENTS.md:7", 7, "cmd:uv run pytest", None),
        ("CLAUDE.md", "CLAUDE.md:3", 3, "cmd:make build", 0),
        ("CLAUDE.md", "CLAUDE.md:3", 3, "file:src/parser.py", 1),
        ("CLAUDE.md", "CLAUDE.md:4", 4, "file:src/a.py", None),
        ("CLAUDE.md", "CLAUDE.md:7", 7, "cmd:uv run pytest", 3),
        ("web/CLAUDE.md", "web/CLAUDE.md:3", 3, "cmd:make build in:web/", None),
        ("web/CLAUDE.md", "web/CLAUDE.md:3", 3, "file:src/parser.py", None),
        ("web/CLAUDE.md", "web/CLAUDE.md:4", 4, "file:src/a.py", None),
        ("web/CLAUDE.md", "web/CLAUDE.md:7", 7, "cmd:uv run pytest in:web/", None),
    ]
    assert [r["verdict"] for r in data["results"][4:8]] == [r["verdict"] for r in data["results"][:4]]
    assert sum(data["summary"]["anchors"].values()) == 9 and sum(data["summary"]["memories"].values()) == 7  # copies once, as documented


WEB_INSTRUCTIONS = """\
---
applyTo: "web/src/**/*.tsx,web/src/**/*.ts"
---
- Components live in `components/`; the button is `components/Button.tsx`.
- The client is `lib/api.ts`; the old one was `lib/client.ts`.
- Run `pnpm test`, not `pnpm run storybook`.
"""


def test_an_instructions_file_reads_paths_and_commands_relative_to_what_it_applies_to(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            ".github/instructions/web.instructions.md": WEB_INSTRUCTIONS,
            "web/package.json": '{"scripts": {"test": "vitest"}}\n',
            "web/src/components/Button.tsx": "",
            "web/src/lib/api.ts": "",
            "lib/other.py": "",
        },
    )
    rows = {r["details"]["written"]: (r["verdict"], r["anchor"]) for r in results(tmp_path)}
    assert rows == {
        "components/": ("VERIFIED", "file:web/src/components/"),
        "components/Button.tsx": ("VERIFIED", "file:web/src/components/Button.tsx"),
        "lib/api.ts": ("VERIFIED", "file:web/src/lib/api.ts"),
        "lib/client.ts": ("REFUTED", "file:web/src/lib/client.ts"),  # the folder it applies to lost the file
        "pnpm test": ("VERIFIED", "cmd:pnpm test in:web/src/"),  # run where the files it applies to are
        "pnpm run storybook": ("REFUTED", "cmd:pnpm run storybook in:web/src/"),
    }


def test_an_instructions_file_that_applies_to_no_tracked_file_is_not_read(tmp_path: Path) -> None:
    java = (
        '---\napplyTo: "**/*.java"\n---\n'
        "- Controllers are in `src/main/java/com/acme/controllers/`; run `make test`.\n"
        "- Typed anchors are still claims: `file:src/main/java/App.java`.\n"
    )
    py = "---\napplyTo:\n  - 'src/**/*.py'\n---\n- Gone: `src/old.py`.\n"
    write_tree(
        tmp_path,
        {
            ".github/instructions/java.instructions.md": java,
            ".github/instructions/py.instructions.md": py,
            ".github/instructions/bad.instructions.md": "---\napplyTo: '\\'\n---\n- Gone: `src/gone.py`.\n",  # matches nothing, as for Copilot
            "src/app.py": "",
            "src/main/x.txt": "",
        },
    )
    rows = [(r["memory_file"], r["anchor"], r["verdict"], bool(r.get("implicit"))) for r in results(tmp_path)]
    assert rows == [
        (".github/instructions/java.instructions.md", "file:src/main/java/App.java", "REFUTED", False),
        (".github/instructions/py.instructions.md", "file:src/old.py", "REFUTED", True),  # src/**/*.py matches src/app.py
    ]


def test_cursor_and_claude_rules_front_matter_scope_their_prose_like_apply_to(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            ".cursor/rules/java.mdc": "---\ndescription: Java\nglobs: **/*.java\nalwaysApply: false\n---\n- Gone: `src/Gone.java`.\n",
            ".cursor/rules/always.mdc": "---\nglobs:\nalwaysApply: true\n---\n- Gone: `src/gone.py`.\n",
            ".claude/rules/api.md": "---\npaths:\n  - 'web/src/**/*.ts'\n---\n- The client is `lib/api.ts`, not `lib/client.ts`.\n",
            "src/app.py": "",
            "web/src/lib/api.ts": "",
        },
    )
    rows = {(r["memory_file"], r["details"]["written"]): (r["verdict"], r["anchor"]) for r in results(tmp_path)}
    assert rows == {
        (".cursor/rules/always.mdc", "src/gone.py"): ("REFUTED", "file:src/gone.py"),  # applies everywhere
        (".claude/rules/api.md", "lib/api.ts"): ("VERIFIED", "file:web/src/lib/api.ts"),
        (".claude/rules/api.md", "lib/client.ts"): ("REFUTED", "file:web/src/lib/client.ts"),
    }  # java.mdc applies to no tracked file: its prose is not about this repository
