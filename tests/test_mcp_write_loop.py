"""The MCP write loop with the official SDK client: bank → verify round trip as documented, a changed span
refused by rebank_citation until accepted, typo'd anchors refused by remember (issue 28, findings 1, 2, 11)."""

from __future__ import annotations

import pytest

pytest.importorskip("mcp", reason="the optional 'mcp' extra is not installed (pip install -e '.[mcp]')")

from tests.test_mcp import _call  # noqa: E402

APP = 'import os\nTIMEOUT = 30\n\n\ndef run():\n    return os.getenv("X")\n'
EDITED = '"""The app."""\n' + APP.replace("TIMEOUT = 30", "TIMEOUT = 10")


def test_bank_citation_result_is_passed_back_to_verify_memory_as_it_came(make_repo) -> None:  # noqa: ANN001
    root = make_repo({"src/app.py": APP})
    _, (banked,) = _call(root, [("bank_citation", {"path": "src/app.py", "start_line": 2, "end_line": 2})])
    result = banked.structured_content
    _, (as_anchor, on_its_own) = _call(
        root,
        [
            ("verify_memory", {"text": "timeout is 30 s", "anchors": [result["anchor"]], "citations": [result]}),
            ("verify_memory", {"text": "timeout is 30 s", "anchors": [], "citations": [result]}),
        ],
    )
    for report in (as_anchor.structured_content, on_its_own.structured_content):
        assert report["verdict"] == "VERIFIED", report
        assert report["results"][0]["anchor"] == "span:src/app.py#L2"


def test_rebank_citation_refuses_a_changed_span_until_accepted(make_repo) -> None:  # noqa: ANN001
    root = make_repo({"src/app.py": APP})
    _, (banked,) = _call(root, [("bank_citation", {"path": "src/app.py", "start_line": 2, "end_line": 2})])
    result = banked.structured_content
    (root / "src/app.py").write_text(EDITED)  # line 2 is now `import os`, the value moved to line 3 and changed
    _, (refused, accepted) = _call(
        root,
        [("rebank_citation", {"citation": result}), ("rebank_citation", {"citation": result, "accept": True})],
    )
    answer = refused.structured_content
    assert answer["status"] == "refused" and "may now be false" in answer["reason"]
    assert (answer["banked"]["lines"], answer["current"]["lines"], answer["current"]["start_line"]) == (["TIMEOUT = 30\n"], ["TIMEOUT = 10\n"], 3)
    new = accepted.structured_content
    assert (new["status"], new["anchor"], new["citation"]["lines"]) == ("accepted", "span:src/app.py#L3", ["TIMEOUT = 10\n"])


def test_remember_refuses_an_anchor_that_can_never_be_checked(make_repo) -> None:  # noqa: ANN001
    root = make_repo({"src/app.py": APP})
    _, (typo, malformed) = _call(
        root,
        [
            ("remember", {"text": "we use anyio", "anchors": ["imprt:anyio"]}),
            ("remember", {"text": "rows", "anchors": ["span:src/app.py#L5-L2"]}),
        ],
    )
    assert typo.is_error and "imprt:anyio" in typo.content[0].text and "did you mean `import:`" in typo.content[0].text
    assert malformed.is_error and "before start line" in malformed.content[0].text
