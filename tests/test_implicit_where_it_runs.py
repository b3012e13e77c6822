"""Where a command runs and which reference a sentence makes, as held-out-8 found them (dragonfly's AGENTS.md and
benchmark skill, gitbutler's `pnpm prettier`): each through the CLI on a real git repository, with the case that
reads as before beside it."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import git, init_repo, needs_git, write_tree
from tests.test_history import by_anchor, check, commit

pytestmark = needs_git


def _at(results: list[dict]) -> dict[tuple[int, str], dict]:
    return {(r["line"], r["anchor"]): r for r in results}


def test_a_folder_after_a_build_output_path_is_read_and_after_another_repository_is_not(tmp_path: Path) -> None:
    # `build-dbg/dragonfly` is two plain words, like `owner/repo`, but this checkout's .gitignore keeps it out: a
    # build output of this repository, so the sentence's other paths are this repository's too
    text = ("Defaults to `build-dbg/dragonfly` relative to the `tests/dragonfly/` directory.\n\n"
            "In `acme/widgets` see `docs/index.md`.\n")
    write_tree(tmp_path, {".gitignore": "build-*\n", "tests/dragonfly/conftest.py": "x\n", "docs/index.md": "i\n", "AGENTS.md": text})
    init_repo(tmp_path)
    found = by_anchor(check(tmp_path)[1])
    assert found["file:tests/dragonfly/"]["verdict"] == "VERIFIED"
    # after an `owner/repo` that is no folder and no ignored path here: that repository's path, though one is here
    assert "file:docs/index.md" not in found
    git(tmp_path, "mv", "tests/dragonfly", "tests/dfly")
    commit(tmp_path, "tests: dfly")
    gone = by_anchor(check(tmp_path)[1])["file:tests/dragonfly/"]  # the text named it before it moved: stale
    assert gone["verdict"] == "REFUTED" and "moved to `tests/dfly`" in gone["reason"]


ROOT = '{"name": "root", "scripts": {"prettier": "prettier --check .", "build": "tsc"}, "devDependencies": {"prettier": "^3", "typescript": "^5"}}\n'


def test_a_renamed_script_a_binary_of_the_same_name_stands_in_for_is_refuted_as_a_warning(tmp_path: Path) -> None:
    # the text named the script while the root package.json defined it
    write_tree(tmp_path, {"package.json": ROOT, "AGENTS.md": "# Check formatting\n\n```sh\npnpm prettier\npnpm tsc --noEmit\n```\n"})
    init_repo(tmp_path)
    renamed = ROOT.replace('"prettier": "prettier --check ."', '"format:check": "prettier --check ."')
    commit(write_tree(tmp_path, {"package.json": renamed}), "scripts: format:check")
    found = by_anchor(check(tmp_path)[1])
    prettier = found["cmd:pnpm prettier"]
    assert prettier["verdict"] == "REFUTED" and prettier["severity"] == "warning" and prettier["state"] == "gone"
    assert prettier["reason"].startswith("script prettier of package.json renamed to `format:check` in ")
    assert "'scripts: format:check'" in prettier["reason"] and "pnpm runs the binary prettier of dependency prettier" in prettier["reason"]
    assert prettier["details"]["fix"] == {"from": "prettier", "to": "format:check", "name": True}
    # a binary no script of its name ever stood for: as before
    tsc = found["cmd:pnpm tsc --noEmit"]
    assert tsc["verdict"] == "VERIFIED" and tsc["reason"].startswith("pnpm runs the binary tsc of dependency typescript")


COMPOSE = {
    "contrib/docker/docker-compose.yml": "services:\n  dragonfly:\n    image: x\n",
    "tools/monitoring/docker-compose.yml": "services:\n  prometheus:\n    image: p\n  redis-exporter:\n    image: r\n    profiles: [redis]\n",
}


def test_the_compose_file_named_for_a_profile_is_one_that_declares_it(tmp_path: Path) -> None:
    write_tree(tmp_path, {**COMPOSE, "docs/AGENTS.md": "Start it:\n\n```sh\ndocker compose up -d\ndocker compose --profile redis up -d\n```\n"})
    init_repo(tmp_path)
    at = _at(check(tmp_path)[1])
    both, profiled = at[4, "cmd:docker compose up -d in:docs/"], at[5, "cmd:docker compose --profile redis up -d in:docs/"]
    assert both["verdict"] == profiled["verdict"] == "INCONCLUSIVE"
    assert "defined in contrib/docker/docker-compose.yml; tools/monitoring/docker-compose.yml, and the text does not say which" in both["reason"]
    assert "defined in tools/monitoring/docker-compose.yml, and the text does not say it runs in tools/monitoring/" in profiled["reason"]
    assert "contrib/docker" not in profiled["reason"]


CHECKOUT = """# Monitoring

```sh
cd ~/projects/acme/tools/monitoring
docker compose up -d
docker compose restart prometheus
```

```sh
cd ~/projects/acme
docker compose restart grafana
pnpm lint
pnpm build
```

Then `cd "$REPO_ROOT"/web && pnpm dev` and `cd $(git rev-parse --show-toplevel)/web && pnpm lint`.

```sh
ssh <server> 'cd ~/projects/acme/tools/monitoring && docker compose restart prometheus'
cd /home/u/src/acme/web
pnpm dev
```
"""


def test_a_block_that_enters_the_checkout_from_outside_runs_in_the_longest_trailing_folder_here(tmp_path: Path) -> None:
    web = '{"name": "web", "scripts": {"dev": "vite"}}\n'
    write_tree(tmp_path, {**COMPOSE, "package.json": '{"name": "root", "scripts": {"build": "tsc"}}\n', "web/package.json": web,
                          "docs/AGENTS.md": CHECKOUT})
    init_repo(tmp_path)
    at = _at(check(tmp_path)[1])
    # `~/projects/acme/tools/monitoring`: tools/monitoring/ is here, so the block runs there, not in docs/
    assert at[5, "cmd:docker compose up -d in:tools/monitoring/"]["verdict"] == "VERIFIED"
    assert at[6, "cmd:docker compose restart prometheus in:tools/monitoring/"]["verdict"] == "VERIFIED"
    assert at[19, "cmd:docker compose restart prometheus in:tools/monitoring/"]["verdict"] == "VERIFIED"  # over ssh
    # `~/projects/acme`: no trailing part is a folder here, so where it runs is unknown: read, never REFUTED for it
    for line, anchor in ((11, "cmd:docker compose restart grafana in:docs/"), (12, "cmd:pnpm lint in:docs/")):
        unknown = at[line, anchor]
        assert unknown["verdict"] == "INCONCLUSIVE" and unknown["state"] == "unknown-folder"
        assert "it runs after `cd ~/projects/acme`, a folder outside the repository" in unknown["reason"]
    assert at[13, "cmd:pnpm build in:docs/"]["verdict"] == "VERIFIED"  # the root's script, as before
    # a variable or git's root, then a folder here
    assert at[16, "cmd:pnpm dev in:web/"]["verdict"] == at[21, "cmd:pnpm dev in:web/"]["verdict"] == "VERIFIED"
    assert "no script lint in web/package.json" in at[16, "cmd:pnpm lint in:web/"]["reason"]


def test_a_cd_written_with_thousands_of_folders_is_read_by_its_last_ones_alone() -> None:
    # a crafted `cd ~/x/x/.../tools/monitoring` of 20,000 parts: every trailing part is no folder a checkout has, and
    # asking the tree for each (up to 20,000 parts long) for every command after it would take minutes
    from anchorcheck.memory.outside import MAX_TAILS, folder_tails

    tails = folder_tails("~/" + "x/" * 20_000 + "tools/monitoring")
    assert len(tails) == MAX_TAILS and tails[-2:] == ["tools/monitoring", "monitoring"]
    assert folder_tails("~/projects/acme/tools/monitoring") == ["projects/acme/tools/monitoring", "acme/tools/monitoring", "tools/monitoring", "monitoring"]


def test_a_line_chaining_thousands_of_cds_from_outside_is_read_by_its_last(tmp_path: Path) -> None:
    # each `cd ~/x && ` was read by a call of the reader on the rest of the line: 2,000 of them overflowed Python's stack
    text = "Run `" + "cd ~/x && " * 2_000 + "cd ~/src/acme/web && make lint`.\n"
    write_tree(tmp_path, {"web/Makefile": "lint:\n\ttrue\n", "AGENTS.md": text})
    init_repo(tmp_path)
    code, results = check(tmp_path)
    assert code == 0 and by_anchor(results)["cmd:make lint in:web/"]["verdict"] == "VERIFIED"


def test_a_list_step_that_enters_a_folder_places_the_steps_after_it(tmp_path: Path) -> None:
    # held-out-11's martin: "1. `cd martin/martin-ui`" "2. `npm clean-install --no-fund`" "4. `npm run lint`"
    write_tree(tmp_path, {"ui/web/package.json": '{"name": "web", "scripts": {"lint": "eslint ."}}\n', "Cargo.toml": "[workspace]\n",
                          "AGENTS.md": "Steps:\n\n1. `cd ui/web`\n2. `npm ci`\n3. `npm run lint`\n4. `npm run nosuch`\n\nThen `npm run lint` at the root.\n"})
    init_repo(tmp_path)
    found = _at(check(tmp_path)[1])
    assert found[(4, "cmd:npm ci in:ui/web/")]["verdict"] == "VERIFIED"
    assert found[(5, "cmd:npm run lint in:ui/web/")]["verdict"] == "VERIFIED"
    assert found[(6, "cmd:npm run nosuch in:ui/web/")]["verdict"] != "VERIFIED"
    assert (8, "cmd:npm run lint") in found  # a paragraph at the margin ends the steps


def test_a_cd_that_leaves_the_checkout_from_the_root_is_read_from_the_memory_files_folder(tmp_path: Path) -> None:
    # tinymist `editors/vscode/AGENTS.md`: "Regenerate syntax assets: `cd ../.. && yarn build:syntax`" — `../..` from
    # the root leaves the checkout, from the file's folder it is the root: a renamed root script there is stale
    write_tree(tmp_path, {"package.json": '{"name": "root", "scripts": {"build:syntax": "node gen.js"}}\n',
                          "editors/vscode/package.json": '{"name": "vs", "scripts": {"compile": "tsc"}}\n',
                          "editors/vscode/AGENTS.md": "Regenerate syntax assets: `cd ../.. && yarn build:syntax`\n"})
    init_repo(tmp_path)
    anchor = "cmd:cd ../.. && yarn build:syntax in:editors/vscode/"
    assert by_anchor(check(tmp_path)[1])[anchor]["verdict"] == "VERIFIED"
    (tmp_path / "package.json").write_text('{"name": "root", "scripts": {"build:grammar": "node gen.js"}}\n')
    commit(tmp_path, "rename the syntax script")
    gone = by_anchor(check(tmp_path)[1])[anchor]
    assert gone["verdict"] == "REFUTED" and "renamed to `build:grammar`" in gone["reason"]
    # written at the root, the same `cd ../..` has no reading inside the checkout: nothing is said of it
    write_tree(tmp_path, {"AGENTS.md": "Regenerate: `cd ../.. && yarn build:syntax`\n"})
    commit(tmp_path, "root file")
    root = by_anchor(check(tmp_path, "AGENTS.md")[1])["cmd:cd ../.. && yarn build:syntax"]
    assert root["verdict"] == "INCONCLUSIVE" and "leaves the repository from the root" in root["reason"]


def test_a_table_row_is_a_sentence_of_its_own(tmp_path: Path) -> None:
    # dyad (held-out-14): a row naming `anthropics/claude-code-action` silenced the links of every row below it, as
    # if the whole table were one sentence about that repository's paths
    table = ("| File | Read when |\n| --- | --- |\n| [rules/a.md](rules/a.md) | Adding things |\n"
             "| [rules/b.md](rules/b.md) | Editing workflows that invoke `anthropics/claude-code-action` |\n"
             "| [rules/c.md](rules/c.md) | Debugging |\n")
    write_tree(tmp_path, {"rules/a.md": "a\n", "rules/b.md": "b\n", "rules/c.md": "c\n", "AGENTS.md": table})
    init_repo(tmp_path)
    git(tmp_path, "mv", "rules/c.md", "rules/debugging.md")
    commit(tmp_path, "rename the debugging rule")
    found = by_anchor(check(tmp_path)[1])
    assert found["file:rules/c.md"]["verdict"] == "REFUTED" and "moved to `rules/debugging.md`" in found["file:rules/c.md"]["reason"]


def test_a_bare_folder_after_a_folder_of_this_repository_is_read_on_history(tmp_path: Path) -> None:
    # Kiln (held-out-14): "originates in `libs/core` / `app/`": `libs/core` is two plain words, as `owner/repo` is, but a
    # folder here; once `app/` was renamed, the bare name was dropped as if the sentence were another repository's
    write_tree(tmp_path, {"libs/core/b.py": "b\n", "app/a.py": "a\n", "AGENTS.md": "A traceback from `libs/core` / `app/` is ours.\n"})
    init_repo(tmp_path)
    git(tmp_path, "mv", "app", "application")
    commit(tmp_path, "rename app")
    gone = by_anchor(check(tmp_path)[1])["file:app/"]
    assert gone["verdict"] == "REFUTED" and "moved to `application`" in gone["reason"]
