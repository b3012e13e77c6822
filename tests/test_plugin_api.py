"""The public plugin API: every name it promises resolves, and importing it costs nothing until one is used."""

from __future__ import annotations

import json
import subprocess
import sys

import anchorcheck.plugin as api


def test_every_name_of_the_plugin_api_resolves() -> None:
    missing = [name for name in api.__all__ if getattr(api, name, None) is None]
    assert missing == []
    assert sorted(dir(api)) == sorted(set(dir(api)))  # listed once, with the names not loaded yet


def test_importing_the_plugin_api_loads_no_layer_of_the_core() -> None:
    code = "import sys, json, anchorcheck.plugin; print(json.dumps(sorted(m for m in sys.modules if m.startswith('anchorcheck'))))"
    loaded = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    assert loaded == ["anchorcheck", "anchorcheck._version", "anchorcheck.plugin"]


def test_a_plugin_name_is_the_core_object_itself() -> None:
    from anchorcheck import Evidence, hookimpl
    from anchorcheck.plugin import Evidence as ApiEvidence
    from anchorcheck.plugin import hookimpl as api_hookimpl

    assert ApiEvidence is Evidence and api_hookimpl is hookimpl
