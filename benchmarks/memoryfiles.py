"""Memory files end to end: discovery, Markdown reading, `anchorcheck lock` and `anchorcheck check`.

Builds a git repository in a temp dir (400 Python files of 120 lines, plus a
CLAUDE.md of 1,000 bullets: 500 `file:` anchors and 500 `span:` anchors of
3-10 lines, chosen with a fixed seed) and times each step against a floor
measured in the same run: reading the memory file and reading + hashing
every cited file once.

    python benchmarks/memoryfiles.py
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from anchorcheck.cli import main
from anchorcheck.memory.memoryfiles import discover, read_memory_file
from anchorcheck.verify.loading import default_registry
from anchorcheck.repo.checkout import Repository

FILES, LINES, BULLETS = 400, 120, 1000


def build(root: Path) -> list[str]:
    rng = random.Random(6)
    for n in range(FILES):
        body = "".join(f"value_{n}_{i} = {rng.randrange(10**6)}  # line {i + 1}\n" for i in range(LINES))
        path = root / "src" / f"pkg{n % 20}" / f"mod{n}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)
    bullets, cited = [], []
    for b in range(BULLETS):
        rel = f"src/pkg{(b * 7) % FILES % 20}/mod{(b * 7) % FILES}.py"
        cited.append(rel)
        if b % 2:
            start = rng.randrange(1, LINES - 10)
            anchor = f"span:{rel}#L{start}-L{start + rng.randrange(2, 10)}"
        else:
            anchor = f"file:{rel}"
        bullets.append(f"- Fact {b} about the code, see `{anchor}`.\n")
    (root / "CLAUDE.md").write_text("# Project memory\n\n" + "".join(bullets))
    env = dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@b", GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@b")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "bench"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True)
    return sorted(set(cited))


def timed(step: Callable[[], object]) -> float:
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        step()
    return time.perf_counter() - start


def main_bench() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        cited = build(root)
        os.chdir(root)

        def floor() -> None:
            (root / "CLAUDE.md").read_bytes()
            for rel in cited:
                hashlib.sha256((root / rel).read_bytes()).hexdigest()

        registry = default_registry()
        rows = [
            ("floor: read CLAUDE.md + read and sha256 each cited file once", timed(floor)),
            ("discover the memory files (git ls-files, globs)", timed(lambda: discover(Repository(root), registry))),
            ("read CLAUDE.md: 1,000 bullets into memories", timed(lambda: read_memory_file(root / "CLAUDE.md", "CLAUDE.md", registry))),
            ("`anchorcheck lock` from scratch (banks 500 spans)", timed(lambda: main(["lock"]))),
            ("`anchorcheck lock` again (no change, writes nothing)", timed(lambda: main(["lock"]))),
            ("`anchorcheck check` (1,000 memories, lock attached)", timed(lambda: main(["check", "--format", "json"]))),
            ("`anchorcheck check --format sarif`", timed(lambda: main(["check", "--format", "sarif"]))),
        ]
        base = rows[0][1]
        print(f"{FILES} files, {BULLETS} bullets ({BULLETS // 2} file:, {BULLETS // 2} span:), Python {sys.version.split()[0]}")
        print("| step | seconds | per memory | × floor |\n|---|---:|---:|---:|")
        for name, seconds in rows:
            print(f"| {name} | {seconds:.3f} | {seconds / BULLETS * 1e6:.0f} µs | {seconds / base:.1f} |")


if __name__ == "__main__":
    main_bench()
