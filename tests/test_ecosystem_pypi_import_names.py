"""The import-name <-> distribution-name mapping: shipped table, namespace families, project metadata."""

from __future__ import annotations

from pathlib import Path

import pytest

from anchorcheck import Verifier
from anchorcheck.repo.config import Config
from anchorcheck_plugins.ecosystems.pypi_import_names import (
    distributions_for_import,
    imports_for_distribution,
    is_standard_library,
)


@pytest.mark.parametrize(
    ("module", "dists"),
    [
        ("yaml", ["pyyaml"]),
        ("sklearn.linear_model", ["scikit-learn"]),
        ("PIL.Image", ["pillow"]),
        ("bs4", ["beautifulsoup4"]),
        ("dotenv", ["python-dotenv"]),
        ("google.protobuf.message", ["protobuf"]),
        ("google.cloud.storage.blob", ["google-cloud-storage"]),
        ("google.cloud.firestore", ["google-cloud-firestore"]),
        ("azure.storage.blob.aio", ["azure-storage-blob"]),
        ("azure.mgmt.compute", ["azure-mgmt-compute"]),
        ("azure.eventgrid", ["azure-eventgrid"]),
        ("mcp.server.fastmcp", ["mcp"]),
        ("typing_extensions", ["typing-extensions"]),
        ("redis", ["redis"]),
    ],
)
def test_distributions_for_import(module: str, dists: list[str]) -> None:
    assert distributions_for_import(module) == dists


def test_alternatives_are_all_named() -> None:
    assert {"opencv-python", "opencv-python-headless"} <= set(distributions_for_import("cv2"))


def test_standard_library_has_no_distribution() -> None:
    assert is_standard_library("sqlite3") and is_standard_library("os.path")
    assert not is_standard_library("redis")
    assert distributions_for_import("sqlite3") == []


@pytest.mark.parametrize(
    ("dist", "modules"),
    [
        ("PyYAML", ["yaml"]),
        ("scikit_learn", ["sklearn"]),
        ("google-cloud-bigquery-storage", ["google.cloud.bigquery_storage"]),
        ("azure-keyvault-keys", ["azure.keyvault.keys"]),
        ("Flask_SQLAlchemy", ["flask_sqlalchemy"]),
        ("requests", ["requests"]),
    ],
)
def test_imports_for_distribution(dist: str, modules: list[str]) -> None:
    assert imports_for_distribution(dist) == modules


def test_project_metadata_wins(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "incident-tracker"\n'
        '[tool.deptry.package_module_name_map]\nfoo-bar = "baz"\nmulti = ["m1", "m2"]\nbad = 3\n'
        '[tool.anchorcheck.plugin.pypi.import-names]\npyyaml = "yaml_override"\n'
    )
    (tmp_path / "src" / "tracker").mkdir(parents=True)
    (tmp_path / "src" / "tracker" / "__init__.py").write_text("")
    context = Verifier(tmp_path).context
    assert imports_for_distribution("incident_tracker", context) == ["tracker"]
    assert distributions_for_import("tracker.api", context) == ["incident-tracker"]
    assert distributions_for_import("baz", context) == ["foo-bar"]
    assert imports_for_distribution("multi", context) == ["m1", "m2"]
    assert imports_for_distribution("bad", context) == ["bad"]
    assert imports_for_distribution("PyYAML", context) == ["yaml_override"]
    # Without the project's context only the shipped table answers.
    assert distributions_for_import("tracker") == ["tracker"]


def test_configured_packages_and_broken_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "svc"\n[tool.hatch.build.targets.wheel]\npackages = ["src/service_core"]\n'
    )
    assert imports_for_distribution("svc", Verifier(tmp_path).context) == ["service_core"]
    (tmp_path / "pyproject.toml").write_text("[project\n")
    # The core refuses a broken pyproject as configuration; given a config, the mapping ignores the file.
    assert imports_for_distribution("svc", Verifier(tmp_path, config=Config()).context) == ["svc"]


def test_workspace_members_and_malformed_metadata(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        'tool = {uv = {workspace = {members = ["libs/*"]}}, deptry = 3}\n[project]\nname = "root-app"\n'
    )
    (tmp_path / "libs" / "billing" / "src" / "billing_core").mkdir(parents=True)
    (tmp_path / "libs" / "billing" / "pyproject.toml").write_text('[project]\nname = "acme-billing"\n')
    (tmp_path / "libs" / "billing" / "src" / "billing_core" / "__init__.py").write_text("")
    context = Verifier(tmp_path, config=Config()).context
    assert distributions_for_import("billing_core.invoices", context) == ["acme-billing"]
    assert imports_for_distribution("root_app", context) == ["root_app"]
    (tmp_path / "pyproject.toml").write_text("tool = 3\nproject = 4\n")
    assert distributions_for_import("yaml", Verifier(tmp_path, config=Config()).context) == ["pyyaml"]
