"""The plugin system: registration, dispatch, isolation of broken plugins, restriction."""

from __future__ import annotations

import warnings

import pytest

from anchorcheck import AnchorKind, AnchorResult, Memory, Verdict, Verifier, hookimpl
from anchorcheck.verify.loading import PluginWarning, load_plugins


class Always:
    """A plugin adding `always:` anchors, which verify whatever they say."""

    @hookimpl
    def register_anchor_kinds(self, register):
        register(AnchorKind("always", lambda a, c: AnchorResult(str(a), Verdict.VERIFIED, "always true")))


class Exploding:
    @hookimpl
    def register_anchor_kinds(self, register):
        register(AnchorKind("boom", self.verify))

    def verify(self, anchor, context):
        raise RuntimeError("kaboom")


class Claimer:
    """Claims `always:x-claimed` anchors before the kind does (firstresult)."""

    @hookimpl
    def verify_anchor(self, anchor, context):
        if anchor.value.endswith("-claimed"):
            return AnchorResult(str(anchor), Verdict.REFUTED, "claimed by Claimer")
        return None


class Misspelled:
    @hookimpl
    def regster_anchor_kinds(self, register):  # the typo check_pending() exists to catch
        pass


class RaisesWhileRegistering:
    @hookimpl
    def register_anchor_kinds(self, register):
        raise ValueError("cannot register")


def test_extra_plugin_kind_is_verified(tmp_path) -> None:
    v = Verifier(tmp_path, plugins=[Always()])
    assert v.check("always:anything").verdict is Verdict.VERIFIED
    assert v.check("!always:anything").verdict is Verdict.REFUTED


def test_a_raising_verifier_costs_one_anchor_and_names_the_plugin(tmp_path) -> None:
    v = Verifier(tmp_path, plugins=[Always(), Exploding()])
    report = v.verify(Memory(anchors=["boom:x", "always:y"]))
    boom, ok = report.results
    assert boom.verdict is Verdict.INCONCLUSIVE
    assert "Exploding" in boom.reason and "kaboom" in boom.reason
    assert ok.verdict is Verdict.VERIFIED


def test_verify_anchor_hook_claims_first(tmp_path) -> None:
    v = Verifier(tmp_path, plugins=[Always(), Claimer()])
    assert v.check("always:x-claimed").reason == "claimed by Claimer"
    assert v.check("always:x").verdict is Verdict.VERIFIED


def test_misspelled_hook_is_caught_and_plugin_left_out(tmp_path) -> None:
    with pytest.warns(PluginWarning, match="regster_anchor_kinds"):
        loaded = load_plugins(only=[], extra=[Misspelled(), Always()])
    assert "always" in loaded.registry.kinds
    failed = [i for i in loaded.infos if i.error]
    assert len(failed) == 1 and "regster_anchor_kinds" in failed[0].error


def test_plugin_raising_during_registration_is_isolated() -> None:
    with pytest.warns(PluginWarning, match="cannot register"):
        loaded = load_plugins(only=[], extra=[RaisesWhileRegistering(), Always()])
    assert "always" in loaded.registry.kinds


def test_duplicate_kind_warns_and_keeps_the_first() -> None:
    with pytest.warns(PluginWarning, match="registered by both"):
        loaded = load_plugins(only=[], extra=[Always(), Always()])
    assert list(loaded.registry.kinds) == ["always"]


def test_builtin_plugins_load_through_entry_points() -> None:
    loaded = load_plugins()
    names = {info.name for info in loaded.infos}
    assert {"file", "markdown"} <= names
    file_info = next(i for i in loaded.infos if i.name == "file")
    assert file_info.distribution == "anchorcheck" and file_info.hooks == ["register_anchor_kinds"]


def test_environment_variable_restricts_plugins(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("ANCHORCHECK_PLUGINS", "markdown")
    v = Verifier(tmp_path)
    assert "file" not in v.registry.kinds
    result = v.check("file:README.md")
    assert result.verdict is Verdict.INCONCLUSIVE and "unknown anchor kind 'file'" in result.reason


def test_only_plugins_option(tmp_path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        v = Verifier(tmp_path, only_plugins=["file"])
    assert list(v.registry.kinds) == ["file"] and not v.registry.formats
