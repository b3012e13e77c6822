"""`--format sarif`: a SARIF 2.1.0 log for code-scanning dashboards (GitHub, GitLab, Azure DevOps).

One result per anchor that did not verify: REFUTED is `error` (and so is an
anchor written wrongly: `anchor/unknown-kind`, `anchor/malformed`,
`span/unbanked`), INCONCLUSIVE
is `note` (VERIFIED, shown only with `-v`, is `none` with kind `pass`). Rule
ids are `KIND/verdict` (`span/refuted`, `pkg/inconclusive`); the rules used
are listed in the driver. `partialFingerprints` ignore line numbers, so a
finding keeps its identity when the memory file is edited above it.
Validated against the official schema in tests/test_report_sarif.py.
"""

from __future__ import annotations

from typing import IO, Any

from anchorcheck.model.results import Verdict
from anchorcheck.report import Run, only_in
from anchorcheck.report.findings import Finding, findings
from anchorcheck.report.json_format import write_json

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
FINGERPRINT = "anchorcheck/v1"
_LEVEL = {Verdict.REFUTED: "error", Verdict.INCONCLUSIVE: "note", Verdict.VERIFIED: "none"}
_RULE_TEXT = {
    Verdict.REFUTED: "The code contradicts a '{kind}:' anchor of a memory: the memory is stale.",
    Verdict.INCONCLUSIVE: "A '{kind}:' anchor of a memory could not be checked either way.",
    Verdict.VERIFIED: "A '{kind}:' anchor of a memory holds.",
}


def as_dict(run: Run) -> dict[str, Any]:
    from anchorcheck import __version__

    found = list(findings(run))
    rules = sorted({f.rule_id: f for f in found}.items())
    index = {rule_id: i for i, (rule_id, _) in enumerate(rules)}
    driver = {
        "name": "anchorcheck",
        "version": __version__,
        "rules": [_rule(rule_id, f) for rule_id, f in rules],
    }
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": driver},
                "columnKind": "unicodeCodePoints",
                "results": [_result(f, index[f.rule_id], run) for f in found],
            }
        ],
    }


_IMPLICIT_TEXT = {
    Verdict.REFUTED: "A {what} a memory file names (not as an anchor) is gone: the memory is stale.",
    Verdict.INCONCLUSIVE: "A {what} a memory file names (not as an anchor) could not be checked either way.",
    Verdict.VERIFIED: "A {what} a memory file names (not as an anchor) holds.",
}
_MISTAKE_TEXT = {
    "unknown-kind": "A memory file writes an anchor of a kind no plugin registers (a typo of a known kind).",
    "malformed": "A memory file writes an anchor that does not parse.",
    "unbanked": "A span anchor has no banked fingerprint: run anchorcheck lock.",
}
_IMPLICIT_WHAT = {"file": "path", "cmd": "command", "pkg": "package"}


def _level(finding: Finding) -> str:
    """An anchor written wrongly is an error of the memory file; else the result's severity (a REFUTED path
    that never existed is a warning), and a VERIFIED one is no problem at all."""
    if finding.mistake:
        return "error"
    if finding.result.verdict is Verdict.VERIFIED:
        return _LEVEL[Verdict.VERIFIED]
    return finding.result.severity or _LEVEL[finding.result.verdict]


def _rule(rule_id: str, example: Finding) -> dict[str, Any]:
    verdict = example.result.verdict
    if example.mistake:
        text = _MISTAKE_TEXT[example.result.state or ""]
    elif example.result.implicit:
        text = _IMPLICIT_TEXT[verdict].format(what=_IMPLICIT_WHAT.get(example.kind, f"'{example.kind}:' reference"))
    else:
        text = _RULE_TEXT[verdict].format(kind=example.kind)
    return {
        "id": rule_id,
        "name": rule_id.replace("/", "-"),
        "shortDescription": {"text": text},
        "defaultConfiguration": {"level": _level(example)},
    }


def _result(finding: Finding, rule_index: int, run: Run) -> dict[str, Any]:
    result = finding.result
    out: dict[str, Any] = {
        "ruleId": finding.rule_id,
        "ruleIndex": rule_index,
        "level": _level(finding),
        "message": {"text": finding.message},
        "partialFingerprints": {FINGERPRINT: finding.fingerprint()},
        "properties": {"verdict": result.verdict.value, "anchor": result.anchor, "memoryId": finding.memory.id},
    }
    if result.implicit:
        out["properties"]["implicit"] = True
    if result.verdict is Verdict.VERIFIED:
        out["kind"] = "pass"
    trap = only_in(result)
    if trap is not None:  # holds, but only test or example code says so: worth a look
        out.update(level="note", kind="review")
        out["properties"]["onlyIn"] = trap
    if result.state:
        out["properties"]["state"] = result.state
    places = [(finding.file, finding.line, finding.column), *finding.copies]
    locations = [_location(run, *place) for place in places if place[0] is not None]
    if locations:  # a reference written in copied files is one result with a location per copy
        out["locations"] = locations
    related = [
        {
            "id": i,
            "physicalLocation": {
                "artifactLocation": {"uri": run.evidence_path(e.path), "uriBaseId": "%SRCROOT%"},
                **({"region": {"startLine": e.line}} if e.line else {}),
            },
            **({"message": {"text": e.detail}} if e.detail else {}),
        }
        for i, e in enumerate(result.evidence)
    ]
    if related:
        out["relatedLocations"] = related
    return out


def _location(run: Run, file: str, line: int | None, column: int | None) -> dict[str, Any]:
    region: dict[str, int] = {}
    if line:
        region["startLine"] = line
        if column:
            region["startColumn"] = column
    physical: dict[str, Any] = {"artifactLocation": _artifact(run, file)}
    if region:
        physical["region"] = region
    return {"physicalLocation": physical}


def _artifact(run: Run, file: str) -> dict[str, str]:
    """Relative to the root (`%SRCROOT%`), as code scanning resolves it, when the file is in the checkout."""
    rel = run.from_root(file)
    return {"uri": file} if rel is None else {"uri": rel, "uriBaseId": "%SRCROOT%"}


def render(run: Run, out: IO[str]) -> None:
    write_json(as_dict(run), out)
