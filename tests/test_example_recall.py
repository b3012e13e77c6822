"""The documented recall wrapper (examples/verified_recall.py) on a real repository and store."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO_ROOT

EXAMPLE = REPO_ROOT / "examples" / "verified_recall.py"
STORE = """\
version = 1

[[memory]]
id = "cache-module"
text = "The cache lives in src/cache.py."
anchors = ["file:src/cache.py"]

[[memory]]
id = "cache-adr"
text = "The cache design is recorded in ADR 7."
anchors = ["file:docs/adr/0007-cache.md"]

[[memory]]
id = "deploys"
text = "Deploys need the on-call lead's approval."
"""


def _run(root, policy: str) -> str:  # noqa: ANN001
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), "--root", str(root), "--policy", policy, str(root / "team.memories.toml"), "cache"],
        capture_output=True, text=True, check=True,
    )
    return done.stdout


def test_mark_and_filter_policies(make_tree) -> None:  # noqa: ANN001
    root = make_tree({"src/cache.py": "x\n", "team.memories.toml": STORE})
    marked = _run(root, "mark").splitlines()
    assert marked[0] == "- The cache lives in src/cache.py."
    assert marked[1] == "- The cache design is recorded in ADR 7."
    assert marked[2].strip().startswith("(contradicted by the code: file:docs/adr/0007-cache.md")
    assert len(marked) == 3, "the query 'cache' does not recall the deploy memory"
    filtered = _run(root, "filter").splitlines()
    assert filtered == ["- The cache lives in src/cache.py.", "(1 memory left out: the current code contradicts them.)"]


def test_write_a_memory_from_prose_drift_the_code_recall_it_marked_and_filtered(make_repo) -> None:  # noqa: ANN001
    pyproject = '[project]\nname = "app"\nversion = "1"\ndependencies = ["redis>=5"]\n'
    code = "import redis\n\n\nclass RedisCache:\n    def get(self, key):\n        return redis.Redis().get(key)\n"
    root = make_repo({"pyproject.toml": pyproject, "src/app/__init__.py": "", "src/app/cache.py": code})
    store = root / "team.memories.toml"
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), "--root", str(root), str(store), "--remember", "The cache reads through Redis with RedisCache.get."],
        capture_output=True, text=True, check=True,
    )
    assert done.stdout == "stored m1: sym:py:app.cache.RedisCache.get pkg:pypi/redis import:redis in:src/app/cache.py\n"
    assert _run(root, "mark") == "- The cache reads through Redis with RedisCache.get.\n"
    (root / "src/app/cache.py").write_text(code.replace("def get(", "def fetch("))
    marked = _run(root, "mark").splitlines()
    assert marked[1].strip().startswith("(contradicted by the code: sym:py:app.cache.RedisCache.get")
    assert _run(root, "filter").splitlines() == ["(1 memory left out: the current code contradicts them.)"]
