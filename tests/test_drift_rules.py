"""Rules from the drift benchmark's held-out misses and false alarms (issue 27): each is evidence — history,
the document's structure, configuration — checked through the CLI on a real git repository."""

from __future__ import annotations

from pathlib import Path

from anchorcheck import Verifier
from anchorcheck.evidence.history import history_of
from tests.conftest import git, init_repo, needs_git, write_tree
from tests.test_history import by_anchor, check, commit

pytestmark = needs_git


def test_a_file_that_comes_and_goes_is_not_stale_but_one_deleted_once_is(tmp_path: Path) -> None:
    # `.changeset/pre.json`: each pre-release adds it and each release deletes it; absent now is one phase.
    write_tree(tmp_path, {"README.md": "r\n", "src/old.py": "x\n"})
    init_repo(tmp_path)
    for phase in ("enter pre mode", "release", "enter pre mode again", "release again"):
        if (tmp_path / ".changeset/pre.json").exists():
            git(tmp_path, "rm", "-q", ".changeset/pre.json")
        else:
            write_tree(tmp_path, {".changeset/pre.json": "{}\n"})
        commit(tmp_path, phase)
    git(tmp_path, "rm", "-q", "src/old.py")
    commit(tmp_path, "drop old")
    write_tree(tmp_path, {"AGENTS.md": "Do not remove `.changeset/pre.json`.\nThe entry point is `src/old.py`.\n"})
    code, results = check(tmp_path)
    found = by_anchor(results)
    pre = found["file:.changeset/pre.json"]
    assert pre["verdict"] == "INCONCLUSIVE" and pre["severity"] == "warning" and pre["state"] == "recurring"
    assert "comes and goes" in pre["reason"]
    old = found["file:src/old.py"]
    assert code == 1 and old["verdict"] == "REFUTED" and old["state"] == "gone" and "'drop old'" in old["reason"]


def test_a_folder_that_lost_a_file_now_and_then_and_was_deleted_once_is_stale(tmp_path: Path) -> None:
    # ReactiveUI's `integrationtests/`: years of life, a stray file removed from it twice, then the folder deleted
    # whole. Only a commit that left the folder empty removed it: this one came and went once, so it is stale.
    write_tree(tmp_path, {"itests/a.sln": "a\n", "itests/b.cs": "b\n", "itests/c.cs": "c\n", "itests/d.cs": "d\n", "README.md": "r\n"})
    init_repo(tmp_path)
    write_tree(tmp_path, {"AGENTS.md": "Integration tests: `itests/` (platform solutions).\n"})
    commit(tmp_path, "agent notes")
    for stray in ("c", "d"):
        git(tmp_path, "rm", "-q", f"itests/{stray}.cs")
        commit(tmp_path, f"remove unneeded {stray}")
    git(tmp_path, "rm", "-q", "-r", "itests")
    commit(tmp_path, "remove the deprecated integration tests")
    code, results = check(tmp_path)
    folder = by_anchor(results)["file:itests/"]
    assert code == 1 and folder["verdict"] == "REFUTED" and folder["state"] == "gone"
    assert "'remove the deprecated integration tests'" in folder["reason"] and "comes and goes" not in folder["reason"]


SHOWN = '''\
# Rules

Write the app:

```python
# app.py
print("hello")
```

Run it, and the tool's script, with:

```bash
python app.py
python tools/gone.py
cat > conf.py <<'EOF'
python tools/inside_heredoc.py
EOF
python conf.py
cmake -S native -B native/build
make -f native/build/Makefile tests
```
'''


def test_a_file_the_document_shows_or_a_here_document_writes_is_the_documents(tmp_path: Path) -> None:
    write_tree(tmp_path, {"AGENTS.md": SHOWN, "tools/lint.py": "x\n"})
    init_repo(tmp_path)
    read = {r["details"]["written"]: r for r in check(tmp_path)[1] if r.get("implicit")}
    assert "python app.py" not in read and "python conf.py" not in read  # the block's files, not the repository's
    assert "make -f native/build/Makefile tests" not in read  # in the build tree `cmake -B` made
    assert "python tools/inside_heredoc.py" not in read  # a line of the file the here-document writes
    gone = read["python tools/gone.py"]  # the rest of the block is still read (a file never in history: not stale)
    assert gone["verdict"] == "INCONCLUSIVE" and "never in this repository's history" in gone["reason"]


def test_a_bare_name_deleted_as_written_while_a_package_has_one_is_not_certain(tmp_path: Path) -> None:
    # `runtime/` at the root went long ago; `packages/app/src/runtime/` is what "`runtime/` code" means now.
    write_tree(tmp_path, {"runtime/old.ts": "x\n", "packages/app/src/runtime/index.ts": "y\n", "src/gone.ts": "z\n"})
    init_repo(tmp_path)
    git(tmp_path, "rm", "-q", "-r", "runtime", "src/gone.ts")
    commit(tmp_path, "drop the old runtime")
    write_tree(tmp_path, {"AGENTS.md": "Never use Node APIs in `runtime/` code.\nSee `src/gone.ts`.\n"})
    found = by_anchor(check(tmp_path)[1])
    runtime = found["file:runtime/"]
    assert runtime["verdict"] == "INCONCLUSIVE" and runtime["severity"] == "warning"
    assert "packages/app/src/runtime" in runtime["reason"] and "'drop the old runtime'" in runtime["reason"]
    assert found["file:src/gone.ts"]["verdict"] == "REFUTED"  # a path with a folder, deleted: stale as before


def test_a_folder_in_a_list_of_rooted_folders_that_moved_is_stale(tmp_path: Path) -> None:
    files = {"common/namespace/ns.go": "x\n", "common/metrics/m.go": "y\n", "service/worker/w.go": "z\n", "docs/zh/a.md": "a\n", "docs/en/a.md": "b\n"}
    write_tree(tmp_path, files)
    init_repo(tmp_path)
    git(tmp_path, "mv", "common/namespace", "common/ns")
    (tmp_path / "moved/service").mkdir(parents=True)
    git(tmp_path, "mv", "service/worker", "moved/service/worker")  # the old path is the tail of the new one
    git(tmp_path, "mv", "docs/zh", "docs/cn")
    commit(tmp_path, "reorganise")
    agents = ("- `/common/metrics`: metrics\n- `/common/namespace`: namespace cache\n- `/service/worker`: the worker\n"
              "- `/api/users`: a route, no folder\n\nEvery page under `docs/` (excluding `docs/en` and `docs/zh`).\n")
    write_tree(tmp_path, {"AGENTS.md": agents})
    found = by_anchor(check(tmp_path)[1])
    assert found["file:common/metrics"]["verdict"] == "VERIFIED" and found["file:docs/en"]["verdict"] == "VERIFIED"
    assert "moved to `common/ns`" in found["file:common/namespace"]["reason"] and found["file:common/namespace"]["verdict"] == "REFUTED"
    assert "moved to `moved/service/worker`" in found["file:service/worker"]["reason"] and found["file:service/worker"]["verdict"] == "REFUTED"
    assert found["file:docs/zh"]["verdict"] == "REFUTED" and "moved to `docs/cn`" in found["file:docs/zh"]["reason"]
    assert not any("api/users" in anchor for anchor in found)  # never a folder here: not read


def test_a_dependency_named_in_prose_after_its_manifest_dropped_it_is_stale(tmp_path: Path) -> None:
    pyproject = '[project]\nname = "app"\ndependencies = [\n  "wrapt>=1.14",\n  "riot",\n]\n'
    write_tree(tmp_path, {"pyproject.toml": pyproject, "web/package.json": '{"name": "web", "dependencies": {"zod": "3"}}\n'})
    init_repo(tmp_path)
    write_tree(tmp_path, {"pyproject.toml": pyproject.replace('  "wrapt>=1.14",\n', ""), "web/package.json": '{"name": "web"}\n'})
    commit(tmp_path, "drop wrapt and zod")
    agents = "Wrap calls with `wrapt`; test with `riot`; set `config` first.\n"
    write_tree(tmp_path, {"AGENTS.md": agents, "web/AGENTS.md": "Validate with `zod`.\n", "api/package.json": '{"dependencies": {"zod": "3"}}\n'})
    code, results = check(tmp_path)
    found = by_anchor(results)
    wrapt = found["pkg:pypi/wrapt"]
    assert code == 1 and wrapt["verdict"] == "REFUTED" and wrapt["severity"] == "error" and "'drop wrapt and zod'" in wrapt["reason"]
    assert not any("riot" in a or "config" in a for a in found)  # declared now, or never a dependency: not read
    assert not any("zod" in a for a in found)  # another manifest of the repository declares it now: not certain


def test_a_value_to_fill_in_for_a_variable_leaves_the_target_a_claim(tmp_path: Path) -> None:
    write_tree(tmp_path, {"Makefile": "release-contract:\n\techo $(VERSION)\n"})
    init_repo(tmp_path)
    write_tree(tmp_path, {"Makefile": "api-contract:\n\techo $(VERSION)\n"})
    commit(tmp_path, "rename the contract target")
    write_tree(tmp_path, {"AGENTS.md": "Run `make release-contract VERSION=<version>`, then `make api-contract VERSION=<version>`.\n"})
    found = by_anchor(check(tmp_path)[1])
    assert found["cmd:make release-contract VERSION=<version>"]["verdict"] == "REFUTED"
    assert "'rename the contract target'" in found["cmd:make release-contract VERSION=<version>"]["reason"]
    assert found["cmd:make api-contract VERSION=<version>"]["verdict"] == "VERIFIED"


def test_a_renamed_script_or_program_written_with_a_value_to_fill_in_is_stale(tmp_path: Path) -> None:
    write_tree(tmp_path, {"package.json": '{"scripts": {"test-types": "tsc", "test": "vitest"}}\n', "scripts/build.sh": "echo\n",
                          "justfile": "stream-test *args:\n\techo {{args}}\n"})
    init_repo(tmp_path)
    write_tree(tmp_path, {"package.json": '{"scripts": {"check-types": "tsc", "test": "vitest"}}\n', "justfile": "test-stream *args:\n\techo {{args}}\n"})
    git(tmp_path, "mv", "scripts/build.sh", "scripts/make.sh")
    commit(tmp_path, "rename the type check and the build script")
    lines = ["`pnpm test-types <filename>`", "`pnpm test --run <test_file.ts>`", "`scripts/build.sh <target>`",
             "`pnpm <script>`", "`make <target>`", "`cargo run --bin <name>`", "`pnpm --filter <pkg> build`",
             "`yarn workspace <name> build`", "`npm run test --workspace <pkg>`", "`cd <dir>`", "`just stream-test <target>`", "`just <recipe>`"]
    write_tree(tmp_path, {"AGENTS.md": "".join(f"- Run {line}.\n" for line in lines)})
    found = by_anchor(check(tmp_path)[1])
    assert found["cmd:pnpm test-types"]["verdict"] == "REFUTED"
    assert "'rename the type check and the build script'" in found["cmd:pnpm test-types"]["reason"]
    assert found["file:scripts/build.sh"]["verdict"] == "REFUTED" and "scripts/make.sh" in found["file:scripts/build.sh"]["reason"]
    assert found["cmd:pnpm test"]["verdict"] == "VERIFIED"
    # workerd (held-out-10): the recipe a just call names, whatever argument is filled in
    assert found["cmd:just stream-test"]["verdict"] == "REFUTED" and "test-stream" in found["cmd:just stream-test"]["reason"]
    # where the filled-in word may be the name run, or an option's value, the line stays unread
    assert set(found) == {"cmd:pnpm test-types", "cmd:pnpm test", "file:scripts/build.sh", "cmd:just stream-test"}


def test_a_condition_on_the_next_line_or_in_the_lead_in_of_a_list_makes_no_claim(tmp_path: Path) -> None:
    write_tree(tmp_path, {".changeset/pre.json": "{}\n", "config/local.toml": "x\n", "src/b.py": "x\n"})
    init_repo(tmp_path)
    git(tmp_path, "rm", "-q", ".changeset/pre.json", "config/local.toml", "src/b.py")
    commit(tmp_path, "leave pre mode")
    text = ("Read `.changeset/pre.json`\nif it exists, then the rest.\n\nLoad these files when present:\n\n"
            "- `config/local.toml`\n\nThen:\n\n- `src/b.py`\n")
    write_tree(tmp_path, {"AGENTS.md": text})
    found = by_anchor(check(tmp_path)[1])
    assert "file:.changeset/pre.json" not in found and "file:config/local.toml" not in found
    assert found["file:src/b.py"]["verdict"] == "REFUTED"  # a list with a plain lead-in still claims its items


def test_a_quoted_value_with_spaces_is_still_read_whole(tmp_path: Path) -> None:
    write_tree(tmp_path, {"Makefile": "lint:\n\techo\n", "AGENTS.md": '```sh\nARGS="a b" make lint\nmake nolint V=<v>\n```\n'})
    init_repo(tmp_path)
    found = by_anchor(check(tmp_path)[1])
    # read as a claim, and checked: a target the Makefile never had is an example, not stale (issue 27)
    assert found['cmd:ARGS="a b" make lint']["verdict"] == "VERIFIED" and found["cmd:make nolint V=<v>"]["state"] == "never-existed"


def test_package_words_in_prose_do_not_keep_a_checkout_from_replaying(tmp_path: Path) -> None:
    from tests.test_replay import check as run  # the replay harness: a run in its own process, and whether it replayed

    root = write_tree(tmp_path / "repo", {"pyproject.toml": '[project]\nname = "a"\ndependencies = ["requests"]\n', "src/app/main.py": "x\n",
                                          "CLAUDE.md": "We wrap calls with `wrapt` and `zorblify`; see `src/app/main.py`.\n"})
    init_repo(root)
    run(root, "-v")  # may ask git for the manifest's history; what it drops is kept by the manifest's bytes
    run(root, "-v")
    assert run(root, "-v").replayed


def test_a_single_folder_name_that_moved_into_a_package_means_every_package_s(tmp_path: Path) -> None:
    # A root src/ moved into packages/replay/src/ years before the text said "cover `src/` and `test/`".
    write_tree(tmp_path, {"src/a.ts": "a\n", "src/b.ts": "b\n", "packages/core/src/c.ts": "c\n"})
    init_repo(tmp_path)
    (tmp_path / "packages/replay").mkdir(parents=True)
    git(tmp_path, "mv", "src", "packages/replay/src")
    commit(tmp_path, "move replay into packages")
    write_tree(tmp_path, {"AGENTS.md": "When modifying files, cover all occurrences (including `src/`).\n"})
    assert "file:src/" not in by_anchor(check(tmp_path)[1])


def test_a_crate_of_the_workspace_dropped_from_its_table_is_still_a_package_here(tmp_path: Path) -> None:
    root = '[workspace]\nmembers = ["crates/*"]\n\n[workspace.dependencies]\nstd_utils = { path = "crates/std_utils" }\nserde = "1"\n'
    write_tree(tmp_path, {"Cargo.toml": root, "crates/std_utils/Cargo.toml": '[package]\nname = "std_utils"\n'})
    init_repo(tmp_path)
    write_tree(tmp_path, {"Cargo.toml": root.replace('std_utils = { path = "crates/std_utils" }\n', "").replace('serde = "1"\n', "")})
    commit(tmp_path, "trim the table")
    write_tree(tmp_path, {"AGENTS.md": "Paths go through `std_utils`; JSON through `serde`.\n"})
    found = by_anchor(check(tmp_path)[1])
    assert not any("std_utils" in a for a in found)  # the crate is there: a package of this repository
    assert found["pkg:cargo/serde"]["verdict"] == "REFUTED"


def test_a_feature_an_external_cargo_subcommand_names_that_its_package_renamed_is_stale(tmp_path: Path) -> None:
    root = '[workspace]\nmembers = ["meta"]\n'
    meta = '[package]\nname = "meta"\nversion = "0.1.0"\n\n[features]\nmock = []\n'
    write_tree(tmp_path, {"Cargo.toml": root, "meta/Cargo.toml": meta, "meta/src/lib.rs": "\n"})
    init_repo(tmp_path)
    write_tree(tmp_path, {"meta/Cargo.toml": meta.replace("mock = []", "mock-srv = []")})
    commit(tmp_path, "rename the mock feature")
    agents = "Test with `cargo nextest run -p meta --features mock`, or `cargo nextest run -p meta --features fake`.\n"
    write_tree(tmp_path, {"AGENTS.md": agents + "Or `cargo nextest run -p meta --features mock-srv`.\n"})
    code, results = check(tmp_path)
    found = by_anchor(results)
    renamed = found["cmd:cargo nextest run -p meta --features mock"]
    assert code == 1 and renamed["verdict"] == "REFUTED" and renamed["state"] == "gone"
    assert "renamed to `mock-srv` in" in renamed["reason"] and "'rename the mock feature'" in renamed["reason"]
    never = found["cmd:cargo nextest run -p meta --features fake"]  # never a feature here: the external tool's to say
    assert never["verdict"] == "INCONCLUSIVE" and "installed separately" in never["reason"]
    assert found["cmd:cargo nextest run -p meta --features mock-srv"]["verdict"] == "INCONCLUSIVE"


def test_a_bare_name_others_end_with_is_stale_when_the_text_named_it_before_it_moved(tmp_path: Path) -> None:
    # Several README.md files; the root one moved after AGENTS.md named it: was true, is gone.
    write_tree(tmp_path, {"README.md": "r\n", "app/README.md": "a\n", "web/README.md": "w\n", "AGENTS.md": "Read `README.md` first.\n"})
    init_repo(tmp_path)
    (tmp_path / "moved").mkdir()
    git(tmp_path, "mv", "README.md", "moved/README.md")
    commit(tmp_path, "move the readme")
    found = by_anchor(check(tmp_path)[1])
    readme = found["file:README.md"]
    assert readme["verdict"] == "REFUTED" and "moved to `moved/README.md`" in readme["reason"]
    # Written after the move (here: not committed yet), the same words mean one of the README.md files there now.
    write_tree(tmp_path, {"CLAUDE.md": "Read `README.md` first.\n"})
    git(tmp_path, "rm", "-q", "--cached", "AGENTS.md")
    (tmp_path / "AGENTS.md").unlink()
    assert "file:README.md" not in by_anchor(check(tmp_path)[1])


def test_a_program_written_as_a_path_and_a_bare_dot_file_are_paths_that_can_go_stale(tmp_path: Path) -> None:
    write_tree(tmp_path, {"java/mvnw": "#!/bin/sh\n", "java/pom.xml": "<project/>\n", ".node-version": "22\n", ".python-version": "3.12\n"})
    write_tree(tmp_path, {"java/AGENTS.md": "Build with `./mvnw -q verify`.\n", "AGENTS.md": "Node is pinned in `.node-version`; Python in `.python-version`.\n"})
    write_tree(tmp_path, {"CLAUDE.md": "Files ending in `.tsx`; promises chain with `.then`.\n\n```bash\ncd java && ./mvnw clean\n```\n"})
    init_repo(tmp_path)
    found = by_anchor(check(tmp_path)[1])
    # (a wrapper the maven runner claims: a command whose program file is the path)
    assert found["cmd:./mvnw -q verify in:java/"]["verdict"] == "VERIFIED" and found["file:.node-version"]["verdict"] == "VERIFIED"
    assert not any(".tsx" in a or ".then" in a for a in found)  # an extension, a method: nothing here, never here
    git(tmp_path, "mv", "java/mvnw", "java/mvnw.sh")
    git(tmp_path, "mv", ".node-version", ".nvmrc")
    commit(tmp_path, "rename the wrapper and the node pin")
    code, results = check(tmp_path)
    found = {(r["memory_file"], r["anchor"]): r for r in results}
    for key in (("java/AGENTS.md", "cmd:./mvnw -q verify in:java/"), ("CLAUDE.md", "cmd:cd java && ./mvnw clean")):  # the file's folder, the folder `cd` entered
        assert found[key]["verdict"] == "REFUTED" and "moved to `java/mvnw.sh`" in found[key]["reason"], found[key]
    assert code == 1 and "moved to `.nvmrc`" in found[("AGENTS.md", "file:.node-version")]["reason"]
    assert found[("AGENTS.md", "file:.python-version")]["verdict"] == "VERIFIED"


def test_a_file_deleted_from_git_and_ignored_since_is_a_local_file_not_a_stale_one(tmp_path: Path) -> None:
    agents = "Copy `.env.example` to `.env`; `old.cfg` holds the defaults.\n"  # written while both were tracked
    write_tree(tmp_path, {".env": "A=1\n", ".env.example": "A=\n", "old.cfg": "x\n", "AGENTS.md": agents})
    init_repo(tmp_path)
    git(tmp_path, "rm", "-q", "--cached", ".env")
    git(tmp_path, "rm", "-q", "old.cfg")
    write_tree(tmp_path, {".gitignore": ".env\n"})
    commit(tmp_path, "stop tracking .env")
    (tmp_path / ".env").unlink()
    found = by_anchor(check(tmp_path)[1])
    assert found["file:.env"]["verdict"] == "INCONCLUSIVE" and "ignored by .gitignore" in found["file:.env"]["reason"]
    assert found["file:old.cfg"]["verdict"] == "REFUTED"  # deleted and not ignored: stale


def test_a_script_its_root_configuration_renamed_is_stale_though_a_package_defines_one_of_that_name(tmp_path: Path) -> None:
    root = '{"name": "root", "scripts": {"e2e": "cd e2e && pnpm e2e", "build": "tsc"}}\n'
    write_tree(tmp_path, {"package.json": root, "e2e/package.json": '{"name": "e2e", "scripts": {"e2e": "playwright test", "lint": "x"}}\n'})
    init_repo(tmp_path)
    write_tree(tmp_path, {"package.json": root.replace('"e2e":', '"e2e:all":')})
    commit(tmp_path, "rename e2e")
    write_tree(tmp_path, {"AGENTS.md": "Run `pnpm e2e` after `pnpm build`; lint with `pnpm lint`.\n"})
    found = by_anchor(check(tmp_path)[1])
    e2e = found["cmd:pnpm e2e"]
    assert e2e["verdict"] == "REFUTED" and "renamed to `e2e:all` in" in e2e["reason"] and "'rename e2e'" in e2e["reason"]
    lint = found["cmd:pnpm lint"]  # never the root's: which configuration the text means cannot be told
    assert lint["verdict"] == "INCONCLUSIVE" and "defined in e2e/package.json" in lint["reason"]


def test_a_deleted_source_file_under_a_build_folder_is_still_stale(tmp_path: Path) -> None:
    # (the text named it before the commit that deleted it: written in that commit, it would be written-after)
    write_tree(tmp_path, {"src/core/build/pipeline.ts": "x\n", "src/core/build/index.ts": "y\n",
                          "AGENTS.md": "The build runs in `src/core/build/pipeline.ts`.\n"})
    init_repo(tmp_path)
    git(tmp_path, "rm", "-q", "src/core/build/pipeline.ts")
    commit(tmp_path, "fold the pipeline into index")
    found = by_anchor(check(tmp_path)[1])
    stale = found["file:src/core/build/pipeline.ts"]
    assert stale["verdict"] == "REFUTED" and "'fold the pipeline into index'" in stale["reason"]  # a folder's name is no ignore rule


def test_a_dependency_a_sentence_forbids_is_no_claim_but_the_one_it_recommends_is(tmp_path: Path) -> None:
    manifest = '{"name": "app", "devDependencies": {"node-fetch": "2", "got": "11", "left-pad": "1", "undici": "6"}}\n'
    write_tree(tmp_path, {"package.json": manifest})
    init_repo(tmp_path)
    write_tree(tmp_path, {"package.json": '{"name": "app", "devDependencies": {"undici": "6"}}\n'})
    commit(tmp_path, "drop old fetchers")
    agents = "- **Never use `node-fetch`** - Use `left-pad` to pad.\n- Do not import `got`, use `undici`.\n"
    write_tree(tmp_path, {"AGENTS.md": agents})
    code, results = check(tmp_path)
    found = by_anchor(results)
    assert "pkg:npm/node-fetch" not in found and "pkg:npm/got" not in found, found  # forbidden: no claim
    pad = found["pkg:npm/left-pad"]
    assert code == 1 and pad["verdict"] == "REFUTED" and "'drop old fetchers'" in pad["reason"]


def test_a_cd_into_a_folder_this_repository_never_had_is_no_stale_claim_in_prose(tmp_path: Path) -> None:
    # "From your `references` clone: cd projects/hello-world": another checkout's folder. web/ was here once.
    write_tree(tmp_path, {"package.json": '{"scripts": {"dev": "x"}}\n', "web/package.json": '{"scripts": {"dev": "y"}}\n'})
    init_repo(tmp_path)
    git(tmp_path, "rm", "-q", "web/package.json")
    commit(tmp_path, "drop the web app")
    block = "```sh\ncd projects/hello-world && pnpm run dev\n```\n\n```sh\ncd web && pnpm run dev\n```\n"
    write_tree(tmp_path, {"AGENTS.md": f"From your clone of the examples:\n\n{block}\n`cmd:cd projects/hello-world && pnpm run dev`\n"})
    code, results = check(tmp_path)
    prose = [r for r in results if r.get("implicit") and "hello-world" in r["anchor"]]
    assert prose and all(r["verdict"] == "INCONCLUSIVE" and r["state"] == "never-existed" for r in prose), prose
    web = next(r for r in results if r.get("implicit") and "cd web" in r["anchor"])
    assert code == 1 and web["verdict"] == "REFUTED" and web["state"] == "gone" and "'drop the web app'" in web["reason"], web
    typed = next(r for r in results if not r.get("implicit") and "hello-world" in r["anchor"])
    assert typed["verdict"] == "REFUTED", typed  # an explicit claim


def test_a_bare_name_that_moved_with_its_package_s_manifest_is_not_certain_but_one_moved_alone_is(tmp_path: Path) -> None:
    # The cargo workspace moved into crates/ with the `.sqlx` folder its tool writes beside it; README.md moved alone.
    write_tree(tmp_path, {"Cargo.toml": "[workspace]\nmembers = []\n", ".sqlx/q.json": "{}\n", "README.md": "r\n"})
    init_repo(tmp_path)
    (tmp_path / "crates").mkdir()
    (tmp_path / "docs").mkdir()
    for path in ("Cargo.toml", ".sqlx"):
        git(tmp_path, "mv", path, f"crates/{path}")
    git(tmp_path, "mv", "README.md", "docs/README.md")
    commit(tmp_path, "isolate the rust files")
    write_tree(tmp_path, {"AGENTS.md": "Run `cargo sqlx prepare`; commit the generated `.sqlx` folder. Read `README.md`.\n"})
    found = by_anchor(check(tmp_path)[1])
    sqlx = found["file:.sqlx"]
    assert sqlx["verdict"] == "INCONCLUSIVE" and "with crates/Cargo.toml" in sqlx["reason"], sqlx
    readme = found["file:README.md"]
    assert readme["verdict"] == "REFUTED" and "moved to `docs/README.md`" in readme["reason"], readme


def test_a_folder_a_shell_block_enters_on_a_line_of_its_own_is_stale_once_moved(tmp_path: Path) -> None:
    # `cd docs` then `make html`: once docs/ moved, the block fails at its first line; history names where it went.
    block = "Build the docs:\n\n```bash\ncd docs\nmake html\n```\n\n```bash\ngit clone https://example.com/x.git tools\ncd tools\ncd scratch\n```\n"
    write_tree(tmp_path, {"docs/Makefile": "html:\n\techo html\n", "AGENTS.md": block})
    init_repo(tmp_path)
    assert by_anchor(check(tmp_path)[1])["file:docs/"]["verdict"] == "VERIFIED"
    git(tmp_path, "mv", "docs", "site")
    commit(tmp_path, "docs are a site now")
    code, results = check(tmp_path)
    found = by_anchor(results)
    assert code == 1 and found["file:docs/"]["verdict"] == "REFUTED" and "moved to `site`" in found["file:docs/"]["reason"], found
    # A folder an earlier line makes (a clone) and one this repository never had are no claim about it.
    assert not any(("tools" in a or "scratch" in a) and r["verdict"] == "REFUTED" for a, r in found.items()), found


def test_a_make_target_renamed_beside_a_folder_of_its_name_is_stale_one_never_defined_is_not(tmp_path: Path) -> None:
    # `make docs` with a docs/ folder: make finds the folder up to date and does nothing, so only the Makefile's
    # history tells a renamed target from a name it never had.
    makefile = "build:\n\tgo build ./...\n\ndocs::\n\tcd docs && npm run build\n"
    write_tree(tmp_path, {"Makefile": makefile, "docs/index.md": "x\n", "AGENTS.md": "Run `make docs` and `make site`.\n"})
    init_repo(tmp_path)
    write_tree(tmp_path, {"Makefile": makefile.replace("docs::", "docs-html::"), "site/index.md": "x\n"})
    commit(tmp_path, "rename the docs target")
    code, results = check(tmp_path)
    found = by_anchor(results)
    assert code == 1 and found["cmd:make docs"]["verdict"] == "REFUTED", found["cmd:make docs"]
    assert "renamed to `docs-html`" in found["cmd:make docs"]["reason"], found["cmd:make docs"]["reason"]
    assert found["cmd:make site"]["verdict"] == "INCONCLUSIVE", found["cmd:make site"]  # never a target: the folder may be meant


def test_a_dependency_dropped_from_the_manifest_whose_table_a_heading_names_is_stale_though_others_declare_it(tmp_path: Path) -> None:
    """agent-framework's shape (held-out-5): a package's AGENTS.md lists its pyproject's dependencies under
    "## Dependencies"; the pyproject drops one that the workspace still has (a package of it, declared by others).
    The list was that manifest's: stale. The same names under another heading ("## Key APIs", electric's shape), or
    beside a manifest that is not the memory file's own, say nothing of one manifest's table: silent."""
    pyproject = '[project]\nname = "ai-openai"\ndependencies = [\n  "ai-core>=1",\n  "openai>=2",\n]\n'
    core = '[project]\nname = "ai-core"\n'
    other = '[project]\nname = "ai-mistral"\ndependencies = ["ai-core>=1", "httpx"]\n'
    listed = "- `ai-core` — core abstractions\n- `openai` — the SDK\n"
    write_tree(tmp_path, {"packages/openai/pyproject.toml": pyproject, "packages/core/pyproject.toml": core,
                          "packages/mistral/pyproject.toml": other,
                          "packages/openai/AGENTS.md": f"# ai-openai\n\n## Dependencies\n\n{listed}",
                          "packages/mistral/AGENTS.md": f"# ai-mistral\n\n## Key APIs\n\n{listed}",
                          "AGENTS.md": f"# Workspace\n\n## Dependencies\n\n{listed}"})
    init_repo(tmp_path)
    write_tree(tmp_path, {"packages/openai/pyproject.toml": pyproject.replace('  "ai-core>=1",\n', "")})
    commit(tmp_path, "openai: drop the core dependency")
    write_tree(tmp_path, {"packages/mistral/pyproject.toml": other.replace('"ai-core>=1", ', "")})
    commit(tmp_path, "mistral: drop the core dependency")
    code, results = check(tmp_path)
    gone = [r for r in results if r["anchor"] == "pkg:pypi/ai-core"]
    assert code == 1 and [r["memory_file"] for r in gone] == ["packages/openai/AGENTS.md"], gone
    assert gone[0]["verdict"] == "REFUTED" and gone[0]["severity"] == "error"
    assert "declared ai-core in `dependencies`" in gone[0]["reason"] and "'openai: drop the core dependency'" in gone[0]["reason"]


def test_a_rule_whose_globs_name_a_folder_history_shows_gone_is_stale_and_a_template_s_is_not(tmp_path: Path) -> None:
    """A Cursor rule for `legacy/**` after legacy/ went away applied to nothing and was skipped silently (issue 27
    item 4): its globs are a claim about this repository, and history says whether the folder they start with was
    here. Gone → REFUTED at the globs line, with the commit; moved → the fix rewrites the glob. A rule whose folder
    this repository never had (a template) stays quiet."""
    rule = "---\ndescription: Legacy\nglobs: {}/**/*.py\nalwaysApply: false\n---\n\nKeep `{}/api.py` small.\n"
    write_tree(tmp_path, {"legacy/api.py": "x = 1\n", "old/a.py": "", "app.py": "",
                          ".cursor/rules/legacy.mdc": rule.format("legacy", "legacy"),
                          ".cursor/rules/old.mdc": rule.format("old", "old"),
                          ".cursor/rules/template.mdc": rule.format("vendor/sdk", "vendor/sdk")})
    init_repo(tmp_path)
    git(tmp_path, "rm", "-rq", "legacy")
    git(tmp_path, "mv", "old", "older")
    commit(tmp_path, "drop legacy, rename old")
    code, results = check(tmp_path)
    found = {(r["memory_file"], r["anchor"]): r for r in results}
    legacy = found[(".cursor/rules/legacy.mdc", "file:legacy/")]
    assert code == 1 and legacy["verdict"] == "REFUTED" and legacy["line"] == 3 and "'drop legacy, rename old'" in legacy["reason"]
    assert "moved to `older`" in found[(".cursor/rules/old.mdc", "file:old/")]["reason"]
    assert not any(r["memory_file"] == ".cursor/rules/template.mdc" for r in results if "anchor" in r)
    # the body of a rule whose folder went is read too, relative to that folder first: its paths went with it
    assert found[(".cursor/rules/legacy.mdc", "file:legacy/api.py")]["verdict"] == "REFUTED"
    from tests.test_fix import cli
    cli(tmp_path, "fix")
    assert (tmp_path / ".cursor/rules/old.mdc").read_text() == rule.format("older", "old")


def test_a_stale_glob_beside_one_that_still_matches_is_stale_too(tmp_path: Path) -> None:
    """`paths:` of a Claude Code rule: api/v1/** moved to api/v2/, web/** still there. The rule still applies, and
    the moved glob was not looked at; each glob is a claim."""
    rule = "---\npaths:\n  - \"api/v1/**/*.py\"\n  - web/**\n---\n\nKeep handlers thin.\n"
    write_tree(tmp_path, {"api/v1/a.py": "", "web/x.ts": "", ".claude/rules/api.md": rule})
    init_repo(tmp_path)
    git(tmp_path, "mv", "api/v1", "api/v2")
    commit(tmp_path, "api v2")
    code, results = check(tmp_path)
    found = {r["anchor"]: r for r in results if r.get("memory_file") == ".claude/rules/api.md"}
    assert code == 1 and found["file:api/v1/"]["line"] == 3 and "moved to `api/v2`" in found["file:api/v1/"]["reason"]
    from tests.test_fix import cli
    cli(tmp_path, "fix")
    assert (tmp_path / ".claude/rules/api.md").read_text() == rule.replace("api/v1", "api/v2")


def test_a_rule_whose_globs_hold_brace_alternatives_applies_to_what_they_match(tmp_path: Path) -> None:
    """held-out-9's PowerShell: `applyTo: ".github/**/*.{yml,yaml}"` was split at the comma inside the braces and
    matched nothing, so no reference of the file was read and a renamed action folder it names went unseen."""
    rule = '---\napplyTo: ".github/**/*.{yml,yaml}"\n---\n\nThe test action lives in `.github/actions/test/run/`.\n'
    write_tree(tmp_path, {".github/actions/test/run/action.yml": "runs: {}\n", ".github/instructions/ci.instructions.md": rule})
    init_repo(tmp_path)
    found = {r["anchor"]: r for r in check(tmp_path)[1]}
    assert found["file:.github/actions/test/run/"]["verdict"] == "VERIFIED"
    git(tmp_path, "mv", ".github/actions/test/run", ".github/actions/test/execute")
    commit(tmp_path, "rename the action")
    found = {r["anchor"]: r for r in check(tmp_path)[1]}
    moved = found["file:.github/actions/test/run/"]
    assert moved["verdict"] == "REFUTED" and "moved to `.github/actions/test/execute`" in moved["reason"], moved["reason"]


def test_a_folder_named_only_in_a_heading_is_a_claim(tmp_path: Path) -> None:
    """held-out-8's dagu "### Go Backend (`internal/`)" and held-out-9's surrealdb "### `planner/`": a folder
    named only in a heading, renamed after the text was written, went unseen (headings were not read)."""
    write_tree(tmp_path, {"internal/api/a.go": "package api\n", "AGENTS.md": "# Notes\n\n### Go backend (`internal/`)\n\nThe API.\n"})
    init_repo(tmp_path)
    assert by_anchor(check(tmp_path)[1])["file:internal/"]["verdict"] == "VERIFIED"
    git(tmp_path, "mv", "internal", "core")
    commit(tmp_path, "internal is core")
    moved = by_anchor(check(tmp_path)[1])["file:internal/"]
    assert moved["verdict"] == "REFUTED" and "moved to `core`" in moved["reason"], moved["reason"]


def test_a_path_under_a_folder_named_like_a_host_is_read_where_that_folder_is_here(tmp_path: Path) -> None:
    # symfony/ai's `ai.symfony.com/`: the website's folder is named after its host. A path under it is a path here
    # (a file renamed there is stale), while `github.com/acme/tools`, with no such folder, stays a host.
    write_tree(tmp_path, {"site.acme.dev/config/menu.json": "{}\n", "site.acme.dev/index.php": "<?php\n"})
    init_repo(tmp_path)
    write_tree(tmp_path, {"AGENTS.md": "The build rewrites `site.acme.dev/config/menu.json`; the CLI is `github.com/acme/tools/cli.go`.\n"})
    commit(tmp_path, "agent notes")
    git(tmp_path, "mv", "site.acme.dev/config/menu.json", "site.acme.dev/config/nav.json")
    commit(tmp_path, "rename the menu")
    code, results = check(tmp_path)
    found = by_anchor(results)
    menu = found["file:site.acme.dev/config/menu.json"]
    assert code == 1 and menu["verdict"] == "REFUTED" and "moved to `site.acme.dev/config/nav.json`" in menu["reason"]
    assert not any("github.com" in anchor for anchor in found)


def test_a_folder_named_like_pathspec_magic_is_asked_about_as_written(tmp_path: Path) -> None:
    # `:(top)z` read as a pathspec is `z`, a folder that stayed: whether a commit emptied `:(top)z` must be asked of
    # that folder, else its earlier removal is missed and a folder that comes and goes reads as deleted once.
    odd = ":(top)z"
    write_tree(tmp_path, {f"{odd}/a.txt": "a\n", f"{odd}/b.txt": "b\n", "z/kept.txt": "k\n"})
    init_repo(tmp_path)
    for step in ("empty it", "make it again", "empty it again"):
        if (tmp_path / odd).exists():
            git(tmp_path, "rm", "-q", "-r", f":(literal){odd}")
        else:
            write_tree(tmp_path, {f"{odd}/a.txt": "a\n", f"{odd}/b.txt": "b\n"})
        commit(tmp_path, step)
    fate = history_of(Verifier(tmp_path, options={"cache": False}).context).fate(odd)
    assert fate is not None and fate.removals == 2


def test_a_folder_under_an_ignore_file_that_keeps_only_names_with_an_extension_is_asked_of_history(tmp_path: Path) -> None:
    # go-zero's .gitignore: `*`, `!*.*`, `!*/` — every extensionless file ignored, every folder and source file kept.
    # A folder the text names is no build output for that: a renamed one is stale with where it went, one never
    # here is never-existed; a folder the file names itself (`out/`) is still ignored.
    write_tree(tmp_path, {".gitignore": "*\n!*.*\n!*/\nout/\n", "core/breaker/b.go": "package breaker\n", "README.md": "r\n"})
    init_repo(tmp_path)
    git(tmp_path, "mv", "core/breaker", "core/fuse")
    commit(tmp_path, "rename breaker to fuse")
    agents = "Breakers live in `core/breaker/`, limits in `core/limits/`; builds go to `core/out/`.\n"
    write_tree(tmp_path, {"AGENTS.md": agents})
    found = by_anchor(check(tmp_path)[1])
    breaker = found["file:core/breaker/"]
    assert breaker["verdict"] == "REFUTED" and breaker["state"] == "gone" and "moved to `core/fuse`" in breaker["reason"]
    limits = found["file:core/limits/"]
    assert limits["verdict"] == "INCONCLUSIVE" and limits["state"] == "never-existed"
    assert "ignored by .gitignore" in found["file:core/out/"]["reason"]


def test_what_a_replacement_takes_the_place_of_is_no_claim_that_it_is_here(tmp_path: Path) -> None:
    # spree (held-out-9, after session 36's folder rule): "React SPA admin dashboard (replaces `spree/admin`)",
    # written while the engine stood, is still true once it is deleted; what the sentence names as the new thing is read
    write_tree(tmp_path, {"spree/admin/a.rb": "x\n", "packages/dashboard/p.json": "{}\n", "src/old.py": "x\n", "src/new.py": "x\n"})
    init_repo(tmp_path)
    git(tmp_path, "rm", "-rq", "spree/admin", "src/new.py")
    commit(tmp_path, "remove the rails admin and the new module")
    text = ("| `packages/dashboard` | React SPA (replaces `spree/admin`). |\n\n"
            "Use `pnpm` instead of `npm`.\n\n`spree/admin` was replaced by the dashboard.\n\nOne more. `src/new.py` replaces `src/old.py`.\n")
    write_tree(tmp_path, {"AGENTS.md": text})
    found = by_anchor(check(tmp_path)[1])
    assert "file:spree/admin" not in found and found["file:packages/dashboard"]["verdict"] == "VERIFIED"
    assert found["file:src/new.py"]["verdict"] == "REFUTED"  # the new thing, before the verb, is claimed
    assert "file:src/old.py" not in found  # (in a line's second sentence as in its first)


def test_formerly_and_previously_name_the_old_thing_after_them(tmp_path: Path) -> None:
    # dd-trace-rb (held-out-10): "`lib/datadog/appsec` - app & api protection (formerly known as appsec)" — the aside
    # names the product's old name; the folder before it is claimed, and stale once it moves
    text = ("- `lib/datadog/appsec` - app & api protection implementation (formerly known as appsec)\n"
            "- `lib/datadog/core/` previously held `lib/datadog/legacy.rb`.\n")
    write_tree(tmp_path, {"lib/datadog/appsec/a.rb": "x\n", "lib/datadog/core/c.rb": "x\n", "lib/datadog/legacy.rb": "x\n", "AGENTS.md": text})
    init_repo(tmp_path)
    git(tmp_path, "rm", "-q", "lib/datadog/legacy.rb")
    commit(tmp_path, "drop the legacy module")
    found = by_anchor(check(tmp_path)[1])
    assert found["file:lib/datadog/appsec"]["verdict"] == "VERIFIED" and found["file:lib/datadog/core/"]["verdict"] == "VERIFIED"
    assert "file:lib/datadog/legacy.rb" not in found  # what "previously" names is the old thing: no claim it is here
    git(tmp_path, "mv", "lib/datadog/appsec", "lib/datadog/aap")
    commit(tmp_path, "appsec is aap now")
    moved = by_anchor(check(tmp_path)[1])["file:lib/datadog/appsec"]
    assert moved["verdict"] == "REFUTED" and "moved to `lib/datadog/aap`" in moved["reason"]


def test_a_vendored_file_deleted_long_ago_is_judged_by_history_like_any_tracked_file(tmp_path: Path) -> None:
    # kubebuilder (held-out-12): a skill written in 2025 lists `vendor/sigs.k8s.io/...` files of a scratch module;
    # the repository's own vendored copy went in 2019. History, not the folder's name, decides: named before the
    # deletion → stale with the commit; named after it → written after, never true here as written
    write_tree(tmp_path, {"vendor/lib/manager.go": "package lib\n", "go.mod": "module x\n",
                          "AGENTS.md": "The manager is in `vendor/lib/manager.go`.\n"})
    init_repo(tmp_path)
    git(tmp_path, "rm", "-rq", "vendor")
    commit(tmp_path, "Remove vendor")
    gone = by_anchor(check(tmp_path)[1])["file:vendor/lib/manager.go"]
    assert gone["verdict"] == "REFUTED" and gone["state"] == "gone" and "'Remove vendor'" in gone["reason"], gone
    write_tree(tmp_path, {"CLAUDE.md": "Inspect `vendor/lib/manager.go` after `go mod vendor`.\n"})
    commit(tmp_path, "a skill")
    late = [r for r in check(tmp_path)[1] if r["memory_file"] == "CLAUDE.md" and r["anchor"].startswith("file:")]
    assert [(r["verdict"], r["state"]) for r in late] == [("INCONCLUSIVE", "written-after")], late


def test_a_build_output_untracked_and_ignored_since_is_no_stale_path(tmp_path: Path) -> None:
    # review: `dist/index.js` was tracked, then a commit untracked it and ignored dist/: the build still makes it
    write_tree(tmp_path, {"dist/index.js": "x\n", "src/index.ts": "x\n", "AGENTS.md": "The bundle is `dist/index.js`.\n"})
    init_repo(tmp_path)
    git(tmp_path, "rm", "-rq", "--cached", "dist")
    write_tree(tmp_path, {".gitignore": "dist/\n"})
    commit(tmp_path, "stop tracking dist")
    (tmp_path / "dist" / "index.js").unlink()
    found = by_anchor(check(tmp_path)[1])["file:dist/index.js"]
    assert found["verdict"] == "INCONCLUSIVE", found


def test_a_package_a_pnpm_filter_names_is_stale_when_a_member_renamed_it_and_an_example_when_none_had_it(tmp_path: Path) -> None:
    web = '{\n  "name": "@acme/web",\n  "scripts": {"build": "vite build"}\n}\n'
    write_tree(tmp_path, {"package.json": '{"name": "root", "private": true}\n', "pnpm-workspace.yaml": "packages:\n  - apps/*\n",
                          "apps/web/package.json": web})
    init_repo(tmp_path)
    write_tree(tmp_path, {"AGENTS.md": "Build with `pnpm --filter web build`. For another app: `pnpm --filter admin build`.\n"})
    commit(tmp_path, "agent notes")
    write_tree(tmp_path, {"apps/web/package.json": web.replace("@acme/web", "@acme/site")})
    commit(tmp_path, "rename the web package to site")
    code, results = check(tmp_path)
    found = by_anchor(results)
    renamed = found["cmd:pnpm --filter web build"]
    assert code == 1 and renamed["verdict"] == "REFUTED" and renamed["state"] == "gone"
    assert "'rename the web package to site'" in renamed["reason"]
    never = found["cmd:pnpm --filter admin build"]  # no member was ever named so: an example, not stale
    assert never["verdict"] == "INCONCLUSIVE" and never["state"] == "never-existed"


def test_a_path_written_as_the_text_of_a_link_to_a_url_is_that_url_s(tmp_path: Path) -> None:
    # prisma (sweep G): "[`docs/drive/`](https://github.com/prisma/ignite/tree/main/docs/drive) live in prisma/ignite",
    # written after this repository's docs/drive/ moved there; the same path written bare is still this checkout's
    write_tree(tmp_path, {"docs/drive/a.md": "a\n", "README.md": "r\n"})
    init_repo(tmp_path)
    git(tmp_path, "rm", "-rq", "docs/drive")
    commit(tmp_path, "remove docs/drive (now upstream)")
    write_tree(tmp_path, {"AGENTS.md": "- Skills and [`docs/drive/`](https://github.com/other/ignite/tree/main/docs/drive) live there.\n"
                                       "- Our [`README.md`](README.md), and `docs/drive/` here.\n",
                          ".cursor/rules/drive.mdc": "---\nalwaysApply: true\n---\nSee [`docs/drive/a.md`](mdc:docs/drive/a.md).\n"})
    found = [(r["line"], r["anchor"], r["verdict"]) for r in check(tmp_path)[1]]
    assert (1, "file:docs/drive/", "REFUTED") not in found and (2, "file:docs/drive/", "REFUTED") in found, found
    assert (4, "file:docs/drive/a.md", "REFUTED") in found, found  # Cursor's `mdc:PATH` is a path of this checkout


def test_a_path_moved_away_and_ignored_where_it_was_is_a_local_file_not_a_stale_one(tmp_path: Path) -> None:
    # prisma (sweep G): skills moved to skills-contrib/ as `.agents/skills/` was ignored (`skills add` links them back)
    write_tree(tmp_path, {".agents/skills/p/SKILL.md": "x\n", "AGENTS.md": "Release with `.agents/skills/p/SKILL.md`.\n"})
    init_repo(tmp_path)
    (tmp_path / "skills-contrib").mkdir()
    git(tmp_path, "mv", ".agents/skills/p", "skills-contrib/p")
    write_tree(tmp_path, {".gitignore": ".agents/*\n"})
    commit(tmp_path, "skills move to skills-contrib")
    result = by_anchor(check(tmp_path)[1])["file:.agents/skills/p/SKILL.md"]
    assert result["verdict"] == "INCONCLUSIVE" and "ignored by .gitignore" in result["reason"], result


def test_a_moved_path_is_stale_though_another_reading_of_it_is_ignored(tmp_path: Path) -> None:
    # FOSSBilling (held-out-14, on the rule above): `frontend/esbuild.mjs` moved to `.mts`; its source-root reading
    # `src/data/frontend/esbuild.mjs` is ignored, which says nothing of the place it was
    write_tree(tmp_path, {"frontend/esbuild.mjs": "x\n", "src/data/keep.txt": "k\n", ".gitignore": "src/data/frontend/\n",
                          "AGENTS.md": "The build script is `frontend/esbuild.mjs`.\n"})
    init_repo(tmp_path)
    git(tmp_path, "mv", "frontend/esbuild.mjs", "frontend/esbuild.mts")
    commit(tmp_path, "to TypeScript")
    result = by_anchor(check(tmp_path)[1])["file:frontend/esbuild.mjs"]
    assert result["verdict"] == "REFUTED" and "moved to `frontend/esbuild.mts`" in result["reason"], result
