"""`cmd:` anchors: the grammar (values with spaces), shell splitting, chains, `cd`, scopes, and unknown programs."""

from __future__ import annotations

import pytest

from anchorcheck import AnchorResult, AnchorSyntaxError, Evidence, Invocation, Runner, Verdict, Verifier, format_anchor, hookimpl, parse_anchor
from anchorcheck.cli import main
from tests._cmd_support import check, package, verdicts
from tests.conftest import init_repo, needs_git, write_tree

V, R, I = Verdict.VERIFIED, Verdict.REFUTED, Verdict.INCONCLUSIVE


def test_value_runs_to_the_end_and_round_trips() -> None:
    anchor = parse_anchor("cmd:cd web && pnpm run build")
    assert anchor.value == "cd web && pnpm run build" and anchor.scope is None
    assert parse_anchor(format_anchor(anchor)) == anchor
    scoped = parse_anchor("!cmd:pnpm test  in:web/")
    assert (scoped.value, scoped.scope, scoped.negated) == ("pnpm test", "web/", True)
    assert parse_anchor(format_anchor(scoped)) == scoped
    assert parse_anchor("cmd:   make lint   ").value == "make lint"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("cmd:echo 'unclosed", "cannot split"), ("cmd:  ", "expected a value"), ("cmd:$ ", "expected a command line")],
)
def test_malformed_command_lines_are_syntax_errors(text: str, fragment: str) -> None:
    with pytest.raises(AnchorSyntaxError, match=fragment):
        parse_anchor(text)


def test_shell_forms_around_the_runner_call(make_tree) -> None:
    root = make_tree({"package.json": package("app", {"build": "tsc", "lint": "eslint ."}), "web/package.json": package("web", {"dev": "vite"})})
    got = verdicts(
        root,
        "$ pnpm run build",
        "NODE_ENV=production CI=1 pnpm run build",
        "env -u HOME FOO=1 time pnpm run build",
        "pnpm run build 2>&1 | tee build.log > /dev/null",
        "cd web && pnpm dev",
        "(cd web && pnpm dev) && pnpm lint",
        "cd web; pnpm run build",
        "pnpm lint && pnpm run nosuch",
        "pnpm lint || true",
    )
    assert got == {
        "$ pnpm run build": V,
        "NODE_ENV=production CI=1 pnpm run build": V,
        "env -u HOME FOO=1 time pnpm run build": V,
        "pnpm run build 2>&1 | tee build.log > /dev/null": V,
        "cd web && pnpm dev": V,
        "(cd web && pnpm dev) && pnpm lint": V,  # the subshell's cd ends at `)`
        "cd web; pnpm run build": R,  # web/package.json has no build script
        "pnpm lint && pnpm run nosuch": R,
        "pnpm lint || true": V,
    }


def test_comments_and_hashes_inside_words(make_tree) -> None:
    root = make_tree({"turbo.json": '{"tasks": {"web#build": {}}}', "Makefile": "test:\n\techo\n"})
    got = verdicts(root, "turbo run web#build", "make test # don't forget: it's slow", "make test;# nosuch", "make '#nosuch'")
    assert got == {"turbo run web#build": V, "make test # don't forget: it's slow": V, "make test;# nosuch": V, "make '#nosuch'": R}


def test_a_chain_reports_each_failing_call(make_tree) -> None:
    root = make_tree({"package.json": package("app", {"lint": "x"})})
    [result] = check(root, "pnpm run lint && pnpm run nosuch")
    assert result.verdict is R and "`pnpm run nosuch`" in result.reason and "lint" not in result.reason.split(":")[0]


def test_cd_into_a_missing_folder(make_tree) -> None:
    root = make_tree({"package.json": package("app", {"build": "x"}), "napi/parser/package.json": package("p", {"t": "x"})})
    got = verdicts(
        root,
        "cd napi/transform && pnpm run t",  # moved: stale
        "pnpm run build && cd dist && pnpm run t",  # an earlier call may create dist/
        "cd $HOME/app && pnpm run build",
        "cd ../elsewhere && pnpm run build",
    )
    assert got["cd napi/transform && pnpm run t"] is R
    assert got["pnpm run build && cd dist && pnpm run t"] is I
    assert got["cd $HOME/app && pnpm run build"] is I
    assert got["cd ../elsewhere && pnpm run build"] is I


@needs_git
def test_cd_into_an_ignored_folder_is_not_refuted(tmp_path) -> None:
    root = write_tree(tmp_path, {".gitignore": "build/\n", "Makefile": "all:\n\techo\n"})
    init_repo(root)
    ignored, missing = check(root, "cd build && make", "cd nosuch && make")
    assert ignored.verdict is I and "failed" not in ignored.reason  # git says ignored: a build output, not an error
    assert missing.verdict is R


def test_an_ignored_folder_is_not_refuted_outside_git_either(tmp_path) -> None:
    # The ignore rules are read from the files, not asked of git: a tarball or a copied tree says the same.
    root = write_tree(tmp_path, {".gitignore": "build/\n", "web/.gitignore": "out/\n", "web/Makefile": "all:\n\techo\n", "Makefile": "all:\n\techo\n"})
    ignored, nested, missing = check(root, "cd build && make", "cd web/out && make", "cd nosuch && make")
    assert ignored.verdict is I and nested.verdict is I
    assert missing.verdict is R


@needs_git
def test_a_folder_ignored_by_the_checkout_s_own_exclude_file_is_not_refuted(tmp_path) -> None:
    root = write_tree(tmp_path, {"Makefile": "all:\n\techo\n"})
    init_repo(root)
    (root / ".git" / "info").mkdir(exist_ok=True)
    (root / ".git" / "info" / "exclude").write_text("scratch/\n")
    (ignored,) = check(root, "cd scratch && make")
    assert ignored.verdict is I


@needs_git
def test_ignore_files_that_lead_outside_the_checkout_are_not_read(tmp_path) -> None:
    # A hostile checkout may link its ignore files anywhere: they are confined like its config.
    outside = tmp_path / "outside.txt"
    outside.write_text("scratch/\nlocal/\n")
    root = write_tree(tmp_path / "repo", {"Makefile": "all:\n\techo\n"})
    init_repo(root)
    (root / ".git" / "info").mkdir(exist_ok=True)
    (root / ".git" / "info" / "exclude").unlink(missing_ok=True)
    (root / ".git" / "info" / "exclude").symlink_to(outside)
    (root / ".gitignore").symlink_to(outside)
    scratch, local = check(root, "cd scratch && make", "cd local && make")
    assert scratch.verdict is R and local.verdict is R


def test_in_scope_is_the_folder_the_command_runs_from(make_tree) -> None:
    root = make_tree({"package.json": package("app", {}), "web/package.json": package("web", {"test": "vitest"}), "web/AGENTS.md": "x"})
    got = verdicts(root, "cmd:pnpm test in:web/", "cmd:pnpm test in:web/AGENTS.md", "cmd:pnpm test", "cmd:pnpm test in:web/*", "cmd:pnpm test in:gone/")
    assert got == {
        "cmd:pnpm test in:web/": V,
        "cmd:pnpm test in:web/AGENTS.md": V,  # a file: its folder
        "cmd:pnpm test": R,
        "cmd:pnpm test in:web/*": I,
        "cmd:pnpm test in:gone/": I,
    }


def test_programs_no_runner_reads(make_tree) -> None:
    root = make_tree({"Makefile": "all:\n\techo\n"})
    [git, mixed] = check(root, "git status", "git pull && make all")
    assert git.verdict is I and "not a runner anchorcheck reads" in git.reason and git.state == "unread"
    assert mixed.verdict is V  # git is no claim about the repository; make all is


def test_negation_and_the_cli(make_tree, capsys) -> None:
    root = make_tree({"package.json": package("app", {"build": "x"})})
    assert Verifier(root).check("!cmd:npm run deploy").verdict is V
    code = main(["anchor", "--root", str(root), "--format", "json", "cmd:npm run build", "cmd:npm run deploy"])
    out = capsys.readouterr().out
    assert code == 1 and '"cmd:npm run deploy"' in out and "package.json" in out


def test_memory_file_code_spans(make_tree, capsys) -> None:
    root = make_tree(
        {
            "package.json": package("app", {"build": "x"}),
            "AGENTS.md": "- Build with `cmd:pnpm run build`.\n- Unit tests: `cmd:pnpm test:unit`\n",
        }
    )
    code = main(["check", "--root", str(root), str(root / "AGENTS.md")])
    out = capsys.readouterr().out
    assert code == 1
    assert "AGENTS.md:2:16: REFUTED cmd:pnpm test:unit" in out and "no script test:unit in package.json" in out


def test_runners_are_listed_by_the_plugins_command(capsys) -> None:
    main(["plugins"])
    out = capsys.readouterr().out
    assert "runners: " in out and "npm [runner-npm]" in out and "make [runner-make]" in out


class MiseRunner:
    """A third-party runner, registered as any plugin would: `mise run TASK` against mise.toml's [tasks]."""

    __name__ = "anchorcheck-mise"

    @staticmethod
    def verify(invocation: Invocation, context) -> AnchorResult:  # noqa: ANN001 - the runner signature
        if invocation.args[:1] == ("boom",):
            raise RuntimeError("bug in the runner")
        task = invocation.args[-1]
        text = context.repo.read_bytes("mise.toml").decode()
        if f"[tasks.{task}]" in text:
            return AnchorResult(invocation.text, V, f"task {task} is defined", [Evidence("mise.toml", 1, task)])
        return AnchorResult(invocation.text, R, f"no task {task} in mise.toml")

    @hookimpl
    def register_runners(self, register) -> None:  # noqa: ANN001 - hook signature
        register(Runner(name="mise", programs=("mise",), verify=self.verify, summary="mise tasks"))


def test_a_third_party_runner(make_tree) -> None:
    root = make_tree({"mise.toml": "[tasks.build]\nrun = 'cargo build'\n", "Makefile": "all:\n\techo\n"})
    verifier = Verifier(root, plugins=[MiseRunner()])
    assert verifier.check("cmd:mise run build").verdict is V
    assert verifier.check("cmd:mise run deploy && git push").verdict is R
    failed = verifier.check("cmd:mise boom")
    assert failed.verdict is I and "runner mise (anchorcheck-mise) failed: RuntimeError: bug in the runner" in failed.reason
    assert verifier.check("cmd:make all").verdict is V  # the built-in runners are still there


class BunRunner:
    """A third-party runner that claims programs a built-in runner claims too (bun and bunx, read by runner-npm)."""

    def __init__(self, name: str, programs: tuple[str, ...]) -> None:
        self.__name__ = name
        self.programs = programs

    def verify(self, invocation: Invocation, context) -> AnchorResult:  # noqa: ANN001 - the runner signature
        return AnchorResult(invocation.text, V, f"checked by {self.__name__}")

    @hookimpl
    def register_runners(self, register) -> None:  # noqa: ANN001 - hook signature
        register(Runner(name=self.__name__.removeprefix("anchorcheck-"), programs=self.programs, verify=self.verify))


def test_two_runners_claiming_a_program_warn_once_and_the_installed_one_checks_it(make_tree) -> None:
    from anchorcheck.verify.loading import PluginWarning

    root = make_tree({"package.json": package("app", {"build": "tsc"})})
    with pytest.warns(PluginWarning) as caught:
        verifier = Verifier(root, plugins=[BunRunner("anchorcheck-bun", ("bun", "bunx", "bunfig"))])
    messages = [str(w.message) for w in caught if issubclass(w.category, PluginWarning)]
    assert messages == [
        "runners 'bun' (plugin 'anchorcheck-bun') and 'npm' (plugin 'runner-npm') both claim bun, bunx: 'anchorcheck-bun' checks "
        "them; leave one plugin out (the `plugins` setting or ANCHORCHECK_PLUGINS) to choose"
    ]
    assert verifier.check("cmd:bun run nosuch").reason == "checked by anchorcheck-bun"  # the plugin a user installed wins
    assert verifier.check("cmd:npm run nosuch").verdict is R  # the built-in keeps the programs nobody else claims


def test_between_two_installed_runners_the_plugin_whose_name_sorts_first_checks(make_tree) -> None:
    from anchorcheck.verify.loading import PluginWarning

    root = make_tree({"mise.toml": ""})
    with pytest.warns(PluginWarning, match="runners 'a-mise' \\(plugin 'anchorcheck-a-mise'\\) and 'z-mise'"):
        verifier = Verifier(root, plugins=[BunRunner("anchorcheck-z-mise", ("mise",)), BunRunner("anchorcheck-a-mise", ("mise",))])
    assert verifier.check("cmd:mise run x").reason == "checked by anchorcheck-a-mise"
