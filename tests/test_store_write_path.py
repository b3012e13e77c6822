"""A memory store's write path through the public API: anchors that can never be checked are refused
when the memory is written, and recalled span anchors get their lock entries (issue 28, finding 11)."""

from __future__ import annotations

from pathlib import Path

import pytest

import anchorcheck
from anchorcheck.cli import main

from tests.conftest import write_tree


@pytest.mark.parametrize(
    ("anchor", "message"),
    [
        ("imprt:anyio", "unknown anchor kind 'imprt': did you mean `import:`?"),
        ("pkg:pypi/", "not a package URL"),
        ("span:src/a.py#L9-L3", "end line 3 is before start line 9"),
    ],
)
def test_validate_refuses_an_anchor_that_would_stay_inconclusive_for_ever(tmp_path: Path, anchor: str, message: str) -> None:
    verifier = anchorcheck.Verifier(write_tree(tmp_path, {"src/a.py": "import anyio\n"}))
    with pytest.raises(anchorcheck.AnchorSyntaxError, match=message) as caught:
        verifier.validate(anchorcheck.Memory(text="we use anyio", anchors=["import:anyio", anchor]))
    assert anchor in str(caught.value)


def test_validate_accepts_what_checks_and_refuses_a_malformed_citation(tmp_path: Path) -> None:
    verifier = anchorcheck.Verifier(write_tree(tmp_path, {"src/a.py": "import anyio\n"}))
    verifier.validate(["import:anyio", "!pkg:pypi/celery", anchorcheck.bank(tmp_path, "src/a.py", 1, 1)])
    broken = anchorcheck.Citation.from_dict({"path": "src/a.py", "start_line": 5, "end_line": 2})
    with pytest.raises(anchorcheck.AnchorSyntaxError, match="malformed citation"):
        verifier.validate([broken])


def test_attach_lock_gives_recalled_span_anchors_their_banked_record(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    root = write_tree(tmp_path, {"src/a.py": "A = 1\n", "CLAUDE.md": "- A is one `span:src/a.py#L1`.\n"})
    assert main(["lock", "--root", str(root)]) == 0
    verifier = anchorcheck.Verifier(root)
    memory = anchorcheck.Memory(text="A is one", anchors=["span:src/a.py#L1"])
    verifier.attach_lock([memory])
    assert verifier.verify(memory).verdict is anchorcheck.Verdict.VERIFIED
    write_tree(root, {"src/a.py": "A = 2\n"})
    assert verifier.verify(memory).verdict is anchorcheck.Verdict.REFUTED


def test_the_store_guide_imports_only_public_names() -> None:
    guide = (Path(__file__).resolve().parents[1] / "docs" / "memory-stores.md").read_text()
    assert "from anchorcheck." not in guide and "import anchorcheck." not in guide
