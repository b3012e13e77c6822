"""`anchorcheck init` — set a repository up: the configuration, a pre-commit hook and a GitHub workflow.

Each file is written only where none exists: init never overwrites (a file already there is named,
and nothing is written), so it is safe to run in a repository that has some of them.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from anchorcheck.cli.common import UsageError, add_root, root_of

CONFIG = """\
# anchorcheck's settings (README: Configuration). Unknown keys are errors.
fail-on = "refuted"   # or "inconclusive": fail on what could not be checked too
implicit = true       # also check the paths, commands and packages written in prose
# exclude = ["generated/"]
"""

# The README shows this block as written (tests/test_precommit.py runs it with the real pre-commit).
PRE_COMMIT = """\
# .pre-commit-config.yaml
repos:
  - repo: local
    hooks:
      - id: anchorcheck
        name: anchorcheck (all memory files)
        entry: anchorcheck check
        language: system        # the anchorcheck on PATH
        always_run: true        # a code edit can make a memory stale
        pass_filenames: false
        require_serial: true
        verbose: true           # warnings pass the commit and are shown
"""

WORKFLOW = """\
# .github/workflows/anchorcheck.yml: memories checked on every push and pull request
name: memories
on: [push, pull_request]
permissions:
  contents: read
  security-events: write     # the SARIF upload
jobs:
  anchorcheck:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0     # lets span citations follow renames since they were banked
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      - run: pip install anchorcheck
      - run: anchorcheck check --format github      # annotations on the pull request
      - run: anchorcheck check --format sarif --output anchorcheck.sarif
        if: always()
      - run: anchorcheck check --format markdown --quiet >> "$GITHUB_STEP_SUMMARY"
        if: always()
      - uses: github/codeql-action/upload-sarif@v3
        if: always()
        with:
          sarif_file: anchorcheck.sarif
"""

FILES = {".anchorcheck.toml": CONFIG, ".pre-commit-config.yaml": PRE_COMMIT, ".github/workflows/anchorcheck.yml": WORKFLOW}


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("init", help="write the configuration, a pre-commit hook and a GitHub workflow (never overwrites)")
    add_root(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    root = Path(root_of(args))
    there = [name for name in FILES if os.path.lexists(root / name)]
    if there:
        raise UsageError(f"{root / there[0]}: already exists; init writes nothing over a file (remove it, or add what you need by hand)")
    for name, text in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "x", encoding="utf-8") as handle:
            handle.write(text)
        print(f"wrote {name}")
    print("next: install the hook with `pre-commit install`; a repository with stale memories already: `anchorcheck baseline`")
    return 0
