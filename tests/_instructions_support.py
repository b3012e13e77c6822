"""The real instruction files of ../shared/corpora/instructions/, laid out as the checkouts they came from.

Each corpus folder holds a repository's instruction files, runner configs and
.gitignore files, and FILES.txt (or FILES.txt.gz): `git ls-files` at that
commit. `build_tree` writes every listed path into a directory: the files the
corpus holds with their real bytes (symbolic links kept as links), every other
one empty, so that whether a path exists is judged against the real tree.
`implicit_rows` and `expected_rows` compare a check's implicit results with
the hand-reviewed tests/data/implicit_corpus.tsv. Used by
tests/test_implicit_corpus.py and benchmarks/implicit.py.
"""

from __future__ import annotations

import gzip
import os
import shutil
from pathlib import Path
from typing import Any

from tests.conftest import shared_corpus

CORPUS_NAMES = (
    "crush", "gemini-cli", "langfuse", "oxc", "prometheus", "pydantic-ai", "ruff", "scikit-build-core",
    "sentry-python", "vercel-ai",
)


INSTRUCTIONS = shared_corpus("instructions")


def listing(corpus: Path) -> list[str]:
    """The tracked paths of a corpus repository (FILES.txt, or its gzip-compressed form)."""
    plain = corpus / "FILES.txt"
    data = plain.read_bytes() if plain.is_file() else gzip.decompress((corpus / "FILES.txt.gz").read_bytes())
    return [line for line in data.decode("utf-8").splitlines() if line]


def build_tree(corpus: Path, root: Path) -> Path:
    """Write the corpus repository into `root`: real files where the corpus has them, empty ones elsewhere."""
    present = {
        os.path.relpath(os.path.join(folder, name), corpus).replace(os.sep, "/")
        for folder, _, names in os.walk(corpus)
        for name in names
    }
    made: set[str] = set()
    for rel in listing(corpus):
        folder = rel.rpartition("/")[0]
        if folder not in made:
            os.makedirs(root / folder, exist_ok=True)
            made.add(folder)
        source, target = corpus / rel, root / rel
        if rel not in present and rel + ".gz" not in present:
            open(target, "wb").close()  # noqa: SIM115 - an empty file, nothing to manage
        elif rel not in present:
            target.write_bytes(gzip.decompress((corpus / (rel + ".gz")).read_bytes()))
        elif source.is_symlink():
            os.symlink(os.readlink(source), target)
        else:
            shutil.copyfile(source, target)
    for rel in present:  # ignored files are never listed, the rules that ignore them are
        if rel.endswith(".gitignore") and not (root / rel).exists():
            os.makedirs((root / rel).parent, exist_ok=True)
            shutil.copyfile(corpus / rel, root / rel)
    return root

EXPECTED = Path(__file__).parent / "data" / "implicit_corpus.tsv"
Row = tuple[str, str, str, str]  # where written (file:line:column), token as written, anchor checked, verdict


def implicit_rows(report: dict[str, Any]) -> list[Row]:
    """The implicit results of a `check --format json -v` report, as rows of the reviewed file."""
    return [
        (f"{r['memory_file']}:{r['line']}:{r['column']}", r["details"]["written"], r["anchor"], r["verdict"])
        for r in report["results"]
        if r.get("implicit")
    ]


def expected_rows() -> dict[str, list[Row]]:
    """The hand-reviewed rows of tests/data/implicit_corpus.tsv, by corpus."""
    rows: dict[str, list[Row]] = {name: [] for name in CORPUS_NAMES}
    for line in EXPECTED.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            corpus, where, written, anchor, verdict = line.split("\t")
            rows[corpus].append((where, written, anchor, verdict))
    return rows
