"""Every resolver has a work budget (issue 25): small inputs that ran past `--deadline 5` for minutes.

Each input below, a few hundred bytes to a few hundred KB, overran `anchorcheck --deadline 5` until it
was killed (the time it took is beside it). Now each answers within the deadline, through the real CLI:
INCONCLUSIVE naming the file where resolving it is past the work budget, the plain answer where a
linear algorithm made the work small.
"""

from __future__ import annotations

import time

import pytest
from tests._hostile_support import run_cli

DEADLINE = 5
SLACK = 10.0  # interpreter start-up and a loaded machine; unbounded, these took 15 s to minutes

_ALIAS_BOMB = "".join(f"l{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9 if i else ["1"] * 9) + "]\n" for i in range(10))

CASES = {
    # 50 chained `%` rules, 520 bytes: 50^4 rule tries (> 40 s)
    "make pattern-rule chains": (
        # (chains of rules whose prerequisite ends as their target does: a match-anything `%:` rule makes no
        # prerequisite of an implicit rule, so chains of those end at once)
        {"Makefile": "".join(f"%.x:%.a{i}.x %.b\n" for i in range(50))},
        ["anchor", "cmd:make foo.x"],
        ("INCONCLUSIVE", "Makefile: resolving it takes more than"),
    ),
    # affixes nested 3,000 deep in a computed target: its shape is read to a bounded depth (a loop counter once
    # shadowed the bound and the runner died of RecursionError)
    "make affixes nested 3,000 deep": (
        {"Makefile": "X := " + "$(addprefix " * 3000 + "x" + ",y)" * 3000 + "\n$(X):\n\techo\n"},
        ["anchor", "cmd:make nosuch"],
        ("INCONCLUSIVE", "has a computed target"),
    ),
    # 4 flattened includes of itself, 8 deep: 4^8 reads (> 20 s)
    "Taskfile self-include with flatten": (
        {"Taskfile.yml": "version: '3'\nincludes:\n" + "".join(f"  {n}: {{taskfile: ./Taskfile.yml, flatten: true}}\n" for n in "abcd")
         + "tasks:\n  x: {cmds: [echo]}\n"},
        ["anchor", "cmd:task y"],
        ("INCONCLUSIVE", "includes it back"),
    ),
    # a wildcard task `a*` x 15 + `b` against 40 `a`: a backtracking regex (> 20 s)
    "Taskfile wildcard task name": (
        {"Taskfile.yml": "version: '3'\ntasks:\n  '" + "a*" * 15 + "b': {cmds: [echo]}\n  c: {cmds: [echo]}\n"},
        ["anchor", "cmd:task " + "a" * 40],
        ("REFUTED", "no task " + "a" * 40),
    ),
    # aliases that are a YAML alias bomb, spelled out by str() (> 60 s)
    "Taskfile YAML alias bomb": (
        {"Taskfile.yml": "version: '3'\n" + _ALIAS_BOMB + "tasks:\n  build:\n    aliases: *a9\n"},
        ["anchor", "cmd:task y"],
        ("INCONCLUSIVE", "Taskfile.yml: the aliases of task build are not all names"),
    ),
    # 5,000 aliases `aN = 'aN+1 aN+1'`: the file read, parsed and searched again per alias expanded (55 s)
    "5,000 cargo aliases": (
        {".cargo/config.toml": "[alias]\n" + "".join(f"a{i} = 'a{i + 1} a{i + 1}'\n" for i in range(5000)),
         "Cargo.toml": "[package]\nname = 'x'\n"},
        ["anchor", "cmd:cargo a0"],
        ("INCONCLUSIVE", "never reach a subcommand"),
    ),
    # 20,000 nested `$(`: each call scanned every subshell depth (15 s)
    "cmd: with 20,000 nested $(": (
        {"Makefile": "build:\n"},
        ["anchor", "cmd:make " + "$(" * 20_000],
        ("INCONCLUSIVE", ""),
    ),
    # one Markdown line of 8,000 code spans: blanked again for each (16 KB took 13 s, 32 KB 51 s)
    "a Markdown line of code spans": (
        {"AGENTS.md": "`x` " * 8000 + "\n"},
        ["check", "AGENTS.md"],
        ("", "Checked 0 anchors in 1 file"),
    ),
    # a Markdown table of 20,000 rows of folder names: each reference copied every folder named before
    "a Markdown table of folder rows": (
        {"AGENTS.md": "| a | b |\n|---|---|\n" + "".join(f"| `d{i}/` | x |\n" for i in range(20_000))},
        ["check", "AGENTS.md"],
        ("", "Checked 0 anchors in 1 file"),
    ),
    # found by the `shape:tox` generator: 60 sections each brace-expanding to 16,384 names, the section's line
    # searched for again for every name (2 KB of tox.ini took 7 s)
    "tox sections that expand to thousands of names": (
        {"tox.ini": "[tox]\nenv_list = lint\n" + "".join(f"[testenv:s{i}" + "{a,b,c,d}" * 7 + "]\ncommands = pytest\n" for i in range(60))},
        ["anchor", "cmd:tox -e lint"],
        ("VERIFIED", "lint"),
    ),
    # review: a lead-in that names a folder in plain words, its last segment thousands of `_` long before the colon:
    # three quantifiers in a row could each take the `_` (2,000 took 10 s, 4,000 took 101 s)
    "a lead-in whose folder ends in thousands of underscores": (
        {"AGENTS.md": "Run in a/" + "_" * 4000 + " z:\n\n```bash\nmake build\n```\n", "Makefile": "build:\n\ttrue\n"},
        ["check", "AGENTS.md"],
        ("", "1 verified"),
    ),
    # found by the `shape:markdown` generator: a table of 3,000 rows of folders, commands and paths, one
    # memory: its references were added one by one (quadratic), every bare name was probed, and each
    # path was resolved before the deadline was looked at (a minute; 440 KB of it two)
    "a Markdown table of folders, commands and paths": (
        {"AGENTS.md": "| a | b | c |\n|---|---|---|\n" + "".join(f"| `d{i}/` | `make b{i}` | `src/m{i}.py` |\n" for i in range(3000)),
         "Makefile": "b1:\n\ttrue\n"},
        ["check", "AGENTS.md"],
        ("", "in 1 file"),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_small_hostile_input_answers_within_the_deadline(make_repo, name: str) -> None:  # noqa: ANN001
    files, (command, *args), (verdict, reason) = CASES[name]
    root = make_repo(files)
    run = run_cli(root, command, "--root", str(root), "--no-cache", "--deadline", str(DEADLINE), *args)
    assert not run.timed_out and run.returncode >= 0 and "Traceback" not in run.stderr, run.stderr[-2000:]
    assert run.peak_mib < 256, f"peak memory {run.peak_mib:.0f} MiB"
    # CPU, not the wall clock: a machine shared with other work stretches the latter, never the work done.
    assert run.cpu_seconds < DEADLINE + SLACK, f"{run.cpu_seconds:.1f} s of CPU"
    assert verdict in run.stdout and reason in run.stdout, run.stdout[:2000]


def test_a_runner_past_the_deadline_names_the_file_it_was_reading(make_repo, monkeypatch) -> None:  # noqa: ANN001
    """A budget too large for the deadline: the deadline stops it, and the reason says where it was."""
    from anchorcheck import Verdict, Verifier
    from anchorcheck_plugins.runners import _support

    monkeypatch.setattr(_support, "STEP_BUDGET", 10**9)
    # Chains of `%.x` rules whose prerequisites end in `.x` again: 400^4 tries, minutes of work without a budget.
    root = make_repo({"Makefile": "".join(f"%.x: %.a{i}.x %.b{i}\n" for i in range(400))})
    verifier = Verifier(root)
    assert verifier.check("file:Makefile").verdict is Verdict.VERIFIED  # the checkout is listed: the clock is the rules'
    started = time.monotonic()
    result = verifier.check("cmd:make t.x", deadline=0.5)
    assert time.monotonic() - started < 0.5 + SLACK
    assert result.verdict is Verdict.INCONCLUSIVE
    assert result.reason == "budget exceeded while resolving Makefile", result.reason


def test_paths_of_hundreds_of_missing_folders_are_all_answered(make_repo) -> None:  # noqa: ANN001
    # review: each of 400 missing folders was looked in for an ignore file, its path resolved whole (60 such paths
    # took 2 min; under --deadline 5 all but the first eight were cut): past the first missing folder none is there
    text = "".join("- `" + "/".join([f"s{i}"] * 400) + "/x.py`\n" for i in range(60))
    root = make_repo({"AGENTS.md": text})
    run = run_cli(root, "check", "--root", str(root), "--no-cache", "--deadline", str(DEADLINE), "-v", "AGENTS.md")
    assert not run.timed_out and "Traceback" not in run.stderr, run.stderr[-2000:]
    assert "budget exceeded" not in run.stdout and run.stdout.count("never in this repository's history") == 60, run.stdout[-2000:]
