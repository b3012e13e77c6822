"""Benchmark: banking and verifying 1,000 span citations across a real-sized tree.

The tree is a copy of this Python's standard library (real code, ~1,000+
modules) committed to a fresh git repository in a temp dir. Against it, in
one run:

- floor: read and sha256 every cited file once (what any verifier must do),
  and the same once per citation (files cited twice are read twice);
- bank: `bank()` for 1,000 spans (1-20 lines each) through one Repository;
- verify cold: a new Verifier (plugin loading and git identity included) checks all 1,000;
- verify warm: the same Verifier checks them again;
- verify after edits: a line is inserted at the top of 10% of the cited files,
  so those spans relocate (window miss, then a search of the file).

Every figure is printed with its ratio to the floor. Run:
`python benchmarks/spans.py [--spans N] [--files N]`.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import shutil
import subprocess
import sysconfig
import tempfile
import time
from collections import Counter
from pathlib import Path

from anchorcheck import Repository, Verifier, bank


def build_tree(dest: Path, limit: int) -> list[str]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(p for p in stdlib.rglob("*.py") if "site-packages" not in p.parts and "test" not in p.parts)
    chosen = []
    for src in files[:limit]:
        rel = src.relative_to(stdlib).as_posix()
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)
        chosen.append(rel)
    env = dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@e", GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@e")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "tree"]):
        subprocess.run(["git", "-C", str(dest), *args], check=True, env=env, capture_output=True)
    return chosen


def pick_spans(root: Path, files: list[str], count: int, rng: random.Random) -> list[tuple[str, int, int]]:
    sizes = {rel: (root / rel).read_bytes().count(b"\n") for rel in files}
    usable = [rel for rel, n in sizes.items() if n >= 25]
    spans = []
    for _ in range(count):
        rel = rng.choice(usable)
        start = rng.randint(1, sizes[rel] - 20)
        spans.append((rel, start, start + rng.randint(0, 19)))
    return spans


def timed(fn):  # noqa: ANN001, ANN201
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spans", type=int, default=1000)
    parser.add_argument("--files", type=int, default=1500)
    args = parser.parse_args()
    rng = random.Random(20261202)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "stdlib"
        files = build_tree(root, args.files)
        spans = pick_spans(root, files, args.spans, rng)
        cited = sorted({rel for rel, _, _ in spans})

        def floor() -> int:
            return sum(len(hashlib.sha256((root / rel).read_bytes()).digest()) for rel in cited)

        def per_citation() -> int:
            return sum(len(hashlib.sha256((root / rel).read_bytes()).digest()) for rel, _, _ in spans)

        floor()  # warm the page cache so every row reads from memory
        t_floor, _ = timed(floor)
        t_reads, _ = timed(per_citation)
        repo = Repository(root)
        t_bank, citations = timed(lambda: [bank(repo, *span) for span in spans])

        def cold_pass() -> tuple[Verifier, list]:
            verifier = Verifier(root)
            return verifier, [verifier.check(c) for c in citations]

        t_cold, (verifier, cold) = timed(cold_pass)
        t_warm, warm = timed(lambda: [verifier.check(c) for c in citations])
        for rel in cited[: max(1, len(cited) // 10)]:
            path = root / rel
            path.write_bytes(b"# inserted by the benchmark\n" + path.read_bytes())
        edited = Verifier(root)
        t_edit, after = timed(lambda: [edited.check(c) for c in citations])

    states = Counter(r.state for r in after)
    assert all(r.state == "fresh" for r in cold + warm), Counter(r.state for r in cold)
    total_lines = sum(e - s + 1 for _, s, e in spans)
    print(f"tree: {len(files)} stdlib modules; {len(spans)} spans ({total_lines} lines) in {len(cited)} files")
    print(f"{'step':<34}{'seconds':>9}{'per span':>12}{'x floor':>9}")
    rows = [
        ("floor: read + sha256 each file", t_floor),
        ("read + sha256 once per span", t_reads),
        ("bank 1,000 spans", t_bank),
        ("verify cold (new Verifier)", t_cold),
        ("verify warm (same Verifier)", t_warm),
        ("verify after edits (10% files)", t_edit),
    ]
    for name, seconds in rows:
        print(f"{name:<34}{seconds:>9.3f}{seconds / len(spans) * 1e6:>10.0f}us{seconds / t_floor:>9.1f}")
    print(f"after edits: {dict(states)}")


if __name__ == "__main__":
    main()
