"""Proof that a speed change kept every verdict: the JSON of all verdicts, before and after.

    python benchmarks/verdicts.py anchors TREE > anchors.json          # once, with either code
    python benchmarks/verdicts.py dump TREE anchors.json > after.json  # with each version of the code
    python benchmarks/verdicts.py compare before.json after.json        # exit 1 on any difference

The anchor set (`mixed_anchors`, also what `benchmarks/speed.py` times) mixes
top-level and dotted submodule imports, present and absent, some scoped; env
keys read and absent; symbols by path and by module, defined and not. `dump`
writes every result's `to_dict()` (each anchor checked by a new Verifier, no
cache, so no search profits from what another parsed) with only what depends on how much work a
search did masked: the counts of files searched, parsed and ruled out, and the
count of places (a search that stops once its evidence is enough says "at least
N other place(s)", and one that parses fewer files may finish: complete). The
evidence listed is compared as it is. Run the old code with `PYTHONPATH` pointing at a directory that holds
`anchorcheck` and `anchorcheck_plugins` (links to an old checkout's
`anchorcheck/` and `plugins/`).
"""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path
from typing import Any

SEED = 20261203


def mixed_anchors(root: Path, count: int = 50, seed: int = SEED) -> list[str]:
    """`count` anchors drawn from the tree's own facts (a full index, no cache), fixed seed."""
    from anchorcheck import Verifier
    from anchorcheck.evidence.index import SourceIndex

    rng = random.Random(seed)
    hits = SourceIndex.of(Verifier(root, options={"cache": False}).context).everything().hits
    py = [(path, facts) for path, facts in hits if path.endswith(".py") and facts.imports and facts.defs]
    modules = sorted({m for _, f in py for m, _, _ in f.imports if not m.startswith(".") and not m.endswith(".*")})
    dotted = [m for m in modules if m.count(".") >= 2]
    tops = sorted({m.split(".")[0] for m in modules})
    anchors = [f"import:{m}" for m in _some(rng, tops, 6)]
    anchors += [f"import:{m}" for m in _some(rng, dotted, 10)]
    anchors += [f"import:absentmod{i}" for i in range(3)]
    anchors += [f"import:{m.rsplit('.', 1)[0]}.absent_sub{i}" for i, m in enumerate(_some(rng, dotted, 3))]
    for (path, _), module in zip(_some(rng, py, 4), ["json", "typing", rng.choice(dotted or ["json"]), "absentmod9"]):
        scope = path.rsplit("/", 1)[0] + "/" if "/" in path else path
        anchors.append(f"import:{module} in:{scope}")
    env = sorted({k for _, f in hits for k, _ in f.env})
    anchors += [f"env:{k}" for k in _some(rng, env, 6)] + ["env:ABSENT_KEY_1", "env:ABSENT_KEY_2"]
    packaged = [(p, f) for p, f in py if "/" in p and not p.endswith("__init__.py") and not p.startswith(("tests/", "docs/"))]
    for path, facts in _some(rng, packaged, 2):
        module = path[: -len(".py")].replace("/", ".")
        anchors.append(f"sym:py:{module}.{rng.choice(facts.defs)[0]}")
    anchors += [f"sym:{py[0][0]}::NoSuchName", f"sym:{py[1][0]}::Nope.nope", "sym:gone/file.py::X"]
    for path, facts in _some(rng, py, count - len(anchors)):
        anchors.append(f"sym:{path}::{rng.choice(facts.defs)[0]}")
    return anchors[:count]


def _some(rng: random.Random, items: list[Any], count: int) -> list[Any]:
    """`count` of the items at random, or all of them when there are fewer (a small tree)."""
    return rng.sample(items, min(count, len(items)))


_COVERAGE = re.compile(r"searched \d+ source file\(s\): \d+ parsed \(or known from the cache\), \d+ ruled out")
_PLACES = re.compile(r"and (at least )?\d+ other place")


def masked(result: dict[str, Any]) -> dict[str, Any]:
    """A result with the work-dependent counts replaced by N: a search that stops once its evidence
    is enough counts "at least" the places it parsed, and parsing fewer files may make it complete."""
    reason = _COVERAGE.sub("searched N source file(s): N parsed (or known from the cache), N ruled out", result["reason"])
    reason = _PLACES.sub("and N other place", reason)
    details = {key: "N" if key in ("imports", "places") else value for key, value in (result.get("details") or {}).items() if key != "complete"}
    return {**result, "reason": reason, "details": details}


def dump(root: Path, anchors: list[str]) -> list[dict[str, Any]]:
    from anchorcheck import Verifier

    # A Verifier per anchor: what one search parsed must not decide how far the next one looks.
    return [masked(Verifier(root, options={"cache": False}).check(anchor).to_dict()) for anchor in anchors]


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "anchors":
        print(json.dumps(mixed_anchors(Path(argv[1])), indent=1))
    elif len(argv) == 3 and argv[0] == "dump":
        print(json.dumps(dump(Path(argv[1]), json.loads(Path(argv[2]).read_text())), indent=1, sort_keys=True))
    elif len(argv) == 3 and argv[0] == "compare":
        before, after = (Path(p).read_bytes() for p in argv[1:])
        if before == after:
            print(f"identical: {len(json.loads(before))} results, byte for byte")
            return 0
        pairs = list(zip(json.loads(before), json.loads(after)))
        for old, new in pairs:
            if old != new:
                print(f"DIFFERS: {json.dumps(old)}\n    now: {json.dumps(new)}")
        verdicts = sum(old["verdict"] != new["verdict"] for old, new in pairs)
        others = sum(old != new for old, new in pairs) - verdicts
        print(f"{len(pairs)} results: {verdicts} verdict(s) differ, {others} other result(s) differ (reason or evidence)")
        return 1
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
