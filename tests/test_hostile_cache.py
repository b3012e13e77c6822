"""The shared facts cache survives another process truncating its files mid-run (issue 17: SIGBUS)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from anchorcheck.evidence.cache import FactsCache

_READER = """
import sys, time
from pathlib import Path
from anchorcheck.evidence.cache import FactsCache
cache = FactsCache(Path(sys.argv[1]))
keys = [f"k{i}" for i in range(0, 5000, 3)]
end, rounds = time.monotonic() + 3, 0
while time.monotonic() < end:
    cache.get_many(keys)
    cache.put(f"new{rounds}", {"n": rounds})
    rounds += 1
    if rounds % 20 == 0:
        cache.flush()
cache.close()
print(rounds)
"""


def test_truncating_the_cache_files_mid_run_never_kills_the_reader(tmp_path: Path) -> None:
    store = FactsCache(tmp_path)
    for i in range(5000):
        store.put(f"k{i}", {"value": "x" * 200})
    store.close()
    reader = subprocess.Popen([sys.executable, "-c", _READER, str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    truncated = 0
    while reader.poll() is None:  # every file of the database, the one WAL maps (-shm) included
        for path in tmp_path.glob("facts-*.sqlite*"):
            try:
                os.truncate(path, 0)
                truncated += 1
            except OSError:
                pass
        time.sleep(0.05)
    out, err = reader.communicate()
    assert truncated > 10
    assert reader.returncode == 0, f"reader died with {reader.returncode}: {err[-1000:]}"
    assert int(out) > 0
    assert not list(tmp_path.glob("*-shm")), "no memory-mapped WAL index"
