"""Directory trees drawn in a code block are read as the paths they draw, under their root line."""

from __future__ import annotations

from pathlib import Path

from anchorcheck.memory.references import read_references
from anchorcheck.memory.trees import tree_entries
from tests.conftest import git, init_repo, write_tree
from tests.test_implicit_check import results

TREE = """\
# Layout

```text
web/
├── src/
│   ├── app.tsx        # entry
│   └── old.tsx
├── dist/              # build output
│   └── bundle.js
└── package.json
```
"""


def test_each_entry_is_its_parents_path_under_the_root() -> None:
    found = [(r.line, r.column, r.written, r.anchor) for r in read_references(TREE)]
    assert found == [
        (5, 5, "src/", "file:web/src/"),
        (6, 9, "app.tsx", "file:web/src/app.tsx"),
        (7, 9, "old.tsx", "file:web/src/old.tsx"),
        (8, 5, "dist/", "file:web/dist/"),
        (9, 9, "bundle.js", "file:web/dist/bundle.js"),
        (10, 5, "package.json", "file:web/package.json"),
    ]


def test_ascii_trees_two_column_levels_and_a_dot_root() -> None:
    lines = [".", "|-- a/", "|  `-- b.py", "`-- c.md", "    ...", "+-- d/"]
    assert [e.path for e in tree_entries(lines, 1)] == ["a/", "a/b.py", "c.md", "d/"]


def test_a_drawn_path_that_is_gone_is_refuted_and_a_build_output_is_not(tmp_path: Path) -> None:
    write_tree(tmp_path, {"AGENTS.md": TREE, "web/src/app.tsx": "", "web/src/old.tsx": "", "web/package.json": "{}", ".gitignore": "dist/\n"})
    init_repo(tmp_path)
    git(tmp_path, "rm", "-q", "web/src/old.tsx")  # gone in history: stale (a path that never existed is only INCONCLUSIVE)
    git(tmp_path, "commit", "-q", "-m", "drop old.tsx")
    verdicts = {r["anchor"]: r["verdict"] for r in results(tmp_path) if r.get("implicit")}
    assert verdicts == {
        "file:web/src/": "VERIFIED", "file:web/src/app.tsx": "VERIFIED", "file:web/src/old.tsx": "REFUTED",
        "file:web/dist/": "INCONCLUSIVE", "file:web/dist/bundle.js": "INCONCLUSIVE", "file:web/package.json": "VERIFIED",
    }
