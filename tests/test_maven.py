"""Maven calls in instruction files (`mvn -pl paimon-core -am test`, `./mvnw verify`): the POM where Maven runs and the
projects `-pl` selects are checked against the checkout and its history; profiles and plugin goals never are.
Real git repositories, checked through the CLI."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import git, init_repo, needs_git, write_tree
from tests.test_history import by_anchor, check, commit

pytestmark = needs_git

ROOT_POM = "<project>\n  <artifactId>shop</artifactId>\n  <modules>\n    <module>shop-core</module>\n    <module>shop-web</module>\n  </modules>\n</project>\n"
MODULE_POM = "<project>\n  <parent>\n    <artifactId>shop</artifactId>\n  </parent>\n  <artifactId>{name}</artifactId>\n</project>\n"
AGENTS = (
    "Build one module:\n\n```bash\nmvn -pl shop-core -am -Pfast test\n./mvnw -pl :shop-web verify -Dtest=CartTest\n"
    "mvn spotless:apply\nmvn -v\n```\n"
)


@pytest.fixture
def build(tmp_path: Path) -> Path:
    """A Maven multi-module build with a wrapper, whose AGENTS.md selects both modules."""
    write_tree(tmp_path, {"pom.xml": ROOT_POM, "mvnw": "#!/bin/sh\n", "AGENTS.md": AGENTS})
    write_tree(tmp_path, {f"{m}/pom.xml": MODULE_POM.format(name=m) for m in ("shop-core", "shop-web")})
    init_repo(tmp_path)
    return tmp_path


def test_the_pom_and_the_selected_projects_are_verified_and_profiles_and_goals_are_not_judged(build: Path) -> None:
    code, results = check(build)
    found = by_anchor(results)
    assert code == 0, results
    assert found["cmd:mvn -pl shop-core -am -Pfast test"]["verdict"] == "VERIFIED"
    web = found["cmd:./mvnw -pl :shop-web verify -Dtest=CartTest"]
    assert web["verdict"] == "VERIFIED" and any(e["path"] == "shop-web/pom.xml" for e in web["evidence"]), web
    assert found["cmd:mvn spotless:apply"]["verdict"] == "VERIFIED"  # a plugin goal: the POM is there, the goal not judged
    assert "cmd:mvn -v" not in found  # needs no build: not read


def test_a_module_folder_moved_away_is_refuted_with_where_it_went(build: Path) -> None:
    git(build, "mv", "shop-core", "core")
    (build / "pom.xml").write_text(ROOT_POM.replace("<module>shop-core", "<module>core"))
    commit(build, "shorten the core module's folder")
    code, results = check(build)
    found = by_anchor(results)["cmd:mvn -pl shop-core -am -Pfast test"]
    assert code == 1 and found["verdict"] == "REFUTED" and found["severity"] == "error", found
    assert "no such folder" in found["reason"] and "'shorten the core module's folder'" in found["reason"]


def test_an_artifact_id_renamed_in_its_pom_is_refuted_with_the_commit(build: Path) -> None:
    (build / "shop-web/pom.xml").write_text(MODULE_POM.format(name="shop-webapp"))
    commit(build, "rename the web artifact")
    code, results = check(build)
    found = by_anchor(results)["cmd:./mvnw -pl :shop-web verify -Dtest=CartTest"]
    assert code == 1 and found["verdict"] == "REFUTED", found
    assert "artifactId shop-web" in found["reason"] and "'rename the web artifact'" in found["reason"]


def test_an_artifact_id_no_revision_declared_is_never_refuted(build: Path) -> None:
    write_tree(build, {"AGENTS.md": "Run `mvn -pl :payments test` in your own service.\n"})
    commit(build, "an example")
    code, results = check(build)
    found = by_anchor(results)["cmd:mvn -pl :payments test"]
    assert code == 0 and found["verdict"] == "INCONCLUSIVE" and "artifactId payments" in found["reason"], found


def test_a_computed_artifact_id_leaves_every_name_unknown(build: Path) -> None:
    (build / "shop-web/pom.xml").write_text(MODULE_POM.format(name="${web.name}"))
    (build / "AGENTS.md").write_text("Run `mvn -pl :storefront test`.\n")
    commit(build, "a computed artifactId")
    code, results = check(build)
    found = by_anchor(results)["cmd:mvn -pl :storefront test"]
    assert code == 0 and found["verdict"] == "INCONCLUSIVE" and "no literal artifactId" in found["reason"], found


def test_a_name_a_later_pom_declares_is_found_past_a_computed_one(build: Path) -> None:
    # review: the look-up gave up at the first POM with a computed artifactId (an archetype's template sorts first)
    write_tree(build, {"archetype/src/main/resources/archetype-resources/pom.xml": MODULE_POM.format(name="${artifactId}")})
    commit(build, "an archetype")
    assert by_anchor(check(build)[1])["cmd:./mvnw -pl :shop-web verify -Dtest=CartTest"]["verdict"] == "VERIFIED"


def test_a_pom_named_by_f_is_the_file_or_the_folders_and_a_polyglot_build_is_never_refuted(build: Path) -> None:
    # review: `-f release.pom` was read as a folder and REFUTED "no such folder" though the file is there
    write_tree(build, {"release.pom": ROOT_POM, "tools/pom.yaml": "artifactId: tools\n",
                       "AGENTS.md": "Run `mvn -f release.pom package`, `mvn -f shop-core verify`, `mvn -f gone.pom package`.\n"
                       "The tools build: `cmd:mvn test in:tools/`.\n"})
    commit(build, "a release POM and a polyglot tool")
    found = by_anchor(check(build)[1])
    assert found["cmd:mvn -f release.pom package"]["verdict"] == found["cmd:mvn -f shop-core verify"]["verdict"] == "VERIFIED"
    assert found["cmd:mvn -f gone.pom package"]["verdict"] == "INCONCLUSIVE"  # never there: an example, not stale
    tools = found["cmd:mvn test in:tools/"]
    assert tools["verdict"] == "INCONCLUSIVE" and "Polyglot" in tools["reason"], tools


def test_a_phase_where_no_pom_is_is_refuted_when_one_was_there_and_a_missing_wrapper_is_a_missing_file(build: Path) -> None:
    os.remove(build / "mvnw")
    write_tree(build, {"docs/AGENTS.md": "From this folder run `mvn package`.\n"})
    git(build, "mv", "pom.xml", "parent-pom.xml")
    commit(build, "rename the root POM; drop the wrapper")
    code, results = check(build)
    found = by_anchor(results)
    assert found["cmd:mvn -pl shop-core -am -Pfast test"]["verdict"] == "REFUTED"
    assert "'rename the root POM; drop the wrapper'" in found["cmd:mvn -pl shop-core -am -Pfast test"]["reason"]
    wrapper = found["cmd:./mvnw -pl :shop-web verify -Dtest=CartTest"]
    assert wrapper["verdict"] == "REFUTED" and "mvnw" in wrapper["reason"], wrapper
    assert found["cmd:mvn package in:docs/"]["verdict"] == "INCONCLUSIVE"  # docs/ never held a POM: another folder's command


@pytest.mark.parametrize(("text", "expected"), [
    ("<project><parent><artifactId>p</artifactId></parent><artifactId>core</artifactId></project>", "core"),
    ("<project><dependencies><dependency><artifactId>d</artifactId></dependency></dependencies>\n<artifactId>late</artifactId></project>", "late"),
    ("<project><!-- <artifactId>no</artifactId> --><artifactId> spaced </artifactId></project>", "spaced"),
    ("<?xml version='1.0'?>\n<project xmlns='x'><artifactId>${name}</artifactId></project>", "${name}"),
    ("<project><build><plugins><plugin><artifactId>x</artifactId></plugin></plugins></build></project>", None),
    ("<project>" + "<a>" * 100 + "<artifactId>deep</artifactId>", None),
    ("<project><!-- never closed <artifactId>no</artifactId>", None),
])
def test_a_poms_own_artifact_id_is_the_child_of_project_itself(text: str, expected: str | None) -> None:
    from anchorcheck_plugins.runners.maven import own_artifact

    assert own_artifact(text) == expected


def test_a_wrapper_moved_in_a_nested_build_names_its_commit_once(tmp_path: Path) -> None:
    # the folder's reading and the root's fallback both asked history of java/mvnw: the reason said it twice
    write_tree(tmp_path, {"java/mvnw": "#!/bin/sh\n", "java/pom.xml": ROOT_POM, "java/AGENTS.md": "Build with `./mvnw -q verify`.\n"})
    init_repo(tmp_path)
    git(tmp_path, "mv", "java/mvnw", "java/mvnw.sh")
    commit(tmp_path, "rename the wrapper")
    found = by_anchor(check(tmp_path)[1])["cmd:./mvnw -q verify in:java/"]
    assert found["verdict"] == "REFUTED" and found["reason"].count("'rename the wrapper'") == 1, found["reason"]
