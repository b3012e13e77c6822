"""`benchmarks/scale.py --quick` (a smoke test of the script that makes the scale table in
docs/benchmarks.md): it runs on a small generated repository and prints a row with every column."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO_ROOT, needs_git

pytestmark = needs_git


def test_the_quick_run_prints_a_full_row_for_the_small_repository(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(REPO_ROOT / "benchmarks" / "scale.py"), "--quick", "--work", str(tmp_path)],
        capture_output=True, text=True, check=False, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    row = next(line for line in done.stdout.splitlines() if line.startswith("| small |"))
    assert row.count("**") == 8  # cold, warm, resident and prose: each a figure beside its floor and a ratio


def test_a_repository_that_is_no_checkout_is_a_one_line_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(REPO_ROOT / "benchmarks" / "scale.py"), "--repo", f"x={tmp_path}"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2 and "expected NAME=PATH of a git checkout" in done.stderr
