"""Dart: classes, mixins, extensions and enums with their members, top-level names, `package:` imports and
environment reads, on real git repositories; and very_good_cli's shape end to end (held-out-15): an instruction
file naming a class is VERIFIED, and REFUTED with the commit once a commit renames it."""

from __future__ import annotations

from pathlib import Path

import pytest

from anchorcheck import Verdict
from tests._source_support import check, lines, write
from tests.conftest import init_repo, needs_git, write_tree
from tests.test_history import by_anchor, commit
from tests.test_history import check as check_cli

pytestmark = needs_git

RUNNER = """import 'dart:io';
import 'package:args/command_runner.dart';
import 'src/commands.dart';

const executableName = 'very_good';

class VeryGoodCommandRunner extends CompletionCommandRunner<int> {
  VeryGoodCommandRunner({Logger? logger}) : _logger = logger ?? Logger();
  VeryGoodCommandRunner.quiet() : _logger = Logger();

  final Logger _logger;
  int get verbosity => 1;

  Future<int> run(Iterable<String> args) async {
    final home = Platform.environment['HOME'];
    const flavor = String.fromEnvironment('FLAVOR');
    return 0;
  }
}

mixin Logging on Object {}

extension Blank on String {
  bool get isBlank => trim().isEmpty;
}

enum Template { core, flutterApp; String get id => name; }

typedef ProcessOverrides = Future<int> Function(List<String> args);

void main(List<String> args) {}
"""

R = "lib/src/command_runner.dart"


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    return init_repo(write(tmp_path, {R: RUNNER, "pubspec.yaml": "name: very_good_cli\n"}))


@pytest.mark.parametrize(
    ("anchor", "where"),
    [
        (f"sym:{R}::VeryGoodCommandRunner", (R, 7)),
        (f"sym:{R}::VeryGoodCommandRunner.quiet", (R, 9)),
        (f"sym:{R}::VeryGoodCommandRunner._logger", (R, 11)),
        (f"sym:{R}::VeryGoodCommandRunner.verbosity", (R, 12)),
        (f"sym:{R}::VeryGoodCommandRunner.run", (R, 14)),
        (f"sym:{R}::Logging", (R, 21)),
        (f"sym:{R}::Blank.isBlank", (R, 24)),
        (f"sym:{R}::Template.flutterApp", (R, 27)),
        (f"sym:{R}::ProcessOverrides", (R, 29)),
        (f"sym:{R}::main", (R, 31)),
        (f"sym:{R}::executableName", (R, 5)),
        ("env:HOME", (R, 15)),
        ("env:FLAVOR", (R, 16)),
        ("import:args", (R, 2)),
        ("import:args/command_runner", (R, 2)),
    ],
)
def test_definitions_env_and_imports(tree: Path, anchor: str, where: tuple[str, int]) -> None:
    result = check(tree, anchor)
    assert result.verdict is Verdict.VERIFIED, result.reason
    assert where in lines(result), lines(result)


def test_what_is_not_defined_is_refuted(tree: Path) -> None:
    assert check(tree, f"sym:{R}::VeryGoodCommandRunner.missing").verdict is Verdict.REFUTED
    assert check(tree, "env:NEVER_READ").verdict is Verdict.REFUTED
    assert check(tree, "import:src").verdict is not Verdict.VERIFIED  # a relative import names a file, not a package


def test_const_and_new_declarations_and_a_mixin_application_class(tmp_path: Path) -> None:
    # review: `const String.fromEnvironment('K')` (the usual form) is another tree shape than `String.fromEnvironment`
    source = ("class Base {}\nmixin M {}\nclass A = Base with M;\n"
              "const a = String.fromEnvironment('CONST_KEY');\nfinal b = const bool.fromEnvironment('B_KEY');\n"
              "final c = new String.fromEnvironment('NEW_KEY');\nfinal d = bool.hasEnvironment('HAS_KEY');\n")
    root = init_repo(write(tmp_path, {"lib/a.dart": source}))
    for anchor in ("sym:lib/a.dart::A", "env:CONST_KEY", "env:B_KEY", "env:NEW_KEY", "env:HAS_KEY"):
        assert check(root, anchor).verdict is Verdict.VERIFIED, anchor


def test_a_computed_key_or_the_whole_environment_makes_absence_unsure(tmp_path: Path) -> None:
    for read in ("Platform.environment[key]", "Map.of(Platform.environment)", "String.fromEnvironment(key)"):
        root = init_repo(write(tmp_path / str(len(read)), {"lib/env.dart": f"import 'dart:io';\nObject f(String key) => {read};\n"}))
        assert check(root, "env:NEVER_READ").verdict is Verdict.INCONCLUSIVE, read


def test_a_renamed_dart_class_named_in_prose_is_refuted_with_the_commit(tmp_path: Path) -> None:
    """very_good_cli `AGENTS.md:56`: the command runner's class, renamed, went unread (no Dart plugin)."""
    write_tree(tmp_path, {R: RUNNER, "AGENTS.md": "Commands are registered in `VeryGoodCommandRunner`.\n"})
    init_repo(tmp_path)
    code, results = check_cli(tmp_path)
    anchor = f"sym:{R}::VeryGoodCommandRunner"
    assert code == 0 and by_anchor(results)[anchor]["verdict"] == "VERIFIED", results
    write_tree(tmp_path, {R: RUNNER.replace("VeryGoodCommandRunner", "VgvCommandRunner")})
    commit(tmp_path, "rename the command runner")
    code, results = check_cli(tmp_path)
    refuted = by_anchor(results)[anchor]
    assert code == 1 and refuted["verdict"] == "REFUTED" and "'rename the command runner'" in refuted["reason"], refuted
