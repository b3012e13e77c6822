"""Issue 28 finding 9: suggestions people accept. What agents write (a path in plain prose, a dotted name
a test fake also defines) gets anchors; protocol words are no packages; a `tests_integ/` folder is tests;
`--write` appends at the end of the bullet, leaves import-only files alone, writes no percent-encoding and
proposes nothing `check` already reads from the text."""

from __future__ import annotations

import json
from pathlib import Path

import anchorcheck
from anchorcheck.cli import main
from anchorcheck.evidence.goals import classify

SESSION = "class Session:\n    def send_ping(self):\n        return 'pong'\n"
PYPROJECT = '[project]\nname = "pkg"\nversion = "1"\ndependencies = ["redis>=5"]\n'


def _anchors(root: Path, text: str) -> list[str]:
    return [s.anchor for s in anchorcheck.suggest(root, text)]


def test_a_path_in_plain_prose_and_a_dotted_name_a_test_fake_also_defines(make_repo) -> None:  # noqa: ANN001
    root = make_repo({
        "src/pkg/__init__.py": "", "src/pkg/client/__init__.py": "", "src/pkg/client/session.py": SESSION,
        "tests/fakes.py": SESSION,  # a fake of the same class: not what a memory about the SDK means
    })
    assert _anchors(root, "The session is in src/pkg/client/session.py, next to the transport.") == ["file:src/pkg/client/session.py"]
    assert _anchors(root, "Ping the server with Session.send_ping.") == ["sym:py:pkg.client.session.Session.send_ping"]
    assert _anchors(root, "It is not in src/pkg/server/session.py.") == []  # a path that is not there proposes nothing


def test_protocol_words_are_no_packages(make_repo) -> None:  # noqa: ANN001
    gomod = "module example.com/app\n\ngo 1.22\n\nrequire github.com/gorilla/websocket v1.5.0\n"
    root = make_repo({"go.mod": gomod, "main.go": 'package main\n\nimport "github.com/gorilla/websocket"\n\nvar _ = websocket.Upgrader{}\n'})
    assert _anchors(root, "Streams go over WebSocket to the browser.") == []
    assert _anchors(root, "The server upgrades with the websocket library.")[:1] == ["pkg:golang/github.com/gorilla/websocket"]


def test_a_tests_integ_folder_is_tests_not_production(make_repo) -> None:  # noqa: ANN001
    assert [classify(p) for p in ("tests_integ/test_a.py", "integration-tests/a.py", "src/latest/a.py", "src/contest.py")] == [
        "test", "test", "production", "production",
    ]
    root = make_repo({
        "pyproject.toml": PYPROJECT, "src/pkg/__init__.py": "", "src/pkg/cache.py": "import redis\n",
        "tests_integ/test_cache.py": "import redis\n",
    })
    assert _anchors(root, "We cache with Redis.") == ["pkg:pypi/redis", "import:redis in:src/pkg/cache.py"]


def test_write_appends_at_the_end_and_leaves_imports_and_implicit_references_alone(make_repo, monkeypatch, capsys) -> None:  # noqa: ANN001
    package = {"name": "web", "dependencies": {"@tanstack/react-query": "^5.0.0"}}
    agents = (
        "- Queries go through `@tanstack/react-query`. Keep them in hooks.\n"
        "  - nested detail\n"
        "- Scripts live in `scripts/build.sh`, see scripts/build.sh.\n"
        "\n"
        "Config is read by src/config.ts. It is loaded once at start.\n"
        "And it is cached.\n"
    )
    root = make_repo({
        "package.json": json.dumps(package), "src/config.ts": "export const x = 1\n", "scripts/build.sh": "echo\n",
        "AGENTS.md": agents, "CLAUDE.md": "@AGENTS.md\n",
    })
    monkeypatch.chdir(root)
    assert main(["suggest", "--write", "--root", str(root), "AGENTS.md", "CLAUDE.md"]) == 0
    assert (root / "CLAUDE.md").read_text() == "@AGENTS.md\n"
    assert (root / "AGENTS.md").read_text() == (
        "- Queries go through `@tanstack/react-query`. Keep them in hooks. `pkg:npm/@tanstack/react-query`\n"
        "  - nested detail\n"
        "- Scripts live in `scripts/build.sh`, see scripts/build.sh.\n"  # checked as an implicit reference already
        "\n"
        "Config is read by src/config.ts. It is loaded once at start.\n"
        "And it is cached. `file:src/config.ts`\n"
    )
    assert "%40" not in (root / "AGENTS.md").read_text()
    assert main(["check", "--root", str(root), "AGENTS.md"]) == 0


def test_the_packaged_word_list_answers_without_the_english_words_distribution() -> None:
    """Issue 28 finding 12: the 17 MB `english-words` dependency is gone; the packaged list is the same web2 list."""
    from importlib.metadata import PackageNotFoundError, requires

    from anchorcheck.base.english import english_words, is_english

    assert len(english_words()) == 234_450
    assert [is_english(w) for w in ("click", "rich", "running", "stopped", "redis", "zod", "pflag")] == [True, True, True, True, False, False, False]
    try:
        needs = requires("anchorcheck") or []
    except PackageNotFoundError:  # run from a tree that is not installed
        needs = []
    assert not any(r.lower().startswith("english-words") for r in needs)


def test_the_repository_own_project_is_no_dependency(make_repo) -> None:  # noqa: ANN001
    """The mcp SDK's AGENTS.md says "the published `mcp` wheel": its examples depend on `mcp`, but the word names the project."""
    example = '[project]\nname = "demo-server"\nversion = "1"\ndependencies = ["zorbly", "anyio"]\n'
    root = make_repo({
        "pyproject.toml": '[project]\nname = "zorbly"\nversion = "1"\ndependencies = ["anyio"]\n',
        "examples/server/pyproject.toml": example, "src/zorbly/__init__.py": "import anyio\n",
    })
    assert _anchors(root, "The published `zorbly` wheel pins its types.") == []
    assert _anchors(root, "Async code uses `anyio`.")[:1] == ["pkg:pypi/anyio"]


def test_a_link_target_is_not_read_again_as_a_prose_path(make_repo) -> None:  # noqa: ANN001
    """A SKILL.md's `[a.md](./references/a.md)`: `check` reads the link; `suggest` proposed a `file:` for it as prose."""
    root = make_repo({"skills/x/SKILL.md": "- Open [a.md](./references/a.md) or [b](references/b.md) for more.\n", "skills/x/references/a.md": "a\n", "skills/x/references/b.md": "b\n"})
    assert main(["suggest", "--check", "--root", str(root), str(root / "skills/x/SKILL.md")]) == 0


def test_a_file_name_is_no_negated_package_and_the_maker_is_no_package(make_repo) -> None:  # noqa: ANN001
    """openai-agents-python's AGENTS.md: "Do not require `pyproject.toml`" became `!pkg:pypi/pyproject.toml`, and every
    "OpenAI API", "OpenAI platform" became `pkg:pypi/openai` (the repository's project is openai-agents)."""
    root = make_repo({
        "pyproject.toml": '[project]\nname = "zorbly-agents"\nversion = "1"\ndependencies = ["zorbly"]\n',
        "src/zorbly_agents/__init__.py": "import zorbly\n",
    })
    assert not [a for a in _anchors(root, "Do not require `pyproject.toml` to already hold the version.") if a.startswith("!pkg:")]
    assert _anchors(root, "For Zorbly platform probes, use the docs.") == []
    assert _anchors(root, "The client wraps `zorbly`.")[:1] == ["pkg:pypi/zorbly"]


def test_an_import_scope_is_drawn_from_every_importer_not_the_first_ones(make_repo) -> None:  # noqa: ANN001
    """The import check cites its first importers only: pydantic, imported across openai-agents' src/, was
    proposed as `import:pydantic in:src/agents/sandbox/` from the three files it happened to cite."""
    files = {f"src/pkg/sandbox/m{i}.py": "import pydantic\n" for i in range(4)}
    files.update({"src/pkg/__init__.py": "", "src/pkg/tools.py": "from pydantic import BaseModel\n", "src/pkg/config.py": "URL = 'pydantic-free'\n"})
    root = make_repo({**files, "pyproject.toml": PYPROJECT.replace("redis>=5", "pydantic")})
    assert _anchors(root, "Schemas are Pydantic models.") == ["pkg:pypi/pydantic"]  # no scope rather than a wrong one
    (root / "src/pkg/tools.py").write_text("BaseModel = object\n")  # now sandbox/ holds every importer
    assert _anchors(root, "Schemas are Pydantic models.") == ["pkg:pypi/pydantic", "import:pydantic in:src/pkg/sandbox/"]


def test_the_module_form_is_the_import_path(make_repo) -> None:  # noqa: ANN001
    """openai-agents' `agent_span()` became `sym:py:create.agent_span`: true for the lenient resolver, but no import path."""
    root = make_repo({
        "src/pkg/__init__.py": "", "src/pkg/tracing/__init__.py": "",
        "src/pkg/tracing/create.py": "def agent_span():\n    return 1\n",
    })
    assert _anchors(root, "Spans come from `agent_span()`.") == ["sym:py:pkg.tracing.create.agent_span"]


def test_a_workspace_package_of_the_monorepo_is_no_dependency(make_repo) -> None:  # noqa: ANN001
    """The MCP TypeScript SDK's CLAUDE.md describes `@modelcontextprotocol/client`, a package of the monorepo
    that the others depend on as `workspace:^`: it became `pkg:npm/@modelcontextprotocol/client`."""
    node = {"name": "@acme/node", "devDependencies": {"@acme/client": "workspace:^", "zod": "^3.0.0"}}
    root = make_repo({"packages/node/package.json": json.dumps(node), "package.json": json.dumps({"name": "root", "private": True, "workspaces": ["packages/*"]})})
    assert _anchors(root, "**`@acme/client`** holds the client.") == []
    assert _anchors(root, "Schemas use `zod`.") == ["pkg:npm/zod"]


def test_a_package_in_code_after_not_is_what_is_not_used(make_repo) -> None:  # noqa: ANN001
    """oxc's formatter notes: "Parses with `oxc_parser`, not `serde_json`" became `pkg:cargo/serde-json`."""
    cargo = '[package]\nname = "fmt"\nversion = "0.1.0"\n\n[dependencies]\nserde_json = "1"\n'
    root = make_repo({"Cargo.toml": cargo, "src/lib.rs": "pub fn f() {}\n"})
    assert _anchors(root, "Parses with its own parser, not `serde_json`.") == []
    assert _anchors(root, "Output is written with `serde_json`.") == ["pkg:cargo/serde-json"]
