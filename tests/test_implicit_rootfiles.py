"""Root files, bare names of any extension, paths written with backslashes, and a rule file whose globs' folder went
(issue 27 items 1 and 4; found on held-out-6 and held-out-7, so those sets are tuned on for these rules): aspire's
`.editorconfig` and `Directory.Packages.props`, orleans' `Directory.Build.targets` and `src\\Orleans.Core`, ktor's
`gradle.properties`, aspire's xmldoc instructions for `src/**/*.cs` after src/ was renamed. Each through the CLI on a
real git repository, with the case that stays as it was beside it."""

from __future__ import annotations

import os
from pathlib import Path

from anchorcheck.cli import main
from tests.conftest import git, init_repo, needs_git, write_tree
from tests.test_history import by_anchor, check, commit

pytestmark = needs_git


def _moved(root: Path, old: str, new: str) -> None:
    (root / new).parent.mkdir(parents=True, exist_ok=True)
    git(root, "mv", old, new)
    commit(root, f"move {old}")


def test_a_root_file_that_moved_is_not_verified_by_a_file_of_that_name_elsewhere(tmp_path: Path) -> None:
    write_tree(tmp_path, {
        ".editorconfig": "root = true\n", "src/Vendoring/.editorconfig": "root = false\n",
        "Directory.Packages.props": "<Project/>\n", "samples/Directory.Packages.props": "<Project/>\n",
        "AGENTS.md": "Apply the style in `.editorconfig`.\n\nCentral package management is in `Directory.Packages.props`.\n",
    })
    init_repo(tmp_path)
    held = by_anchor(check(tmp_path)[1])  # the root holds both: VERIFIED, the root's
    assert held["file:.editorconfig"]["verdict"] == "VERIFIED" and held["file:Directory.Packages.props"]["verdict"] == "VERIFIED"
    _moved(tmp_path, ".editorconfig", "build/.editorconfig")
    _moved(tmp_path, "Directory.Packages.props", "eng/Directory.Packages.props")
    found = by_anchor(check(tmp_path)[1])
    # history wins: the written (root) path existed and moved; the vendored and the samples' files were there all along
    editorconfig, props = found["file:.editorconfig"], found["file:Directory.Packages.props"]
    assert editorconfig["verdict"] == "REFUTED" and "moved to `build/.editorconfig`" in editorconfig["reason"]
    assert props["verdict"] == "REFUTED" and props["severity"] == "error" and "moved to `eng/Directory.Packages.props`" in props["reason"]
    assert not any("samples/" in a or "Vendoring" in a for a in found)


def test_a_bare_name_of_any_extension_is_a_root_path_read_on_evidence(tmp_path: Path) -> None:
    write_tree(tmp_path, {
        "gradle.properties": "target.jvm=true\n", "Directory.Build.targets": "<Project/>\n",
        "src/Directory.Build.targets": "<Project/>\n", "lib/app.py": "import os\n",
        "AGENTS.md": "Enable a target via `gradle.properties` (`target.<name>=true`).\n\n"
                     "The root `Directory.Build.targets` copies test files.\n\n"
                     "Use `os.path` and `console.log` freely; `Orleans.sln` is built by CI.\n",
    })
    init_repo(tmp_path)
    assert {"file:gradle.properties", "file:Directory.Build.targets"} <= set(by_anchor(check(tmp_path)[1]))
    git(tmp_path, "mv", "gradle.properties", "gradle-renamed.properties")
    _moved(tmp_path, "Directory.Build.targets", "moved/Directory.Build.targets")
    found = by_anchor(check(tmp_path)[1])
    renamed, moved = found["file:gradle.properties"], found["file:Directory.Build.targets"]
    assert renamed["verdict"] == "REFUTED" and "moved to `gradle-renamed.properties`" in renamed["reason"]
    assert moved["verdict"] == "REFUTED" and "moved to `moved/Directory.Build.targets`" in moved["reason"]
    # a dotted name no file here has, nor ever had, is not read as a path (an identifier, another project's file)
    assert not {"file:os.path", "file:console.log", "file:Orleans.sln"} & set(found)


def test_a_path_written_with_backslashes_is_read_as_the_slash_path(tmp_path: Path) -> None:
    write_tree(tmp_path, {
        "src/Orleans.Core/Grain.cs": "class Grain {}\n", "test/testconfig.json": "{}\n", ".github/workflows/ci.yml": "on: push\n",
        "AGENTS.md": "`src\\Orleans.Core` holds the runtime; CI is `.github\\workflows\\ci.yml`; tests read `test\\testconfig.json`.\n\n"
                     "Match `\\d+\\.cs`, print `\\n`, open `C:\\Users\\me`, or `vendor\\Orleans.Other` from another checkout.\n",
    })
    init_repo(tmp_path)
    held = by_anchor(check(tmp_path)[1])
    for path in ("src/Orleans.Core", ".github/workflows/ci.yml", "test/testconfig.json"):
        assert held[f"file:{path}"]["verdict"] == "VERIFIED"
    assert held["file:test/testconfig.json"]["details"]["written"] == "test\\testconfig.json"
    # escapes, regular expressions, drive letters and a path whose first folder was never here are not read
    assert not [a for a in held if a.startswith("file:") and ("vendor" in a or "Users" in a or "\\" in a)]
    _moved(tmp_path, "test/testconfig.json", "test/config/testconfig.json")
    gone = by_anchor(check(tmp_path)[1])["file:test/testconfig.json"]
    assert gone["verdict"] == "REFUTED" and "moved to `test/config/testconfig.json`" in gone["reason"]


def test_a_rule_file_whose_globs_folder_went_is_read_and_its_paths_refuted(tmp_path: Path) -> None:
    rule = '---\napplyTo: "src/**/*.cs"\n---\n\nThis guide applies to all C# files in the `src/` directory.\n'
    template = '---\napplyTo: "app/**/*.java"\n---\n\nKeep `app/Main.java` small.\n'
    write_tree(tmp_path, {
        "src/Api.cs": "class Api {}\n", ".github/instructions/xmldoc.instructions.md": rule,
        ".github/instructions/java.instructions.md": template, "AGENTS.md": "See the instructions.\n",
    })
    init_repo(tmp_path)
    assert by_anchor(check(tmp_path)[1])["file:src/"]["verdict"] == "VERIFIED"
    git(tmp_path, "mv", "src", "source")
    commit(tmp_path, "rename src")
    found = by_anchor(check(tmp_path)[1])
    stale = found["file:src/"]
    assert stale["verdict"] == "REFUTED" and "moved to `source`" in stale["reason"]
    # globs whose folder this repository never had: a template's, not read (as before)
    assert "file:app/Main.java" not in found


def test_fix_rewrites_a_backslash_path_with_backslashes(tmp_path: Path) -> None:
    write_tree(tmp_path, {"test/testconfig.json": "{}\n", "AGENTS.md": "Tests read `test\\testconfig.json`.\n"})
    init_repo(tmp_path)
    _moved(tmp_path, "test/testconfig.json", "test/config/testconfig.json")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        main(["fix"])
    finally:
        os.chdir(cwd)
    assert (tmp_path / "AGENTS.md").read_text() == "Tests read `test\\config\\testconfig.json`.\n"


def test_a_leading_slash_path_whose_top_folder_went_is_read_on_history(tmp_path: Path) -> None:
    # sqlc's CLAUDE.md lists "`/docs/` - ...", "`/cmd/` - Main binaries": once docs/ is renamed, its first segment is no
    # top-level folder, so it read as a URL route and was silent (dev-s36a); history says it was a path here
    write_tree(tmp_path, {
        "docs/guide.md": "g\n", "cmd/app/main.go": "package main\n",
        "AGENTS.md": "- `/docs/` - documentation\n- `/docs/guide.md` - the guide\n- `/cmd/` - binaries\n- `/api/users` - the users route\n",
    })
    init_repo(tmp_path)
    _moved(tmp_path, "docs", "documentation")
    found = by_anchor(check(tmp_path)[1])
    for anchor, new in (("file:docs/", "documentation"), ("file:docs/guide.md", "documentation/guide.md")):
        assert found[anchor]["verdict"] == "REFUTED" and f"moved to `{new}`" in found[anchor]["reason"]
    assert found["file:cmd/"]["verdict"] == "VERIFIED"
    assert not [a for a in found if "api" in a]  # a route: never a path here


def test_a_leading_slash_path_read_on_history_alone_is_a_warning_a_route_may_be_written_so(tmp_path: Path) -> None:
    # a FastAPI app serves Swagger at `/docs/`; a docs/ folder deleted long ago makes it read as a path, which may be
    # right, but a route is written the same way: a warning, which no hook blocks on
    write_tree(tmp_path, {"docs/index.md": "i\n", "app/main.py": "print(1)\n"})
    init_repo(tmp_path)
    git(tmp_path, "rm", "-q", "-r", "docs")
    commit(tmp_path, "drop docs")
    write_tree(tmp_path, {"AGENTS.md": "Run the server and open `/docs/` in a browser.\n"})
    code, results = check(tmp_path)
    docs = by_anchor(results)["file:docs/"]
    assert code == 0 and docs["verdict"] == "REFUTED" and docs["severity"] == "warning" and "may be a URL route" in docs["reason"]


def test_a_link_to_a_folder_written_without_a_slash_is_a_path(tmp_path: Path) -> None:
    # alloy (held-out-10): `[docs/sources](docs/sources)` — a link's target is a path whatever its shape
    write_tree(tmp_path, {"docs/sources/a.md": "x\n", "AGENTS.md": "Component docs live in [docs/sources](docs/sources).\n"})
    init_repo(tmp_path)
    assert by_anchor(check(tmp_path)[1])["file:docs/sources"]["verdict"] == "VERIFIED"
    _moved(tmp_path, "docs/sources", "docs/reference")
    moved = by_anchor(check(tmp_path)[1])["file:docs/sources"]
    assert moved["verdict"] == "REFUTED" and "moved to `docs/reference`" in moved["reason"]


def test_a_bare_cpp_source_name_is_read_beside_its_instruction_file(tmp_path: Path) -> None:
    # workerd `src/workerd/server/AGENTS.md`: "`server-test.c++` (~6K lines): integration tests" — a `.c++` name is a
    # file name as `.cpp` is, read from the instruction file's folder
    write_tree(tmp_path, {"src/server/server-test.c++": "int main() {}\n", "src/server/AGENTS.md": "- `server-test.c++` (~6K lines): integration tests\n"})
    init_repo(tmp_path)
    assert by_anchor(check(tmp_path)[1])["file:src/server/server-test.c++"]["verdict"] == "VERIFIED"
    git(tmp_path, "mv", "src/server/server-test.c++", "src/server/server-tests.c++")
    commit(tmp_path, "rename the server test")
    moved = by_anchor(check(tmp_path)[1])["file:src/server/server-test.c++"]
    assert moved["verdict"] == "REFUTED" and "moved to `src/server/server-tests.c++`" in moved["reason"]


def test_a_bare_clojure_or_edn_name_is_a_file_name(tmp_path: Path) -> None:
    # logseq's i18n skill: "English source lives in `en.edn`" (src/resources/dicts/en.edn): Clojure sources and EDN
    # data files are named bare as `.py` and `.toml` ones are, and went unread unless a reading of them (beside the
    # instruction file, under a folder named before them) existed (dev-s37d)
    write_tree(tmp_path, {"e2e/src/keyboard.clj": "(ns keyboard)\n", "e2e/AGENTS.md": "- Keyboard helpers are in `keyboard.clj`, strings in `en.edn`.\n",
                          "e2e/en.edn": "{}\n"})
    init_repo(tmp_path)
    found = by_anchor(check(tmp_path)[1])
    assert found["file:e2e/src/keyboard.clj"]["verdict"] == found["file:e2e/en.edn"]["verdict"] == "VERIFIED"
    git(tmp_path, "mv", "e2e/en.edn", "e2e/strings.edn")
    commit(tmp_path, "rename the strings")
    moved = by_anchor(check(tmp_path)[1])["file:e2e/en.edn"]
    assert moved["verdict"] == "REFUTED" and "moved to `e2e/strings.edn`" in moved["reason"]


def test_a_link_written_for_another_name_of_the_file_is_read_from_that_name(tmp_path: Path) -> None:
    # firezone's CLAUDE.md began as .github/copilot-instructions.md (a symlink to it now) and links
    # `[connlib](../rust/libs/connlib)`: from the root that leaves the checkout and went unread, so moving the library
    # went unseen; from .github/, the file's other name, it is rust/libs/connlib
    write_tree(tmp_path, {"CLAUDE.md": "The core is [`connlib`](../rust/libs/connlib).\n", "rust/libs/connlib/lib.rs": "\n"})
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github/copilot-instructions.md").symlink_to("../CLAUDE.md")
    init_repo(tmp_path)
    found = by_anchor(check(tmp_path)[1])["file:rust/libs/connlib"]
    assert found["verdict"] == "VERIFIED" and found["memory_file"] == "CLAUDE.md"
    _moved(tmp_path, "rust/libs/connlib", "rust/connlib")
    moved = by_anchor(check(tmp_path)[1])["file:rust/libs/connlib"]
    assert moved["verdict"] == "REFUTED" and "moved to `rust/connlib`" in moved["reason"]


def test_a_tracked_link_to_nothing_is_a_broken_link_not_a_deleted_file(tmp_path: Path) -> None:
    # dyad (held-out-14): CLAUDE.md is a symbolic link git tracks, to `AGENTS.md` and a newline; a checkout holds
    # the link and nothing behind it. It was never deleted, so it is no stale path ("deleted in the work tree" before).
    write_tree(tmp_path, {"AGENTS.md": "# Rules\n", ".claude/skills/x/SKILL.md": "---\nname: x\ndescription: y\n---\nRead `CLAUDE.md` first.\n"})
    os.symlink("AGENTS.md\n", tmp_path / "CLAUDE.md")
    init_repo(tmp_path)
    result = by_anchor(check(tmp_path)[1])["file:CLAUDE.md"]
    assert result["verdict"] == "INCONCLUSIVE" and "a broken link" in result["reason"] and "'AGENTS.md\\n'" in result["reason"]
