"""watch: triggers — a fingerprint banked with the memory; a change fires 'trigger fired: re-check'."""

from __future__ import annotations

import pytest

from anchorcheck import AnchorSyntaxError, Memory, Verdict, Verifier
from anchorcheck_plugins.kinds.watch import bank_watch, parse_watch


def test_parse_keeps_an_at_sign_that_is_not_a_fingerprint():
    assert parse_watch("uv.lock@ABCDEF0123456789").fingerprint == "abcdef0123456789"
    assert parse_watch("web/node_modules/@scope/**").glob == "web/node_modules/@scope/**"
    assert parse_watch("web/@scope/**").fingerprint is None
    assert parse_watch("docs/my%20notes.md").glob == "docs/my notes.md"
    with pytest.raises(AnchorSyntaxError):
        parse_watch("@0123456789abcdef")


def test_unbanked_quiet_fired(make_tree):
    root = make_tree({"uv.lock": "a\n", "deploy/app.yaml": "replicas: 3\n", "src/x.py": ""})
    verifier = Verifier(root)
    unbanked = verifier.check("watch:deploy/**")
    assert unbanked.verdict is Verdict.INCONCLUSIVE and unbanked.details["trigger"] == "unbanked"
    banked = bank_watch(verifier.repo, "deploy/**")
    assert banked in unbanked.reason
    quiet = verifier.check(banked)
    assert quiet.verdict is Verdict.INCONCLUSIVE and quiet.details["trigger"] == "quiet"
    (root / "deploy/app.yaml").write_text("replicas: 5\n")
    fired = Verifier(root).check(banked)
    assert fired.details["trigger"] == "fired" and fired.reason.startswith("trigger fired: re-check")
    (root / "src/x.py").write_text("changed = True\n")  # outside the glob: no effect
    (root / "deploy/app.yaml").write_text("replicas: 3\n")
    assert Verifier(root).check(banked).details["trigger"] == "quiet"


def test_a_new_matching_file_fires(make_tree):
    root = make_tree({"deploy/a.yaml": "a\n"})
    banked = bank_watch(Verifier(root).repo, "deploy/")
    (root / "deploy/b.yaml").write_text("b\n")
    assert Verifier(root).check(banked).details["trigger"] == "fired"


def test_fingerprint_is_the_same_in_and_out_of_git(make_tree, make_repo):
    files = {"uv.lock": "x\n", "pyproject.toml": "[project]\n"}
    assert bank_watch(Verifier(make_tree(files)).repo, "*.lock") == bank_watch(Verifier(make_repo(files)).repo, "*.lock")


def test_a_trigger_alone_never_verifies_the_memory(make_tree):
    root = make_tree({"uv.lock": "a\n", "README.md": "hi\n"})
    verifier = Verifier(root)
    banked = bank_watch(verifier.repo, "uv.lock")
    only = verifier.verify(Memory("licences audited", [banked]))
    assert only.verdict is Verdict.INCONCLUSIVE and "never evidence" in only.reason
    with_evidence = verifier.verify(Memory("readme", ["file:README.md", banked]))
    assert with_evidence.verdict is Verdict.VERIFIED
    (root / "uv.lock").write_text("b\n")
    after = Verifier(root).verify(Memory("readme", ["file:README.md", banked]))
    assert after.verdict is Verdict.INCONCLUSIVE and "trigger fired: re-check" in after.reason
    refuted = Verifier(root).verify(Memory("gone", ["file:missing.md", banked]))
    assert refuted.verdict is Verdict.REFUTED


def test_unsafe_watch_path_is_inconclusive(make_tree):
    result = Verifier(make_tree({"a": "b"})).check("watch:../outside")
    assert result.verdict is Verdict.INCONCLUSIVE and "refused" in result.reason
