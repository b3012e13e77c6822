"""`anchorcheck suggest` on real, un-anchored agent instruction files.

For each repository of ../shared/corpora/instructions/ (AGENTS.md, CLAUDE.md,
GEMINI.md, Copilot and Cursor rules, with the manifests and runner configs
they talk about; no source code), builds the tree in a temp dir — every
path of FILES.txt(.gz) as an empty file, then the real files over them —
and runs the suggestion engine on every memory of every memory file:

- memories with at least one proposal, and proposals per anchor kind;
- proposals that verify, re-checked by a fresh Verifier (must be all);
- proposals that are scoped (`in:`);
- time per memory, beside the time to only read the memory files (the
  floor measured in the same run).

    python benchmarks/suggest.py [CORPUS_DIR]
"""

from __future__ import annotations

import gzip
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from anchorcheck import Citation, Verdict, Verifier
from anchorcheck.memoryfiles import discover, read_memory_file
from anchorcheck.suggestions import Suggester

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "instructions"


def build(source: Path, root: Path) -> None:
    """The repository's listed paths as empty files, then its real files over them."""
    listing = source / "FILES.txt"
    text = listing.read_text() if listing.exists() else gzip.decompress((source / "FILES.txt.gz").read_bytes()).decode()
    for rel in text.splitlines():
        path = root / rel
        if rel and ".." not in Path(rel).parts:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch()
    for path in source.rglob("*"):
        rel = path.relative_to(source)
        if rel.name in ("FILES.txt", "FILES.txt.gz"):
            continue
        target = root / (str(rel)[:-3] if rel.name == "tox.ini.gz" else rel)
        if path.is_symlink():
            target.unlink(missing_ok=True)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(path.readlink())
        elif path.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            data = path.read_bytes()
            target.write_bytes(gzip.decompress(data) if rel.name == "tox.ini.gz" else data)


def run(source: Path) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / source.name
        root.mkdir()
        build(source, root)
        verifier = Verifier(root, options={"cache": False})
        start = time.perf_counter()
        known = [p for fmt in verifier.registry.formats.values() for p in fmt.patterns]
        files = discover(verifier.repo, verifier.registry, [*known, "GEMINI.md", "**/GEMINI.md"])
        loaded = [(rel, read_memory_file(root / rel, rel, verifier.registry)) for rel in files]
        read_time = time.perf_counter() - start
        suggester = Suggester(verifier)
        proposals, memories, typed = [], 0, 0
        start = time.perf_counter()
        for _, batch in loaded:
            for memory in batch:
                memories += 1
                found = suggester.suggest(memory.text, [a for a in memory.anchors if isinstance(a, str)])
                typed += bool(found)
                proposals.extend(found)
        suggest_time = time.perf_counter() - start
        fresh = Verifier(root, options={"cache": False})
        verified = sum(
            (fresh.check(Citation.from_dict(s.citation)) if s.citation else fresh.check(s.anchor)).verdict is Verdict.VERIFIED
            for s in proposals
        )
        return {
            "name": source.name,
            "files": len(files),
            "memories": memories,
            "typed": typed,
            "proposals": len(proposals),
            "verified": verified,
            "scoped": sum(" in:" in s.anchor for s in proposals),
            "kinds": Counter(s.anchor.lstrip("!").split(":", 1)[0] for s in proposals),
            "read_ms": read_time * 1000 / max(memories, 1),
            "suggest_ms": suggest_time * 1000 / max(memories, 1),
        }


def main() -> None:
    corpus = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    if not corpus.is_dir():
        sys.exit(f"no corpus at {corpus}")
    rows = [run(path) for path in sorted(corpus.iterdir()) if path.is_dir()]
    print(f"{'repository':<18} {'files':>5} {'memories':>8} {'typed':>6} {'proposed':>8} {'verify':>7} {'scoped':>6} {'ms/memory':>9} {'x read':>7}  kinds")
    total: Counter[str] = Counter()
    for row in rows:
        ratio = row["suggest_ms"] / row["read_ms"] if row["read_ms"] else 0.0
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(row["kinds"].items()))
        print(
            f"{row['name']:<18} {row['files']:>5} {row['memories']:>8} {row['typed']:>6} {row['proposals']:>8} "
            f"{row['verified']:>3}/{row['proposals']:<3} {row['scoped']:>6} {row['suggest_ms']:>9.1f} {ratio:>7.0f}  {kinds}"
        )
        for key in ("memories", "typed", "proposals", "verified", "scoped"):
            total[key] += row[key]
    share = 100 * total["typed"] / max(total["memories"], 1)
    print(
        f"total: {total['memories']} memories, {total['typed']} ({share:.1f}%) with at least one proposal; "
        f"{total['proposals']} proposals, {total['verified']} verify; {total['scoped']} scoped"
    )
    if total["verified"] != total["proposals"]:
        sys.exit("some proposals do not verify")


if __name__ == "__main__":
    main()
