"""Package evidence benchmark: parsing real lockfiles, and 1,000 `pkg:` anchors against them.

Reads the real files in ../shared/corpora/manifests (axios: a 1.6 MB
package-lock.json v2; flask: a 330 KB uv.lock v1) and measures, each against
a baseline taken in the same run:

- the readers against the bare parse (`json.loads` / `tomllib.loads` of the
  same bytes), which is the floor any reader pays;
- 1,000 anchors (half on each project, present and absent names, exact
  versions and ranges) through one Verifier per project, against one cold
  anchor (new Verifier, plugins loaded, files parsed); and it counts the
  parses, which must be one per file however many anchors ask.

    python benchmarks/packages.py
"""

from __future__ import annotations

import json
import random
import sys
import time
import tomllib
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from anchorcheck import Verifier
from anchorcheck.repo.config import Config


def _manifests() -> Path:
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "shared" / "corpora" / "manifests"
        if candidate.is_dir():
            return candidate
    sys.exit("benchmarks/packages.py needs ../shared/corpora/manifests beside the checkout")


def _best(fn: Callable[[], object], repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def _reader(root: Path, ecosystem: str) -> Callable[[], object]:
    def run() -> object:
        v = Verifier(root, config=Config())
        return v.registry.ecosystems[ecosystem].read(v.context, None)

    return run


def _anchors(root: Path, ecosystem: str, count: int, rng: random.Random) -> list[str]:
    v = Verifier(root, config=Config())
    index = v.registry.ecosystems[ecosystem].read(v.context, None)
    locked = [d for d in index.declarations if d.locked_version]
    anchors = []
    for i in range(count):
        decl = rng.choice(locked)
        name = decl.name.replace("@", "%40") if ecosystem == "npm" else decl.name
        kind = i % 4
        if kind == 0:
            anchors.append(f"pkg:{ecosystem}/{name}")
        elif kind == 1:
            anchors.append(f"pkg:{ecosystem}/{name}@{decl.locked_version}")
        elif kind == 2:
            anchors.append(f"pkg:{ecosystem}/{name}@{'>=0' if ecosystem == 'pypi' else '>=0.0.0'}")
        else:
            anchors.append(f"pkg:{ecosystem}/no-such-package-{i}")
    return anchors


def main() -> None:
    corpus = _manifests()
    axios, flask = corpus / "axios", corpus / "flask"
    lock_bytes = (axios / "package-lock.json").read_bytes()
    uv_bytes = (flask / "uv.lock").read_bytes()

    rows = []
    floor_json = _best(lambda: json.loads(lock_bytes))
    rows.append(("floor: json.loads package-lock.json (1.6 MB)", floor_json, floor_json))
    rows.append(("new Verifier + npm reader: axios package.json + lock", _best(_reader(axios, "npm")), floor_json))
    floor_toml = _best(lambda: tomllib.loads(uv_bytes.decode()))
    rows.append(("floor: tomllib.loads uv.lock (330 KB)", floor_toml, floor_toml))
    rows.append(("new Verifier + pypi reader: flask pyproject.toml + uv.lock", _best(_reader(flask, "pypi")), floor_toml))

    rng = random.Random(4)
    work = [(axios, a) for a in _anchors(axios, "npm", 500, rng)] + [(flask, a) for a in _anchors(flask, "pypi", 500, rng)]

    def cold() -> object:
        return Verifier(axios, config=Config()).check(work[0][1])

    cold_one = _best(cold, repeat=3)

    parses: Counter[str] = Counter()
    for module in (json, tomllib):  # every reader parses through these two functions
        original = module.loads
        module.loads = lambda text, _o=original, _n=module.__name__, **kw: parses.update([_n]) or _o(text, **kw)
    verdicts: Counter[str] = Counter()

    def thousand() -> None:
        verdicts.clear()
        parses.clear()
        verifiers = {axios: Verifier(axios, config=Config()), flask: Verifier(flask, config=Config())}
        for root, anchor in work:
            verdicts[verifiers[root].check(anchor).verdict.value] += 1

    total = _best(thousand, repeat=3)
    rows.append(("1,000 anchors, one Verifier per project (parses included)", total, cold_one))
    rows.append((f"  per anchor ({total / len(work) * 1e6:.0f} µs)", total / len(work), cold_one))
    rows.append(("cold: one anchor with a new Verifier", cold_one, cold_one))

    print(f"{'step':<62} {'seconds':>9} {'x baseline':>10}")
    for label, seconds, base in rows:
        print(f"{label:<62} {seconds:9.4f} {seconds / base:10.2f}")
    print(f"verdicts: {dict(sorted(verdicts.items()))}")
    print(f"parses during the 1,000 anchors: {dict(parses)} (package.json + package-lock.json; pyproject.toml + uv.lock)")


if __name__ == "__main__":
    main()
