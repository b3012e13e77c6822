"""Identifiers named in prose (`parse_config()`, `SourceIndex`, `CACHE_DIR`, `FOO=1 make test`): VERIFIED where a
file defines them now, REFUTED with the commit when history shows the definition gone, silent otherwise.
Real git repositories, checked through the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from anchorcheck.memory.references import read_references
from tests.conftest import init_repo, needs_git, write_tree
from tests.test_history import by_anchor, check, commit

pytestmark = needs_git

BEFORE = """import os


def parse_config(path):
    return os.environ.get("OLD_CACHE_DIR")


class SourceIndex:
    def keep_facts(self):
        return 1
"""
AFTER = BEFORE.replace("parse_config", "load_config").replace("OLD_CACHE_DIR", "NEW_CACHE_DIR")


@pytest.fixture
def renamed(tmp_path: Path) -> Path:
    """src/cfg.py's parse_config renamed to load_config, and the variable it reads renamed, in one commit; a
    README that once named `fancy_helper` (never defined: prose only) lost that line."""
    write_tree(tmp_path, {"src/cfg.py": BEFORE, "README.md": "Try `fancy_helper`.\n"})
    init_repo(tmp_path)
    write_tree(tmp_path, {"src/cfg.py": AFTER, "README.md": "Read me.\n"})
    commit(tmp_path, "rename the parser")
    return tmp_path


def test_a_renamed_function_is_refuted_with_the_commit_and_its_new_name(renamed: Path) -> None:
    write_tree(renamed, {"AGENTS.md": "Call `parse_config()` to read the settings.\n"})
    code, results = check(renamed)
    found = by_anchor(results)["sym:src/cfg.py::parse_config"]
    assert code == 1 and found["verdict"] == "REFUTED" and found["severity"] == "error" and found["state"] == "gone"
    assert "until" in found["reason"] and "'rename the parser'" in found["reason"] and "now `load_config`" in found["reason"]
    assert found["details"]["fix"] == {"from": "parse_config", "to": "load_config", "name": True}


def test_a_removed_definition_the_code_still_uses_is_not_stale(renamed: Path) -> None:
    """rsbuild's shape: a helper's definition deleted because it comes from a package now, the text (updated in
    the same commit) saying so. The code still writes the name: it is defined elsewhere, not gone."""
    write_tree(renamed, {"src/app.py": "from shared_utils import parse_config\n\nparse_config('x')\n"})
    commit(renamed, "import the parser from the shared package")
    write_tree(renamed, {"AGENTS.md": "Import `parse_config()` from the shared package.\n"})
    code, results = check(renamed)
    found = by_anchor(results)["sym:src/cfg.py::parse_config"]
    assert code == 0 and found["verdict"] == "INCONCLUSIVE" and found["severity"] == "warning"
    assert "src/app.py still writes `parse_config`" in found["reason"], found["reason"]


def test_a_new_name_that_starts_with_the_old_one_is_no_use_of_it(renamed: Path) -> None:
    write_tree(renamed, {"src/cfg.py": AFTER.replace("load_config", "parse_config_v2")})
    commit(renamed, "the parser, second version")
    write_tree(renamed, {"AGENTS.md": "Call `parse_config()` to read the settings.\n"})
    code, results = check(renamed)
    found = by_anchor(results)["sym:src/cfg.py::parse_config"]
    assert code == 1 and found["verdict"] == "REFUTED" and found["state"] == "gone", found["reason"]


def test_fix_writes_the_new_name_where_the_old_one_was_written(renamed: Path) -> None:
    write_tree(renamed, {"AGENTS.md": "Call `parse_config()` to read the settings.\n"})
    check(renamed, "--fix")
    assert (renamed / "AGENTS.md").read_text() == "Call `load_config()` to read the settings.\n"


def test_a_defined_class_and_method_are_verified_with_file_and_line(renamed: Path) -> None:
    write_tree(renamed, {"AGENTS.md": "`SourceIndex` keeps the facts (`keep_facts`); `load_config()` reads them.\n"})
    code, results = check(renamed)
    found = by_anchor(results)
    assert code == 0
    assert found["sym:src/cfg.py::SourceIndex"]["verdict"] == "VERIFIED" and "src/cfg.py:8" in found["sym:src/cfg.py::SourceIndex"]["reason"]
    assert found["sym:src/cfg.py::SourceIndex.keep_facts"]["verdict"] == "VERIFIED"
    assert "src/cfg.py:4" in found["sym:src/cfg.py::load_config"]["reason"]


def test_a_name_never_defined_here_and_plain_words_give_no_finding(renamed: Path) -> None:
    # `fancy_helper` was written in a README and removed: written, never defined. The rest were never here.
    text = "Use `fancy_helper`, `OtherProject` or `never_defined_here()`; run the `test`, `main` and `Redis`.\n"
    write_tree(renamed, {"AGENTS.md": text})
    code, results = check(renamed)
    assert code == 0 and [r["anchor"] for r in results if r.get("implicit")] == []


def test_a_removed_environment_variable_is_refuted_in_prose_and_as_a_command_prefix(renamed: Path) -> None:
    write_tree(renamed, {"AGENTS.md": "Set `OLD_CACHE_DIR`; `NEW_CACHE_DIR` works too.\n\n```sh\nOLD_CACHE_DIR=/tmp python -m src.cfg\n```\n"})
    code, results = check(renamed)
    gone = [r for r in results if r["anchor"] == "env:OLD_CACHE_DIR"]
    assert code == 1 and [r["line"] for r in gone] == [1, 4]
    assert all(r["verdict"] == "REFUTED" and r["state"] == "gone" and "now `NEW_CACHE_DIR`" in r["reason"] for r in gone)
    assert by_anchor(results)["env:NEW_CACHE_DIR"]["verdict"] == "VERIFIED"


def test_a_variable_no_code_ever_read_gives_no_finding(renamed: Path) -> None:
    write_tree(renamed, {"AGENTS.md": "```sh\nCI_NEVER_READ=1 python -m src.cfg\n```\n"})
    assert [r["anchor"] for r in check(renamed)[1] if r["anchor"].startswith("env:")] == []


def test_past_the_deadline_a_gone_name_is_inconclusive_never_refuted(renamed: Path) -> None:
    # Two seconds leave no time for history (a walk needs three), and no cache holds its answer: what nothing
    # defines now is not judged.
    write_tree(renamed, {"AGENTS.md": "Call `parse_config()`; set `OLD_CACHE_DIR`.\n"})
    code, results = check(renamed, "--no-cache", "--deadline", "2")
    names = [r for r in results if r.get("implicit")]
    assert names and all(r["verdict"] == "INCONCLUSIVE" for r in names)
    assert code == 0


def test_outside_git_a_name_nothing_defines_is_not_read(tmp_path: Path) -> None:
    write_tree(tmp_path, {"src/cfg.py": AFTER, "AGENTS.md": "Call `parse_config()` or `load_config()`.\n"})
    results = check(tmp_path)[1]
    assert [r["anchor"] for r in results if r.get("implicit")] == ["sym:src/cfg.py::load_config"]


def test_a_renamed_method_names_the_new_method_of_the_same_class(tmp_path: Path) -> None:
    write_tree(tmp_path, {"lib/store.py": "class Store:\n    def fetch_rows(self):\n        return []\n\n    def other(self):\n        pass\n"})
    init_repo(tmp_path)
    write_tree(tmp_path, {"lib/store.py": "class Store:\n    def read_rows(self):\n        return []\n\n    def other(self):\n        pass\n"})
    commit(tmp_path, "store: read, not fetch")
    write_tree(tmp_path, {"AGENTS.md": "Rows come from `Store.fetch_rows`.\n"})
    found = by_anchor(check(tmp_path)[1])["sym:lib/store.py::Store.fetch_rows"]
    assert found["verdict"] == "REFUTED" and "now `Store.read_rows`" in found["reason"]


def test_a_later_commit_keeps_what_history_showed_and_adds_what_it_changed(renamed: Path) -> None:
    # The second run starts from the first one's answers (cached with their HEAD) and reads the commit since.
    write_tree(renamed, {"AGENTS.md": "Call `parse_config()`; `SourceIndex.keep_facts` keeps them.\n"})
    commit(renamed, "notes")
    first = by_anchor(check(renamed)[1])
    assert first["sym:src/cfg.py::SourceIndex.keep_facts"]["verdict"] == "VERIFIED"
    write_tree(renamed, {"src/cfg.py": AFTER.replace("keep_facts", "keep_rows")})
    commit(renamed, "index: rows, not facts")
    found = by_anchor(check(renamed)[1])
    assert "'rename the parser'" in found["sym:src/cfg.py::parse_config"]["reason"]
    kept = found["sym:src/cfg.py::SourceIndex.keep_facts"]
    assert kept["verdict"] == "REFUTED" and "'index: rows, not facts'" in kept["reason"] and "now `SourceIndex.keep_rows`" in kept["reason"]


def test_a_class_whose_file_was_deleted_is_refuted_as_removed(renamed: Path) -> None:
    (renamed / "src/cfg.py").unlink()
    write_tree(renamed, {"src/other.py": "def unrelated_helper():\n    pass\n"})
    commit(renamed, "drop the index")
    write_tree(renamed, {"AGENTS.md": "`SourceIndex` keeps the facts.\n"})
    found = by_anchor(check(renamed)[1])["sym:src/cfg.py::SourceIndex"]
    assert found["verdict"] == "REFUTED" and found["state"] == "gone"
    assert "'drop the index'" in found["reason"] and "which removed it" in found["reason"] and "fix" not in found["details"]


@pytest.mark.parametrize(
    ("written", "anchor"),
    [
        ("parse_config", "sym:parse_config"), ("parse_config()", "sym:parse_config"), ("loadConfig", "sym:loadConfig"),
        ("SourceIndex", "sym:SourceIndex"), ("HTTPServer", "sym:HTTPServer"), ("Store.fetch_rows", "sym:Store.fetch_rows"),
        ("_BaseTrainer", "sym:_BaseTrainer"), ("_loadConfig", "sym:_loadConfig"), ("_Redis", None), ("__Init__", None),
        ("facade::OpStatus", "sym:OpStatus"), ("Config::load()", "sym:Config.load"), ("std::make_unique", None),
        ("std::fs::read_to_string", None),
        ("Htop_Reaction", "sym:Htop_Reaction"), ("Panel_new", "sym:Panel_new"), ("GPIO_Init", "sym:GPIO_Init"),
        ("run()", "sym:run"), ("CACHE_DIR", "env:CACHE_DIR"), ("$CACHE_DIR", "env:CACHE_DIR"), ("${CACHE_DIR}", "env:CACHE_DIR"),
        ("test", None), ("main", None), ("Redis", None), ("README", None), ("__init__", None), ("os.path", None), ("f(x)", None),
    ],
)
def test_only_names_shaped_like_identifiers_are_read(written: str, anchor: str | None) -> None:
    # (a dotted name, `os.path`, is also a loose path the checker keeps only where such a file is: not a name)
    found = [r.anchor for r in read_references(f"See `{written}`.\n", kinds=("file", "sym", "env")) if not r.loose]
    assert found == ([anchor] if anchor else [])


def test_a_c_type_named_module_underscore_name_is_read_and_its_rename_is_stale(tmp_path: Path) -> None:
    """htop's AGENTS.md: "return `Htop_Reaction` flags", a `typedef enum {...} Htop_Reaction;`. C's Module_Name shape
    was no identifier shape, so the line was never read and a rename of the type went unseen (held-out-16)."""
    write_tree(tmp_path, {"Action.h": "typedef enum {\n  HTOP_OK = 0x00,\n} Htop_Reaction;\n\nHtop_Reaction Action_run(void);\n",
                          "AGENTS.md": "Actions return `Htop_Reaction` flags.\n"})
    init_repo(tmp_path)
    assert by_anchor(check(tmp_path)[1])["sym:Action.h::Htop_Reaction"]["verdict"] == "VERIFIED"
    write_tree(tmp_path, {"Action.h": "typedef enum {\n  HTOP_OK = 0x00,\n} HtopReaction;\n\nHtopReaction Action_run(void);\n"})
    commit(tmp_path, "rename the reaction type")
    found = by_anchor(check(tmp_path)[1])["sym:Action.h::Htop_Reaction"]
    assert found["verdict"] == "REFUTED" and "now `HtopReaction`" in found["reason"], found


def test_a_name_defined_now_where_no_plugin_parses_is_never_shown_gone(tmp_path: Path) -> None:
    # Ported from Python to Scala (no plugin parses it), and to a Rust file that does not parse cleanly:
    # the Python definitions' removal proves nothing while those files write the names.
    write_tree(tmp_path, {"app/cfg.py": "def parse_config(x):\n    return x\n\n\ndef load_rows(x):\n    return x\n"})
    write_tree(tmp_path, {"AGENTS.md": "Call `parse_config()` first, then `load_rows()`.\n"})
    init_repo(tmp_path)
    (tmp_path / "app/cfg.py").unlink()
    write_tree(tmp_path, {"app/Cfg.scala": "object Cfg {\n  def parse_config(x: String): String = x\n}\n"})
    write_tree(tmp_path, {"src/rows.rs": "pub fn load_rows(x: u32) -> u32 {\n    x +\n}\n\nfn broken( {\n"})
    commit(tmp_path, "port the helpers")
    found = by_anchor(check(tmp_path)[1])
    assert not any(r["verdict"] == "REFUTED" for r in found.values()), found
    assert "app/Cfg.scala still writes `parse_config`" in found["sym:app/cfg.py::parse_config"]["reason"]


def test_a_helper_renamed_in_a_file_that_does_not_parse_cleanly_is_stale_only_when_no_file_writes_it(tmp_path: Path) -> None:
    broken = "\n\nfn broken( {\n"  # a parse error below the definitions, as real files have (macros, new syntax)
    rows = "pub struct Region {\n    pub version_control: u32,\n}\n\nimpl Clone for Region {\n    fn clone(&self) -> Self { todo!() }\n}\n\npub fn flush_rows() {}\n"
    write_tree(tmp_path, {"src/region.rs": rows + broken, "AGENTS.md": "Update `version_control` under the lock; call `flush_rows()`.\n"})
    init_repo(tmp_path)
    write_tree(tmp_path, {"src/region.rs": rows.replace("version_control", "version_ctl").replace("flush_rows", "flush_all") + broken})
    commit(tmp_path, "rename the helpers")
    found = by_anchor(check(tmp_path)[1])
    assert found["sym:src/region.rs::Region.version_control"]["verdict"] == "REFUTED"
    assert found["sym:src/region.rs::flush_rows"]["verdict"] == "REFUTED"
    # A trait of another file that still writes the name may give it to Region through the impl: not certain.
    write_tree(tmp_path, {"src/store.rs": "pub trait Store {\n    fn version_control(&self) -> u32 { 0 }\n}\n"})
    commit(tmp_path, "a trait")
    found = by_anchor(check(tmp_path, "--no-cache")[1])
    assert all(r["verdict"] != "REFUTED" for a, r in found.items() if "version_control" in a), found


def test_an_instruction_file_reached_through_a_link_is_no_place_that_defines_a_name(tmp_path: Path) -> None:
    # `.cursorrules` -> AGENTS.md: the link writes the very name checked, as the instruction file does.
    write_tree(tmp_path, {"src/cfg.py": BEFORE, "AGENTS.md": "Call `parse_config()` to read the settings.\n", "docs/notes.rst": "See parse_config.\n"})
    (tmp_path / ".cursorrules").symlink_to("AGENTS.md")
    init_repo(tmp_path)
    write_tree(tmp_path, {"src/cfg.py": AFTER})
    commit(tmp_path, "rename the parser")
    code, results = check(tmp_path, "AGENTS.md")
    found = by_anchor(results)["sym:src/cfg.py::parse_config"]
    assert code == 1 and found["verdict"] == "REFUTED" and "now `load_config`" in found["reason"], found["reason"]


def test_a_name_written_in_a_build_folder_source_is_not_gone(renamed: Path) -> None:
    # An interface member under `build/` (a folder the source index skips) names the method now.
    write_tree(renamed, {"packages/core/build/extensions.ts": "export interface Extension {\n  parse_config?: (x: string) => string;\n}\n"})
    commit(renamed, "a hook of the extension interface")
    write_tree(renamed, {"AGENTS.md": "Implement `parse_config()` in your extension.\n"})
    code, results = check(renamed)
    found = by_anchor(results)["sym:src/cfg.py::parse_config"]
    assert code == 0 and found["verdict"] == "INCONCLUSIVE", found
    assert "packages/core/build/extensions.ts still writes `parse_config`" in found["reason"], found["reason"]


def _helper_repo(tmp_path: Path, utils: str) -> Path:
    """A TypeScript helper `expectModalVisible` that 14 test files import from `./utils` (tests/utils.ts: `utils`)
    and call more often than that file writes it; then renamed in every file, in one commit."""
    spec = 'import { expectModalVisible } from "./utils";\n\ntest("x", async () => {\n' + "  await expectModalVisible(m);\n" * 3 + "});\n"
    write_tree(tmp_path, {"tests/utils.ts": utils, **{f"tests/case{i}.spec.ts": spec for i in range(14)}})
    write_tree(tmp_path, {"AGENTS.md": "- Use the `expectModalVisible()` helper in tests.\n"})
    init_repo(tmp_path)
    for path in sorted((tmp_path / "tests").iterdir()):
        path.write_text(path.read_text().replace("expectModalVisible", "expectModalShown"))
    commit(tmp_path, "rename the modal helper")
    return tmp_path


def test_a_helper_renamed_in_every_file_that_imports_it_is_found_where_the_importers_point(tmp_path: Path) -> None:
    # The tests write the name most; what they import it from (`./utils`) says which file defined it.
    utils = "export async function expectModalVisible(modal: string): Promise<void> {\n  await wait(modal);\n}\n"
    code, results = check(_helper_repo(tmp_path, utils))
    found = by_anchor(results)["sym:tests/utils.ts::expectModalVisible"]
    assert code == 1 and found["verdict"] == "REFUTED" and found["state"] == "gone", found
    assert "'rename the modal helper'" in found["reason"] and "now `expectModalShown`" in found["reason"], found["reason"]


def test_a_helper_the_importers_point_at_that_only_passes_it_on_is_never_shown_gone(tmp_path: Path) -> None:
    # tests/utils.ts passes on all of a package's helpers: the file the importers point at never defined the name.
    code, results = check(_helper_repo(tmp_path, 'export * from "@playwright/helpers";\n'))
    assert code == 0 and not any(r["verdict"] == "REFUTED" for r in results), [r for r in results if r["verdict"] == "REFUTED"]


def test_a_helper_renamed_in_a_file_that_kept_its_name_is_refuted_though_importers_name_the_file(tmp_path: Path) -> None:
    # Roo-Code's shape: `safeWriteJson` renamed everywhere, its module still src/utils/safeWriteJson.ts, so every
    # importer still writes `from "../utils/safeWriteJson"`: a path's part, not a use of the name.
    helper = "export async function safeWriteJson(path: string, data: unknown): Promise<void> {\n  return\n}\n"
    user = 'import { safeWriteJson } from "../utils/safeWriteJson"\n\nexport async function save() { await safeWriteJson("x", {}) }\n'
    write_tree(tmp_path, {"src/utils/safeWriteJson.ts": helper, "src/core/save.ts": user,
                          "AGENTS.md": "- `safeWriteJson` creates parent directories if necessary.\n"})
    init_repo(tmp_path)
    write_tree(tmp_path, {"src/utils/safeWriteJson.ts": helper.replace("safeWriteJson(", "writeJsonAtomically("),
                          "src/core/save.ts": user.replace("{ safeWriteJson }", "{ writeJsonAtomically }").replace("safeWriteJson(", "writeJsonAtomically(")})
    commit(tmp_path, "rename the helper")
    found = by_anchor(check(tmp_path, "AGENTS.md")[1])["sym:src/utils/safeWriteJson.ts::safeWriteJson"]
    assert found["verdict"] == "REFUTED" and "now `writeJsonAtomically`" in found["reason"], found["reason"]


def test_a_removed_name_listed_among_names_never_defined_here_is_another_projects(renamed: Path) -> None:
    """agent-framework's shape (held-out-5): "the reference repo also offers (`DurableCodeBridge`, ...,
    `wait_for_external_event`)", one of which this repository once defined. The sentence lists another
    project's names: a warning that says so, never a blocked commit."""
    text = "Out of scope: the reference repo also offers (`OtherBridge`, `register_other_mode`, `parse_config()`).\n"
    write_tree(renamed, {"AGENTS.md": text})
    code, results = check(renamed)
    found = by_anchor(results)["sym:src/cfg.py::parse_config"]
    assert code == 0 and found["verdict"] == "INCONCLUSIVE" and found["severity"] == "warning" and found["state"] == "foreign"
    assert "listed beside `OtherBridge`, `register_other_mode`, which this repository never defined" in found["reason"]
    assert "'rename the parser'" in found["reason"]


@pytest.mark.parametrize(
    "text",
    [
        # beside names defined now: this repository's list, and the helper in it renamed
        "Helpers: `parse_config()`, `SourceIndex`, `keep_facts` and `other_helper`.\n",
        # one other name only: too little to say whose names these are
        "The reference repo offers `parse_config()` and `OtherBridge`.\n",
        # half the others never defined (`fancy_helper` only written, in a README): not most of them
        "Use `parse_config()`, `fancy_helper` or `load_config()`.\n",
        # the names never defined are in another sentence
        "Call `parse_config()` first. Other tools offer `OtherBridge`, `register_other_mode`.\n",
    ],
)
def test_a_renamed_helper_not_listed_mostly_among_strangers_stays_refuted(renamed: Path, text: str) -> None:
    write_tree(renamed, {"AGENTS.md": text})
    code, results = check(renamed)
    found = by_anchor(results)["sym:src/cfg.py::parse_config"]
    assert code == 1 and found["verdict"] == "REFUTED" and found["state"] == "gone", found["reason"]


def test_an_identifier_knows_the_others_of_its_sentence_only() -> None:
    text = "Offers (`OtherBridge`, `register_mode`, `wait_event`). Then `load_config()`.\n\n- `a_one`\n- `b_two`\n"
    found = {r.written: r.siblings for r in read_references(text, kinds=("sym", "env"))}
    assert found == {
        "OtherBridge": ("register_mode", "wait_event"), "register_mode": ("OtherBridge", "wait_event"),
        "wait_event": ("OtherBridge", "register_mode"), "load_config()": (), "a_one": (), "b_two": (),
    }
