"""Wrong verdicts the hostile-input campaign found on the way (issue 17)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from anchorcheck import Verdict, Verifier
from tests.conftest import init_repo, needs_git, write_tree

BIG = "#" * 4096  # past the 1 KiB max-file-size these tests set


@needs_git
@pytest.mark.parametrize(
    ("files", "anchor"),
    [
        ({"big.py": 'import os\nos.getenv("BIGVAR")\n' + BIG}, "env:BIGVAR"),
        ({"big.py": "import redis\n" + BIG}, "import:redis"),
    ],
)
def test_an_oversized_candidate_makes_absence_inconclusive(tmp_path: Path, files: dict[str, str], anchor: str) -> None:
    """The file is skipped, so nothing can say it does not read the name it holds: not REFUTED."""
    write_tree(tmp_path, {".anchorcheck.toml": "max-file-size = 1024\n", "small.py": "print(1)\n", **files})
    init_repo(tmp_path)
    result = Verifier(tmp_path).check(anchor)
    assert result.verdict is Verdict.INCONCLUSIVE, result.reason
    assert "big.py" in result.reason


def test_an_oversized_file_without_the_name_is_no_candidate(tmp_path: Path) -> None:
    write_tree(tmp_path, {".anchorcheck.toml": "max-file-size = 1024\n", "big.py": "print(2)\n" + BIG, "small.py": "print(1)\n"})
    result = Verifier(tmp_path).check("import:redis")
    assert result.verdict is Verdict.REFUTED, result.reason


def test_a_file_whose_name_is_not_utf8_is_found(tmp_path: Path) -> None:
    name = b"bad\xff\xfe.py"
    try:
        (tmp_path / os.fsdecode(name)).write_bytes(b"x = 1\n")
    except (OSError, UnicodeEncodeError):
        pytest.skip("this filesystem refuses names that are not UTF-8")
    verifier = Verifier(tmp_path)
    assert verifier.check("file:bad%FF%FE.py").verdict is Verdict.VERIFIED
    assert verifier.check("file:bad%FF%FD.py").verdict is Verdict.REFUTED
