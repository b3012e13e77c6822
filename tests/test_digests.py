"""The content ids a run names files, trees and cache entries by are hashlib's, whichever implementation made them:
a store written by one run must be found by the next (`anchorcheck.base.digests`)."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from anchorcheck.base import digests


@pytest.mark.parametrize("size", [0, 1, 4096, digests.LARGE, digests.LARGE + 1, 3 * digests.LARGE + 7])
def test_the_same_digests_as_hashlib_below_and_past_the_switch(size: int) -> None:
    data = bytes(range(256)) * (size // 256 + 1)
    data = data[:size]
    assert digests.sha1(data).hexdigest() == hashlib.sha1(data).hexdigest()  # noqa: S324
    assert digests.sha256(data).digest() == hashlib.sha256(data).digest()
    fed, parts = digests.sha1(), hashlib.sha1()  # noqa: S324
    for at in range(0, size, 10_000):  # fed in parts, past the switch in the middle of one
        fed.update(data[at : at + 10_000])
        parts.update(data[at : at + 10_000])
    assert fed.hexdigest() == parts.hexdigest()
    assert fed.hexdigest() == parts.hexdigest()  # read twice: the same


def test_a_small_digest_imports_no_hashlib(tmp_path: Path) -> None:
    code = "import sys; from anchorcheck.base import digests; digests.sha1(b'x' * 1000).hexdigest(); print('hashlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path).stdout
    assert out.strip() == "False"
