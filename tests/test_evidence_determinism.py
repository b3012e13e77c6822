"""The same anchor on the same tree cites the same places, whatever the cache holds and whichever
command asked (issue 15): cold, warm, after other anchors filled the cache, `anchor` and `check`."""

from __future__ import annotations

import json

from tests._source_support import write
from tests.conftest import init_repo

from anchorcheck import Verifier
from anchorcheck.cli import main
from anchorcheck.evidence.index import SourceIndex

ANCHORS = ["import:redis", "env:REDIS_URL"]


def _tree(tmp_path):
    files = {f"pkg/m{i:02}.py": f"import os\nimport redis\nURL = os.environ['REDIS_URL']\nX = {i}\n" + "Y = 1\n" * i for i in range(12)}
    files.update({f"tests/test_{i}.py": "import redis\nimport os\nos.getenv('REDIS_URL')\n" for i in range(3)})
    files["MEMORY.md"] = "- Redis caches lookups. `import:redis` `env:REDIS_URL`\n"
    root = write(tmp_path / "repo", files)
    init_repo(root)
    return root


def _cli(args, capsys):  # noqa: ANN001, ANN202
    main(args)
    results = json.loads(capsys.readouterr().out)["results"]
    return {r["anchor"]: (r["reason"], [(e["path"], e["line"]) for e in r["evidence"]]) for r in results}


def test_evidence_does_not_depend_on_the_cache_or_the_command(tmp_path, capsys, monkeypatch):
    root = _tree(tmp_path)
    monkeypatch.setenv("ANCHORCHECK_CACHE_DIR", str(tmp_path / "cache"))
    cold = _cli(["anchor", "--root", str(root), "--format", "json", *ANCHORS], capsys)
    warm = _cli(["anchor", "--root", str(root), "--format", "json", *ANCHORS], capsys)
    # Another cache, filled first by a whole-tree index: every file's facts are known.
    monkeypatch.setenv("ANCHORCHECK_CACHE_DIR", str(tmp_path / "other"))
    SourceIndex.of(Verifier(root).context).everything()
    full = _cli(["anchor", "--root", str(root), "--format", "json", *ANCHORS], capsys)
    checked = _cli(["check", "--root", str(root), "--format", "json", str(root / "MEMORY.md")], capsys)
    uncached = _cli(["anchor", "--no-cache", "--root", str(root), "--format", "json", *ANCHORS], capsys)
    # In one process, after the same files were parsed for other anchors.
    verifier = Verifier(root, options={"cache": False})
    verifier.check("import:os")
    verifier.check("env:OTHER")
    same_process = {a: (r.reason, [(e.path, e.line) for e in r.evidence]) for a in ANCHORS for r in [verifier.check(a)]}
    assert cold == warm == full == checked == uncached == same_process, (cold, full)
    assert [path for path, _ in cold["import:redis"][1]] == ["pkg/m00.py", "pkg/m01.py", "pkg/m02.py"]
