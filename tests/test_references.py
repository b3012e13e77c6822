"""Reading implicit references from prose: what is read, what never is, and where it was written."""

from __future__ import annotations

import pytest

from anchorcheck.memory import references
from anchorcheck.model.reference import Reference
from anchorcheck.memory.references import apply_to, program_of, runner_claims
from anchorcheck.verify.loading import default_registry


def read_references(text: str, **kwargs: object) -> list[Reference]:
    """The references the installed plugins' runners let be read, unless a test names its own `claims`."""
    kwargs.setdefault("claims", runner_claims(default_registry()))
    return references.read_references(text, **kwargs)  # type: ignore[arg-type]


def runners(*programs: str):  # noqa: ANN201 - a claims predicate
    return lambda argv: program_of(argv) in programs


def anchors(text: str, **kwargs: object) -> list[str]:
    return [r.anchor for r in read_references(text, **kwargs)]  # type: ignore[arg-type]


def test_paths_in_inline_code_links_and_imports() -> None:
    text = (
        "The API is in `src/app/api.py`; decisions in [ADR 3](docs/adr/0003.md#context).\n"
        "@AGENTS.md\n"
        "See @docs/style.md for style, and `docs/adr/`.\n"
    )
    assert anchors(text) == [
        "file:src/app/api.py",
        "file:docs/adr/0003.md",
        "file:AGENTS.md",
        "file:docs/style.md",
        "file:docs/adr/",
    ]


def test_positions_are_where_the_token_was_written() -> None:
    [ref] = read_references("intro\n\n- Edit `src/x.py` first\n")
    assert (ref.line, ref.column, ref.end_column, ref.written, ref.form) == (3, 9, 17, "src/x.py", "code")
    [link] = read_references("see [it](docs/a.md)\n")
    assert (link.line, link.column, link.written, link.form) == (1, 10, "docs/a.md", "link")


def test_line_suffixes_and_test_ids_are_stripped() -> None:
    assert anchors("`src/app.py:12` `tests/test_x.py::test_y` `src/a.py#L3-L9`") == [
        "file:src/app.py",
        "file:tests/test_x.py",
        "file:src/a.py",
    ]


@pytest.mark.parametrize(
    "token",
    [
        "https://example.com/docs/a.md",  # URL
        "www.example.com/a",
        "/api/users",  # a URL route is returned only marked rooted (checked against the top-level folders)
        "~/.claude/CLAUDE.md",  # home path
        "path/to/file.py",  # placeholders
        "<name>/src/a.py",
        "your-project/src/a.py",
        "foo/bar",
        "src/.../a.py",
        "src/*.py",  # globs
        "**/AGENTS.md",
        "src/{a,b}.py",
        "Redis",  # bare words
        "crate::module::Item",  # a Rust path
        "@scope/pkg",  # a package outside an install command
        "and/or",
        "text/html",
        "$HOME/x.py",
    ],
)
def test_never_read(token: str) -> None:
    found = read_references(f"Use `{token}` here.\n")
    assert all(r.rooted for r in found) and (not found or token.startswith("/")), found


def test_a_host_rooted_path_is_read_only_as_a_loose_path() -> None:
    # `github.com/spf13/pflag` (a Go module path) or `ai.symfony.com/config/x.json` (a site's folder): the checker
    # keeps it only where a folder of that name is here (tests/test_drift_rules.py checks both through the CLI)
    [path] = [r for r in read_references("Use `github.com/spf13/pflag` here.\n") if r.kind == "file"]
    assert path.loose and not path.rooted and path.anchor == "file:github.com/spf13/pflag"


def test_a_dotted_name_is_read_only_as_a_loose_path() -> None:
    # `pydantic_ai.models` or `gradle.properties`: a dotted name or a root file; the checker keeps it only on evidence
    # (a file of that name where the text is read from, or history's word that one was there)
    [path] = [r for r in read_references("Use `pydantic_ai.models` here.\n") if r.kind == "file"]
    assert path.loose and path.anchor == "file:pydantic_ai.models"


def test_a_leading_slash_path_is_marked_rooted() -> None:
    [ref] = read_references("`/docs/index.md`")
    assert ref.rooted and ref.anchor == "file:docs/index.md"


def test_two_plain_words_are_loose_and_name_the_repository_of_the_sentence() -> None:
    refs = read_references("In `pydantic/pydantic-ai-harness` see `docs/index.md`. Then `docs/a.md`.\n")
    assert [(r.anchor, r.loose, r.after) for r in refs] == [
        ("file:pydantic/pydantic-ai-harness", True, ""),
        ("file:docs/index.md", False, "pydantic/pydantic-ai-harness"),
        ("file:docs/a.md", False, ""),
    ]


def test_commands_in_inline_code_and_shell_blocks() -> None:
    text = (
        "Run `pnpm test:unit` or `make lint`, never `git status` or `ls -la`.\n"
        "\n"
        "```bash\n"
        "# a comment\n"
        "cargo nextest run -p ty  # fast\n"
        "INSTA_UPDATE=always cargo test \\\n"
        "  -p ruff\n"
        "cd web && pnpm build\n"
        "echo done\n"
        "```\n"
        "\n"
        "```console\n"
        "$ just fmt\n"
        "output line\n"
        "```\n"
        "\n"
        "```python\n"
        "make = 'lint'  # not a shell block\n"
        "```\n"
        "\n"
        "```\n"
        "$ uv run pytest\n"
        "make lint\n"
        "```\n"
    )
    assert anchors(text, claims=runners("pnpm", "make", "cargo", "just", "uv")) == [
        "cmd:pnpm test:unit",
        "cmd:make lint",
        "cmd:cargo nextest run -p ty",
        "cmd:INSTA_UPDATE=always cargo test -p ruff",
        "cmd:cd web && pnpm build",
        "cmd:just fmt",
        "cmd:uv run pytest",
    ]
    shell = read_references(text, claims=runners("pnpm", "make", "cargo", "just", "uv"))[2]
    assert (shell.line, shell.column, shell.form) == (5, 1, "shell")


def test_commands_with_placeholders_are_not_read() -> None:
    text = (
        "`cargo test -p <crate>` `cargo test -p <formatter crate>` `cargo run --example x [filename]`"
        " `pnpm --filter @ai-sdk/{pkg} test` `make <b>`"
        " `uv run pytest tests/path/test_foo.py` `uv run ruff --include='src/mcp/path/foo.py'`"  # python-sdk's AGENTS.md
    )
    assert anchors(text, claims=runners("cargo", "pnpm", "make", "npm", "uv")) == []
    assert anchors("`uv run pytest tests/test_food.py` `uv run pytest tests/unit/`", claims=runners("uv")) == [
        "cmd:uv run pytest tests/test_food.py", "cmd:uv run pytest tests/unit/",
    ]


def test_every_call_of_a_chain_is_a_command_where_it_is_written() -> None:
    text = (
        "Run `make a && make b`, `npm run x | tee log`, `git pull; make c || true`.\n\n"
        "```sh\npnpm run db:migrate && pnpm run generate\ncd web && pnpm build | tee log\n"
        "mkdir out && cd out && make all\necho \"make d && make e\" && (cd x && make f)\n```\n"
    )
    found = read_references(text, claims=runners("make", "npm", "pnpm"))
    assert [(r.anchor, r.written, r.line, r.column) for r in found] == [
        ("cmd:make a", "make a", 1, 6),
        ("cmd:make b", "make b", 1, 16),
        ("cmd:npm run x", "npm run x", 1, 26),
        ("cmd:make c", "make c", 1, 59),
        ("cmd:pnpm run db:migrate", "pnpm run db:migrate", 4, 1),
        ("cmd:pnpm run generate", "pnpm run generate", 4, 24),
        ("cmd:cd web && pnpm build", "pnpm build", 5, 11),  # the `cd` before it says where it runs
        # `mkdir out && cd out && make all`: the folder the `cd` enters may be the one the block made; a subshell: not split
    ]


def test_a_command_continued_after_lines_that_set_its_environment_is_where_its_program_is() -> None:
    text = "```bash\nAPI_URL=\"$BASE/x\" \\\nPORT=3040 \\\npnpm dev\npnpm run build \\\n  --filter web\n```\n"
    found = read_references(text, claims=runners("pnpm"), kinds=("cmd", "env"))
    assert [(r.anchor, r.written, r.line, r.column) for r in found] == [
        ("env:API_URL", "API_URL", 2, 1),
        ("env:PORT", "PORT", 3, 1),
        ('cmd:API_URL="$BASE/x" PORT=3040 pnpm dev', "pnpm dev", 4, 1),
        ("cmd:pnpm run build --filter web", "pnpm run build --filter web", 5, 1),
    ]


def test_pnpm_graph_selectors_are_no_placeholders() -> None:
    text = "`pnpm -F agents-core... build` `pnpm --filter=...^@a/b test` `pnpm build ...`"
    assert anchors(text, claims=runners("pnpm")) == ["cmd:pnpm -F agents-core... build", "cmd:pnpm --filter=...^@a/b test"]


def test_a_registry_decides_which_programs_are_commands() -> None:
    text = "`mise run build` and `make lint`"
    assert anchors(text, claims=lambda argv: argv[0] == "mise") == ["cmd:mise run build"]
    assert anchors("`git status` `ls -la` `cd src`") == []


GLOBAL_INSTALLS = [
    "uv tool install ruff", "uv tool install --with x ruff@0.5", "uv tool run ruff check", "uvx ruff check", "uvx --from x y",
    "uv python install 3.12", "pipx install poetry", "pipx run black .", "npm i -g typescript", "npm install --global pnpm",
    "pnpm add -g turbo", "yarn global add serve", "bun add -g x", "bun create vite app", "cargo install cargo-nextest",
    "cargo install --locked just", "cargo +stable install x", "cargo binstall just", "go install golang.org/x/tools/gopls@latest",
    "GOFLAGS=-mod=mod go install x.org/y@v1.2.0", "brew install just", "docker run --rm -it img",
]


@pytest.mark.parametrize("command", GLOBAL_INSTALLS)
def test_a_global_tool_install_is_not_read(command: str) -> None:
    """Installing a tool for the user claims nothing about the repository: not read, in code or in a shell block."""
    assert anchors(f"Install it: `{command}`.") == []
    assert anchors(f"```sh\n{command}\n```\n") == []
    assert anchors(f"`cd web && {command}`") == []


def test_project_commands_of_the_same_tools_are_still_read() -> None:
    text = "`uv run pytest` `cargo test` `go install ./cmd/app` `npm run build` `bun test` `uvx` `docker compose up db`"
    assert anchors(text) == [
        "cmd:uv run pytest", "cmd:cargo test", "cmd:go install ./cmd/app", "cmd:npm run build", "cmd:bun test", "cmd:docker compose up db",
    ]


def test_install_commands_name_packages_in_their_ecosystem() -> None:
    text = (
        "`pip install redis 'httpx>=0.27'` `uv add --dev pytest` `npm i -D @types/node` `pnpm add zod`\n"
        "`yarn add axios` `cargo add serde` `go get github.com/spf13/pflag@v1.0.5` `poetry add rich`\n"
        "`pip install -e .` `npm install -g pnpm` `pip install --user x` `pip install -r requirements.txt`\n"
    )
    assert anchors(text) == [
        "pkg:pypi/redis",
        "pkg:pypi/httpx",
        "pkg:pypi/pytest",
        "pkg:npm/%40types/node",
        "pkg:npm/zod",
        "pkg:npm/axios",
        "pkg:cargo/serde",
        "pkg:golang/github.com/spf13/pflag",
        "pkg:pypi/rich",
    ]


def test_frontmatter_comments_and_typed_anchors_are_not_read_and_a_heading_s_code_is() -> None:
    text = (
        "---\napplyTo: \"src/**/*.py\"\ndescription: see `src/a.py`\n---\n"
        "# `src/heading.py`\n"
        "<!-- `src/comment.py` -->\n"
        "Typed: `file:src/typed.py` `pkg:pypi/redis`; read: `src/b.py`.\n"
    )
    assert anchors(text) == ["file:src/heading.py", "file:src/b.py"]


def test_folders_named_earlier_in_the_sentence_or_list_are_hints() -> None:
    text = (
        "The package lives in `src/skbuild/`:\n"
        "\n"
        "- `builder/` builds, see `builder.py`\n"
        "  - `generator.py` picks the generator\n"
        "- `settings.py` holds settings\n"
    )
    refs = {r.written: r.hints for r in read_references(text)}
    assert refs["builder/"] == ("src/skbuild/",)
    assert refs["builder.py"] == ("src/skbuild/", "builder/")
    assert refs["generator.py"] == ("src/skbuild/", "builder/")
    assert refs["settings.py"] == ("src/skbuild/",)


@pytest.mark.parametrize(
    ("front", "globs"),
    [
        ('applyTo: "**/*.ts,**/*.tsx"', ("**/*.ts", "**/*.tsx")),
        ("applyTo: 'web/**'", ("web/**",)),
        ('applyTo: ["a/**", "b/*.py"]', ("a/**", "b/*.py")),
        ("applyTo:\n  - web/**\n  - 'api/**'\ndescription: x", ("web/**", "api/**")),
        ('applyTo: ""', None),
        ("description: no applyTo", None),
        ("description: x\nglobs: src/**/*.ts, test/**\nalwaysApply: false", ("src/**/*.ts", "test/**")),  # Cursor
        ("globs:\nalwaysApply: true", None),
        ('paths:\n  - "src/api/**/*.ts"', ("src/api/**/*.ts",)),  # Claude Code rules
        ('inclusion: fileMatch\nfileMatchPattern: "components/**/*.tsx"', ("components/**/*.tsx",)),  # Kiro steering
    ],
)
def test_apply_to_front_matter(front: str, globs: tuple[str, ...] | None) -> None:
    assert apply_to(f"---\n{front}\n---\n- body\n") == globs
    assert apply_to(f"# Title\n\n{front}\n") is None  # only front matter says what a file applies to


def test_a_reference_round_trips_through_json() -> None:
    [ref] = read_references("`src/a.py`")
    assert Reference.from_dict(ref.to_dict()) == ref
    scoped = ref._replace(folder=".github/instructions", scopes=("web/src", "web"))  # what a process pool is sent
    assert Reference.from_dict(scoped.to_dict()) == scoped


def test_go_package_patterns_are_not_placeholders() -> None:
    assert anchors("`go test ./...` and `go test ./pkg/... -run X`", claims=runners("go")) == [
        "cmd:go test ./...",
        "cmd:go test ./pkg/... -run X",
    ]


GONE = [
    "`src/old.py` was removed.",
    "The missing file `django/nonexistent.py` was removed in 5.0.",
    "The CLI no longer reads `config/legacy.toml`.",
    "`lib/a.py` was renamed to `lib/b.py`.",
    "Settings used to live in `app/settings.py`.",
    "The parser moved from `src/parse.py` last year.",
    "`docs/old.md` does not exist any more.",
    "Run `npm run legacy` -- it was dropped from package.json.",
]


@pytest.mark.parametrize("text", GONE)
def test_a_sentence_about_what_is_gone_is_not_read(text: str) -> None:
    """What a sentence says was removed, renamed or elsewhere once may rightly be absent: read, it would make
    a true memory REFUTED. Precision first: nothing in such a sentence is read."""
    assert read_references(text) == []


def test_a_used_to_sentence_is_a_past_or_a_purpose_so_its_paths_are_hedged() -> None:
    """"`app/` used to hold the settings" and "`show`, an endpoint used to foreground `app/`" read alike: what comes
    before "used to" is read hedged (here now, or history shows the line said it while it was), what follows it not
    (it may be the old place: "used to live in `old/`"), and no command of the sentence is read."""
    got = read_references("`app/settings.py` or `make settings` is used to make `dist/settings.json`.", claims=lambda argv: True)
    assert [(r.anchor, r.hedged) for r in got] == [("file:app/settings.py", True)]


def test_the_present_and_the_future_are_still_read() -> None:
    assert [r.anchor for r in read_references("The parser moved to `src/parser.py`.")] == ["file:src/parser.py"]
    assert [r.anchor for r in read_references("It is removed when `apps/oxfmt` can do it.")] == ["file:apps/oxfmt"]
    assert [r.anchor for r in read_references("`a.py` was removed. The API is in `src/api.py`.")] == ["file:src/api.py"]


@pytest.mark.parametrize(
    "token",
    [
        "tests/ci/test_action_EventNameHere.py",  # a name to fill in
        "src/file_name_here.py",
        ".triage/issues/NNNN/results.md",  # an issue number to fill in
        "../NNNN/results.md",
        "notes/YYYY-MM-DD.md",
        "logs/XXXX.log",
        "refs/heads/main",  # git refs, not files
        "refs/tags/v1.2.0",
    ],
)
def test_placeholders_in_capitals_and_git_refs_are_never_read(token: str) -> None:
    assert read_references(f"Write it to `{token}` now.\n") == []


def test_a_version_after_a_slash_is_a_branch_read_only_below_a_folder_here() -> None:
    """`release/3.x` is a branch: the dot of a version is no sign of a file, so it is read loosely (only when
    release/ is a folder of the repository), like any two plain words."""
    [ref] = read_references("Target `release/3.x` for fixes.\n")
    assert ref.loose
    assert [r.loose for r in read_references("See `api/v1.2` and `src/app.py`.\n")] == [True, False]


def test_example_script_names_in_commands_are_not_read() -> None:
    text = "```bash\npython myagent.py dev\npython my_agent.py console\npython yourapp.py\npython scripts/gen.py\n```\n"
    assert anchors(text, claims=runners("python")) == ["cmd:python scripts/gen.py"]
    assert [r.anchor for r in read_references("`mypy.ini` and `myst.yml`\n")] == ["file:mypy.ini", "file:myst.yml"]


def test_installing_a_python_packaging_tool_with_pip_is_no_package_claim() -> None:
    """`pip install uv` (then `uv venv`) sets up the user's tools; the project need not declare uv.
    `uv add tox` adds tox to the project, and is read."""
    text = "`pip install uv` `python -m pip install poetry` `pip install pre-commit tox` `pip install uv redis` `uv add tox`\n"
    assert anchors(text) == ["pkg:pypi/redis", "pkg:pypi/tox"]


def test_a_generic_word_written_as_a_path_argument_is_a_placeholder() -> None:
    """`go test ./path -run TestName` (github-mcp-server's copilot instructions) names no folder: `./path` is the
    reader's package to fill in. `./cmd`, `./internal/...` and `src/dir/x.py` are still read."""
    text = "`go test ./path -run TestName` `go test ./dir/` `pytest ../file` `go test ./cmd` `go test ./internal/...`"
    assert anchors(text, claims=runners("go", "pytest")) == ["cmd:go test ./cmd", "cmd:go test ./internal/..."]
