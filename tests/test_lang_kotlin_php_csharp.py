"""Kotlin, PHP and C#: imports, environment reads and definitions, with evidence lines, on real git
repositories; and a Kotlin class renamed in a commit, named in AGENTS.md prose, REFUTED with that commit."""

from __future__ import annotations

from pathlib import Path

import pytest

from anchorcheck import Verdict
from tests._source_support import check, lines, write
from tests.conftest import init_repo, needs_git, write_tree
from tests.test_history import by_anchor, commit
from tests.test_history import check as check_cli

pytestmark = needs_git

KOTLIN = '''
package io.element.room

import kotlinx.coroutines.flow.Flow
import io.element.api.*
import io.element.api.RoomId as Id

data class RoomInfo(val id: String, var name: String?, flag: Boolean) : Base(), Summary {
    val size: Int = 1
    fun save() = System.getenv("K_PLAIN") + System.getenv()["K_INDEX"]
    companion object {
        const val KEY = "K_CONST"
        fun create() = System.getenv(KEY)
    }
    class Inner {
        fun m() {}
    }
}
object Registry {
    val url = java.lang.System.getenv().get("K_GET")
}
enum class Mode { FAST, SLOW }
fun RoomInfo.isDm(): Boolean = System.getenv("K_$name") != null
'''

PHP = '''<?php
namespace App\\Store;

use Illuminate\\Support\\Str;
use Illuminate\\Support\\Facades\\Route as R;
use function Livewire\\on;
use Livewire\\{Component, Mechanisms\\Hooks as H};
require __DIR__ . '/bootstrap.php';

class Store extends Component implements Countable
{
    use HandlesEvents;
    const LIMIT = 1;
    public string $name = 'x';
    public function __construct(private string $driver) {}
    public function save() { return getenv('P_GETENV') . $_ENV['P_ENV'] . $_SERVER['P_SERVER'] . env('P_HELPER', 'd'); }
}
trait HandlesEvents { function listen() {} }
enum Suit: string { case Hearts = 'H'; }
if (! function_exists('App\\Store\\store_path')) {
    function store_path() { return "{$base}/" . getenv("P_$dir"); }
}
'''

CSHARP = '''using System;
using static System.Math;
global using Microsoft.Extensions.Logging;
using Json = System.Text.Json.JsonSerializer;
namespace Acme.Agents;

public class Store<T> : Base, IStore
{
    public const string Key = "C_CONST";
    private int _count, _other;
    public string Name { get; set; }
    public Store() {}
    public void Save() { var v = Environment.GetEnvironmentVariable("C_PLAIN") + System.Environment.GetEnvironmentVariable(Key); }
    public event EventHandler Changed;
    class Inner { void M() {} }
}
public interface IStore { void Go(); }
public enum Mode { Fast, Slow }
public record Point(int X, int Y);
'''


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    root = write(tmp_path, {"app/src/main/kotlin/io/element/room/RoomInfo.kt": KOTLIN, "src/Store.php": PHP, "dotnet/Store.cs": CSHARP})
    return init_repo(root)


KT, PHP_FILE, CS = "app/src/main/kotlin/io/element/room/RoomInfo.kt", "src/Store.php", "dotnet/Store.cs"


@pytest.mark.parametrize(
    ("anchor", "where"),
    [
        ("import:kotlinx.coroutines", (KT, 3)),
        ("import:io.element.api", (KT, 4)),  # the `.*` import, then the aliased one
        ("import:Illuminate\\Support", (PHP_FILE, 4)),
        ("import:Illuminate\\Support\\Facades\\Route", (PHP_FILE, 5)),
        ("import:Livewire\\on", (PHP_FILE, 6)),
        ("import:Livewire\\Mechanisms\\Hooks", (PHP_FILE, 7)),
        ("import:System.Math", (CS, 2)),
        ("import:Microsoft.Extensions.Logging", (CS, 3)),
        ("import:System.Text.Json", (CS, 4)),
        ("env:K_PLAIN", (KT, 9)),
        ("env:K_INDEX", (KT, 9)),
        ("env:K_CONST", (KT, 12)),
        ("env:K_GET", (KT, 19)),
        ("env:P_GETENV", (PHP_FILE, 16)),
        ("env:P_ENV", (PHP_FILE, 16)),
        ("env:P_SERVER", (PHP_FILE, 16)),
        ("env:P_HELPER", (PHP_FILE, 16)),
        ("env:C_PLAIN", (CS, 13)),
        ("env:C_CONST", (CS, 13)),
    ],
)
def test_imports_and_env(tree: Path, anchor: str, where: tuple[str, int]) -> None:
    result = check(tree, anchor)
    assert result.verdict is Verdict.VERIFIED, result.reason
    assert lines(result)[0] == where


@pytest.mark.parametrize(
    "anchor",
    ["import:bootstrap", "import:Illuminate\\Supportx", "import:kotlinx.coroutinesx", "import:Acme.Agents", "env:K_", "env:P_", "env:Key"],
)
def test_what_is_not_an_import_or_a_read(tree: Path, anchor: str) -> None:
    """`require` of a path loads a project file; a namespace declared is not imported; a template key is computed."""
    assert check(tree, anchor).verdict is not Verdict.VERIFIED


@pytest.mark.parametrize(
    ("anchor", "line"),
    [
        (f"sym:{KT}::RoomInfo", 7),
        (f"sym:{KT}::RoomInfo.id", 7),
        (f"sym:{KT}::RoomInfo.name", 7),
        (f"sym:{KT}::RoomInfo.size", 8),
        (f"sym:{KT}::RoomInfo.save", 9),
        (f"sym:{KT}::RoomInfo.KEY", 11),
        (f"sym:{KT}::RoomInfo.create", 12),
        (f"sym:{KT}::RoomInfo.Inner.m", 15),
        (f"sym:{KT}::Registry.url", 19),
        (f"sym:{KT}::Mode.SLOW", 21),
        (f"sym:{KT}::RoomInfo.isDm", 22),
        (f"sym:{PHP_FILE}::Store", 10),
        (f"sym:{PHP_FILE}::Store.LIMIT", 13),
        (f"sym:{PHP_FILE}::Store.name", 14),
        (f"sym:{PHP_FILE}::Store.driver", 15),
        (f"sym:{PHP_FILE}::Store.save", 16),
        (f"sym:{PHP_FILE}::HandlesEvents.listen", 18),
        (f"sym:{PHP_FILE}::Suit.Hearts", 19),
        (f"sym:{PHP_FILE}::store_path", 21),
        (f"sym:{CS}::Store", 7),
        (f"sym:{CS}::Store.Key", 9),
        (f"sym:{CS}::Store._other", 10),
        (f"sym:{CS}::Store.Name", 11),
        (f"sym:{CS}::Store.Save", 13),
        (f"sym:{CS}::Store.Changed", 14),
        (f"sym:{CS}::Store.Inner.M", 15),
        (f"sym:{CS}::IStore.Go", 17),
        (f"sym:{CS}::Mode.Slow", 18),
        (f"sym:{CS}::Point.Y", 19),
    ],
)
def test_definitions(tree: Path, anchor: str, line: int) -> None:
    result = check(tree, anchor)
    assert result.verdict is Verdict.VERIFIED, result.reason
    assert lines(result)[0][1] == line


@pytest.mark.parametrize(
    "anchor",
    [f"sym:{KT}::Registry.missing", f"sym:{KT}::Mode.MEDIUM", f"sym:{PHP_FILE}::Suit.Spades", f"sym:{CS}::Point.Z"],
)
def test_absent_members_are_refuted(tree: Path, anchor: str) -> None:
    """A member no declaration of a class without unknown bases lists (an enum's own are known) is absent."""
    assert check(tree, anchor).verdict is Verdict.REFUTED


def test_a_plain_constructor_parameter_is_no_property(tmp_path: Path) -> None:
    root = init_repo(write(tmp_path, {"A.kt": "class A(val kept: Int, passed: Int)\n"}))
    assert lines(check(root, "sym:A.kt::A.kept")) == [("A.kt", 1)]
    assert check(root, "sym:A.kt::A.passed").verdict is Verdict.REFUTED
    assert check(root, "sym:A.kt::A.values").verdict is Verdict.REFUTED  # not an enum


def test_inherited_members_of_a_base_from_elsewhere_are_not_refuted(tree: Path) -> None:
    """RoomInfo extends `Base` and Store extends Livewire's `Component`, whose members are not here."""
    assert check(tree, f"sym:{KT}::RoomInfo.missing").verdict is Verdict.INCONCLUSIVE
    assert check(tree, f"sym:{PHP_FILE}::Store.nothing").verdict is Verdict.INCONCLUSIVE
    assert check(tree, f"sym:{KT}::Mode.entries").verdict is Verdict.VERIFIED  # what every enum class has


def test_the_whole_environment_handed_on_opens_absence(tmp_path: Path) -> None:
    """`run(System.getenv())`, `foreach ($_ENV ...)`, `AddEnvironmentVariables()` may read any key: a key no file
    names is INCONCLUSIVE there, not REFUTED; without them it is REFUTED."""
    closed = init_repo(write(tmp_path / "closed", {"A.kt": 'fun f() = System.getenv("A")\n'}))
    assert check(closed, "env:NEVER_READ").verdict is Verdict.REFUTED
    for name, source in [
        ("A.kt", "fun f() = run(System.getenv())\n"),
        ("a.php", "<?php\nforeach ($_ENV as $k => $v) {}\n"),
        ("A.cs", "class A { void F() { builder.Configuration.AddEnvironmentVariables(); } }\n"),
    ]:
        root = init_repo(write(tmp_path / name, {name: source}))
        assert check(root, "env:NEVER_READ").verdict is Verdict.INCONCLUSIVE, name


def test_csharp_bare_read_needs_the_static_using(tmp_path: Path) -> None:
    root = init_repo(write(tmp_path, {
        "a/A.cs": 'using static System.Environment;\nclass A { string U = GetEnvironmentVariable("C_STATIC"); }\n',
        "b/B.cs": 'class B { string GetEnvironmentVariable(string k) => k; string U = GetEnvironmentVariable("C_OWN"); }\n',
    }))
    assert lines(check(root, "env:C_STATIC")) == [("a/A.cs", 2)]
    assert check(root, "env:C_OWN").verdict is Verdict.REFUTED


def test_a_kotlin_class_renamed_in_a_commit_is_refuted_in_prose_with_the_commit(tmp_path: Path) -> None:
    """element-x-android's shape: AGENTS.md names `RoomInfo`, a data class of the API module; a commit renames it."""
    api = "libraries/matrix/api/src/main/kotlin/io/element/matrix/api/room/RoomInfo.kt"
    write_tree(tmp_path, {api: "package io.element.matrix.api.room\n\ndata class RoomInfo(val id: String)\n"})
    init_repo(tmp_path)
    write_tree(tmp_path, {api: "package io.element.matrix.api.room\n\ndata class RoomDetails(val id: String)\n"})
    commit(tmp_path, "rename RoomInfo to RoomDetails")
    write_tree(tmp_path, {"AGENTS.md": "Room state lives in `RoomInfo` (an immutable data class).\n"})
    code, results = check_cli(tmp_path)
    found = by_anchor(results)[f"sym:{api}::RoomInfo"]
    assert code == 1 and found["verdict"] == "REFUTED" and found["state"] == "gone", found
    assert "'rename RoomInfo to RoomDetails'" in found["reason"] and "now `RoomDetails`" in found["reason"]
    write_tree(tmp_path, {"AGENTS.md": "Room state lives in `RoomDetails` (an immutable data class).\n"})
    code, results = check_cli(tmp_path)
    assert code == 0 and by_anchor(results)[f"sym:{api}::RoomDetails"]["verdict"] == "VERIFIED"


def test_a_php_helper_renamed_in_a_commit_is_refuted_in_prose(tmp_path: Path) -> None:
    """livewire's shape: a helper function defined under `if (!function_exists(...))`, renamed."""
    helpers = "src/helpers.php"
    guarded = "<?php\nnamespace Livewire;\n\nif (! function_exists('Livewire\\\\{0}')) {{\n    function {0}($x) {{ return $x; }}\n}}\n"
    write_tree(tmp_path, {helpers: guarded.format("wrap_value")})
    init_repo(tmp_path)
    write_tree(tmp_path, {helpers: guarded.format("wrap")})
    commit(tmp_path, "shorter helper name")
    write_tree(tmp_path, {"CLAUDE.md": "Use `wrap_value()` to box a value.\n"})
    code, results = check_cli(tmp_path)
    found = by_anchor(results)[f"sym:{helpers}::wrap_value"]
    assert code == 1 and found["verdict"] == "REFUTED" and "now `wrap`" in found["reason"], found


def test_inherited_members_are_followed_to_the_base_class_file(tmp_path: Path) -> None:
    """A Kotlin import and a PHP `use` bind the base's name; its file is found by the JVM layout and by PSR-4."""
    root = init_repo(write(tmp_path, {
        "src/main/kotlin/a/b/Base.kt": "package a.b\n\nopen class Base {\n    fun hello() {}\n}\n",
        "src/main/kotlin/c/User.kt": "package c\n\nimport a.b.Base\n\nclass User : Base()\n",
        "src/Base/Model.php": "<?php\nnamespace App\\Base;\n\nclass Model\n{\n    public function save() {}\n}\n",
        "src/User.php": "<?php\nnamespace App;\n\nuse App\\Base\\Model;\n\nclass User extends Model {}\n",
    }))
    kotlin = check(root, "sym:src/main/kotlin/c/User.kt::User.hello")
    assert kotlin.verdict is Verdict.VERIFIED and lines(kotlin)[0] == ("src/main/kotlin/a/b/Base.kt", 4), kotlin.reason
    php = check(root, "sym:src/User.php::User.save")
    assert php.verdict is Verdict.VERIFIED and lines(php)[0] == ("src/Base/Model.php", 6), php.reason
    assert check(root, "sym:src/main/kotlin/c/User.kt::User.nothing").verdict is Verdict.REFUTED
    assert check(root, "sym:src/User.php::User.nothing").verdict is Verdict.REFUTED
