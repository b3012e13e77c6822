"""Commands from real instruction files, checked against the real runner configurations of their repositories.

Each corpus folder holds a repository's instruction files and runner configs
at one commit, and FILES.txt, its tracked paths; the tree is rebuilt in a
temp folder (configs as stored, other tracked paths as empty files) so that
package folders, modules and binaries exist as they do in the repository.
The commands are copied from the instruction files; a command written in a
nested file carries that file's folder as `in:`. The REFUTED ones are real
stale commands: crush's AGENTS.md names Go packages that were moved.
"""

from __future__ import annotations

import re

import pytest

from anchorcheck import Verdict
from tests._cmd_support import materialize, needs_instructions, verdicts

V, R, I = Verdict.VERIFIED, Verdict.REFUTED, Verdict.INCONCLUSIVE

# What the commands below need to exist besides the configs: Rust binaries, Go and Python packages.
_NEEDED = re.compile(r"(^|/)(src/main\.rs|src/bin/[^/]+|[^/]+\.go|__init__\.py|__main__\.py)$")

CASES = {
    "oxc": {
        "just ready": V, "just new-rule <name>": V, "just allocs": V, "just submodules": V, "just conformance": V,
        "cargo coverage -- parser": V, "cargo lintgen": V, "cargo lint-timings": V, "cargo test -p oxc_semantic": V,
        "cargo test -p <crate>": I, "cargo insta review": I,
        "cd napi/parser && pnpm run build-test && pnpm test": V, "cd napi/transform && pnpm run build-test && pnpm test": V,
        "cmd:pnpm build-napi in:apps/oxfmt/AGENTS.md": V, "cmd:cargo test -p website_formatter in:apps/oxfmt/": V,
        "cmd:just formatter-schema-json in:apps/oxfmt/": V, "cmd:cargo coverage semantic in:crates/oxc_semantic/": V,
        "just nosuch": R, "cargo test -p oxc_nosuch": R,
    },
    "ruff": {
        "cargo dev generate-all": V,  # alias dev = run --package ruff_dev --bin ruff_dev
        "cargo run --package ty_completion_eval -- show-one <fixture-name> --file-name <file-name>": V,
        "uv run --only-group dev --locked prek run --all-files": V, "cargo nextest": I, "uv run <script>": I,
    },
    "prometheus": {
        "make lint": V,  # `%: common-%` in the included Makefile.common makes it from common-lint
        "make test": V, "make build": V, "make assets": V, "make nosuch": R,
        "go test -count=6 -benchmem -bench <directory changed in PR>": I,
    },
    "pydantic-ai": {
        "make install": V, "make lint": V, "make format": V, "make typecheck": V, "make test": V,
        "uv run pytest path/to/test.py::test_name": V, "cmd:uv run --env-file .env pytest --record-mode=rewrite <test> in:tests/": V,
        "uv run clai": V, "uv tool install pre-commit": I,
    },
    "gemini-cli": {
        "npm run preflight": V, "npm run build:all": V, "npm run test:e2e": V, "npm install": V,
        "cmd:npm test -w @google/gemini-cli-core -- src/path/to/file.test.ts in:packages/core/": V,
        "npm test -w gemini-cli-vscode-ide-companion": V, "npm test -w @google/gemini-cli-sdk": V,
        "npm install -g pnpm@10": I, "npm test -w <pkg> -- <path>": I, "make test": V, "npm run nosuch": R,
    },
    "langfuse": {
        "pnpm run dev:web": V, "pnpm tc": V, "pnpm run seed -- list": V, "pnpm --filter web run test <file>": V,
        "pnpm --filter worker run test <file>": V, "pnpm --filter @langfuse/shared run db:generate": V,
        "cmd:pnpm --filter @langfuse/ee run lint:fix in:ee/": V, "pnpm --filter web ...": I,
        "docker compose -f docker-compose.dev.yml up -d": V, "docker compose -f docker-compose.dev.yml up -d postgres clickhouse": V,
        "pnpm turbo build": V, "pnpm --filter nosuch run dev": R, "docker compose -f docker-compose.dev.yml up nosuch": R,
    },
    "vercel-ai": {
        "pnpm install": V, "pnpm build": V, "pnpm type-check:full": V, "pnpm update-references": V,
        "cmd:pnpm test:node in:packages/ai/": V, "cmd:pnpm build:watch in:packages/ai/": V,  # "run these from a package directory"
        "pnpm test:node": R,  # ... and not from the root
    },
    "crush": {
        "task lint": V, "task lint:fix": V, "task test": V, "task modernize": V, "task dev": V,
        "go test ./...": V, "go run .": V, "go build .": V,
        "go test ./internal/llm/prompt -run TestGetContextFromPaths": R,  # moved: internal/llm/ is gone
        "go test ./internal/tui/components/core -update": R,  # moved: internal/tui/ is gone
    },
    "sentry-python": {
        # tox.ini is generated: 838 environments in 827 KB, stored gzip-compressed
        "uv run tox -e py3.14-common": V, "uv run tox -e py3.10-mcp-v1.15.0": V, "uv run tox -e py3.12-gevent": V,
        "uv run tox -e py3.14-nosuch": R, "uv run --group typing mypy sentry_sdk": V, "uv run ruff format tests sentry_sdk": V,
        "uv run tox -e py3.14-{integration}-v{version}": I, "uv run tox -e <env>": I,
        # the dev group declares pre-commit, not prek
        "uv run --only-group dev --locked prek run --all-files": R,
    },
    "scikit-build-core": {
        "nox -s tests -- -k test_foo": V, "nox -t gen": V, "nox --non-interactive -s docs": V, "nox -s minimums": V,
        "uv sync": V, "nox -s nosuch": R,
    },
}


@needs_instructions
@pytest.mark.parametrize("name", sorted(CASES))
def test_real_commands(name: str, tmp_path) -> None:
    root = materialize(name, tmp_path, keep=lambda path: bool(_NEEDED.search(path)))
    assert verdicts(root, *CASES[name]) == CASES[name]
