"""Fuzzing what reads code and configuration for facts: tree-sitter extraction and env config readers (issue 17).

Neither may raise at all: a file that does not parse is a syntax-error line in its
facts (INCONCLUSIVE for absence), a configuration file nested too deeply is reported
as unread. A crash here is a segfault, which takes the test session with it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._fuzz_support import fuzz
from tests._fuzz_targets import registry, targets

SOURCES = [t for t in targets() if t.name.startswith(("lang:", "env-config:"))]


def test_every_language_is_fuzzed() -> None:
    fuzzed = {t.name.split(":", 1)[1] for t in SOURCES if t.name.startswith("lang:")}
    assert fuzzed == {name for name, language in registry().languages.items() if language.extract is not None}


@pytest.mark.parametrize("target", SOURCES, ids=lambda t: t.name)
def test_fact_extraction_and_config_readers_never_raise(target, tmp_path: Path) -> None:
    fuzz(target, tmp_path)
