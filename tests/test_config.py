"""Configuration from pyproject.toml or .anchorcheck.toml; unknown keys are errors with a line."""

from __future__ import annotations

import pytest

from anchorcheck import Verifier
from anchorcheck.repo.config import ConfigError, load_config


def test_pyproject_table_is_read(make_tree) -> None:
    root = make_tree(
        {
            "pyproject.toml": '[project]\nname = "x"\n\n[tool.anchorcheck]\nexclude = ["gen/"]\nfail-on = "inconclusive"\n'
            '[tool.anchorcheck.plugin.pkg]\nextra = 1\n',
            "gen/a.py": "",
            "src/b.py": "",
        }
    )
    config = load_config(root)
    assert config.exclude == ["gen/"] and config.fail_on == "inconclusive"
    assert config.plugin_settings == {"pkg": {"extra": 1}}
    v = Verifier(root)
    assert v.repo.files() == ["pyproject.toml", "src/b.py"]
    assert v.context.settings("pkg") == {"extra": 1}


def test_dedicated_file_wins(make_tree) -> None:
    root = make_tree({".anchorcheck.toml": 'extend-skip-dirs = ["third_party"]\n', "pyproject.toml": "[tool.anchorcheck]\nfail-on = 'inconclusive'\n"})
    config = load_config(root)
    assert "third_party" in config.skip_dirs and "node_modules" in config.skip_dirs
    assert config.fail_on == "error"


@pytest.mark.parametrize(
    "text, line, fragment",
    [
        ('[tool.anchorcheck]\nexclude = ["a"]\nexlude = ["b"]\n', 3, "unknown key 'exlude'"),
        ("[tool.anchorcheck]\nfail-on = 'sometimes'\n", 2, "'refuted' or 'inconclusive'"),
        ("[tool.anchorcheck]\nmax-file-size = -1\n", 2, "positive number"),
        ("[tool.anchorcheck]\nexclude = 'gen/'\n", 2, "list of gitignore-style patterns"),
        ("[tool.anchorcheck\n", 1, "invalid TOML"),
    ],
)
def test_bad_config_names_file_and_line(make_tree, text: str, line: int, fragment: str) -> None:
    root = make_tree({"pyproject.toml": text})
    with pytest.raises(ConfigError) as caught:
        load_config(root)
    assert caught.value.line == line and fragment in str(caught.value)
    assert str(caught.value).startswith(f"pyproject.toml:{line}:")


def test_no_config_is_fine(make_tree) -> None:
    assert load_config(make_tree({"pyproject.toml": "[project]\nname='x'\n"})).fail_on == "error"


def test_a_broken_pyproject_without_our_table_is_not_a_config_error(make_tree) -> None:
    # The project's own pyproject.toml is the pypi plugin's to judge (with its line), not the config's.
    root = make_tree({"pyproject.toml": "[project\nname = 'x'\n", "a.py": "import os\n"})
    assert load_config(root).source is None
    assert Verifier(root).check("import:os").verdict.value == "VERIFIED"
