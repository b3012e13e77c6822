"""Cargo: the ripgrep workspace (members, optional, target and header-style deps) and Cargo.lock; fixtures for the rest."""

from __future__ import annotations

import tomllib
from pathlib import Path

from anchorcheck.evidence.packages import BUILD, DEV, DIRECT, LOCKED, OPTIONAL, PROJECT, WORKSPACE
from tests._pkg_support import corpus, index, names, needs_corpus, verdict, verifier, write


@needs_corpus
def test_ripgrep_workspace() -> None:
    root = corpus("ripgrep")
    idx = index(root, "cargo")
    assert names(idx, DIRECT, member="") == {
        "anyhow", "bstr", "grep", "ignore", "lexopt", "log", "serde-json", "termcolor", "textwrap", "tikv-jemallocator",
    }
    assert names(idx, OPTIONAL, "unstable-index") == {"grep-index"}  # enabled by "dep:grep-index"
    assert names(idx, DEV, member="") == {"serde", "serde-derive", "walkdir"}
    members = {d.member for d in idx.declarations if d.member}
    assert members == {f"crates/{c}" for c in ("cli", "globset", "grep", "ignore", "index", "matcher", "pcre2", "printer", "regex", "searcher")}
    assert names(idx, PROJECT) >= {"ripgrep", "grep-cli", "globset", "ignore", "grep-searcher"}
    assert names(idx, DIRECT, member="crates/ignore") >= {"regex-automata", "winapi-util", "crossbeam-deque"}
    assert names(idx, OPTIONAL, member="crates/globset") == {"arbitrary", "log", "serde"}
    lock = tomllib.loads((root / "Cargo.lock").read_text())
    assert names(idx, LOCKED) == {p["name"].replace("_", "-") for p in lock["package"]} and len(lock["package"]) == 63
    jemalloc = next(d for d in idx.declarations if d.name == "tikv-jemallocator")
    assert (jemalloc.line, jemalloc.specifier) == (69, "0.7.0")
    automata = next(d for d in idx.declarations if d.name == "regex-automata" and d.member == "crates/ignore")
    assert automata.line == 30
    assert verdict(root, "pkg:cargo/serde_json") == "VERIFIED"  # '_' and '-' are one name
    assert verdict(root, "pkg:cargo/aho-corasick@^1.1") == "VERIFIED"
    assert verdict(root, "pkg:cargo/aho-corasick@<1") == "REFUTED"
    assert verdict(root, "pkg:cargo/tokio") == "REFUTED"
    assert verdict(root, "pkg:cargo/std") == "INCONCLUSIVE"


def test_renamed_build_workspace_deps_and_lock_v1(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "Cargo.toml": '[package]\nname = "app"\n[dependencies]\nser = { package = "serde", version = "1" }\n'
            '[build-dependencies]\ncc = "1.0"\n[workspace.dependencies]\nrand = "0.8"\n[features]\n',
            "Cargo.lock": '[[package]]\nname = "serde"\nversion = "1.0.200"\n\n[[package]]\nname = "cc"\nversion = "1.0.90"\n\n'
            '[metadata]\n"checksum serde 1.0.200 (registry+https://example.invalid)" = "00"\n',
        },
    )
    idx = index(tmp_path, "cargo")
    assert names(idx, DIRECT) == {"serde"} and names(idx, BUILD) == {"cc"} and names(idx, WORKSPACE) == {"rand"}
    assert verdict(tmp_path, "pkg:cargo/ser") == "REFUTED"  # the rename is not the crate
    result = verifier(tmp_path).check("pkg:cargo/serde@1.0.200")
    assert result.verdict.value == "VERIFIED" and ("Cargo.lock", 1) in [(e.path, e.line) for e in result.evidence]


def test_a_member_inherits_the_workspace_rename(tmp_path: Path) -> None:
    """`pubgrub = { workspace = true }` in a member is what `[workspace.dependencies]` says it is:
    uv's `pubgrub = { package = "astral-pubgrub" }` made `pkg:cargo/pubgrub` VERIFIED "a direct
    dependency of workspace member crates/uv-resolver" (and `webpki`, renamed rustls-webpki, too)."""
    write(
        tmp_path,
        {
            "Cargo.toml": '[workspace]\nmembers = ["crates/*"]\n\n[workspace.dependencies]\n'
            'pubgrub = { version = "0.6", package = "astral-pubgrub" }\nserde = "1"\n',
            "crates/solver/Cargo.toml": '[package]\nname = "solver"\n\n[dependencies]\npubgrub = { workspace = true }\n'
            "serde = { workspace = true }\n\n[dev-dependencies]\npubgrub.workspace = true\n",
            "crates/solver/src/lib.rs": "use pubgrub::Range;\n",
        },
    )
    idx = index(tmp_path, "cargo")
    assert names(idx, DIRECT, member="crates/solver") == {"astral-pubgrub", "serde"}
    assert names(idx, DEV, member="crates/solver") == {"astral-pubgrub"}
    refuted = verifier(tmp_path).check("pkg:cargo/pubgrub")
    assert refuted.verdict.value == "REFUTED", refuted.reason
    assert "crates/solver/Cargo.toml:5 installs astral-pubgrub under the name pubgrub" in refuted.reason
    result = verifier(tmp_path).check("pkg:cargo/astral-pubgrub in:crates/solver/")
    assert result.verdict.value == "VERIFIED" and "imported as pubgrub" in result.reason, result.reason


def test_a_dotted_workspace_key_is_cited_at_its_line(tmp_path: Path) -> None:
    """`serde.workspace = true` (TOML's dotted form of `serde = { workspace = true }`) was cited without a line."""
    write(
        tmp_path,
        {
            "Cargo.toml": '[workspace]\nmembers = ["crates/*"]\n\n[workspace.dependencies]\nserde = "1"\n',
            "crates/a/Cargo.toml": '[package]\nname = "a"\n\n[dependencies]\nserde.workspace = true\n',
        },
    )
    result = verifier(tmp_path).check("pkg:cargo/serde")
    assert ("crates/a/Cargo.toml", 5) in [(e.path, e.line) for e in result.evidence], result.evidence
