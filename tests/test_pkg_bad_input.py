"""Bad manifests and lockfiles: INCONCLUSIVE naming the file and line, never a crash or a hang."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anchorcheck import Verifier
from anchorcheck.repo.config import Config
from tests._pkg_support import verifier, write

BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8)
)


@pytest.mark.parametrize(
    ("files", "anchor", "where"),
    [
        ({"pyproject.toml": '[project]\nname = "x"\ndependencies = ["redis",\n'}, "pkg:pypi/celery", "pyproject.toml:4"),
        ({"pyproject.toml": '[project]\ndependencies = "redis"\n'}, "pkg:pypi/celery", "pyproject.toml:2"),
        ({"pyproject.toml": '[project]\ndependencies = ["redis>>>1"]\n'}, "pkg:pypi/celery", "pyproject.toml:2"),
        ({"pyproject.toml": '[project]\nname="x"\n', "uv.lock": '[[package]]\nname = "redis"\nversion = 5\n'}, "pkg:pypi/celery", "uv.lock:1"),
        ({"package.json": '{"dependencies": {"a": "^1"'}, "pkg:npm/b", "package.json:1"),
        ({"package.json": '{\n  "dependencies": ["a"]\n}'}, "pkg:npm/b", "package.json:2"),
        ({"package.json": '{\n  "dependencies": {\n    "a": 1\n  }\n}'}, "pkg:npm/b", "package.json:3"),
        ({"package.json": "{}", "pnpm-lock.yaml": "lockfileVersion: '9.0'\npackages:\n  a@1.0.0: [\n"}, "pkg:npm/b", "pnpm-lock.yaml:4"),
        ({"package.json": "{}", "pnpm-lock.yaml": BOMB}, "pkg:npm/b", "pnpm-lock.yaml:2"),
        ({"package.json": "{}", "yarn.lock": "a@^1:\n  version \"1.0.0\"\nnot a header\n"}, "pkg:npm/b", "yarn.lock:3"),
        ({"Cargo.toml": '[package]\nname = "x"\n[dependencies]\nserde = 1\n'}, "pkg:cargo/tokio", "Cargo.toml:4"),
        ({"go.mod": "module x\nrequire (\n\tgithub.com/a/b v1.0.0\n"}, "pkg:golang/github.com/z/z", "go.mod:3"),
        ({"requirements.txt": "-r requirements.txt\n"}, "pkg:pypi/x", "requirements.txt:1"),
        ({"requirements.txt": "-r other.txt\n", "other.txt": "flask\n-r requirements.txt\n"}, "pkg:pypi/x", "requirements.txt:1"),
        ({"requirements.txt": "-r missing.txt\n"}, "pkg:pypi/x", "requirements.txt:1"),
        ({"requirements.txt": "-r ../../etc/passwd\n"}, "pkg:pypi/x", "requirements.txt:1"),
        ({"environment.yml": "dependencies: 3\n"}, "pkg:pypi/x", "environment.yml:1"),
        ({"pyproject.toml": '[dependency-groups]\na = [{include-group = "a"}]\n'}, "pkg:pypi/x", "pyproject.toml:2"),
        ({"setup.cfg": "garbage\n"}, "pkg:pypi/x", "setup.cfg:1"),
        ({"package.json": b'{"name": "\xff"}'}, "pkg:npm/b", "package.json:1"),
    ],
)
def test_inconclusive_with_file_and_line(tmp_path: Path, files: dict[str, str | bytes], anchor: str, where: str) -> None:
    write(tmp_path, files)
    started = time.monotonic()
    result = verifier(tmp_path).check(anchor)
    assert time.monotonic() - started < 5
    assert result.verdict.value == "INCONCLUSIVE", result.reason
    assert result.state == "incomplete", result.reason
    assert where in result.reason


def test_deeply_nested_json(tmp_path: Path) -> None:
    write(tmp_path, {"package.json": "[" * 200_000})
    result = verifier(tmp_path).check("pkg:npm/b")
    assert result.verdict.value == "INCONCLUSIVE" and "package.json" in result.reason


def test_huge_lockfile(tmp_path: Path) -> None:
    write(tmp_path, {"package.json": '{"dependencies": {"a": "^1"}}', "package-lock.json": '{"packages": {}}' + " " * 5000})
    config = Config(plugin_settings={"pkg": {"max-manifest-bytes": 1000}})
    result = Verifier(tmp_path, config=config).check("pkg:npm/b")
    assert result.verdict.value == "INCONCLUSIVE" and "package-lock.json" in result.reason and "too large" in result.reason
    # What the manifest does declare still verifies.
    assert Verifier(tmp_path, config=config).check("pkg:npm/a").verdict.value == "VERIFIED"


def test_yaml_anchor_without_alias_still_loads(tmp_path: Path) -> None:
    write(tmp_path, {"environment.yml": "dependencies:\n  - &n numpy\n  - scipy  # see *this: a star after a space takes the guarded loader\n"})
    assert verifier(tmp_path).check("pkg:pypi/numpy").verdict.value == "VERIFIED"


_FILES = [
    "pyproject.toml", "uv.lock", "requirements.txt", "setup.py", "setup.cfg", "Pipfile", "Pipfile.lock", "environment.yml",
    "package.json", "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "Cargo.toml", "Cargo.lock", "go.mod", "go.sum",
]
_ALPHABET = st.sampled_from(list('[]{}"=:,-@ \n\t*&#\\/.^~<>abcnpv019') + ["require", "[[package]]", "name", "version", "-r "])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(_FILES), content=st.lists(_ALPHABET, max_size=60).map("".join))
def test_arbitrary_manifest_text_never_crashes(tmp_path: Path, name: str, content: str) -> None:
    root = tmp_path / "fuzz"
    root.mkdir(exist_ok=True)
    for old in root.iterdir():
        old.unlink()
    (root / name).write_text(content)
    result = verifier(root).check("pkg:zzz")
    assert result.state != "error", result.reason


def test_a_toml_11_inline_table_says_so(tmp_path: Path) -> None:
    # biome's crates/biome_cli/Cargo.toml: its toolchain reads TOML 1.1, tomllib only TOML 1.0.
    write(tmp_path, {"Cargo.toml": '[package]\nname = "x"\n[dependencies]\ntokio = {\n  workspace = true,\n}\n'})
    result = verifier(tmp_path).check("pkg:cargo/serde")
    assert result.verdict.value == "INCONCLUSIVE" and "Cargo.toml:4" in result.reason
    assert "is TOML 1.1" in result.reason
