"""Commands in prose that history says were never this repository's (issue 27, held-out-5's false REFUTED in
electric-sql/electric's AGENTS.md and a silent binstub rename in Shopify/ruby-lsp's): a script, target or recipe its
configuration never defined is an example, not stale; a block that enters a folder the checkout does not hold runs
another project's commands; a program run by its path (`bin/rubocop`) is a path claim. Each through the CLI on a real
git repository, with the case that stays REFUTED beside it."""

from __future__ import annotations

import io
import json
import os
from contextlib import redirect_stdout
from pathlib import Path

from anchorcheck.cli import main
from tests.conftest import git, init_repo, needs_git, write_tree
from tests.test_history import by_anchor, check, commit

pytestmark = needs_git

ROOT = '{"name": "root", "scripts": {"build": "tsc", "dev": "vite", "test:unit": "vitest"}}\n'


def _anchor(root: Path, text: str) -> dict:
    """A typed anchor checked through `anchorcheck anchor`."""
    out, cwd = io.StringIO(), os.getcwd()
    os.chdir(root)
    try:
        with redirect_stdout(out):
            main(["anchor", "--format", "json", text])
    finally:
        os.chdir(cwd)
    return json.loads(out.getvalue())["results"][0]


def test_a_command_its_configuration_never_defined_is_no_stale_one(tmp_path: Path) -> None:
    write_tree(tmp_path, {"package.json": ROOT, "Makefile": "lint:\n\techo\n"})
    init_repo(tmp_path)
    write_tree(tmp_path, {"package.json": ROOT.replace('"test:unit"', '"test:units"')})
    commit(tmp_path, "scripts: plural")
    text = "Run `pnpm test:unit` and `make lint`.\n\nStart a new app:\n\n```sh\nnpx @acme/start app\npnpm claim && pnpm deploy\nmake publish\n```\n"
    write_tree(tmp_path, {"AGENTS.md": text})
    found = by_anchor(check(tmp_path)[1])
    claim, publish = found["cmd:pnpm claim"], found["cmd:make publish"]
    # npm scripts and make targets alike: never defined in any revision of their configuration
    for result, config, revisions in ((claim, "package.json", "all 2 revisions of it"), (publish, "Makefile", "its one revision")):
        assert result["verdict"] == "INCONCLUSIVE" and result["state"] == "never-existed" and result["severity"] == "warning"
        assert f"never defined in {config} ({revisions} looked at)" in result["reason"] and "not a stale one" in result["reason"]
    # defined in an earlier revision and gone: stale, as before
    gone = found["cmd:pnpm test:unit"]
    assert gone["verdict"] == "REFUTED" and gone["severity"] == "error" and "renamed to `test:units` in" in gone["reason"]
    # a typed anchor is an explicit claim: REFUTED
    assert _anchor(tmp_path, "cmd:pnpm claim")["verdict"] == "REFUTED"


def test_a_command_whose_configuration_history_was_cut_short_says_how_far_it_looked(tmp_path: Path) -> None:
    write_tree(tmp_path, {"package.json": ROOT})
    init_repo(tmp_path)
    for n in range(11):  # more revisions of package.json than are looked at, whose text has held the name since the 2nd
        write_tree(tmp_path, {"package.json": ROOT.replace('"tsc"', f'"tsc -p {n} && echo claim"')})
        commit(tmp_path, f"build {n}")
    write_tree(tmp_path, {"AGENTS.md": "Run `pnpm claim`.\n"})
    claim = by_anchor(check(tmp_path)[1])["cmd:pnpm claim"]
    assert claim["verdict"] == "INCONCLUSIVE" and claim["state"] == "unsure" and claim["severity"] == "warning"
    assert "not defined in the 10 revisions of package.json looked at (the newest 10; it has more)" in claim["reason"]


BLOCKS = """# Dev

```sh
npx gitpick acme/tree/main/examples/starter starter-app
cd starter-app
pnpm dev
pnpm migrate
```

```sh
cd web
pnpm dev
```

```sh
cd site
pnpm dev
```
"""


def test_a_block_that_enters_a_folder_the_checkout_does_not_hold_is_not_answered_from_the_root(tmp_path: Path) -> None:
    write_tree(tmp_path, {"package.json": ROOT, "web/package.json": '{"name": "web", "scripts": {"dev": "vite"}}\n'})
    init_repo(tmp_path)
    git(tmp_path, "mv", "web", "site")
    commit(tmp_path, "web is site")
    write_tree(tmp_path, {"AGENTS.md": BLOCKS})
    results = check(tmp_path)[1]
    at = {(r["line"], r["anchor"]): r for r in results}
    # starter-app/ never was here: the block's own project; not VERIFIED by the root's `dev`, not REFUTED for `migrate`
    for line, anchor in ((6, "cmd:pnpm dev"), (7, "cmd:pnpm migrate")):
        result = at[line, anchor]
        assert result["verdict"] == "INCONCLUSIVE" and result["state"] == "unheld-folder" and "starter-app/" in result["reason"]
    # web/ was here and moved: the `cd` is stale, and its command is not checked at the root either
    assert at[11, "file:web/"]["verdict"] == "REFUTED" and "moved to `site`" in at[11, "file:web/"]["reason"]
    assert at[12, "cmd:pnpm dev"]["verdict"] == "INCONCLUSIVE" and at[12, "cmd:pnpm dev"]["state"] == "unheld-folder"
    # a folder that is here: checked there
    assert at[17, "cmd:pnpm dev in:site/"]["verdict"] == "VERIFIED"


def test_a_program_run_by_its_path_is_a_path_claim(tmp_path: Path) -> None:
    write_tree(tmp_path, {"Gemfile": 'gem "rubocop"\n', "bin/rubocop": "#!/usr/bin/env ruby\n", "bin/dev": "#!/bin/sh\n"})
    init_repo(tmp_path)
    git(tmp_path, "mv", "bin/rubocop", "bin/rubocop-renamed")
    commit(tmp_path, "rename the binstub")
    write_tree(tmp_path, {"AGENTS.md": "Lint:\n\n```sh\nbin/rubocop\nbin/rubocop -a\nbin/dev\nbin/tapioca gem\n```\n"})
    found = by_anchor(check(tmp_path)[1])
    stub = found["file:bin/rubocop"]
    assert stub["verdict"] == "REFUTED" and "moved to `bin/rubocop-renamed` in" in stub["reason"]
    assert stub["details"]["fix"] == {"from": "bin/rubocop", "to": "bin/rubocop-renamed"}
    assert found["file:bin/dev"]["verdict"] == "VERIFIED"
    never = found["file:bin/tapioca"]
    assert never["verdict"] == "INCONCLUSIVE" and never["state"] == "never-existed"
    # a program file is no folder named for the lines after it
    assert not any("bin/rubocop/" in r["reason"] for r in found.values())


def test_a_shallow_clone_does_not_call_a_command_never_defined(tmp_path: Path) -> None:
    full, shallow = tmp_path / "full", tmp_path / "shallow"
    write_tree(full, {"package.json": ROOT, "AGENTS.md": "Run `pnpm claim`.\n"})
    init_repo(full)
    write_tree(full, {"package.json": ROOT.replace('"tsc"', '"tsc -b"')})
    commit(full, "build mode")
    assert by_anchor(check(full)[1])["cmd:pnpm claim"]["state"] == "never-existed"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{full}", str(shallow))
    # the same commit, but one revision of package.json to look at: not known never to have been (nor from the cache)
    claim = by_anchor(check(shallow)[1])["cmd:pnpm claim"]
    assert claim["verdict"] == "INCONCLUSIVE" and claim["state"] == "unsure" and "a shallow clone" in claim["reason"]


FOLDERS = """# Dev

- `go test ./internal/js/http/`
- `go test ./pkg/legacy/...`
- `go test ./js/http/`
- `pnpm -C web build`
- `pnpm -C site build`
- `make -C docs html`
- `make -C manual html`
"""


def test_a_folder_a_command_names_that_never_existed_is_no_stale_one(tmp_path: Path) -> None:
    # dev-2: k6's AGENTS.md ran `go test ./internal/js/modules/k6/http/`, a folder its history never had
    write_tree(tmp_path, {"go.mod": "module example.com/m\n\ngo 1.22\n", "js/http/h.go": "package http\n",
                          "pkg/legacy/l.go": "package legacy\n", "package.json": ROOT, "web/package.json": '{"name": "web", "scripts": {"build": "vite"}}\n',
                          "docs/Makefile": "html:\n\techo\n"})
    init_repo(tmp_path)
    git(tmp_path, "rm", "-q", "-r", "pkg/legacy", "web", "docs")
    commit(tmp_path, "drop legacy, web and docs")
    write_tree(tmp_path, {"AGENTS.md": FOLDERS})
    found = by_anchor(check(tmp_path)[1])
    # never in history: an example or a hallucination, a warning, and never answered from the root
    for anchor in ("cmd:go test ./internal/js/http/", "cmd:pnpm -C site build", "cmd:make -C manual html"):
        result = found[anchor]
        assert result["verdict"] == "INCONCLUSIVE" and result["state"] == "never-existed" and result["severity"] == "warning", anchor
        assert "never in this repository's history" in result["reason"]
    # in history and gone: stale, an error with the commit that removed it
    for anchor in ("cmd:go test ./pkg/legacy/...", "cmd:pnpm -C web build", "cmd:make -C docs html"):
        result = found[anchor]
        assert result["verdict"] == "REFUTED" and result["severity"] == "error" and "drop legacy, web and docs" in result["reason"], anchor
    assert found["cmd:go test ./js/http/"]["verdict"] == "VERIFIED"
    # a typed anchor is an explicit claim: REFUTED
    assert _anchor(tmp_path, "cmd:go test ./internal/js/http/")["verdict"] == "REFUTED"


def test_a_command_is_looked_for_in_every_revision_of_its_configuration_by_content(tmp_path: Path) -> None:
    # dev-2: turso's `make test-mvcc` went 13 revisions of its Makefile back; electric's `pnpm claim` never was
    scripts = ROOT.replace('"dev": "vite"', '"dev": "vite", "old-e2e": "playwright"')
    write_tree(tmp_path, {"package.json": scripts})
    init_repo(tmp_path)
    write_tree(tmp_path, {"package.json": scripts.replace("vitest", "vitest run")})
    commit(tmp_path, "unit: run once")
    write_tree(tmp_path, {"package.json": ROOT.replace("vitest", "vitest run")})
    commit(tmp_path, "drop the old e2e script")  # the 3rd revision of 15
    for n in range(12):
        write_tree(tmp_path, {"package.json": ROOT.replace('"tsc"', f'"tsc -p {n}"')})
        commit(tmp_path, f"build {n}")
    write_tree(tmp_path, {"AGENTS.md": "Run `pnpm old-e2e`, then `pnpm claim`.\n"})
    found = by_anchor(check(tmp_path)[1])
    gone = found["cmd:pnpm old-e2e"]
    assert gone["verdict"] == "REFUTED" and gone["severity"] == "error" and "'drop the old e2e script')" in gone["reason"]
    claim = found["cmd:pnpm claim"]
    assert claim["verdict"] == "INCONCLUSIVE" and claim["state"] == "never-existed" and claim["severity"] == "warning"
    assert "never defined in package.json (all 15 revisions of it looked at)" in claim["reason"]


def test_cd_dotdot_brings_a_block_back_where_it_began(tmp_path: Path) -> None:
    # `cd cli` … `cd ..`: the commands after `cd ..` run from where the block began, so a root target renamed
    # since is stale (REFUTED with the rename), not read as cli/'s never-existed one; `cd cli` then `cd sub` is cli/sub.
    write_tree(tmp_path, {"Makefile": "spell:\n\techo\n", "cli/Makefile": "build:\n\techo\n", "cli/sub/Makefile": "deep:\n\techo\n",
                          "AGENTS.md": "```sh\ncd cli\nmake build\ncd sub\nmake deep\ncd ../..\nmake spell\n```\n"})
    init_repo(tmp_path)
    write_tree(tmp_path, {"Makefile": "spell2:\n\techo\n"})
    commit(tmp_path, "rename spell")
    found = by_anchor(check(tmp_path)[1])
    assert found["cmd:make build in:cli/"]["verdict"] == "VERIFIED"
    assert found["cmd:make deep in:cli/sub/"]["verdict"] == "VERIFIED"
    spell = found["cmd:make spell"]
    assert spell["verdict"] == "REFUTED" and "renamed to `spell2`" in spell["reason"], spell


def test_a_compose_command_the_text_does_not_place_is_not_refuted_when_a_compose_file_elsewhere_runs_it(tmp_path: Path) -> None:
    # held-out-8's dragonfly: "offer to stop them (`docker compose down` in the monitoring dir)" in a skill's folder,
    # the stack's compose file in tools/local/monitoring/: the text does not say which compose file, one here runs it
    write_tree(tmp_path, {"tools/local/monitoring/docker-compose.yml": "services:\n  prom:\n    image: prom\n"})
    init_repo(tmp_path)
    skill = "Offer to stop them (`docker compose down` in the monitoring dir).\n\nThen `docker compose -f ops/compose.yml up -d`.\n"
    write_tree(tmp_path, {".claude/skills/bench/SKILL.md": skill})
    found = by_anchor(check(tmp_path)[1])
    down = found["cmd:docker compose down in:.claude/skills/bench/"]
    assert down["verdict"] == "INCONCLUSIVE" and down["state"] == "elsewhere"
    assert "tools/local/monitoring/docker-compose.yml" in down["reason"]
    # a compose file the command names is where it runs: missing, it is not answered from another compose file;
    # never in history, it is an example (as any file a command names: `make -C docs`, `go test ./x/...`)
    named = next(r for a, r in found.items() if "ops/compose.yml" in a)
    assert (named["verdict"], named["state"]) == ("INCONCLUSIVE", "never-existed"), named
    # two compose files run it: the text does not say which, and the reason names both, not the first as if it were the one
    write_tree(tmp_path, {"contrib/docker/docker-compose.yml": "services:\n  df:\n    image: df\n"})
    git(tmp_path, "add", "-A")
    down = by_anchor(check(tmp_path)[1])["cmd:docker compose down in:.claude/skills/bench/"]
    assert down["verdict"] == "INCONCLUSIVE" and "does not say which runs it" in down["reason"]
    assert "contrib/docker/docker-compose.yml; tools/local/monitoring/docker-compose.yml" in down["reason"]


def test_a_folder_a_chain_enters_that_never_was_here_is_said_once(tmp_path: Path) -> None:
    write_tree(tmp_path, {"package.json": ROOT})
    init_repo(tmp_path)
    write_tree(tmp_path, {"AGENTS.md": "Run `cd gone && pnpm dev`.\n"})
    found = by_anchor(check(tmp_path)[1])["cmd:cd gone && pnpm dev"]
    assert found["verdict"] == "INCONCLUSIVE" and found["state"] == "never-existed"
    assert found["reason"].count("never in this repository's history") == 1, found["reason"]
