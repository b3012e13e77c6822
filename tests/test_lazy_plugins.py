"""Lazy start-up: the registry is known from entry-point metadata, and a plugin module is imported only
when a memory or an anchor needs what it declared. Results are those of importing everything first."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import warnings
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from anchorcheck import AnchorKind, AnchorResult, Verdict, Verifier, hookimpl
from anchorcheck.verify import loading as plugin_loading
from anchorcheck.cli import main
from anchorcheck.base.entrypoints import entry_points
from anchorcheck.verify.loading import ENTRY_POINT_GROUP, PROVIDES_GROUP, PluginWarning, load_plugins
from anchorcheck.model.registry import Declared
from tests.conftest import REPO_ROOT

MIXED = {
    "CLAUDE.md": (
        "# Notes\n\n"
        "- JSON is parsed in `src/app/main.py`: `import:json`, `sym:src/app/main.py::main`.\n"
        "- The mode comes from `env:APP_MODE`; HTTP is `pkg:pypi/requests`, not `!pkg:npm/left-pad`.\n"
        "- Build with `npm run build`, lint with `cmd:make lint`; see [the changelog](CHANGELOG.md).\n"
        "- Gone: `file:docs/old.md`, `import:redis`, `cmd:npm run deploy`.\n"
    ),
    "src/app/__init__.py": "",
    "src/app/main.py": "import json\nimport os\n\n\ndef main():\n    return json.dumps(os.environ.get('APP_MODE'))\n",
    "pyproject.toml": '[project]\nname = "app"\nversion = "1"\ndependencies = ["requests>=2"]\n',
    "package.json": '{"name": "web", "scripts": {"build": "vite build"}}\n',
    "Makefile": "lint:\n\truff check .\n",
    "CHANGELOG.md": "# Changelog\n",
}


def _modules_after(root: Path, code: str) -> tuple[set[str], str]:
    """Run `code` in a fresh interpreter in `root`; the modules it imported, and what it printed."""
    probe = f"import sys\n{code}\nprint('MODULES', ' '.join(sorted(sys.modules)))\n"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=root, timeout=120)
    assert "MODULES" in done.stdout, done.stderr
    head, _, mods = done.stdout.rpartition("MODULES ")
    return set(mods.split()), head


def test_a_memory_of_file_anchors_imports_no_grammar_runner_ecosystem_or_language(make_repo) -> None:  # noqa: ANN001
    root = make_repo({"CLAUDE.md": "- The app is `file:src/app.py`; see [the docs](docs/index.md) and `docs/index.md`.\n",
                      "src/app.py": "x = 1\n", "docs/index.md": "# Docs\n"})
    mods, out = _modules_after(root, "from anchorcheck.cli import main\nprint('EXIT', main(['check', '--no-cache']))")
    assert "EXIT 0" in out and "Checked 1 anchor and 1 reference in 1 file: 2 verified in " in out
    loaded = {m for m in mods if m.startswith("anchorcheck_plugins.")}
    assert "anchorcheck_plugins.kinds.file" in loaded and "anchorcheck_plugins.formats.markdown" in loaded
    assert not {m for m in loaded if m.split(".")[1] in ("runners", "languages", "ecosystems")}, loaded
    assert not {m for m in loaded if m.startswith("anchorcheck_plugins.kinds.") and m != "anchorcheck_plugins.kinds.file"}
    assert not {"tree_sitter", "tree_sitter_language_pack", "pathspec", "tomlkit", "packaging", "yaml", "importlib.metadata",
                "difflib", "secrets"} & mods


def test_an_anchor_imports_only_the_plugins_it_needs(make_repo) -> None:  # noqa: ANN001
    root = make_repo({"package.json": '{"dependencies": {"left-pad": "1.3.0"}}\n', "Makefile": "lint:\n\ttrue\n"})
    code = "import anchorcheck\nv = anchorcheck.Verifier('.')\nprint(v.check('pkg:npm/left-pad').verdict, v.check('cmd:make lint').verdict)"
    mods, out = _modules_after(root, code)
    assert out.split() == ["VERIFIED", "VERIFIED"]
    loaded = {m for m in mods if m.startswith("anchorcheck_plugins.") and m.count(".") == 2}
    assert loaded >= {"anchorcheck_plugins.kinds.pkg", "anchorcheck_plugins.ecosystems.npm", "anchorcheck_plugins.kinds.cmd", "anchorcheck_plugins.runners.make"}
    assert not {"anchorcheck_plugins.ecosystems.pypi", "anchorcheck_plugins.ecosystems.cargo", "anchorcheck_plugins.runners.npm",
                "anchorcheck_plugins.runners.python_tools", "anchorcheck_plugins.languages.python"} & loaded


def test_a_python_import_asks_only_the_ecosystems_of_python(make_repo) -> None:  # noqa: ANN001
    root = make_repo({"app.py": "import requests\n", "package.json": '{"dependencies": {"left-pad": "1"}}\n'})
    code = "import anchorcheck\nr = anchorcheck.Verifier('.').check('import:requests')\nprint(r.verdict, r.details.get('distributions'))"
    mods, out = _modules_after(root, code)
    assert out.split() == ["VERIFIED", "['requests']"]
    assert "anchorcheck_plugins.ecosystems.pypi" in mods
    assert not {"anchorcheck_plugins.ecosystems.npm", "anchorcheck_plugins.ecosystems.cargo", "anchorcheck_plugins.ecosystems.golang"} & mods


def _unseen() -> str:
    """Content no cache has seen, so the file is parsed."""
    import uuid

    return uuid.uuid4().hex


def test_a_parse_loads_its_grammar_without_the_language_packs_init(make_repo) -> None:  # noqa: ANN001
    """The pack's __init__ imports ctypes, importlib.resources and three grammar packages (~20 ms) for any language."""
    root = make_repo({"app.py": f"import json  # {_unseen()}\n"})
    code = "import anchorcheck\nprint(anchorcheck.Verifier('.').check('import:json').verdict)"
    mods, out = _modules_after(root, code)
    assert out.split() == ["VERIFIED"] and "tree_sitter" in mods
    assert not {"tree_sitter_language_pack", "importlib.resources", "tree_sitter_yaml"} & mods


@pytest.mark.parametrize("name", ["python", "javascript", "tsx", "go", "rust", "java", "ruby", "csharp", "kotlin", "php", "c", "cpp", "swift", "bash", "elixir", "dart"])
def test_a_grammar_loaded_on_its_own_parses_as_the_packs(name: str) -> None:
    from tree_sitter_language_pack import get_parser

    from anchorcheck.evidence import grammars

    source = b"import os\nclass A:\n    def f(self): return {1: [x for x in y]}\n"
    assert str(grammars.parser(name).parse(source).root_node) == str(get_parser(name).parse(source).root_node)


def _check_json(root: Path, capsys: pytest.CaptureFixture[str]) -> Any:
    main(["check", "--no-cache", "--format", "json", "--root", str(root), str(root / "CLAUDE.md")])
    data = json.loads(capsys.readouterr().out)
    data["summary"].pop("elapsed_seconds")
    return data


def test_lazy_loading_gives_what_importing_everything_first_gives(make_repo, monkeypatch, capsys) -> None:  # noqa: ANN001
    """The same JSON, byte for byte, whether plugins declare what they provide or are all imported at start."""
    root = make_repo(MIXED)
    lazy = _check_json(root, capsys)
    found = entry_points(ENTRY_POINT_GROUP, PROVIDES_GROUP)
    monkeypatch.setattr(plugin_loading, "entry_points", lambda *groups: {**found, PROVIDES_GROUP: []})
    eager = load_plugins()
    assert not [key for table in eager.registry.tables() for key, value in table.entries() if isinstance(value, Declared)]
    monkeypatch.setattr("anchorcheck.verify.loading.default_plugins", lambda only=None: eager)
    assert _check_json(root, capsys) == lazy
    verdicts = [(r["anchor"], r["verdict"]) for r in lazy["results"]]
    assert ("import:json", "VERIFIED") in verdicts and ("cmd:npm run deploy", "REFUTED") in verdicts
    assert ("!pkg:npm/left-pad", "VERIFIED") in verdicts and ("cmd:make lint", "VERIFIED") in verdicts


def test_every_builtin_plugin_registers_exactly_what_it_declares() -> None:
    found = entry_points(ENTRY_POINT_GROUP, PROVIDES_GROUP)
    declared = {ep.name: ep.load() for ep in found[PROVIDES_GROUP] if ep.value.startswith("anchorcheck_plugins.")}
    builtin = [ep.name for ep in found[ENTRY_POINT_GROUP] if ep.value.startswith("anchorcheck_plugins.")]
    assert sorted(declared) == sorted(builtin)
    for name in builtin:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            loaded = load_plugins(only=[name])
            loaded.load_all()
        registry, provides = loaded.registry, declared[name]
        assert sorted(registry.kinds) == sorted(provides.get("kinds", [])), name
        ecosystems = provides.get("ecosystems", {})
        assert {key: list(eco.languages) for key, eco in registry.ecosystems.items()} == {k: ecosystems[k]["languages"] for k in ecosystems}, name
        assert sorted(registry.formats) == sorted(provides.get("formats", [])), name
        languages = {
            key: {"extensions": list(lang.extensions), **{f: list(getattr(lang, f)) for f in ("filenames", "source_roots") if getattr(lang, f)}}
            for key, lang in registry.languages.items()
        }
        assert languages == provides.get("languages", {}), name
        assert {key: list(r.programs) for key, r in registry.runners.items()} == provides.get("runners", {}), name


def test_plugins_command_imports_and_lists_everything(capsys) -> None:  # noqa: ANN001
    main(["plugins", "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    builtin = {p["name"]: p for p in data["plugins"] if p["module"].startswith("anchorcheck_plugins.")}
    assert len(builtin) == len([ep for ep in entry_points(ENTRY_POINT_GROUP)[ENTRY_POINT_GROUP] if ep.value.startswith("anchorcheck_plugins.")])
    assert all(p["hooks"] and p["error"] is None and p["distribution"] == "anchorcheck" for p in builtin.values())
    assert builtin["runner-npm"]["hooks"] == ["register_runners"]
    assert set(data["kinds"]) == {"cmd", "env", "file", "import", "pkg", "span", "sym", "watch"}
    assert set(data["languages"]) == {"c", "cpp", "csharp", "dart", "elixir", "go", "java", "javascript", "kotlin", "php", "prisma", "python", "ruby", "rust", "shell", "swift", "tsx", "typescript"}
    assert len(data["runners"]) == 14 and set(data["ecosystems"]) == {"cargo", "golang", "npm", "pypi"}


def test_entry_points_are_read_as_importlib_metadata_reads_them() -> None:
    for group in (ENTRY_POINT_GROUP, PROVIDES_GROUP, "console_scripts", "pytest11"):
        ours = sorted((ep.name, ep.value) for ep in entry_points(group)[group])
        assert ours == sorted((ep.name, ep.value) for ep in metadata.entry_points(group=group)), group


class _Probe:
    """A plugin adding `probe:` anchors; the entry point that loads it counts its imports."""

    @hookimpl
    def register_anchor_kinds(self, register: Any) -> None:
        register(AnchorKind("probe", lambda a, c: AnchorResult(str(a), Verdict.VERIFIED, "probed")))


class _EntryPoint:
    def __init__(self, name: str, group: str, value: object, loads: list[str]) -> None:
        self.name, self.group, self.value, self._object, self._loads = name, group, f"tests.fake:{name}", value, loads
        self.dist = None

    def load(self) -> object:
        self._loads.append(self.group)
        return self._object


@pytest.fixture
def fresh_plugins() -> Any:
    """The process-wide plugin set is built again, from the patched entry points, and forgotten after."""
    plugin_loading._default.cache_clear()
    yield
    plugin_loading._default.cache_clear()


def _with_probe(monkeypatch: pytest.MonkeyPatch, declaration: object) -> list[str]:
    loads: list[str] = []
    found = entry_points(ENTRY_POINT_GROUP, PROVIDES_GROUP)
    probe = _EntryPoint("probe", ENTRY_POINT_GROUP, _Probe(), loads)
    provides = [] if declaration is None else [_EntryPoint("probe", PROVIDES_GROUP, declaration, loads)]
    monkeypatch.setattr(
        plugin_loading, "entry_points",
        lambda *groups: {ENTRY_POINT_GROUP: [*found[ENTRY_POINT_GROUP], probe], PROVIDES_GROUP: [*found[PROVIDES_GROUP], *provides]},
    )
    return loads


def test_a_declared_plugin_is_imported_on_its_first_anchor(monkeypatch, tmp_path, fresh_plugins) -> None:  # noqa: ANN001
    loads = _with_probe(monkeypatch, {"kinds": ["probe"]})
    verifier = Verifier(tmp_path)
    assert loads == [PROVIDES_GROUP] and "probe" in verifier.registry.kinds
    assert verifier.check("file:x").verdict is Verdict.REFUTED and loads == [PROVIDES_GROUP]
    assert verifier.check("probe:x").reason == "probed" and loads == [PROVIDES_GROUP, ENTRY_POINT_GROUP]


@pytest.mark.parametrize(
    ("declaration", "warning"),
    [(None, None), ({"kinds": "probe"}, "'kinds' is not a list"), ({"ecosystems": {"x": ["python"]}}, "'ecosystems' is neither"), ({"kinds": ["probe"], "colour": 1}, "unknown keys"), (["probe"], "not a dict")],
)
def test_a_plugin_without_a_readable_declaration_is_imported_at_once(monkeypatch, tmp_path, fresh_plugins, declaration, warning) -> None:  # noqa: ANN001
    loads = _with_probe(monkeypatch, declaration)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        verifier = Verifier(tmp_path)
    assert ENTRY_POINT_GROUP in loads
    messages = [str(w.message) for w in caught if issubclass(w.category, PluginWarning)]
    assert (warning is None and not messages) or any(warning in m and "imported at once" in m for m in messages), messages
    assert verifier.check("probe:x").reason == "probed"


def test_a_declared_name_the_plugin_does_not_register_is_dropped_with_a_warning(monkeypatch, tmp_path, fresh_plugins) -> None:  # noqa: ANN001
    _with_probe(monkeypatch, {"kinds": ["probe", "phantom"]})
    verifier = Verifier(tmp_path)
    with pytest.warns(PluginWarning, match="declared kind 'phantom' but did not register it"):
        result = verifier.check("phantom:x")
    assert result.verdict is Verdict.INCONCLUSIVE and "phantom" not in verifier.registry.kinds
    assert verifier.check("probe:x").reason == "probed"


def test_the_version_flag_imports_no_plugin_machinery() -> None:
    mods, out = _modules_after(REPO_ROOT, "from anchorcheck.cli import main\nprint('EXIT', main(['--version']))")
    assert out.startswith("anchorcheck ") and "EXIT 0" in out
    assert not {"anchorcheck.verify.loading", "pluggy", "anchorcheck.model.registry", "anchorcheck_plugins", "argparse"} & mods  # argparse: ~5 ms


def test_a_check_imports_no_writer_receipt_revision_or_citation_module(make_repo) -> None:  # noqa: ANN001
    """What only `--receipts`, an `as_of` field, a banked span or a write-back needs stays out of a check
    (each import and the dataclasses it defines cost start-up); those paths themselves are tested elsewhere."""
    root = make_repo(MIXED)
    code = "import gc\nfrom anchorcheck.cli import main\nbefore = gc.get_threshold()\nprint('EXIT', main(['check']), gc.get_threshold() == before)"
    mods, out = _modules_after(root, code)
    assert "EXIT 1 True" in out and ": 3 refuted, 9 verified; 1 memory refuted in " in out  # the collector's thresholds are restored
    assert not {
        # (anchorcheck.repo.revision is needed here: the refuted `npm run deploy` is looked for in package.json's history)
        "anchorcheck.memory.receipts", "anchorcheck.spans.citation", "anchorcheck.repo.atomic",
        "anchorcheck.evidence.freshness",  # a one-shot Verifier takes no snapshot of the checkout
        "anchorcheck_plugins.formats.markdown_edit", "anchorcheck_plugins.formats.native_edit", "anchorcheck_plugins.formats.mcp_jsonl_edit",
    } & mods, mods


def test_a_writer_is_imported_when_a_memory_file_is_written(tmp_path) -> None:  # noqa: ANN001
    (tmp_path / "CLAUDE.md").write_text("- The app is `file:src/old.py`.\n")
    code = (
        "from anchorcheck import Verifier\n"
        "v = Verifier('.')\nprint(v.registry.formats['markdown'].rename('CLAUDE.md', open('CLAUDE.md').read(), {'file:src/old.py': 'file:src/new.py'}))"
    )
    mods, out = _modules_after(tmp_path, code)
    assert "`file:src/new.py`" in out and "anchorcheck_plugins.formats.markdown_edit" in mods


def test_the_command_freezes_what_it_kept_before_the_interpreter_exits_and_main_does_not(make_repo) -> None:  # noqa: ANN001
    """`console` (the `anchorcheck` script, `python -m anchorcheck`) leaves the collections at exit nothing
    to traverse; `main`, which a caller may run in a process that goes on, leaves the collector as it was."""
    root = make_repo({"CLAUDE.md": "- The app is `file:src/app.py`.\n", "src/app.py": "x = 1\n"})
    code = (
        "import gc, sys\nfrom anchorcheck.cli import console, main\n"
        "print('MAIN', main(['check', '--no-cache']), gc.get_freeze_count())\n"
        "sys.argv = ['anchorcheck', 'check', '--no-cache']\nprint('CONSOLE', console(), gc.get_freeze_count() > 0)"
    )
    _, out = _modules_after(root, code)
    assert "MAIN 0 0" in out and "CONSOLE 0 True" in out, out


def test_a_manifest_of_plain_requirements_is_read_without_packaging(make_repo) -> None:  # noqa: ANN001
    """packaging's requirement parser imports markers, tags, logging and platform (~15 ms): a requirement of
    the common shapes (`requests>=2`, one with a marker) does not need it; comparing a version does need
    packaging's specifiers, and nothing more. (logging and textwrap come with markdown-it, which reads the
    memory file, so they say nothing here.)"""
    root = make_repo(MIXED)
    mods, out = _modules_after(root, "from anchorcheck.cli import main\nprint('EXIT', main(['check', '--no-cache']))")
    assert "EXIT 1" in out and "anchorcheck_plugins.ecosystems.pypi" in mods
    assert not {m for m in mods if m.split(".")[0] == "packaging"} | ({"platform"} & mods), mods
    (root / "pyproject.toml").write_text('[project]\nname = "app"\nversion = "1"\ndependencies = ["requests>=2; python_version>\'3\'"]\n')
    mods, out = _modules_after(root, "import anchorcheck\nprint(anchorcheck.Verifier('.').check('pkg:pypi/requests@>=2').verdict)")
    assert out.split() == ["VERIFIED"] and "packaging.specifiers" in mods and "packaging.requirements" not in mods


def test_a_check_parses_its_arguments_without_shutil(make_repo) -> None:  # noqa: ANN001
    """argparse's help formatter imports shutil (and with it bz2 and lzma) for the terminal's width."""
    root = make_repo({"CLAUDE.md": "- The app is `file:src/app.py`.\n", "src/app.py": "x = 1\n"})
    mods, out = _modules_after(root, "from anchorcheck.cli import main\nprint('EXIT', main(['check', '--no-cache']))")
    assert "EXIT 0" in out and "argparse" in mods
    assert not {"shutil", "bz2", "lzma"} & mods


def test_a_check_after_an_edit_whose_sources_are_cached_imports_no_tree_sitter(make_repo) -> None:  # noqa: ANN001
    """The facts of every source file come from the disk cache: nothing is parsed, so neither tree_sitter
    nor a grammar is imported, and the report is the one the parsing run printed."""
    root = make_repo({**MIXED, "src/app/main.py": f"import json  # {_unseen()}\nimport os\n\n\ndef main():\n    return json.dumps(os.environ.get('APP_MODE'))\n"})
    code = "from anchorcheck.cli import main\nprint('EXIT', main(['check', '--format', 'json']))"
    mods, first = _modules_after(root, code)
    assert "tree_sitter" in mods and "tree_sitter_language_pack.bindings.python" in mods  # the first run parses
    (root / "CHANGELOG.md").write_text("# Changelog\n\nedited\n")  # another tree state: no stored report is replayed
    mods, again = _modules_after(root, code)
    assert "anchorcheck_plugins.languages.python" in mods and "anchorcheck.evidence.facts" in mods
    assert not {m for m in mods if m.startswith("tree_sitter")}, mods
    strip = lambda out: re.sub(r'"elapsed_seconds": [0-9.e-]+', "", out)  # noqa: E731
    assert strip(again) == strip(first) and '"verdict": "VERIFIED"' in first


def test_markdown_it_is_imported_only_when_markdown_is_parsed(make_repo) -> None:  # noqa: ANN001
    """markdown-it (sixty modules) loads on the first Markdown parse, not with the readers that may need it: a
    check of a memory store in another format without implicit references (nothing read as Markdown) does not
    import it; a check of a CLAUDE.md does. Both answer as before."""
    store = 'version = 1\n\n[[memory]]\nid = "app"\ntext = "The app is in src/app.py."\nanchors = ["file:src/app.py"]\n'
    root = make_repo({"agent.memories.toml": store, "src/app.py": "x = 1\n"})
    mods, out = _modules_after(root, "from anchorcheck.cli import main\nprint('EXIT', main(['check', '--no-cache', '--no-implicit']))")
    assert "EXIT 0" in out and "Checked 1 anchor in 1 file: 1 verified in " in out, out
    assert "anchorcheck.memory.commonmark" in mods and not {m for m in mods if m.split(".")[0] == "markdown_it"}, mods
    (root / "CLAUDE.md").write_text("- The app is `file:src/app.py`.\n")
    mods, out = _modules_after(root, "from anchorcheck.cli import main\nprint('EXIT', main(['check', '--no-cache']))")
    assert "EXIT 0" in out and "Checked 2 anchors in 2 files: 2 verified in " in out, out
    assert "markdown_it" in mods
