"""Scripts and targets in commands (issue 27, held-out-3's misses): every call of a chain and of a continued line is
read, the words "run from the `ui/` directory" place the commands after them, and a script or target history shows
defined and removed where the text points is stale even when another configuration, a dependency's name or a folder
answers to the same word now. Each checked through the CLI on a real git repository, with its negative."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import init_repo, needs_git, write_tree
from tests.test_history import by_anchor, check, commit

pytestmark = needs_git

ROOT = '{"name": "root", "private": true, "scripts": {"generate": "turbo run generate", "format": "prettier -w ."}}\n'


def _then(tmp_path: Path, files: dict[str, str], changed: dict[str, str], message: str) -> None:
    """A repository of `files` at its first commit, then `changed` in a second commit."""
    write_tree(tmp_path, files)
    init_repo(tmp_path)
    write_tree(tmp_path, changed)
    commit(tmp_path, message)


def _results_at(tmp_path: Path, line: int) -> list[dict]:
    return [r for r in check(tmp_path)[1] if r.get("line") == line and r["anchor"].startswith("cmd:")]


def test_the_second_call_of_a_chain_is_checked_where_it_is_written(tmp_path: Path) -> None:
    db = '{"name": "db", "scripts": {"migrate": "prisma migrate deploy", "generate": "prisma generate"}}\n'
    files = {"package.json": ROOT, "packages/db/package.json": db, "packages/web/package.json": '{"name": "web"}\n'}
    _then(tmp_path, files, {"packages/db/package.json": db.replace('"generate":', '"generate:client":')}, "rename generate")
    block = "Apply a migration:\n\n```bash\npnpm run migrate && pnpm run generate\n```\n"
    write_tree(tmp_path, {"packages/db/CLAUDE.md": block, "packages/web/CLAUDE.md": block.replace("migrate &&", "build ||")})
    found = {(r["memory_file"], r["anchor"]): r for r in check(tmp_path)[1]}
    migrate = found["packages/db/CLAUDE.md", "cmd:pnpm run migrate in:packages/db/"]
    generate = found["packages/db/CLAUDE.md", "cmd:pnpm run generate in:packages/db/"]
    assert migrate["verdict"] == "VERIFIED" and generate["column"] == 21
    # the file's own package defined it and a commit renamed it: the root's `generate` does not make it hold
    assert generate["verdict"] == "REFUTED" and "renamed to `generate:client` in" in generate["reason"]
    # packages/web never had one: the root's is what it runs (no new REFUTED)
    assert found["packages/web/CLAUDE.md", "cmd:pnpm run generate"]["verdict"] == "VERIFIED"


ENVIRONMENT = """From the `ui/` directory:

```bash
APP_CONFIG="$OTHER_REPO/config.toml" \\
APP_PORT=3040 \\
pnpm dev
```
"""


def test_a_command_continued_after_lines_that_set_its_environment_is_read_where_its_program_is(tmp_path: Path) -> None:
    # `@react-router/dev` is no proof of a bin `dev` (its own manifest, not here, names `react-router`)
    ui = '{"name": "ui", "scripts": {"dev": "react-router dev"}, "devDependencies": {"@react-router/dev": "7"}}\n'
    write_tree(tmp_path, {"package.json": ROOT, "ui/package.json": ui, "AGENTS.md": ENVIRONMENT})
    init_repo(tmp_path)
    assert [r["verdict"] for r in _results_at(tmp_path, 6)] == ["VERIFIED"]
    write_tree(tmp_path, {"ui/package.json": ui.replace('"dev":', '"dev:app":')})
    commit(tmp_path, "rename dev")
    [dev] = _results_at(tmp_path, 6)
    assert dev["verdict"] == "REFUTED" and dev["anchor"].endswith("pnpm dev in:ui/") and "renamed to `dev:app` in" in dev["reason"]


def test_a_script_a_scoped_dependency_may_provide_is_not_stale_without_history(tmp_path: Path) -> None:
    ui = '{"name": "ui", "scripts": {"build": "x"}, "devDependencies": {"@react-router/dev": "7"}}\n'
    write_tree(tmp_path, {"package.json": ROOT, "ui/package.json": ui, "AGENTS.md": ENVIRONMENT})
    init_repo(tmp_path)
    [dev] = _results_at(tmp_path, 6)
    assert dev["verdict"] == "INCONCLUSIVE" and "may provide a binary dev" in dev["reason"]


def test_a_sentence_that_says_where_commands_run_places_them_there_alone(tmp_path: Path) -> None:
    ui = '{"name": "ui", "scripts": {"format": "prettier -w src", "lint": "eslint ."}}\n'
    tests = '{"name": "tests", "scripts": {"e2e": "playwright test"}}\n'
    files = {"package.json": ROOT, "ui/package.json": ui, "tests/package.json": tests}
    _then(tmp_path, files, {"ui/package.json": ui.replace('"format":', '"fmt":')}, "rename format")
    write_tree(tmp_path, {"AGENTS.md": (
        "- After changing the UI, run from the `ui/` directory: `pnpm run format`, `pnpm run lint`.\n"
        "- End-to-end tests live in `tests/`; `pnpm run format` formats everything.\n"
    )})
    found = {(r["line"], r["anchor"]): r for r in check(tmp_path)[1]}
    placed = found[1, "cmd:pnpm run format in:ui/"]
    assert placed["verdict"] == "REFUTED" and "renamed to `fmt` in" in placed["reason"]  # the root's `format` is not where it runs
    assert found[1, "cmd:pnpm run lint in:ui/"]["verdict"] == "VERIFIED"
    # a folder named in passing ("live in `tests/`") places nothing: the root's script is read, as before
    assert found[2, "cmd:pnpm run format"]["verdict"] == "VERIFIED"


MAKEFILE = "build:\n\tgo build ./...\n\ndocs::\n\tgo run ./cmd/docs\n"


def test_a_make_target_named_like_a_folder_is_still_a_target(tmp_path: Path) -> None:
    files = {"Makefile": MAKEFILE, "docs/index.md": "d\n", "site/index.md": "s\n", "go.mod": "module x\n"}
    _then(tmp_path, files, {"Makefile": MAKEFILE.replace("docs::", "templates::")}, "rename docs target")
    write_tree(tmp_path, {"AGENTS.md": "- `make docs` - generate the documentation\n- `make site` - the web site\n"})
    found = by_anchor(check(tmp_path)[1])
    docs = found["cmd:make docs"]
    assert docs["verdict"] == "REFUTED" and "a folder docs/ exists" in docs["reason"] and "'rename docs target'" in docs["reason"]
    # a folder site/ and no target `site` in any revision: make finds the folder up to date, nothing says it was a target
    assert found["cmd:make site"]["verdict"] == "INCONCLUSIVE"


def test_a_script_renamed_in_the_files_own_package_is_not_verified_by_a_sibling_a_heading_names(tmp_path: Path) -> None:
    # held-out-7 (prefect ui-v2/AGENTS.md): "# Prefect UI v2" names ui/, whose package.json has a `build` too
    app = '{"name": "app", "scripts": {"build": "tsc -b && vite build", "dev": "vite"}}\n'
    files = {"ui/package.json": '{"name": "legacy", "scripts": {"build": "vite build"}}\n', "ui-v2/package.json": app}
    _then(tmp_path, files, {"ui-v2/package.json": app.replace('"build":', '"build:app":')}, "rename build")
    text = "# Prefect UI v2\n\n## Checklist\n\n1. **Dev server**: `npm run dev`\n2. **Build**: `npm run build`\n"
    write_tree(tmp_path, {"ui-v2/AGENTS.md": text, "ui/AGENTS.md": text.replace(" v2", "")})
    found = {(r["memory_file"], r["anchor"]): r for r in check(tmp_path)[1]}
    build = found["ui-v2/AGENTS.md", "cmd:npm run build in:ui-v2/"]
    assert build["verdict"] == "REFUTED" and "renamed to `build:app` in" in build["reason"]
    assert found["ui-v2/AGENTS.md", "cmd:npm run dev in:ui-v2/"]["verdict"] == "VERIFIED"
    # ui/ never had it renamed: its own `build` holds (no new REFUTED)
    assert found["ui/AGENTS.md", "cmd:npm run build in:ui/"]["verdict"] == "VERIFIED"


def test_the_call_after_an_install_in_a_cd_chain_is_read_from_the_folder(tmp_path: Path) -> None:
    # held-out-8 (dagu's CLAUDE.md): the install after `cd ui &&` used to end the line's reading
    ui = '{"name": "ui", "scripts": {"dev": "vite", "build": "vite build"}}\n'
    line = "**Frontend dev server**: `cd ui && pnpm install && pnpm dev`\n"
    write_tree(tmp_path, {"package.json": ROOT, "ui/package.json": ui, "AGENTS.md": line})
    init_repo(tmp_path)
    [dev] = _results_at(tmp_path, 1)
    assert dev["verdict"] == "VERIFIED" and dev["anchor"] == "cmd:cd ui && pnpm dev"
    write_tree(tmp_path, {"ui/package.json": ui.replace('"dev":', '"dev:app":')})
    commit(tmp_path, "rename dev")
    [dev] = _results_at(tmp_path, 1)
    assert dev["verdict"] == "REFUTED" and "renamed to `dev:app` in" in dev["reason"]
