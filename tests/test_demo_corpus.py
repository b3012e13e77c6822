"""The bundled demo: every memory and anchor gets the verdict recorded in corpora/demo/expected.toml.

Anchors of a kind no loaded plugin registers are not anchors to the reader
(they stay prose), so they are checked only once their kind is installed.
"""

from __future__ import annotations

import json
import tomllib

from anchorcheck import Verifier
from anchorcheck.cli import main
from anchorcheck.memory.lockfile import attach, load_lock
from anchorcheck.memory.memoryfiles import read_memory_file
from tests.conftest import REPO_ROOT

DEMO = REPO_ROOT / "corpora" / "demo"


def _expected() -> dict[int, dict]:
    data = tomllib.loads((DEMO / "expected.toml").read_text(encoding="utf-8"))
    return {m["line"]: m for m in data["memory"]}


def _reports() -> dict[int, object]:
    verifier = Verifier(DEMO / "repo")
    memories = read_memory_file(DEMO / "MEMORY.md", "MEMORY.md", verifier.registry)
    attach(memories, load_lock(verifier.root), verifier.registry.kinds)
    return {m.position.line: verifier.verify(m) for m in memories}, verifier


def test_demo_verdicts_match_expectations() -> None:
    expected = _expected()
    reports, verifier = _reports()
    assert set(expected) <= set(reports), "every bullet of MEMORY.md is a memory"
    assert all(not reports[line].results for line in set(reports) - set(expected)), "prose has no anchors"
    kinds = set(verifier.registry.kinds)
    checked = 0
    for line, memory in expected.items():
        report = reports[line]
        anchors = memory.get("anchor", [])
        implemented = [a for a in anchors if a["anchor"].lstrip("!").split(":", 1)[0] in kinds]
        got = {r.anchor: r for r in report.results}
        assert sorted(got) == sorted(a["anchor"] for a in implemented), f"MEMORY.md:{line}"
        for item in implemented:
            result = got[item["anchor"]]
            assert result.verdict == item["verdict"], f"MEMORY.md:{line} {item['anchor']}: {result.reason}"
            checked += 1
        if len(implemented) == len(anchors):
            assert report.verdict == memory["verdict"], f"MEMORY.md:{line}"
    assert checked >= 1


def test_demo_file_anchors_are_checked() -> None:
    reports, _ = _reports()
    results = {r.anchor: r for report in reports.values() for r in report.results}
    assert results["file:src/tracker/api.py"].verdict == "VERIFIED"
    assert results["file:docs/adr/0003-drop-postgres.md"].verdict == "REFUTED"
    assert results["!file:src/tracker/pg_store.py"].verdict == "VERIFIED"


def test_demo_command_reports_what_expected_toml_says(capsys, monkeypatch) -> None:  # noqa: ANN001
    """The README's first command, through the CLI: every verdict is the one expected.toml records.

    The spans get their fingerprints from the committed repo/anchorcheck.lock: two are fresh,
    one was banked before `RedisCache.set` changed and is stale.
    """
    monkeypatch.chdir(DEMO)
    code = main(["check", "--root", "repo", "--format", "json", "MEMORY.md"])
    data = json.loads(capsys.readouterr().out)
    expected = _expected()
    got_memories = {m["line"]: m["verdict"] for m in data["memories"] if m["line"] in expected}
    assert got_memories == {line: m["verdict"] for line, m in expected.items()}
    got_anchors = {(r["line"], r["anchor"]): r["verdict"] for r in data["results"]}
    want_anchors = {(line, a["anchor"]): a["verdict"] for line, m in expected.items() for a in m.get("anchor", [])}
    assert got_anchors == want_anchors
    spans = {key[1]: verdict for key, verdict in got_anchors.items() if key[1].startswith("span:")}
    assert sorted(spans.values()) == ["REFUTED", "VERIFIED", "VERIFIED"]
    assert code == 1, "the demo has REFUTED memories, so the check fails"


def test_demo_lock_is_up_to_date() -> None:
    """`anchorcheck lock --check` agrees that the committed lock covers every span anchor."""
    assert main(["lock", "--check", "--root", str(DEMO / "repo"), str(DEMO / "MEMORY.md")]) == 0


def test_demo_agents_md_implicit_references_match_expectations(capsys) -> None:  # noqa: ANN001
    """repo/AGENTS.md has no anchors: every path and command in it is checked as written. Its wrong ones were never
    in the repository's history (`make lint` with no Makefile in any revision): warnings, so the run passes."""
    expected = tomllib.loads((DEMO / "expected.toml").read_text(encoding="utf-8"))["implicit"]
    code = main(["check", "--root", str(DEMO / "repo"), "--format", "json", "-v", str(DEMO / "repo" / "AGENTS.md")])
    assert code == 0
    rows = json.loads(capsys.readouterr().out)["results"]
    assert all(r["implicit"] for r in rows)
    got = sorted((r["line"], r["column"], r["anchor"], r["verdict"]) for r in rows)
    assert got == sorted((e["line"], e["column"], e["anchor"], e["verdict"]) for e in expected)
