"""Gradle calls in instruction files (`./gradlew :server:jvmTest`, `gradle build`): the build and the projects a task
path names are checked against settings.gradle(.kts) and its history; task names, which plugins define, never are.
Real git repositories, checked through the CLI."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import init_repo, needs_git, write_tree
from tests.test_history import by_anchor, check, commit

pytestmark = needs_git

SETTINGS = 'rootProject.name = "sdk"\n\ninclude(\n    ":sdk-core",\n    ":sdk-server",\n)\n'
AGENTS = "Run one test:\n\n```bash\n./gradlew :sdk-server:jvmTest --tests \"*.ServerTest\"\n./gradlew detekt\n```\n"


@pytest.fixture
def build(tmp_path: Path) -> Path:
    """A Gradle multi-project build with a wrapper, whose AGENTS.md runs a task of `:sdk-server`."""
    write_tree(tmp_path, {"settings.gradle.kts": SETTINGS, "gradlew": "#!/bin/sh\n", "AGENTS.md": AGENTS})
    write_tree(tmp_path, {"sdk-core/build.gradle.kts": "", "sdk-server/build.gradle.kts": ""})
    init_repo(tmp_path)
    return tmp_path


def _server(results: list[dict]) -> dict:
    return next(r for r in results if r["anchor"].startswith("cmd:./gradlew :sdk-server"))


def test_a_project_the_settings_include_is_verified_and_task_names_are_not_judged(build: Path) -> None:
    code, results = check(build)
    assert code == 0 and _server(results)["verdict"] == "VERIFIED", _server(results)
    assert by_anchor(results)["cmd:./gradlew detekt"]["verdict"] == "VERIFIED"  # a plugin's task: never judged absent


def test_a_project_renamed_in_the_settings_is_refuted_with_the_commit(build: Path) -> None:
    (build / "settings.gradle.kts").write_text(SETTINGS.replace(":sdk-server", ":mcp-server"))
    os.rename(build / "sdk-server", build / "mcp-server")
    commit(build, "rename the server module")
    code, results = check(build)
    found = _server(results)
    assert code == 1 and found["verdict"] == "REFUTED" and found["severity"] == "error", found
    assert "does not include project :sdk-server" in found["reason"] and "'rename the server module'" in found["reason"]


def test_a_project_no_revision_included_is_never_refuted(build: Path) -> None:
    # Another build's module (an example, another checkout): absent now and in history.
    write_tree(build, {"AGENTS.md": AGENTS.replace(":sdk-server", ":android-app")})
    commit(build, "an example")
    code, results = check(build)
    found = next(r for r in results if r["anchor"].startswith("cmd:./gradlew :android-app"))
    assert code == 0 and found["verdict"] == "INCONCLUSIVE" and "does not include project :android-app" in found["reason"], found


@pytest.mark.parametrize("settings", [
    'file("modules").listFiles().forEach { include(":${it.name}") }\ninclude(":sdk-core")\n',  # computed
    'include(":sdk-core")\nincludeBuild(pluginsDir)\n',  # a composite build of a computed path: `:x:task` may name it
    'include(":sdk-core")\nincludeBuild("sdk-server")\n',  # `:sdk-server:task` names that included build
])
def test_a_project_gone_from_settings_that_may_still_be_there_is_never_refuted(build: Path, settings: str) -> None:
    (build / "settings.gradle.kts").write_text(settings)
    commit(build, "change what the settings include")
    code, results = check(build)
    assert code == 0 and _server(results)["verdict"] == "INCONCLUSIVE", _server(results)


ANTENNAPOD = "include ':app'\ninclude ':app-wearos'\ninclude ':core'\n"
PROSE = "To compile the code, use `./gradlew :app:assembleDebug`.\n"


def _app(results: list[dict]) -> dict:
    return next(r for r in results if r["anchor"].startswith("cmd:./gradlew :app:"))


def test_a_project_included_as_written_and_dropped_is_refuted_though_gradle_may_expand_it(tmp_path: Path) -> None:
    # held-out-8 (AntennaPod): `:app` renamed; Gradle would now take `:app` for `:app-wearos`, another app
    write_tree(tmp_path, {"settings.gradle": ANTENNAPOD, "gradlew": "", "AGENTS.md": PROSE})
    init_repo(tmp_path)
    assert _app(check(tmp_path)[1])["verdict"] == "VERIFIED"
    (tmp_path / "settings.gradle").write_text(ANTENNAPOD.replace("':app'", "':android-app'"))
    commit(tmp_path, "rename the app module")
    found = _app(check(tmp_path)[1])
    assert found["verdict"] == "REFUTED" and "'rename the app module'" in found["reason"], found


def test_a_project_never_included_that_gradle_may_expand_is_not_refuted(tmp_path: Path) -> None:
    write_tree(tmp_path, {"settings.gradle": ANTENNAPOD.replace("include ':app'\n", ""), "gradlew": "", "AGENTS.md": PROSE})
    init_repo(tmp_path)
    write_tree(tmp_path, {"AGENTS.md": PROSE + "\nMore.\n"})
    commit(tmp_path, "more")
    found = _app(check(tmp_path)[1])
    assert found["verdict"] == "INCONCLUSIVE" and "may expand it as an abbreviation" in found["reason"], found


def test_groovy_settings_list_their_projects_over_several_lines(tmp_path: Path) -> None:
    write_tree(tmp_path, {"settings.gradle": "include 'sdk-core',\n        'sdk-server'\n", "gradlew": "", "AGENTS.md": AGENTS})
    init_repo(tmp_path)
    assert _server(check(tmp_path)[1])["verdict"] == "VERIFIED"


def test_a_renamed_wrapper_is_refuted_and_a_folder_never_there_is_not_stale(build: Path) -> None:
    os.rename(build / "gradlew", build / "gradlew-old")
    write_tree(build, {"AGENTS.md": AGENTS + "\nThen `gradle -p tools build`.\n"})
    commit(build, "move the wrapper")
    found = by_anchor(check(build)[1])
    assert "moved to `gradlew-old`" in found["cmd:./gradlew detekt"]["reason"], found["cmd:./gradlew detekt"]
    never = found["cmd:gradle -p tools build"]  # no folder tools/ to run in, and none ever was: an example, not stale
    assert (never["verdict"], never["state"], never["severity"]) == ("INCONCLUSIVE", "never-existed", "warning"), never


def test_a_relative_task_path_is_read_from_the_folder_s_project(build: Path) -> None:
    # `cd sdk-server && ../gradlew jvm:test` names `:sdk-server:jvm`; from a folder no project is, nothing is known.
    write_tree(build, {"AGENTS.md": "Run `cd sdk-server && ../gradlew jvm:test` and `cd docs && ../gradlew jvm:test`.\n", "docs/x.md": ""})
    commit(build, "relative paths")
    found = by_anchor(check(build)[1])
    assert found["cmd:cd sdk-server && ../gradlew jvm:test"]["verdict"] == "INCONCLUSIVE"  # not included, never was
    assert "does not include project :sdk-server:jvm" in found["cmd:cd sdk-server && ../gradlew jvm:test"]["reason"]
    assert "relative to the project of docs/" in found["cmd:cd docs && ../gradlew jvm:test"]["reason"]


NESTED = 'rootProject.name = "mock"\n\ninclude("mock-core")\ninclude("mock-core:certs")\ninclude("libs:json")\n'
NESTED_FILES = {"mock-core/build.gradle.kts": "plugins { id(\"japicmp\") }\n", "mock-core/certs/build.gradle.kts": "",
                "libs/json/build.gradle.kts": "", "libs/README.md": "shared libraries\n"}


@pytest.fixture
def nested(tmp_path: Path) -> Path:
    """`:mock-core` with a build file and a nested project `:mock-core:certs`; `:libs` an implicit parent, never built."""
    write_tree(tmp_path, {"settings.gradle.kts": NESTED, "gradlew": "#!/bin/sh\n", **NESTED_FILES})
    return init_repo(tmp_path)


def _japicmp(root: Path) -> tuple[int, dict]:
    """The exit code of a check of an AGENTS.md that runs `:mock-core:japicmp`, and that command's result."""
    write_tree(root, {"AGENTS.md": "Check the API: `./gradlew :mock-core:japicmp`.\n"})
    code, results = check(root)
    return code, by_anchor(results)["cmd:./gradlew :mock-core:japicmp"]


def test_a_project_whose_build_file_moved_away_is_refuted_though_a_nested_include_keeps_it(nested: Path) -> None:
    """wiremock's shape: `include("mock-core:certs")` still makes `:mock-core` a project (an implicit parent), but
    its folder and the build file that applied japicmp moved, so the task is gone."""
    (nested / "settings.gradle.kts").write_text(NESTED.replace('include("mock-core")', 'include("renamed-mock-core")'))
    os.rename(nested / "mock-core", nested / "renamed-mock-core")
    commit(nested, "rename the core module")
    code, found = _japicmp(nested)
    assert code == 1 and found["verdict"] == "REFUTED" and found["state"] == "gone" and found["severity"] == "error", found
    assert "moved to `renamed-mock-core/build.gradle.kts`" in found["reason"] and "'rename the core module'" in found["reason"]


def test_a_project_whose_build_file_moved_away_under_a_root_that_configures_subprojects_is_not_refuted(nested: Path) -> None:
    # the root's `subprojects { }` may give the implicit parent the task the moved build file applied
    (nested / "settings.gradle.kts").write_text(NESTED.replace('include("mock-core")', 'include("renamed-mock-core")'))
    os.rename(nested / "mock-core", nested / "renamed-mock-core")
    write_tree(nested, {"build.gradle.kts": 'subprojects { apply(plugin = "japicmp") }\n'})
    commit(nested, "rename the core module, configure every project from the root")
    code, found = _japicmp(nested)
    assert code == 0 and found["verdict"] == "INCONCLUSIVE" and "build.gradle.kts may configure the project" in found["reason"], found


def test_an_implicit_parent_that_never_had_a_build_file_is_verified_as_before(nested: Path) -> None:
    write_tree(nested, {"AGENTS.md": "List them: `./gradlew :libs:projects`.\n"})
    code, results = check(nested)
    found = by_anchor(results)["cmd:./gradlew :libs:projects"]
    assert code == 0 and found["verdict"] == "VERIFIED" and "includes :libs" in found["reason"], found


def test_a_build_file_deleted_from_a_folder_that_stays_is_not_known_to_take_the_tasks(nested: Path) -> None:
    # The root may configure the project now (`subprojects { }`): history shows a change, not the task gone.
    (nested / "mock-core/build.gradle.kts").unlink()
    commit(nested, "configure the core from the root")
    code, found = _japicmp(nested)
    assert code == 0 and found["verdict"] == "INCONCLUSIVE" and "deleted in" in found["reason"], found


def test_a_build_included_by_name_leaves_other_projects_judged(build: Path) -> None:
    # sentry-java (held-out-10): `includeBuild("build-logic")` made every absent project doubtful; only a task path
    # that starts with an included build's name (its folder's, or the rootProject.name its settings give) may be one
    write_tree(build, {"settings.gradle.kts": 'include(":sdk-core")\nincludeBuild("build-logic")\n',
                       "build-logic/settings.gradle.kts": 'rootProject.name = "conventions"\n'})
    commit(build, "the server leaves the build")
    code, results = check(build)
    assert code == 1 and _server(results)["verdict"] == "REFUTED", _server(results)
