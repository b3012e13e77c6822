"""Tree-sitter grammars by name, loaded one at a time.

`tree_sitter_language_pack`'s `__init__` imports ctypes, importlib.resources
(which pulls tempfile, shutil, bz2 and lzma) and three grammar packages of its
own, whatever language is asked for: about 20 ms, two thirds of what
`python -c pass` costs, for a process that needs the Python grammar or none.
Each grammar of the pack is a compiled module `bindings/<name>` beside that
`__init__`, so the one asked for is loaded from there without running the
package. A name the pack keeps elsewhere (csharp, yaml, embeddedtemplate), or a
layout the pack no longer has, goes through the pack's own `get_language`.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Language, Parser

_PACK = "tree_sitter_language_pack"


@lru_cache(maxsize=None)
def language(name: str) -> Language:
    """The pack's grammar `name` (a LookupError if it has none), loaded once per process."""
    binding = _binding(name)
    if binding is None:
        from tree_sitter_language_pack import get_language

        return get_language(name)  # type: ignore[arg-type]
    from tree_sitter import Language  # with the first grammar: a check that parses nothing never imports it

    return Language(binding.language())


def parser(name: str) -> Parser:
    """A new parser for the pack's grammar `name`."""
    from tree_sitter import Parser

    return Parser(language(name))


def _binding(name: str):  # noqa: ANN202 - the grammar's compiled module, or None
    """The compiled module `bindings/<name>` of the pack, imported without the pack's `__init__`."""
    pack = importlib.util.find_spec(_PACK)  # a top-level name: finding it imports nothing
    if pack is None or not pack.submodule_search_locations:
        return None
    folders = [str(Path(folder) / "bindings") for folder in pack.submodule_search_locations]
    spec = importlib.machinery.PathFinder.find_spec(f"{_PACK}.bindings.{name}", folders)
    if spec is None or spec.loader is None or not isinstance(spec.loader, importlib.machinery.ExtensionFileLoader):
        return None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
