"""npm: package.json sections and workspaces, package-lock v1-3, yarn.lock v1 and Berry, pnpm-lock 5/6/9."""

from __future__ import annotations

import json
from pathlib import Path

from anchorcheck.evidence.packages import DEV, DIRECT, LOCKED, OPTIONAL, PEER, PROJECT
from tests._pkg_support import corpus, index, names, needs_corpus, verdict, verifier, write


@needs_corpus
def test_axios_package_json_and_lock_v2() -> None:
    root = corpus("axios")
    idx = index(root, "npm")
    assert names(idx, DIRECT) == {"follow-redirects", "form-data", "proxy-from-env"}
    devs = json.loads((root / "package.json").read_text())["devDependencies"]
    assert names(idx, DEV) == {n.lower() for n in devs} and len(devs) == 57
    assert names(idx, PROJECT) == {"axios"}
    lock = json.loads((root / "package-lock.json").read_text())
    nested = {k.rsplit("node_modules/", 1)[-1].lower() for k in lock["packages"] if k}
    assert names(idx, LOCKED) == nested
    result = verifier(root).check("pkg:npm/form-data@4.0.0")
    assert result.verdict.value == "VERIFIED"
    assert ("package.json", 151) in [(e.path, e.line) for e in result.evidence]
    assert verdict(root, "pkg:npm/follow-redirects@^2") == "REFUTED"
    assert verdict(root, "pkg:npm/left-pad") == "REFUTED"


@needs_corpus
def test_vue_pnpm_workspace_members_catalog_and_lock_v9() -> None:
    root = corpus("vue-core")
    idx = index(root, "npm")
    members = {d.member for d in idx.declarations if d.member}
    assert members == {
        str(p.parent.relative_to(root)) for p in root.glob("packages*/*/package.json")
    } and len(members) == 17
    assert names(idx, PROJECT, member="packages/reactivity") == {"@vue/reactivity"}
    assert names(idx, DIRECT, member="packages/reactivity") == {"@vue/shared"}
    assert "vite" in names(idx, DEV, member="")
    assert verdict(root, "pkg:npm/%40vue/reactivity") == "VERIFIED"
    result = verifier(root).check("pkg:npm/entities@7.0.1")
    assert result.verdict.value == "VERIFIED"
    assert any(e.detail.startswith("a direct dependency of workspace member packages/compiler-core, specifier catalog:") for e in result.evidence)
    assert verdict(root, "pkg:npm/react") == "REFUTED"


@needs_corpus
def test_prettier_berry_lock_and_nested_project() -> None:
    root = corpus("prettier")
    idx = index(root, "npm")
    assert "acorn" in names(idx, DIRECT)
    assert verdict(root, "pkg:npm/%40angular/compiler@22.0.8") == "VERIFIED"
    # scripts/release is a project of its own (not a workspace member): its deps count only when scoped.
    release = index(root, "npm", "scripts/release")
    assert names(release, DIRECT) == {"enquirer", "fast-glob", "nano-spawn", "node-style-text", "outdent", "semver"}
    assert "nano-spawn" not in names(idx, DIRECT)
    assert verdict(root, "pkg:npm/nano-spawn@2.1.0 in:scripts/release") == "VERIFIED"


def test_yarn_v1_lock_and_peer_optional(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "package.json": json.dumps(
                {
                    "name": "app",
                    "dependencies": {"@scope/lib": "^1.0.0", "lodash": "4.17.21"},
                    "peerDependencies": {"react": ">=18"},
                    "optionalDependencies": {"fsevents": "*"},
                },
                indent=2,
            ),
            "yarn.lock": "# yarn lockfile v1\n\n\n"
            '"@scope/lib@^1.0.0", "@scope/lib@^1.1.0":\n  version "1.2.0"\n  resolved "https://example.invalid/lib.tgz"\n'
            '  dependencies:\n    tiny "^2.0.0"\n\n'
            "lodash@4.17.21:\n  version \"4.17.21\"\n\ntiny@^2.0.0:\n  version \"2.1.0\"\n",
        },
    )
    idx = index(tmp_path, "npm")
    assert names(idx, PEER) == {"react"} and names(idx, OPTIONAL) == {"fsevents"}
    locked = {d.name: (d.locked_version, d.line) for d in idx.declarations if d.relation == LOCKED}
    assert locked == {"@scope/lib": ("1.2.0", 4), "lodash": ("4.17.21", 10), "tiny": ("2.1.0", 13)}
    assert verdict(tmp_path, "pkg:npm/%40scope/lib@1.2.0") == "VERIFIED"
    assert verdict(tmp_path, "pkg:npm/tiny@~2.0") == "REFUTED"
    assert verdict(tmp_path, "pkg:npm/fs") == "INCONCLUSIVE"


def test_package_lock_v1_nested_dependencies(tmp_path: Path) -> None:
    lock = {"lockfileVersion": 1, "dependencies": {"a": {"version": "1.0.0", "dependencies": {"b": {"version": "2.0.0"}}}}}
    write(tmp_path, {"package.json": '{"dependencies": {"a": "^1"}}', "package-lock.json": json.dumps(lock, indent=2)})
    assert verdict(tmp_path, "pkg:npm/b@2.0.0") == "VERIFIED"
    assert verdict(tmp_path, "pkg:npm/a@^1") == "VERIFIED"


def test_pnpm_lock_v5_and_v6_keys(tmp_path: Path) -> None:
    write(
        tmp_path / "v5",
        {
            "package.json": '{"dependencies": {"a": "^1"}}',
            "pnpm-lock.yaml": "lockfileVersion: 5.4\nspecifiers:\n  a: ^1\ndependencies:\n  a: 1.0.0\n"
            "packages:\n  /a/1.0.0_react@18.0.0:\n    resolution: {integrity: x}\n  /@s/b/2.0.0:\n    dev: false\n",
        },
    )
    write(
        tmp_path / "v6",
        {
            "package.json": '{"dependencies": {"a": "^1"}}',
            "pnpm-lock.yaml": "lockfileVersion: '6.0'\npackages:\n  /a@1.0.0(react@18.0.0):\n    dev: false\n  /@s/b@2.0.0:\n    dev: false\n",
        },
    )
    for root in (tmp_path / "v5", tmp_path / "v6"):
        assert verdict(root, "pkg:npm/a@1.0.0") == "VERIFIED"
        assert verdict(root, "pkg:npm/%40s/b@2.0.0") == "VERIFIED"


def test_npm_workspaces_and_negated_globs(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "package.json": '{"private": true, "workspaces": ["packages/*", "!packages/old"]}',
            "packages/ui/package.json": '{"name": "@me/ui", "dependencies": {"react": "^18"}}',
            "packages/old/package.json": '{"name": "@me/old", "dependencies": {"jquery": "^3"}}',
        },
    )
    assert verdict(tmp_path, "pkg:npm/react") == "VERIFIED"
    assert verdict(tmp_path, "pkg:npm/jquery") == "REFUTED"
    assert verdict(tmp_path, "pkg:npm/jquery in:packages/old") == "VERIFIED"


def test_pnpm_lock_v9_cites_each_package_at_its_key_line(tmp_path: Path) -> None:
    # A key is a line of its own (quoted or not, blanks after the colon); `a@1.0.0: {}` under snapshots holds
    # a value, and the importer's `a:` names another key: neither moves where `a@1.0.0` is cited.
    write(
        tmp_path,
        {
            "package.json": '{"dependencies": {"a": "^1", "@s/b": "^2"}}',
            "pnpm-lock.yaml": "lockfileVersion: '9.0'\n\nimporters:\n  .:\n    dependencies:\n      a:\n        specifier: ^1\n"
            "        version: 1.0.0\n\npackages:\n\n  a@1.0.0:\n    resolution: {integrity: x}\n\n  '@s/b@2.0.0':  \n"
            "    resolution: {integrity: y}\n\nsnapshots:\n\n  a@1.0.0: {}\n\n  '@s/b@2.0.0': {}\n",
        },
    )
    locked = {(d.name, d.line) for d in index(tmp_path, "npm").declarations if d.relation == LOCKED}
    assert locked == {("a", 12), ("@s/b", 15)}
    assert ("pnpm-lock.yaml", 15) in [(e.path, e.line) for e in verifier(tmp_path).check("pkg:npm/%40s/b@2.0.0").evidence]
