"""Fuzzing every manifest and lockfile reader of the ecosystems (issue 17).

Each reader turns any bytes into declarations or a ManifestError naming the line:
pyproject, setup.cfg/setup.py, requirements, Pipfile(.lock), environment.yml, uv/poetry/pdm
locks, pylock, package.json, package-lock, yarn.lock, pnpm lock and workspace, Cargo
manifest and lock, go.mod, go.sum, go.work.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._fuzz_support import fuzz
from tests._fuzz_targets import targets

READERS = [t for t in targets() if t.name.split(":")[0] in ("pypi", "npm", "cargo", "golang")]


def test_every_reader_of_every_ecosystem_is_fuzzed() -> None:
    assert len(READERS) >= 18


@pytest.mark.parametrize("target", READERS, ids=lambda t: t.name)
def test_readers_raise_only_manifest_errors(target, tmp_path: Path) -> None:
    fuzz(target, tmp_path)
