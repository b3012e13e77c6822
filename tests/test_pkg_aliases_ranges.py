"""Package <-> import names across renames and aliases, aliases in every npm lockfile, and version
claims decided by range containment and disjointness when no lockfile says what is installed (issue 15)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests._pkg_support import verifier, write


def _check(root: Path, anchor: str):  # noqa: ANN202 - an AnchorResult
    return verifier(root).check(anchor)


# -- renamed dependencies: the mapping knows each ecosystem's renames ---------------------------------


def test_cargo_rename_is_imported_under_its_new_name(tmp_path: Path) -> None:
    """`memmap = { package = "memmap2" }` is used as `memmap::`: import:memmap2 is imported, not REFUTED."""
    root = write(tmp_path, {
        "Cargo.toml": '[package]\nname = "demo"\nversion = "0.1.0"\n\n[dependencies]\nmemmap = { package = "memmap2", version = "0.9" }\n',
        "src/main.rs": "fn main() {\n    let _ = memmap::MmapOptions::new();\n}\n",
    })
    result = _check(root, "import:memmap2")
    assert result.verdict.value == "VERIFIED", result.reason
    assert "as memmap" in result.reason and result.details["imported_as"] == "memmap"
    assert [(e.path, e.line) for e in result.evidence] == [("src/main.rs", 2)]
    imported = _check(root, "import:memmap")
    assert imported.details["packages"] == {"cargo": ["memmap2"]}
    package = _check(root, "pkg:cargo/memmap2")
    assert package.details["imported"] is True and package.details["imported_at"] == "src/main.rs:2"
    assert _check(root, "import:memmap3").verdict.value == "REFUTED"


def test_cargo_workspace_member_lib_name(tmp_path: Path) -> None:
    """A member whose `[lib] name` differs from its package name is imported by the lib name."""
    root = write(tmp_path, {
        "Cargo.toml": '[workspace]\nmembers = ["core", "app"]\n',
        "core/Cargo.toml": '[package]\nname = "acme-core-rs"\nversion = "0.1.0"\n\n[lib]\nname = "acme"\n',
        "core/src/lib.rs": "pub fn f() {}\n",
        "app/Cargo.toml": '[package]\nname = "app"\nversion = "0.1.0"\n\n[dependencies]\nacme-core-rs = { path = "../core" }\n',
        "app/src/main.rs": "fn main() { acme::f(); }\n",
    })
    result = _check(root, "import:acme-core-rs")
    assert result.verdict.value == "VERIFIED", result.reason
    assert result.details["imported_as"] == "acme"


def test_npm_alias_is_imported_under_the_alias(tmp_path: Path) -> None:
    root = write(tmp_path, {
        "package.json": json.dumps({"name": "n", "dependencies": {"myyaml": "npm:yaml@^2.1.0"}}),
        "index.js": 'const y = require("myyaml");\n',
        "tool.py": "import yaml\n",  # a Python import of yaml is not the npm package
    })
    result = _check(root, "import:yaml")
    assert result.verdict.value == "VERIFIED"
    assert _check(root, "import:myyaml").details["packages"] == {"npm": ["yaml"]}
    for name in ("yaml", "myyaml"):
        found = _check(root, f"pkg:npm/{name}")
        assert found.verdict.value == "VERIFIED", found.reason
        assert found.details["imported_at"] == "index.js:1"


def test_go_import_path_belongs_to_the_longest_required_module(tmp_path: Path) -> None:
    root = write(tmp_path, {
        "go.mod": "module example.com/app\n\ngo 1.22\n\nrequire (\n\tgithub.com/spf13/cobra v1.8.0\n\tgithub.com/spf13/cobra/extra v0.1.0\n)\n",
        "main.go": 'package main\n\nimport "github.com/spf13/cobra/doc"\n\nfunc main() { _ = doc.GenMarkdownTree }\n',
    })
    result = _check(root, "import:github.com/spf13/cobra/doc")
    assert result.details["packages"] == {"golang": ["github.com/spf13/cobra"]}
    assert _check(root, "pkg:golang/github.com/spf13/cobra").details["imported_at"] == "main.go:3"


def test_pypi_distribution_declared_under_another_import_name(tmp_path: Path) -> None:
    root = write(tmp_path, {
        "pyproject.toml": '[project]\nname = "app"\nversion = "1"\ndependencies = ["PyYAML>=6"]\n',
        "app.py": "import yaml\n",
    })
    result = _check(root, "import:pyyaml")
    assert result.verdict.value == "VERIFIED", result.reason
    assert result.details["imported_as"] == "yaml"


# -- npm aliases in package.json and every lockfile ------------------------------------------------

_BERRY = '__metadata:\n  version: 6\n  cacheKey: 8\n\n"myyaml@npm:yaml@^2.1.0":\n  version: 2.3.4\n  resolution: "yaml@npm:2.3.4"\n  languageName: node\n  linkType: hard\n'
_BERRY_RESOLUTION = '__metadata:\n  version: 6\n\n"myyaml@patch:myyaml@1#x":\n  version: 2.3.4\n  resolution: "yaml@npm:2.3.4"\n'
LOCKFILES = {
    "package-lock v1": ("package-lock.json", json.dumps({"lockfileVersion": 1, "dependencies": {"myyaml": {"version": "npm:yaml@2.3.4"}}})),
    "package-lock v2": ("package-lock.json", json.dumps({"lockfileVersion": 2, "packages": {"": {"name": "n"}, "node_modules/myyaml": {"name": "yaml", "version": "2.3.4"}}})),
    "package-lock v3": ("package-lock.json", json.dumps({"lockfileVersion": 3, "packages": {"node_modules/myyaml": {"name": "yaml", "version": "2.3.4"}}})),
    "yarn v1": ("yarn.lock", '# yarn lockfile v1\n\n\n"myyaml@npm:yaml@^2.1.0":\n  version "2.3.4"\n  resolved "https://registry.yarnpkg.com/yaml/-/yaml-2.3.4.tgz"\n'),
    "yarn berry descriptor": ("yarn.lock", _BERRY),
    "yarn berry resolution": ("yarn.lock", _BERRY_RESOLUTION),
    "pnpm v6": ("pnpm-lock.yaml", "lockfileVersion: '6.0'\ndependencies:\n  myyaml:\n    specifier: npm:yaml@^2.1.0\n    version: /yaml@2.3.4\npackages:\n  /yaml@2.3.4:\n    dev: false\n"),
    "pnpm v9 importer": ("pnpm-lock.yaml", "lockfileVersion: '9.0'\nimporters:\n  .:\n    dependencies:\n      myyaml:\n        specifier: npm:yaml@^2.1.0\n        version: yaml@2.3.4\npackages:\n  yaml@2.3.4:\n    resolution: {integrity: x}\nsnapshots:\n  yaml@2.3.4: {}\n"),
    "pnpm v9 transitive": ("pnpm-lock.yaml", "lockfileVersion: '9.0'\nimporters:\n  .:\n    dependencies:\n      other:\n        specifier: ^1.0.0\n        version: 1.0.0(react@18.2.0)\npackages:\n  other@1.0.0:\n    resolution: {integrity: x}\nsnapshots:\n  other@1.0.0:\n    dependencies:\n      myyaml: yaml@2.3.4\n"),
}


@pytest.mark.parametrize("case", sorted(LOCKFILES))
def test_an_alias_is_locked_under_both_names(tmp_path: Path, case: str) -> None:
    """A lockfile alone (the alias is transitive: package.json does not name it) locks the real name and the alias."""
    name, text = LOCKFILES[case]
    root = write(tmp_path, {"package.json": json.dumps({"name": "n", "dependencies": {"other": "^1.0.0"}}), name: text})
    for package in ("yaml", "myyaml"):
        result = _check(root, f"pkg:npm/{package}@2.3.4")
        assert result.verdict.value == "VERIFIED", (package, result.reason)
    assert _check(root, "pkg:npm/yaml@2.3.5").verdict.value == "REFUTED"
    assert _check(root, "pkg:npm/1.0.0(react").verdict.value == "REFUTED"  # a peer suffix is no alias


def test_an_alias_in_package_json_declares_both_names(tmp_path: Path) -> None:
    root = write(tmp_path, {"package.json": json.dumps({"name": "n", "dependencies": {"myyaml": "npm:yaml@2.3.4"}})})
    for package in ("yaml", "myyaml"):
        result = _check(root, f"pkg:npm/{package}@2.3.4")
        assert result.verdict.value == "VERIFIED", result.reason  # pinned through the alias
    assert _check(root, "pkg:npm/yaml@^3").verdict.value == "REFUTED"


# -- version claims against manifests without a lockfile -------------------------------------------

RANGES = [
    ("package.json", json.dumps({"name": "n", "dependencies": {"cookie": "^0.7.1", "router": "^2.2.0"}}), "npm", [
        ("cookie@^1", "REFUTED"),
        ("cookie@0.6.0", "REFUTED"),
        ("router@^2", "VERIFIED"),
        ("router@%3E%3D2.1", "VERIFIED"),
        ("router@^2.3", "INCONCLUSIVE"),
        ("cookie@0.7.2", "INCONCLUSIVE"),
    ]),
    ("Cargo.toml", '[package]\nname = "d"\nversion = "0.1.0"\n\n[dependencies]\nserde = "1.0.100"\ntokio = "0.2"\n', "cargo", [
        ("serde@^2", "REFUTED"),
        ("serde@^1", "VERIFIED"),
        ("serde@^1.0.150", "INCONCLUSIVE"),
        ("tokio@^1", "REFUTED"),
        ("tokio@~0.2", "VERIFIED"),
    ]),
    ("requirements.txt", "requests>=2.28,<3\ndjango~=4.2.0\nflask\n", "pypi", [
        ("requests@%3E%3D2", "VERIFIED"),
        ("requests@%3C2", "REFUTED"),
        ("requests@%3E%3D2.30", "INCONCLUSIVE"),
        ("django@%3D%3D4.2.%2A", "VERIFIED"),
        ("django@5.0", "REFUTED"),
        ("django@%3E%3D4,!%3D4.2.3", "INCONCLUSIVE"),
        ("flask@%3E%3D2", "INCONCLUSIVE"),
    ]),
]


@pytest.mark.parametrize(("manifest", "text", "ecosystem", "claims"), RANGES, ids=[r[2] for r in RANGES])
def test_version_claims_by_range_intersection_and_containment(tmp_path: Path, manifest, text, ecosystem, claims) -> None:  # noqa: ANN001
    root = write(tmp_path, {manifest: text})
    for claim, expected in claims:
        result = _check(root, f"pkg:{ecosystem}/{claim}")
        assert result.verdict.value == expected, (claim, result.reason)
