"""Fuzzing the command runners' configuration readers through the `cmd:` kind (issue 17).

package.json scripts, Makefiles, justfiles, cargo aliases, pyproject script tables, tox,
nox, Taskfiles, go.mod and compose files: whatever the bytes, the kind answers; it never
raises (the Verifier would turn that into an INCONCLUSIVE "plugin failed").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._fuzz_support import fuzz
from tests._fuzz_targets import targets

RUNNERS = [t for t in targets() if t.name.startswith("runner:")]


@pytest.mark.parametrize("target", RUNNERS, ids=lambda t: t.name)
def test_runner_configuration_readers_never_raise(target, tmp_path: Path) -> None:
    fuzz(target, tmp_path)
