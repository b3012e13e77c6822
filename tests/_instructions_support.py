"""The real instruction files of ../shared/corpora/instructions/, laid out as the checkouts they came from.

Each corpus folder holds a repository's instruction files, runner configs and
.gitignore files, and FILES.txt (or FILES.txt.gz): `git ls-files` at that
commit. `build_tree` writes every listed path into a directory: the files the
corpus holds with their real bytes (symbolic links kept as links), every other
one empty, so that whether a path exists is judged against the real tree.
Used by tests/test_implicit_corpus.py and benchmarks/implicit.py.
"""

from __future__ import annotations

import gzip
import os
import shutil
from pathlib import Path

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
    for rel in listing(corpus):
        source = corpus / rel
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            os.symlink(os.readlink(source), target)
        elif source.is_file():
            shutil.copyfile(source, target)
        elif rel.endswith(".gz") or not (corpus / (rel + ".gz")).is_file():
            target.touch()
        else:
            target.write_bytes(gzip.decompress((corpus / (rel + ".gz")).read_bytes()))
    for gitignore in corpus.rglob(".gitignore"):  # ignored files are never listed, the rules that ignore them are
        target = root / gitignore.relative_to(corpus)
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(gitignore, target)
    return root
