"""Safe parsing of the data formats manifests come in: TOML, JSON and YAML.

Every function takes the raw bytes and either returns plain Python data or
raises ManifestError naming the 1-based line, so an ecosystem reader never
has to know how each library reports a syntax error. TOML and JSON go through
`anchorcheck.base.bounded` (dotted-key bombs, over-long integers and deep nesting
become errors). YAML refuses aliases outright: no manifest or lockfile format
uses them, and expanding shared aliases (or merging them, `<<: [*a, *a]`) is
how an alias bomb ("billion laughs") turns a few hundred bytes into gigabytes.
The node graph is checked before anything is built from it, so the check
cannot be dodged by how an alias is spelt (`{"k":*a}` has no blank before it).
"""

from __future__ import annotations

import bisect
import re
import tomllib
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from anchorcheck.plugin import LimitError, json_loads, toml_loads, later, ManifestError, decode_manifest, load_manifest

if TYPE_CHECKING:
    from anchorcheck.plugin import Context

_TOML_AT = later(r"at line (\d+)")


def parse_toml(data: bytes) -> dict[str, Any]:
    text = decode_manifest(data)
    try:
        return toml_loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = _TOML_AT.search(str(exc))
        line = int(found.group(1)) if found else text.count("\n") + 1
        raise ManifestError(f"invalid TOML: {str(exc).split(' (at')[0]}", line) from None
    except LimitError as exc:
        raise ManifestError(f"invalid TOML: {exc.message}", exc.line) from None


def _toml_with_lines(data: bytes) -> tuple[dict[str, Any], LineFinder]:
    return parse_toml(data), LineFinder(decode_manifest(data))


def read_toml(context: Context, path: str) -> tuple[dict[str, Any], LineFinder]:
    """A TOML manifest (pyproject.toml, Cargo.toml, Pipfile) and a line finder, parsed once per content."""
    return load_manifest(context, path, _toml_with_lines)


def parse_json(data: bytes) -> Any:
    text = decode_manifest(data)
    try:
        return json_loads(text)
    except ValueError as exc:  # JSONDecodeError or LimitError
        line = getattr(exc, "lineno", None) or getattr(exc, "line", None)
        raise ManifestError(f"invalid JSON: {getattr(exc, 'msg', None) or getattr(exc, 'message', exc)}", line) from None


@lru_cache(maxsize=1)
def _loader() -> type:
    """PyYAML's safe loader, libyaml's fast one when installed; imported on first use (most runs read no YAML)."""
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def parse_yaml(data: bytes) -> Any:
    """YAML without aliases: the document's node graph is composed, checked to be a tree, then built."""
    import yaml

    text = decode_manifest(data)
    loader = _loader()(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        # An alias needs an anchor (`&name`) written before it: without a `&` no node can be shared.
        if "&" in text and _shares_nodes(node):
            raise ManifestError("YAML aliases are not accepted in manifests (alias bomb guard)", _first_alias_line(text))
        return loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        raise ManifestError(f"invalid YAML: {exc.problem or exc.context}", line) from None
    except yaml.YAMLError as exc:
        raise ManifestError(f"invalid YAML: {str(exc)[:200]}") from None
    except RecursionError:
        raise ManifestError("invalid YAML: nested too deeply") from None
    except ValueError as exc:  # an int of too many digits
        raise ManifestError(f"invalid YAML: {str(exc).split(':')[0]}") from None
    finally:
        loader.dispose()


def _shares_nodes(root: Any) -> bool:
    """Whether the composed graph reaches a node twice: an alias makes it share the anchored node."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            return True
        seen.add(id(node))
        if isinstance(node.value, list):
            for item in node.value:
                stack.extend(item if isinstance(item, tuple) else (item,))
    return False


def _first_alias_line(text: str) -> int | None:
    """The line of the first `*alias` token, for the error (tokens, not nodes: the graph has no alias left)."""
    import yaml

    for token in yaml.scan(text, Loader=_loader()):
        if isinstance(token, yaml.AliasToken):
            return int(token.start_mark.line) + 1
    return None


def toml_packages(data: bytes) -> list[tuple[str, str | None, int | None]]:
    """The `[[package]]` name/version entries, with the line of each header.

    The shape uv.lock, poetry.lock, pdm.lock and Cargo.lock share. A package
    without a string name, or with a version that is not a string, is an
    error at its header's line.
    """
    doc = parse_toml(data)
    finder = LineFinder(decode_manifest(data))
    headers = [finder.line(m.start()) for m in re.finditer(r"^[ \t]*\[\[package\]\]", finder.text, re.MULTILINE)]
    packages = doc.get("package", [])
    if not isinstance(packages, list):
        raise ManifestError("package should be an array of tables ([[package]])", headers[0] if headers else None)
    entries = []
    for i, package in enumerate(packages):
        line = headers[i] if i < len(headers) else None
        name = package.get("name") if isinstance(package, dict) else None
        version = package.get("version") if isinstance(package, dict) else None
        if not isinstance(name, str) or not (version is None or isinstance(version, str)):
            raise ManifestError("[[package]] needs a string name and version", line)
        entries.append((name, version, line))
    return entries


class LineFinder:
    """Locates declarations in a file whose parser keeps no line numbers (tomllib, json).

    Lines are found by searching the text for the quoted string or the key
    after its section header; a miss gives None, which is honest: the
    evidence still names the file.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts = [0]
        for match in re.finditer("\n", text):
            self._starts.append(match.end())

    def line(self, offset: int) -> int:
        return bisect.bisect_right(self._starts, offset)

    def offset(self, line: int | None) -> int:
        """The offset where a 1-based line starts (0 for None)."""
        if not line:
            return 0
        return self._starts[min(line, len(self._starts)) - 1]

    def string(self, value: str, after: int = 0) -> int | None:
        """The line of the first quoted occurrence of `value` at or after offset `after`."""
        for quote in ('"', "'"):
            at = self.text.find(f"{quote}{value}{quote}", after)
            if at >= 0:
                return self.line(at)
        at = self.text.find(value, after)
        return self.line(at) if at >= 0 else None

    def key(self, name: str, section: str | None = None, after: int = 0) -> int | None:
        """The line of `name = ...` / `"name": ...` / a dotted `name.workspace = true`, after the `[section]`
        header (or offset `after`): the first line that starts, at or after it, with blanks, an optional
        quote, the name and `_KEY_END`. Each occurrence of the name is tried in turn with two patterns
        compiled once, not one compiled per name (300 compiles were most of reading 54 Cargo.toml files)."""
        start = (self.section(section) or 0) if section else after
        text = self.text
        at = text.find(name, start) if name else -1
        while at >= 0:
            begins = text.rfind("\n", 0, at) + 1
            if begins >= start and _KEY_START.fullmatch(text, begins, at) and _KEY_END.match(text, at + len(name)):
                return self.line(begins)
            at = text.find(name, at + 1)
        return None

    def section(self, name: str) -> int | None:
        """Offset of a `[name]` TOML header (quotes around parts tolerated), or None."""
        found = _section_header(name).search(self.text)
        return found.end() if found else None


_KEY_START = re.compile(r"""[ \t]*["']?""")  # what may stand before a key on its line
_KEY_END = re.compile(r"""["']?(?:[ \t]*\.[ \t]*["']?[A-Za-z0-9_-]+["']?)*[ \t]*[=:]""")  # a dotted tail, then = or :


@lru_cache(maxsize=256)
def _section_header(name: str) -> re.Pattern[str]:
    """The pattern of a `[name]` header, compiled once per name a run looks for (the same few in every file)."""
    parts = [re.escape(p) for p in name.split(".")]
    dotted = r"""[ \t]*\.[ \t]*""".join(r"""["']?""" + p + r"""["']?""" for p in parts)
    # Blanks, never \s: `^\s*` would run on over every following empty line from each line start (quadratic).
    return re.compile(r"^[ \t]*\[[ \t]*" + dotted + r"[ \t]*\]", re.MULTILINE)
