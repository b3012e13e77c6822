"""The task (Taskfile), go, docker compose and turbo runners."""

from __future__ import annotations

from anchorcheck import Verdict
from tests._cmd_support import check, package, verdicts
from tests.conftest import write_tree

V, R, I = Verdict.VERIFIED, Verdict.REFUTED, Verdict.INCONCLUSIVE

TASKFILE = """\
version: "3"

includes:
  docs: ./docs
  ops:
    taskfile: ./ops/Taskfile.yml
    aliases: [o]
  shared:
    taskfile: ./shared.yml
    flatten: true
  local:
    taskfile: ./Taskfile.local.yml
    optional: true

tasks:
  default:
    cmds: [task --list]
  lint:install:
    cmds: [go install golangci-lint]
  lint:
    aliases: [l]
    cmds: [golangci-lint run]
  start:*:
    cmds: ["echo {{.MATCH}}"]
"""


def test_taskfile_tasks_aliases_includes(tmp_path) -> None:
    root = write_tree(
        tmp_path,
        {
            "Taskfile.yml": TASKFILE,
            "docs/Taskfile.yaml": "version: '3'\ntasks:\n  build:\n    cmds: [mkdocs build]\n",
            "ops/Taskfile.yml": "version: '3'\ntasks:\n  deploy:\n    cmds: [echo]\n",
            "shared.yml": "version: '3'\ntasks:\n  fmt:\n    cmds: [gofmt]\n",
            "sub/Taskfile.yml": "version: '3'\ntasks:\n  only-here:\n    cmds: [echo]\n",
            "src/main.go": "",
        },
    )
    got = verdicts(
        root,
        "task", "task lint", "task l", "task lint:install", "task lint VERBOSE=1", "task docs:build", "task ops:deploy",
        "task o:deploy", "task fmt", "task start:web", "task --list", "task lint fmt", "cmd:task lint in:src/",
        "task -d sub only-here", "task -t docs build", "task nosuch", "task docs:nosuch", "task lint:fix",
    )
    assert got == {
        "task": V, "task lint": V, "task l": V, "task lint:install": V, "task lint VERBOSE=1": V, "task docs:build": V,
        "task ops:deploy": V, "task o:deploy": V, "task fmt": V, "task start:web": V, "task --list": V, "task lint fmt": V,
        "cmd:task lint in:src/": V, "task -d sub only-here": V, "task -t docs build": V,
        "task nosuch": R, "task docs:nosuch": R, "task lint:fix": R,
    }
    [lint] = check(root, "task lint")
    assert (lint.evidence[0].path, lint.evidence[0].line) == ("Taskfile.yml", 20)
    root = write_tree(tmp_path / "spaced", {"Taskfile.yml": "version: '3'\ntasks:\n\n  build:\n    cmds: [make]\n"})
    [build] = check(root, "task build")
    assert (build.evidence[0].path, build.evidence[0].line) == ("Taskfile.yml", 4)  # not the blank line above it


def test_taskfile_open_world_and_absence(tmp_path) -> None:
    root = write_tree(tmp_path / "a", {"Taskfile.yml": "version: '3'\nincludes:\n  x: '{{.ROOT}}/x'\ntasks:\n  a:\n    cmds: [echo]\n"})
    assert verdicts(root, "task a", "task b") == {"task a": V, "task b": I}
    root = write_tree(tmp_path / "b", {"Makefile": "all:\n"})
    assert verdicts(root, "task a") == {"task a": R}
    root = write_tree(tmp_path / "c", {"Taskfile.yml": "tasks: [\n"})
    [broken] = check(root, "task a")
    assert broken.verdict is I and "Taskfile.yml:" in broken.reason and "invalid YAML" in broken.reason


def test_an_optional_include_that_is_not_here_may_hold_the_tasks_of_its_namespace(tmp_path) -> None:
    """`optional: true` includes are often each developer's own file (`Taskfile.local.yml`): not being here,
    it may still define `local:anything`, and with `flatten: true` any task at all."""
    root = write_tree(tmp_path / "a", {"Taskfile.yml": TASKFILE.replace("./Taskfile.local.yml", "./Taskfile.local.yml\n    aliases: [my]"), "shared.yml": "version: '3'\n", "docs/Taskfile.yml": "version: '3'\n", "ops/Taskfile.yml": "version: '3'\n"})
    got = verdicts(root, "task local:setup", "task my:setup", "task nosuch", "task ops:nosuch")
    assert got == {"task local:setup": I, "task my:setup": I, "task nosuch": R, "task ops:nosuch": R}
    [local] = check(root, "task local:setup")
    assert local.reason.endswith("Taskfile.yml:11 includes ./Taskfile.local.yml as local: where there is one, and it is not in the repository")
    flat = "version: '3'\nincludes:\n  mine:\n    taskfile: ./mine.yml\n    optional: true\n    flatten: true\ntasks:\n  a:\n    cmds: [echo]\n"
    root = write_tree(tmp_path / "b", {"Taskfile.yml": flat})
    assert verdicts(root, "task a", "task b") == {"task a": V, "task b": I}


def test_go_packages(tmp_path) -> None:
    root = write_tree(
        tmp_path,
        {
            "go.mod": "module github.com/acme/app\n\ngo 1.22\n",
            "main.go": "package main",
            "cmd/server/main.go": "package main",
            "internal/llm/prompt/prompt.go": "package prompt",
            "internal/empty/README.md": "",
            "tools/gen.go": "package main",
        },
    )
    got = verdicts(
        root,
        "go run .", "go run ./cmd/server --port 8080", "go build ./...", "go test ./internal/... -update", "go test -race ./internal/llm/prompt -run TestX",
        "go test -count=1 ./internal/llm/prompt", "go run tools/gen.go", "go run github.com/acme/app/cmd/server", "go mod tidy",
        "go vet ./...", "go generate ./...", "cd internal && go test ./...",
        "go run ./cmd/worker", "go test ./internal/empty", "go run tools/gone.go", "go test ./pkg/...",
        "go run golang.org/x/tools/cmd/stringer", "go install golang.org/x/tools/gopls@latest", "go version",
    )
    assert got == {
        "go run .": V, "go run ./cmd/server --port 8080": V, "go build ./...": V, "go test ./internal/... -update": V,
        "go test -race ./internal/llm/prompt -run TestX": V, "go test -count=1 ./internal/llm/prompt": V, "go run tools/gen.go": V,
        "go run github.com/acme/app/cmd/server": V, "go mod tidy": V, "go vet ./...": V, "go generate ./...": V,
        "cd internal && go test ./...": V,
        "go run ./cmd/worker": R, "go test ./internal/empty": R, "go run tools/gone.go": R, "go test ./pkg/...": R,
        "go run golang.org/x/tools/cmd/stringer": I, "go install golang.org/x/tools/gopls@latest": I, "go version": I,
    }
    root = write_tree(tmp_path / "nomod", {"main.go": "package main"})
    assert verdicts(root, "go run .") == {"go run .": R}


COMPOSE = """\
services:
  web:
    build: .
  "db":
    image: postgres:16
  worker:
    image: app
include:
  - ops/observability.yml
"""


def test_compose_services(tmp_path) -> None:
    root = write_tree(
        tmp_path,
        {
            "compose.yaml": COMPOSE,
            "compose.override.yaml": "services:\n  mailhog:\n    image: mailhog\n",
            "ops/observability.yml": "services:\n  grafana:\n    image: grafana\n",
            "docker-compose.test.yml": "services:\n  tests:\n    image: app\n",
        },
    )
    got = verdicts(
        root,
        "docker compose up", "docker compose up -d web db", "docker compose run --rm -e X=1 worker python -m app", "docker compose logs -f --tail 10 web",
        "docker compose exec -u root db psql", "docker compose up grafana", "docker compose up mailhog", "docker-compose build web",
        "docker compose -f docker-compose.test.yml run tests", "docker compose down", "docker compose ps",
        "docker compose up cache", "docker compose -f docker-compose.test.yml run web", "docker compose -f gone.yml up",
        "docker compose up --some-new-flag web2", "docker build -t app .", "docker run --rm app && docker compose up nosuch",
    )
    assert got == {
        "docker compose up": V, "docker compose up -d web db": V, "docker compose run --rm -e X=1 worker python -m app": V,
        "docker compose logs -f --tail 10 web": V, "docker compose exec -u root db psql": V, "docker compose up grafana": V,
        "docker compose up mailhog": V, "docker-compose build web": V, "docker compose -f docker-compose.test.yml run tests": V,
        "docker compose down": V, "docker compose ps": V,
        "docker compose up cache": R, "docker compose -f docker-compose.test.yml run web": R, "docker compose -f gone.yml up": R,
        "docker compose up --some-new-flag web2": I,  # web2 may be the unknown option's value
        "docker build -t app .": I,  # not a compose command: not read
        "docker run --rm app && docker compose up nosuch": R,
    }
    [unread] = check(root, "docker build -t app .")
    assert "not a runner anchorcheck reads" in unread.reason
    [db] = check(root, "docker compose up db")
    assert [(e.path, e.line) for e in db.evidence][-1] == ("compose.yaml", 4)
    root = write_tree(tmp_path / "none", {"Makefile": "all:\n"})
    assert verdicts(root, "docker compose up web") == {"docker compose up web": R}


def test_turbo_tasks(tmp_path) -> None:
    turbo = '{\n  // comments are allowed\n  "tasks": {\n    "build": {"outputs": ["dist/**"]},\n    "web#e2e": {},\n    "//#lint": {},\n  },\n}\n'
    root = write_tree(
        tmp_path,
        {
            "turbo.json": turbo,
            "package.json": package("root", {"build": "turbo run build"}, devDependencies={"turbo": "^2"}),
            "apps/docs/turbo.json": '{"extends": ["//"], "tasks": {"docs:gen": {}}}',
            "apps/docs/package.json": package("docs", {}),
        },
    )
    got = verdicts(
        root, "turbo run build", "turbo build --filter=web", "turbo e2e", "turbo lint", "turbo docs:gen", "pnpm turbo build",
        "npx turbo run build lint", "turbo run nosuch", "turbo login",
    )
    assert got == {
        "turbo run build": V, "turbo build --filter=web": V, "turbo e2e": V, "turbo lint": V, "turbo docs:gen": V,
        "pnpm turbo build": V, "npx turbo run build lint": V, "turbo run nosuch": R, "turbo login": I,
    }
    [build] = check(root, "turbo build")
    assert (build.evidence[0].path, build.evidence[0].line) == ("turbo.json", 4)
    root = write_tree(tmp_path / "pipeline", {"turbo.json": '{"pipeline": {"test": {}}}'})
    assert verdicts(root, "turbo test", "turbo build") == {"turbo test": V, "turbo build": R}


def test_turbo_in_a_package_that_extends_the_root_config(tmp_path) -> None:
    """A package turbo.json with `"extends": ["//"]` is not turbo's root: from its folder the root's tasks
    run too (`turbo test` in frontend/ was REFUTED because frontend/turbo.json alone lacks test)."""
    root = write_tree(
        tmp_path,
        {
            "turbo.json": '{"tasks": {"build": {}, "test": {"dependsOn": ["build"]}}}',
            "apps/web/turbo.json": '{"extends": ["//"], "tasks": {"build:islands": {}}}',
            "apps/web/package.json": package("web", {"test": "vitest"}),
        },
    )
    got = verdicts(root, "cd apps/web && turbo test", "cd apps/web && turbo build:islands", "cd apps/web && turbo nosuch")
    assert got == {"cd apps/web && turbo test": V, "cd apps/web && turbo build:islands": V, "cd apps/web && turbo nosuch": R}
    [nosuch] = check(root, "cd apps/web && turbo nosuch")
    assert "no task nosuch in turbo.json" in nosuch.reason


def test_turbo_with_a_path_where_a_task_goes_concludes_nothing(tmp_path) -> None:
    """`turbo test src/x.test.ts`: a path is no task name anyone defines; whether turbo passes it on or fails
    is not for a reader of turbo.json to say, and it must not refute the task written before it."""
    root = write_tree(tmp_path, {"turbo.json": '{"tasks": {"test": {}}}'})
    [result] = check(root, "turbo test src/__tests__/lru.test.ts")
    assert result.verdict is I and "src/__tests__/lru.test.ts" in result.reason and "--" in result.reason
    assert verdicts(root, "turbo nosuch src/x.test.ts") == {"turbo nosuch src/x.test.ts": R}
