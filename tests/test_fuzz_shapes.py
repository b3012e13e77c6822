"""Hostile shapes of runner configurations and Markdown (issue 25), fuzzed with a bound on each input.

The generators of tests/_hostile_shapes.py write what made anchorcheck run for minutes (pattern-rule
chains, self-including Taskfiles, backtracking wildcards, alias bombs, alias chains, scripts that call
each other, brace expansions that multiply, lines of code spans, tables of pipes): whatever they draw,
the reader answers within the hypothesis deadline (5 s an input) and raises nothing undocumented.
`benchmarks/hostile.py --only shape:` runs the campaign of 20,000 inputs per target.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._fuzz_support import fuzz
from tests._fuzz_targets import targets

SHAPES = [t for t in targets() if t.name.startswith("shape:")]


@pytest.mark.parametrize("target", SHAPES, ids=lambda t: t.name)
def test_hostile_shapes_are_read_within_the_deadline(target, tmp_path: Path) -> None:  # noqa: ANN001
    fuzz(target, tmp_path)
