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

With `--cold ROOT [--baseline REV] [FILE...]`, times a first run on a real
checkout (no facts cache): this tree's suggestion engine against the one of
git revision REV of this project (default: the revision before the byte-
prefiltered definition look-up), loaded side by side and run interleaved,
each on a fresh Verifier; prints the median of each and the ratio, and what
each proposed.

    python benchmarks/suggest.py --cold /tmp/uv --baseline fe8e608 AGENTS.md

With `--judged LABELS --root CHECKOUT`, runs `anchorcheck suggest` as the command does on the
memory files of a real checkout and compares each proposal with a person's judgement in LABELS
(benchmarks/judged/*.toml: the repository, its commit, whether the engine was changed after
looking at it, and each proposal judged right or wrong, with why): the share judged right,
proposals nobody judged yet, and how many memories of each file end with at least one anchor.

    python benchmarks/suggest.py --judged benchmarks/judged/typescript-sdk.toml --root /tmp/typescript-sdk
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from anchorcheck import Citation, Verdict, Verifier
from anchorcheck.memory.memoryfiles import discover, read_memory_file
from anchorcheck.verify.suggestions import Suggester

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
        suggester = Suggester(verifier, implicit_checked=True)  # as `anchorcheck suggest`: nothing `check` reads anyway
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


def engine(rev: str | None) -> type[Suggester]:
    """The Suggester of this tree, or of git revision `rev` of the project (loaded under another name)."""
    if rev is None:
        return Suggester
    project = Path(__file__).resolve().parents[1]
    source = subprocess.run(["git", "-C", str(project), "show", f"{rev}:anchorcheck/verify/suggestions.py"], capture_output=True, text=True, check=True).stdout
    spec = importlib.util.spec_from_loader(f"suggestions_{rev}", loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    exec(compile(source, f"{rev}:anchorcheck/verify/suggestions.py", "exec"), module.__dict__)  # noqa: S102 - the project's own code at an older revision
    return module.Suggester


def cold(root: Path, names: list[str], rev: str, runs: int) -> None:
    """Median first-run time of the baseline engine and of this one, interleaved, on fresh Verifiers."""
    engines = {f"baseline {rev}": engine(rev), "this tree": engine(None)}
    times: dict[str, list[float]] = {label: [] for label in engines}
    proposed: dict[str, list[str]] = {}
    for _ in range(runs):
        for label, cls in engines.items():
            verifier = Verifier(root, options={"cache": False})
            start = time.perf_counter()
            suggester, found = cls(verifier), []
            for rel in names:
                for memory in read_memory_file(root / rel, rel, verifier.registry):
                    found += [s.anchor for s in suggester.suggest(memory.text, [a for a in memory.anchors if isinstance(a, str)])]
            times[label].append(time.perf_counter() - start)
            proposed[label] = found
    base = statistics.median(times[f"baseline {rev}"])
    for label, spent in times.items():
        median = statistics.median(spent)
        print(f"{label:<20} median {median:7.2f} s over {runs} run(s)  ratio {median / base:5.2f}  proposed: {', '.join(proposed[label]) or '-'}")


def judged(labels_path: Path, root: Path) -> None:
    """Proposals of `anchorcheck suggest` on a real checkout against a person's judgement of each."""
    import os
    import tomllib

    from anchorcheck.memory.memoryfiles import ReferenceReading, load

    labels = tomllib.loads(labels_path.read_text(encoding="utf-8"))
    verdicts = {f"{p['file']}:{p['line']} | {p['anchor']}": p["judged"] for p in labels.get("proposal", [])}
    os.chdir(root)  # memory files are shown as the command shows them: relative to where it runs
    verifier = Verifier(root)
    suggester = Suggester(verifier, implicit_checked=True)
    counts: Counter[str] = Counter()
    proposed: dict[str | None, int] = {}
    files: dict[str, Counter[str]] = {}
    for shown, memories in load([], verifier.repo, verifier.registry, verifier.config.memory_files):  # as `suggest` reads them
        seen = files.setdefault(shown, Counter())
        for memory in memories:
            typed = [a for a in memory.anchors if isinstance(a, str)]
            found = suggester.suggest(memory.text, typed)
            proposed[memory.id] = len(found)
            seen["memories"] += 1
            seen["anchored"] += bool(typed or found)
            for s in found:
                key = f"{shown}:{memory.position.line if memory.position else 0} | {s.anchor}"
                counts[verdicts.get(key, "unjudged")] += 1
                if key not in verdicts:
                    print(f"unjudged: {key}")
    reading = ReferenceReading(verifier.repo, frozenset(verifier.config.implicit))
    for shown, memories in load([], verifier.repo, verifier.registry, verifier.config.memory_files, reading):  # as `check` reads them
        files.setdefault(shown, Counter())["checked"] += sum(bool(m.anchors or proposed.get(m.id)) for m in memories)
    right, wrong = counts["right"], counts["wrong"]
    tuned = "tuned on" if labels.get("tuned") else "not tuned on"
    print(f"{labels['repository']} @ {labels['commit'][:12]} ({tuned}): {right + wrong + counts['unjudged']} proposals, "
          f"{right} judged right, {wrong} wrong, {counts['unjudged']} unjudged: {100 * right / max(right + wrong, 1):.0f}% right")
    for shown, seen in sorted(files.items()):
        if seen["memories"]:
            print(f"  {shown}: {seen['memories']} memories, {seen['anchored']} with a typed anchor after --write, "
                  f"{seen['checked']} checked by `check` (implicit references too)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", nargs="*", help="the corpus directory, or with --cold the memory files")
    parser.add_argument("--cold", type=Path, help="time a first run in this checkout against --baseline")
    parser.add_argument("--baseline", default="fe8e608", help="git revision of this project to compare with (--cold)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--judged", type=Path, metavar="LABELS", help="compare with a person's judgement (benchmarks/judged/*.toml)")
    parser.add_argument("--root", type=Path, help="the checkout the labels were made on (--judged)")
    args = parser.parse_args()
    if args.judged is not None:
        judged(args.judged, (args.root or Path(".")).resolve())
        return
    if args.cold is not None:
        cold(args.cold.resolve(), args.corpus or ["AGENTS.md"], args.baseline, args.runs)
        return
    corpus = Path(args.corpus[0]) if args.corpus else DEFAULT
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
