"""The document's structure says where a command runs: a heading, a folder after the command, a `cd` in its block."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import git, init_repo, write_tree
from tests.test_implicit_check import results

AGENTS = """\
# Project

Build the bundle with `npm run build` in web/.
Run `npm run lint` before a commit.
Run `npm run nosuch` too.

## Python bindings

Build a wheel with `make wheel`.

```sh
cd core
make engine
```

## Docs

Run `make wheel` here too.
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    write_tree(
        tmp_path,
        {
            "AGENTS.md": AGENTS,
            "package.json": json.dumps({"name": "root", "scripts": {"test": "x"}}),
            "web/package.json": json.dumps({"name": "web", "scripts": {"build": "vite build", "lint": "eslint ."}}),
            "python/Makefile": "wheel:\n\techo\n",
            "core/Makefile": "engine:\n\techo\n",
            "docs/index.md": "# Docs\n",
        },
    )
    init_repo(tmp_path)
    return tmp_path


def verdicts(repo: Path) -> dict[tuple[int, str], tuple[str, str]]:
    return {(r["line"], r["details"]["written"]): (r["verdict"], r["anchor"], r["reason"]) for r in results(repo) if r.get("implicit")}


def test_a_folder_written_after_a_command_is_where_it_runs(repo: Path) -> None:
    verdict, anchor, _ = verdicts(repo)[(3, "npm run build")]
    assert (verdict, anchor) == ("VERIFIED", "cmd:npm run build in:web/")


def test_a_heading_naming_a_folder_scopes_the_commands_under_it(repo: Path) -> None:
    got = verdicts(repo)
    assert got[(9, "make wheel")][:2] == ("VERIFIED", "cmd:make wheel in:python/")
    assert got[(13, "make engine")][:2] == ("VERIFIED", "cmd:make engine in:core/")  # `cd core` scopes the rest of its block


def test_a_command_some_other_configuration_defines_is_never_refuted(repo: Path) -> None:
    got = verdicts(repo)
    verdict, _, reason = got[(4, "npm run lint")]
    assert verdict == "INCONCLUSIVE" and "defined in web/package.json" in reason
    verdict, _, reason = got[(18, "make wheel")]  # under "## Docs": docs/ has no Makefile, python/ defines it
    assert verdict == "INCONCLUSIVE" and "python/Makefile" in reason
    # no configuration defines it, nor ever did: an example or a hallucination, not stale (issue 27)
    verdict, _, reason = got[(5, "npm run nosuch")]
    assert verdict == "INCONCLUSIVE" and "never defined in package.json" in reason


def test_a_folder_named_later_in_the_commands_sentence_is_read_first_and_a_rename_there_is_stale(tmp_path: Path) -> None:
    """rspack's "- `pnpm run test:base` - Integration tests (in `tests/rspack-test`)": the script is that folder's; read
    only at the root it was "never defined", so renaming it there went unseen. A folder the words after a command
    name only in passing ("runs the tests in `tests/`") leaves the root's reading standing."""
    write_tree(
        tmp_path,
        {
            "AGENTS.md": "- `npm run test:base` - Integration tests (in `tests/e2e`)\n- `make check` runs the checks in `tests/`\n",
            "package.json": json.dumps({"name": "root", "scripts": {"build": "x"}}),
            "tests/e2e/package.json": json.dumps({"name": "e2e", "scripts": {"test:base": "rs test"}}),
            "tests/unit.txt": "x\n",
            "Makefile": "check:\n\techo\n",
        },
    )
    init_repo(tmp_path)
    got = verdicts(tmp_path)
    assert got[(1, "npm run test:base")][:2] == ("VERIFIED", "cmd:npm run test:base in:tests/e2e/")
    assert got[(2, "make check")][:2] == ("VERIFIED", "cmd:make check")
    (tmp_path / "tests/e2e/package.json").write_text(json.dumps({"name": "e2e", "scripts": {"test:integration": "rs test"}}))
    git(tmp_path, "commit", "-qam", "rename the integration script")
    verdict, _, reason = verdicts(tmp_path)[(1, "npm run test:base")]
    assert verdict == "REFUTED" and "rename the integration script" in reason


def test_an_unfinished_sentence_over_a_list_that_says_where_to_run_places_the_list(tmp_path: Path) -> None:
    """penpot's Serena memory: "From the `mcp/` directory, run" then "* `pnpm run fmt` to apply the auto-formatter",
    with no colon. The root's package.json once had `fmt` and lost it; mcp/package.json has it. Read from the file's
    folder and the root, the command was REFUTED by the root's history; the list is where the sentence runs it."""
    write_tree(
        tmp_path,
        {
            "notes/mcp/core.md": "# MCP\n\nFrom the `mcp/` directory, run\n\n* `pnpm run fmt` to format\n\nSee `mcp/` for more\n\n* `pnpm run lint` at the top\n",
            "package.json": json.dumps({"name": "root", "scripts": {"fmt": "prettier -w ."}}),
            "mcp/package.json": json.dumps({"name": "mcp", "scripts": {"fmt": "prettier -w packages/"}}),
        },
    )
    init_repo(tmp_path)
    (tmp_path / "package.json").write_text(json.dumps({"name": "root", "scripts": {"lint": "eslint ."}}))
    git(tmp_path, "commit", "-qam", "move formatting into the packages")
    got = {(r["line"], r["details"]["written"]): (r["verdict"], r["anchor"]) for r in results(tmp_path, "notes/mcp/core.md")}
    assert got[(5, "pnpm run fmt")] == ("VERIFIED", "cmd:pnpm run fmt in:mcp/")
    verdict, anchor = got[(9, "pnpm run lint")]  # a sentence that says nothing of running places nothing
    assert verdict == "VERIFIED" and "in:mcp/" not in anchor


def test_a_path_in_a_used_to_sentence_is_read_when_here_and_stale_only_if_the_line_said_it_while_it_was(tmp_path: Path) -> None:
    """localsend's AGENTS.md: "`packages/core/src/http/server/` implements protocol v2 ... and an internal `show` endpoint
    used to foreground an already-running instance." "Used to" hid the whole sentence as a past one, so moving the
    folder went unseen. What comes before "used to" is read hedged: here now, VERIFIED; moved after the line was
    written, a warning naming where it went (review: "`deploy.sh` used to be how we deployed" stays true once the
    script is deleted, and the words cannot tell it from a purpose, so never an error); edited into the past in the
    commit that took it, unread. What follows it ("used to live in `old.toml`") may be the old place and is not
    read, as after "no longer"."""
    write_tree(
        tmp_path,
        {
            "AGENTS.md": "# Notes\n\n`src/server/` serves the API and a `show` endpoint used to foreground the app.\n\n"
            "`conf/settings.toml` used to hold the secrets too; settings used to live in `old.toml`.\n\n`legacy/` holds the v1 API.\n",
            "src/server/main.py": "x = 1\n",
            "conf/settings.toml": "a = 1\n",
            "old.toml": "a = 1\n",
            "legacy/api.py": "x = 1\n",
        },
    )
    init_repo(tmp_path)
    got = verdicts(tmp_path)
    assert got[(3, "src/server/")][0] == got[(5, "conf/settings.toml")][0] == "VERIFIED" and (5, "old.toml") not in got
    git(tmp_path, "rm", "-rq", "conf", "old.toml")
    git(tmp_path, "commit", "-qm", "settings go to the environment")  # the line was written while conf/ was here...
    (tmp_path / "AGENTS.md").write_text((tmp_path / "AGENTS.md").read_text().replace("holds", "used to hold"))
    git(tmp_path, "rm", "-rq", "legacy")
    git(tmp_path, "commit", "-qam", "drop the v1 API")  # ...and this one in the commit that took legacy/
    git(tmp_path, "mv", "src/server", "src/http")
    git(tmp_path, "commit", "-qm", "rename the server package")
    got = verdicts(tmp_path)
    verdict, anchor, reason = got[(3, "src/server/")]
    assert verdict == "INCONCLUSIVE" and "src/http" in reason and 'says "used to"' in reason
    assert (7, "legacy/") not in got  # edited to the past as the folder went: no claim of it now
    assert got[(5, "conf/settings.toml")][0] == "INCONCLUSIVE"  # said while it was here: a past, or a purpose
    assert (5, "old.toml") not in got  # what follows "used to" may be the old place: never read


def test_a_path_in_a_sentence_dated_before_it_went_is_a_record_not_a_stale_claim(tmp_path: Path) -> None:
    """netdata's skills: "Hit 2026-05-07 in `docs/network-flows/retention-querying.md`." records where a pitfall was
    met; the docs moved under `docs/npm/` in June and the record stays true. A sentence dated before the commit that
    took the path is a warning naming both; one dated after it was wrong on its own day, and one with no date (or a
    date in code) is judged as any other. A sentence wraps: the date may stand on a line before the path."""
    write_tree(
        tmp_path,
        {
            "AGENTS.md": "# Pitfalls\n\nHit 2026-05-07 in `docs/flows/retention.md`.\n\nSee `docs/flows/retention.md` for retention.\n\n"
            "On 2999-01-01 `docs/flows/retention.md` was checked again.\n\nRun `docs/flows/retention.md` as of `2026-05-07`.\n\n"
            "- Angle brackets break MDX.\n  Hit 2026-05-07 in\n  `docs/flows/retention.md`. Fixed\n  in `docs/flows/limits.md` too.\n\n"
            "Last updated 2026-05-07\nRead `docs/flows/guide.md` first.\n",
            "docs/flows/retention.md": "# Retention\n",
            "docs/flows/limits.md": "# Limits\n",
            "docs/flows/guide.md": "# Guide\n",
        },
    )
    init_repo(tmp_path)
    git(tmp_path, "mv", "docs/flows", "docs/npm")
    git(tmp_path, "commit", "-qm", "move the flows docs")
    got = verdicts(tmp_path)
    verdict, _, reason = got[(3, "docs/flows/retention.md")]
    assert verdict == "INCONCLUSIVE" and "dates itself 2026-05-07" in reason and "docs/npm/retention.md" in reason
    assert got[(5, "docs/flows/retention.md")][0] == got[(7, "docs/flows/retention.md")][0] == got[(9, "docs/flows/retention.md")][0] == "REFUTED"
    assert got[(13, "docs/flows/retention.md")][0] == "INCONCLUSIVE"  # the date on the sentence's line before (netdata's)
    assert got[(14, "docs/flows/limits.md")][0] == "REFUTED"  # a sentence of its own, undated
    assert got[(17, "docs/flows/guide.md")][0] == "REFUTED"  # review: a stamp over a new sentence dates nothing in it


def test_a_lead_in_that_names_a_folder_in_plain_words_places_the_block_below(tmp_path: Path) -> None:
    """vendure's CLAUDE.md: "**From packages/dev-server:**" over a block of `npm run populate`, a script of
    packages/dev-server/package.json that the root's dropped long ago: answered at the root, it read as written after
    it went (a warning naming a 2018 commit). A lead-in naming a folder of two or more segments in plain words places
    the block there; "From CI/CD:" is no folder."""
    write_tree(tmp_path, {"package.json": '{"scripts": {"populate": "node seed.js", "build": "tsc"}}\n'})
    init_repo(tmp_path)
    write_tree(tmp_path, {
        "package.json": '{"scripts": {"build": "tsc"}}\n',
        "packages/dev-server/package.json": '{"scripts": {"populate": "node seed.js", "dev": "node ."}}\n',
        "AGENTS.md": "# Dev\n\n**From packages/dev-server:**\n\n```bash\nnpm run populate\nnpm run dev\n```\n\n"
        "From CI/CD:\n\n```bash\nnpm run build\n```\n",
    })
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "the dev server gets its own package")
    got = verdicts(tmp_path)
    assert got[(6, "npm run populate")][0] == got[(7, "npm run dev")][0] == "VERIFIED", got
    assert "in:packages/dev-server" in got[(6, "npm run populate")][1]
    assert got[(13, "npm run build")][0] == "VERIFIED" and "in:" not in got[(13, "npm run build")][1]


def test_a_shell_comment_with_a_quote_in_it_is_dropped_and_the_command_read(tmp_path: Path) -> None:
    """localsend's "cargo test --features full       # in packages/core — see "Core crate features" below": a quote
    after the `#` was taken for an open string, so the comment stayed in the command; with an apostrophe
    ("# don't skip this") the line did not split as a shell splits it and the command was not read at all."""
    write_tree(
        tmp_path,
        {
            "AGENTS.md": '# Checks\n\n```bash\nmake test   # don\'t skip this\nnpm run build  # see "Build" below\n```\n',
            "Makefile": "test:\n\techo\n",
            "package.json": json.dumps({"name": "root", "scripts": {"build": "tsc"}}),
        },
    )
    init_repo(tmp_path)
    got = verdicts(tmp_path)
    assert got[(4, "make test")][:2] == ("VERIFIED", "cmd:make test")
    assert got[(5, "npm run build")][:2] == ("VERIFIED", "cmd:npm run build")
    (tmp_path / "Makefile").write_text("check:\n\techo\n")
    git(tmp_path, "commit", "-qam", "rename the test target")
    verdict, _, reason = verdicts(tmp_path)[(4, "make test")]
    assert verdict == "REFUTED" and "rename the test target" in reason


def test_a_name_two_readings_of_which_were_here_means_the_last_to_go(tmp_path: Path) -> None:
    """bitwarden's `.claude/CLAUDE.md`: "2. `CONTRIBUTING.md` (read on demand)". A `.claude/CONTRIBUTING.md` came and
    went after the line was written, while the root's stayed; when the root's moved, history's first reading (the
    memory file's folder) made it "which one the text means cannot be told", INCONCLUSIVE. The text resolved to the
    root's until it moved: that move is what made it false."""
    write_tree(tmp_path, {".claude/CLAUDE.md": "# Review\n\n2. `CONTRIBUTING.md` (read on demand)\n", "CONTRIBUTING.md": "# How\n"})
    init_repo(tmp_path)
    (tmp_path / ".claude/CONTRIBUTING.md").write_text("# For the agent\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "a guide for the agent")
    git(tmp_path, "rm", "-q", ".claude/CONTRIBUTING.md")
    git(tmp_path, "commit", "-qm", "drop the agent's guide")
    assert results(tmp_path, ".claude/CLAUDE.md")[0]["verdict"] == "VERIFIED"
    (tmp_path / "docs").mkdir()
    git(tmp_path, "mv", "CONTRIBUTING.md", "docs/CONTRIBUTING.md")
    git(tmp_path, "commit", "-qm", "move the guide into docs")
    [result] = results(tmp_path, ".claude/CLAUDE.md")
    assert result["verdict"] == "REFUTED" and "docs/CONTRIBUTING.md" in result["reason"] and "move the guide" in result["reason"]


def _read(text: str) -> list[str]:
    from anchorcheck.memory.references import read_references

    return [r.anchor for r in read_references(text, claims=lambda argv: argv[0] in ("python", "uv", "make"))]


@pytest.mark.parametrize(
    "text",
    [
        "Do not create `src/utils/helpers.py`.",
        "| `lib/helpers.ts` | → FORBIDDEN |",
        "Load `.env.local` if it exists.",
        "Source `config/local.toml` (when present).",
        "If `docs/extra.md` exists, read it.",
    ],
)
def test_forbidden_and_conditional_names_are_no_claims(text: str) -> None:
    assert _read(text) == []


def test_what_is_there_is_still_read_beside_them() -> None:
    assert _read("Do not edit `src/gen.py`.") == ["file:src/gen.py"]
    assert _read("Do not add tests there when a `tasks/misc/` fixture covers it.") == ["file:tasks/misc/"]
    assert _read("Edit `src/a.py`; if `src/b.py` exists, edit it too.") == ["file:src/a.py"]


def test_a_file_a_block_downloads_or_writes_is_the_blocks() -> None:
    block = (
        "```sh\ncurl -sSL https://x.io/get.py -o get_deps.py\npython get_deps.py\nwget https://x.io/setup.py\n"
        "python setup.py\ngit clone https://github.com/a/b.git vendor/b\nmake -C vendor/b\nuv run tools/lint.py\n```\n"
    )
    assert _read(block) == ["cmd:uv run tools/lint.py"]
