"""What a CI job and a team adopting anchorcheck use: narrowing, baselines, ignore comments, output options,
`init`, the Markdown summary and the GitHub Action's script (run as the Actions runner would, without `act`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from anchorcheck.cli import main
from tests.conftest import REPO_ROOT, git, init_repo, needs_git, write_tree

pytestmark = needs_git

MEMORY = (
    "- The app is `file:src/app.py`.\n"
    "- The old entry point `file:src/gone.py`.\n"
    "- A draft, not a claim yet: `file:src/planned.py` <!-- anchorcheck-ignore -->\n"
    "- Cached with `pkg:pypi/redis`.\n"
)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = init_repo(write_tree(tmp_path / "repo", {"CLAUDE.md": MEMORY, "src/app.py": "", "src/gone.py": "", "pyproject.toml": '[project]\nname = "x"\nversion = "1"\ndependencies = ["flask"]\n'}))
    git(root, "rm", "-q", "src/gone.py")  # deleted in history: the memory is stale for certain (an error)
    git(root, "commit", "-q", "-m", "drop the old entry point")
    monkeypatch.chdir(root)
    return root


def check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["check", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_line_marked_ignore_is_not_checked(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = check(capsys)
    assert code == 1 and "src/gone.py" in out
    assert "planned.py" not in out, "the marked line is neither shown nor counted"
    assert out.splitlines()[-1].startswith("Checked 3 anchors")


def test_select_and_ignore_by_kind(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = check(capsys, "--select", "pkg")
    assert code == 1 and "pkg:pypi/redis" in out and "gone.py" not in out
    code, out, _ = check(capsys, "--ignore", "file,pkg")
    assert code == 0 and out.splitlines()[-1].startswith("Checked 0 anchors in 1 file")
    code, _, err = check(capsys, "--ignore", "fil")
    assert code == 2 and err.strip() == "anchorcheck: error: --select/--ignore: unknown anchor kind 'fil' (known: cmd, env, file, import, pkg, span, sym, watch)"


def test_quiet_color_and_output(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = check(capsys, "--quiet")
    lines = out.splitlines()
    assert lines[1].startswith("CLAUDE.md:2:24: REFUTED file:src/gone.py — src/gone.py does not exist in the repository; deleted in ")
    assert lines[1].endswith("'drop the old entry point')")
    lines[1] = "(the deleted path)"
    assert code == 1 and lines == [
        "CLAUDE.md:2: REFUTED memory: The old entry point `file:src/gone.py`.",
        "(the deleted path)",
        "CLAUDE.md:4: REFUTED memory: Cached with `pkg:pypi/redis`.",
        "CLAUDE.md:4:16: REFUTED pkg:pypi/redis — no pypi manifest or lockfile declares or locks redis (read pyproject.toml)",
        "    evidence: pyproject.toml read: does not declare or lock it",
    ]
    assert "\033[31mREFUTED\033[0m" in check(capsys, "--color", "always")[1]
    assert "\033[" not in check(capsys, "--color", "never")[1]
    code, out, _ = check(capsys, "--format", "sarif", "--output", "report.sarif")
    assert code == 1 and out == ""
    assert json.loads((repo / "report.sarif").read_text())["runs"][0]["results"]
    code, _, err = check(capsys, "--output", str(repo / "no/such/dir/x"))
    assert code == 2 and err.startswith("anchorcheck: error: --output ") and len(err.splitlines()) == 1


def test_a_baseline_fails_only_on_new_findings(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["baseline"]) == 0
    assert "2 findings recorded" in capsys.readouterr().out
    code, out, _ = check(capsys, "--baseline", "anchorcheck-baseline.json")
    assert code == 0 and "REFUTED" not in out
    (repo / "CLAUDE.md").write_text("# Notes\n\n" + MEMORY + "- New: `file:src/new.py`.\n")  # lines moved, one new finding
    code, out, _ = check(capsys, "--baseline", "anchorcheck-baseline.json", "--fail-on", "warning")  # never existed: a warning
    assert code == 1 and "src/new.py" in out and "gone.py" not in out and "redis" not in out
    (repo / "bad.json").write_text("[1, 2]")
    code, _, err = check(capsys, "--baseline", "bad.json")
    assert code == 2 and "bad.json: not a baseline written by anchorcheck baseline" in err


def test_markdown_lists_what_fails_first(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = check(capsys, "--format", "markdown")
    assert code == 1
    lines = out.splitlines()
    assert lines[:5] == ["## anchorcheck", "", "**Memories contradicted by the code**", "", "| where | anchor | reason |"]
    assert any(line.startswith("| `CLAUDE.md:2` | `file:src/gone.py` | src/gone.py does not exist in the repository; deleted in ") for line in lines)
    assert lines[-1].startswith("Checked 3 anchors in 1 file: 2 refuted")


def test_init_writes_the_setup_and_never_overwrites(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init"]) == 0
    for name in (".anchorcheck.toml", ".pre-commit-config.yaml", ".github/workflows/anchorcheck.yml"):
        assert (repo / name).is_file()
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert (repo / ".pre-commit-config.yaml").read_text() in readme, "the README shows the hook init writes"
    assert check(capsys)[0] == 1, "the configuration written is one anchorcheck reads"
    (repo / ".anchorcheck.toml").write_text("# mine\n")
    assert main(["init"]) == 2
    assert "already exists" in capsys.readouterr().err and (repo / ".anchorcheck.toml").read_text() == "# mine\n"


BASH = shutil.which("bash")


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
def test_the_action_script_writes_annotations_sarif_and_a_job_summary(repo: Path, tmp_path: Path) -> None:
    """action.yml runs action/run.sh with its inputs in the environment: run it as the runner would."""
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    env = dict(
        os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]), GITHUB_STEP_SUMMARY=str(summary),
        ANCHORCHECK_ARGS="--ignore pkg", ANCHORCHECK_SARIF="out/anchorcheck.sarif", NO_COLOR="1",
    )
    (repo / "out").mkdir()
    done = subprocess.run([BASH, str(REPO_ROOT / "action/run.sh")], cwd=repo, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.startswith("::error file=CLAUDE.md,line=2,col=24,title=anchorcheck file/refuted::file:src/gone.py")
    assert "redis" not in done.stdout, "the args input reaches check"
    sarif = json.loads((repo / "out/anchorcheck.sarif").read_text())
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["file/refuted"]
    text = summary.read_text()
    assert text.startswith("earlier step\n## anchorcheck\n") and "`file:src/gone.py`" in text, "appended, not overwritten"
    action = (REPO_ROOT / "action.yml").read_text(encoding="utf-8")
    assert 'bash "$GITHUB_ACTION_PATH/action/run.sh"' in action and "ANCHORCHECK_ARGS: ${{ inputs.args }}" in action
