"""`anchorcheck suggest` on the sentences a QA run on real repositories found wrongly typed.

Each repository is rebuilt in a temp dir (real git) with the files that made
the wrong proposal verify: the vitest and openai-agents-js AGENTS.md
sentences gave `!pkg:npm/...` from English words, flags and a typo, and
`sym:` anchors at "high" from generic words that one file happens to
define; uv's gave `pkg:cargo/windows` from the operating system. A control
beside each shows the source still proposes what the text does name.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import anchorcheck

PACKAGE_JSON = '{"name": "root", "private": true, "devDependencies": {"vite": "^7.0.0", "rimraf": "^6.0.0", "typescript": "^5.0.0"}}\n'

VITEST = {
    "package.json": PACKAGE_JSON,
    "packages/browser/src/client/tester/logger.ts": "function stderr(base: (...args: unknown[]) => void) {\n  return base\n}\nexport { stderr }\n",
    "test/test-utils/index.ts": "export async function runVitest(config: object) {\n  return { stderr: '', config }\n}\n",
}
VITEST_LINES = [
    "- `@vitest/mocker` is the exception: it is a runtime dependency of `vitest` and is never inlined. Rebuilding `vitest` will NOT pick up mocker changes; run `pnpm --filter @vitest/mocker build`.",
    "- `runVitest`/`runInlineTests` never throw and close the started Vitest automatically. Assert with `expect(stderr).toBe('')` plus `expect(testTree()).toMatchInlineSnapshot(...)`, or `errorTree()` for failures; output is ANSI-stripped and paths are normalized to `<root>/`. Check the returned `thrown` and `stderr` for startup errors.",
    "- CI runs the unit, e2e, coverage, and browser suites on Windows, plus an e2e leg on macOS. Vitest reports paths with forward slashes, so normalize `\\` to `/` before comparing against `import.meta.filename`, `process.execArgv`, or other raw OS paths. Never use unix-only commands like `rm -rf` or `cp -r` in package.json scripts; use a node script or rimraf.",
    "- Runtime code must not use APIs newer than the minimum Node version in `engines`. CI's main matrix runs newer Node versions with a single minimum-version e2e leg, so a breakage there may surface in only one CI job.",
    "- You MIGHT leave a comment if the line or a block of code deals with an edge case that is not ovbious from the context. In general, the naming SHOULD provide enough information. If you spread the logic between different files or functions and NEED to add a comment, reconsider the change - perhaps, there is a simpler solution.",
    "- Add deps with `pnpm add <pkg>` inside the target package: `catalogMode: prefer` writes `catalog:` into package.json and adds the version to the default catalog in `pnpm-workspace.yaml` automatically. To bump a shared dep, edit its catalog entry, never per-package ranges.",
    "- The workspace develops against the latest supported Vite major, but `vitest` supports the full peer range and CI runs a dedicated job against the previous major (`pnpm override-vite7` reproduces it locally). Do not rely on newest-Vite-only APIs without a fallback.",
]

AGENTS_JS = {
    "package.json": PACKAGE_JSON,
    ".agents/skills/runtime-behavior-probe/templates/typescript_probe.ts": "function finalize(exitCode: number): void {\n  process.exit(exitCode);\n}\nfinalize(0);\n",
}
AGENTS_JS_LINES = [
    "Treat `$code-change-verification` as the post-review final gate, not as an iterative review check. When `$implementation-final-review` applies, satisfy its clean-review condition before starting the repository-wide install, build, lint, typecheck, test, examples, integration, and format-check stack. Immediately before starting that stack, use available read-only task or process evidence to check for another broad test, typecheck, build, examples, or integration command already running on the same host. When concrete contention is visible, keep making progress on review, remediation, evidence preparation, or focused checks and defer the broad stack until capacity is available. Do not add a repository lock, host-wide mutex, sentinel file, or user-triggered `finalize` step. Lack of host telemetry alone is not a blocker.",
    "Before sending the final response for a task, inspect the actual task diff. If it includes runtime code, tests, examples, build/test configuration, or docs with behavior impact, invoke `$pr-draft-summary` to generate the required PR summary block, branch suggestion, title, and draft description. This is a mandatory close-out gate regardless of the perceived size of the change; do not classify an eligible runtime, test, example, or build/test configuration change as trivial. Run it after any required `$code-change-verification` and `$changeset-validation` work.",
    "- **Structural**: Changes documentation navigation, routes, page layout, `docs/astro.config.mjs`, sidebar configuration, docs build configuration, or documentation and translation generators such as `docs/src/scripts/**`. Run the applicable Content checks, `pnpm docs:build`, and `pnpm docs:scripts:check` when `docs/src/scripts/**` changes. Do not run `pnpm docs:translate` as routine verification and do not hand-edit generated translations.",
    "  NEVER USE `-w` or other watch modes.",
]

UV = {
    "Cargo.toml": (
        '[workspace]\nmembers = ["crates/*"]\n\n[workspace.dependencies]\n'
        'windows = { version = "0.61.0" }\ninsta = { version = "1.46.0" }\n'
    ),
    "crates/uv-fs/Cargo.toml": '[package]\nname = "uv-fs"\nversion = "0.1.0"\n\n[dependencies]\nwindows = { workspace = true }\n\n[dev-dependencies]\ninsta = { workspace = true }\n',
    "crates/uv-fs/src/lib.rs": "pub fn home() -> u32 {\n    1\n}\n",
}
UV_LINES = [
    "- When making changes for Windows from Unix, use `cargo xwin clippy` to check compilation",
    "- PREFER `insta` snapshots following patterns in nearby tests over substring assertions",
]


def proposals(root: Path, lines: list[str]) -> dict[str, list[tuple[str, str]]]:
    """Per sentence: the (anchor, confidence) proposals, from one suggester as the command runs it."""
    from anchorcheck.verify.suggestions import Suggester

    suggester = Suggester(anchorcheck.Verifier(root))
    return {line: [(s.anchor, s.confidence) for s in suggester.suggest(line)] for line in lines}


@pytest.fixture
def vitest(make_repo) -> Path:  # noqa: ANN001
    return make_repo(VITEST, "vitest")


def test_vitest_sentences_give_no_negated_package_and_no_generic_symbol(vitest: Path) -> None:
    found = proposals(vitest, VITEST_LINES)
    everything = [anchor for pairs in found.values() for anchor, _ in pairs]
    assert not [a for a in everything if a.startswith("!pkg:")], found  # inlined, unix-only, APIs, ovbious, per-package, newest-Vite-only
    assert not [a for a in everything if a.endswith("::stderr")], found  # `stderr` is the value runVitest returns
    # the distinctive name in the same sentence is still read, and rimraf (no English word) too
    assert ("sym:test/test-utils/index.ts::runVitest", "high") in found[VITEST_LINES[1]]
    assert ("pkg:npm/rimraf", "medium") in found[VITEST_LINES[2]]
    # an English word ("a typescript": a typed document) written with a capital inside is a name
    assert [s.anchor for s in anchorcheck.suggest(vitest, "The runtime is written in TypeScript.")] == ["pkg:npm/typescript"]


def test_agents_js_sentences_give_no_negated_package_and_no_generic_symbol(make_repo) -> None:  # noqa: ANN001
    root = make_repo(AGENTS_JS, "agents-js")
    found = proposals(root, AGENTS_JS_LINES)
    everything = [anchor for pairs in found.values() for anchor, _ in pairs]
    assert not [a for a in everything if a.startswith("!pkg:")], found  # classify, hand-edit, use (from "NEVER USE `-w`")
    assert not [a for a in everything if a.startswith("sym:")], found  # "user-triggered `finalize` step"


def test_uv_windows_is_the_system_not_the_crate(make_repo) -> None:  # noqa: ANN001
    root = make_repo(UV, "uv")
    found = proposals(root, UV_LINES)
    assert not [a for a, _ in found[UV_LINES[0]] if a.startswith("pkg:")], found
    assert ("pkg:cargo/insta", "high") in found[UV_LINES[1]]  # named in code: still read
    # a cue word says the text means the crate
    assert "pkg:cargo/windows" in [a for a, _ in proposals(root, ["Registry access uses the windows crate."])["Registry access uses the windows crate."]]


@pytest.mark.parametrize(
    ("text", "anchor"),
    [
        ("Do not add `lodash` to any package.", "!pkg:npm/lodash"),
        ("We never install `left-pad`.", "!pkg:npm/left-pad"),
        ("lodash is not a dependency.", "!pkg:npm/lodash"),
        ("`moment` is no longer a dependency.", "!pkg:npm/moment"),
        ("We don't use the axios library.", "!pkg:npm/axios"),
        ("We do not use Jest.", "!pkg:npm/jest"),
        ("Never add `@types/lodash`.", "!pkg:npm/@types/lodash"),  # as people write it: no percent-encoding into prose
    ],
)
def test_negations_that_clearly_name_a_package(vitest: Path, text: str, anchor: str) -> None:
    assert [s.anchor for s in anchorcheck.suggest(vitest, text)] == [anchor]


@pytest.mark.parametrize(
    "text",
    [
        "Do not use `any` in public types.",  # inline code after a mere "do not use": a type, a function, a flag
        "Never use `unwrap` there.",
        "We never inline it.",
        "Never use newest-Vite-only APIs.",
        "We do not use caching.",
        "It is not obvious.",
        "This is not a dependency.",  # a sentence's first word is no proper noun
        "Do not remove Lodash-specific code.",
    ],
)
def test_negations_without_a_package_name_propose_nothing(vitest: Path, text: str) -> None:
    assert [s.anchor for s in anchorcheck.suggest(vitest, text) if s.anchor.startswith("!")] == []


def test_generic_words_in_code_are_no_symbol_but_distinctive_ones_are(make_repo) -> None:  # noqa: ANN001
    root = make_repo({"src/probe.ts": "export function finalize(code: number): void {}\nexport class ProbeRunner {}\nexport const MAX_WAIT_MS = 5;\n"})
    found = {s.anchor: s.confidence for s in anchorcheck.suggest(root, "Call `finalize` from `ProbeRunner`; wait at most `MAX_WAIT_MS`.")}
    assert found == {"sym:src/probe.ts::ProbeRunner": "high", "sym:src/probe.ts::MAX_WAIT_MS": "high"}


def test_file_names_and_plural_acronyms_are_no_symbols(make_repo) -> None:  # noqa: ANN001
    root = make_repo({"src/run.ts": "export const run = { ts: 1 };\nexport class IDs {}\nexport class RunState {}\n"})
    found = [s.anchor for s in anchorcheck.suggest(root, "Edit run.ts and keep the IDs stable; `RunState` holds them.")]
    assert found == ["sym:src/run.ts::RunState"]
