"""Environment variables that committed configuration defines: the non-code half of `env:`.

Read here: dotenv templates (`.env.example`, `.env.sample`, `*.env`...),
docker-compose `environment:` (mapping or list form), Dockerfile `ENV`/`ARG`,
and GitHub Actions `env:` at any level. Only names are kept: a value never
leaves this module, so evidence cannot leak a secret.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from anchorcheck.plugin import Context, Parsed, first_error_line, later, parse_tree, UnsafePathError

if TYPE_CHECKING:
    from tree_sitter import Node

# A name at the start of a line (after a byte order mark, on the first), `export` allowed.
_DOTENV_LINE = later(rb"^(?:\xef\xbb\xbf)?[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_.]*)[ \t]*=", re.MULTILINE)
_DOCKER_LINE = later(r"^\s*(ENV|ARG)\s+(.*)$", re.IGNORECASE)
# A shell word: unquoted runs, backslash escapes and quoted strings, side by side (`A="x y"` is one word).
# A regex instead of shlex: an instruction continued over 200,000 lines is one 1 MB line, and shlex reads
# it a character at a time in Python.
_SHELL_WORD = later(r"""(?:[^\s"'\\]+|\\.?|"(?:[^"\\]|\\.)*"?|'[^']*'?)+""")
_QUOTED = later(r"""\\(.)|"((?:[^"\\]|\\.)*)"?|'([^']*)'?""")
_COMPOSE = later(r"^(docker-)?compose([.-][^/]*)?\.ya?ml$")
_WORKFLOW = later(r"^\.github/workflows/[^/]+\.ya?ml$")


def config_kind(path: str) -> str | None:
    """Which reader understands this file, by its name; None for any other file."""
    name = path.rsplit("/", 1)[-1]
    if ".env" not in name and "file" not in name and "compose" not in name and not path.startswith(".github/"):
        return None  # nearly every file: one look, not four rules (asked of every path on each env: anchor's listing)
    if name == ".env" or name.startswith(".env.") or name.endswith(".env"):
        return "dotenv"
    if name in ("Dockerfile", "Containerfile") or name.startswith("Dockerfile.") or name.endswith(".Dockerfile"):
        return "dockerfile"
    if _COMPOSE.match(name):
        return "compose"
    if _WORKFLOW.match(path):
        return "workflow"
    return None


# Block nesting levels (distinct indentation columns open at once) a YAML file may have. tree-sitter-yaml's
# scanner keeps up to two stack entries per level and overflows its saved state past ~250 (SIGSEGV, the whole
# process dies): checked before parsing. Real compose files and workflows stay under 20.
MAX_YAML_LEVELS = 80
_YAML_LINE = later(rb"\r\n|\r|\n")
_YAML_INDICATOR = later(rb"(?<![^ \t])[-?:](?![^ \t])")  # `- `, `? `, `: ` (or at the line's end)


class Defined:
    """What a configuration file defines: (name, line, what) for each variable, and the first line
    that does not parse, if any (a broken YAML file may define more than could be read from it).
    `unread` says why nothing was read at all (the file is nested too deeply to parse safely).
    A plain class (nothing compares or prints it): a dataclass's generated methods cost start-up."""

    __slots__ = ("names", "error", "unread")

    def __init__(self, names: list[tuple[str, int, str]] | None = None, error: int | None = None, unread: str | None = None) -> None:
        self.names = [] if names is None else names
        self.error = error
        self.unread = unread


def defined_names(context: Context, path: str) -> Defined | None:
    """The variables the file defines; None when it cannot be read."""
    kind = config_kind(path)
    if kind is None:
        return Defined()
    return context.memo(("anchorcheck.env-config", path), lambda: _read(context, path, _READERS[kind]))


def unparsed_names(context: Context, path: str) -> Defined | None:
    """What a YAML file tells before it is parsed: nothing, or that it cannot be read (nested too deep
    to parse safely). For a name the file's bytes do not hold: its names are read as written (a
    quoted scalar's escapes are not decoded), so it cannot define that name, and is not parsed."""
    return context.memo(("anchorcheck.env-config-unparsed", path), lambda: _read(context, path, _unparsed_yaml))


def is_yaml(path: str) -> bool:
    """Whether the file is read as YAML (compose, workflow): the readers that parse."""
    return config_kind(path) in ("compose", "workflow")


def _read(context: Context, path: str, reader: Callable[[bytes], Defined]) -> Defined | None:
    try:
        data = context.repo.read_bytes(path)
    except (OSError, UnsafePathError):
        return None
    return reader(data)


def _dotenv(data: bytes) -> Iterator[tuple[str, int, str]]:
    for match in _DOTENV_LINE.finditer(data):
        yield match.group(1).decode("ascii"), data.count(b"\n", 0, match.start()) + 1, "defined in a dotenv file"


def _dockerfile(data: bytes) -> Iterator[tuple[str, int, str]]:
    """`ENV`/`ARG` names at the line their instruction starts. Only `\\n` ends a line (splitlines
    would also split at a form feed and shift every line after it), and a backslash continues
    the instruction even with blanks after it, and past comment and empty lines, as Docker reads it."""
    lines = [line.rstrip() for line in data.decode("utf-8-sig", errors="replace").split("\n")]
    number = 0
    while number < len(lines):
        start, parts = number + 1, [lines[number]]
        while parts[-1].endswith("\\") and number + 1 < len(lines):  # a continued instruction
            number += 1
            if lines[number].strip() and not lines[number].lstrip().startswith("#"):
                parts[-1] = parts[-1][:-1]
                parts.append(lines[number])  # joined once at the end: adding to a growing string is quadratic
        number += 1
        logical = " ".join(parts)
        match = _DOCKER_LINE.match(logical)
        if match is None:
            continue
        instruction, rest = match.group(1).upper(), match.group(2)
        words = [_unquote(word) if '"' in word or "'" in word or "\\" in word else word for word in _SHELL_WORD.findall(rest)]
        if not words:
            continue
        if instruction == "ENV" and "=" not in words[0]:
            names = [words[0]]  # the legacy form: ENV NAME value with spaces
        else:
            names = [w.split("=", 1)[0] for w in words if instruction == "ARG" or "=" in w]
        for name in names:
            yield name, start, f"Dockerfile {instruction}"


def _unquote(word: str) -> str:
    """A shell word as the shell passes it on: quotes removed, escapes resolved (as shlex in POSIX mode)."""
    return _QUOTED.sub(lambda m: m.group(1) if m.group(1) is not None else re.sub(r"\\(.)", r"\1", m.group(2)) if m.group(2) is not None else m.group(3), word)


def _yaml(section: str, what: str) -> Callable[[bytes], Defined]:
    """A reader of the names under every `section:` key of a YAML file."""

    def read(data: bytes) -> Defined:
        unparsed = _unparsed_yaml(data)
        if unparsed.unread is not None:
            return unparsed
        tree = parse_tree("yaml", data)
        if tree is None:
            return Defined(error=1, unread="the YAML grammar did not finish parsing it within the parse budget")
        root = tree.root_node
        return Defined(list(dict.fromkeys(_yaml_keys(root, section, what))), first_error_line(root))  # an anchor used twice names once

    return read


def _unparsed_yaml(data: bytes) -> Defined:
    """What a YAML file tells before it is parsed: unreadable when nested too deep to parse safely."""
    too_deep = yaml_too_deep(data)
    if too_deep is not None:
        return Defined(error=too_deep, unread=f"nested more than {MAX_YAML_LEVELS} levels deep")
    return Defined()


def yaml_too_deep(data: bytes) -> int | None:
    """The line where the YAML's block nesting passes MAX_YAML_LEVELS, else None.

    An overestimate, never an under-: each line closes the levels deeper than
    its indentation, then opens one at its indentation and one at every
    indicator after it (`- - - x` opens three), wherever the indicator stands
    (inside a quoted scalar too). Linear in the size of the file.
    """
    levels: list[int] = []
    for number, line in enumerate(_YAML_LINE.split(data), 1):
        body = line.lstrip(b" \t")
        if not body or body.startswith(b"#"):
            continue
        indent = len(line) - len(body)
        while levels and levels[-1] > indent:
            levels.pop()
        if not levels or levels[-1] < indent:
            levels.append(indent)
        for match in _YAML_INDICATOR.finditer(line, indent):
            if match.start() > levels[-1]:
                levels.append(match.start())
        if len(levels) > MAX_YAML_LEVELS:
            return number
    return None


def _yaml_keys(root: Node, section: str, what: str) -> Iterator[tuple[str, int, str]]:
    anchors = _anchors(root)
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in ("block_mapping_pair", "flow_pair"):
            key = node.child_by_field_name("key")
            value = node.child_by_field_name("value")
            if key is not None and value is not None and _scalar(key) == section:
                yield from _section_names(value, what, anchors)
        stack.extend(reversed(node.named_children))


def _anchors(root: Node) -> dict[str, Node]:
    """What each `&name` anchors, so an alias (`environment: *env`, `<<: *env`) reads as it."""
    found: dict[str, Node] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "anchor" and node.parent is not None:
            name = _label(node)
            if name is not None:
                found[name] = node.parent
        stack.extend(node.named_children)
    return found


def _label(node: Node) -> str | None:
    """The name of an anchor (`&env`) or an alias (`*env`): the grammar gives it no field."""
    return next((Parsed.text(child) for child in node.children if child.type in ("anchor_name", "alias_name")), None)


def _section_names(value: Node, what: str, anchors: dict[str, Node]) -> Iterator[tuple[str, int, str]]:
    """Keys of a mapping, or `NAME=value` / `NAME` items of a list; an alias or a merge key
    (`<<: *env`) gives the names where its anchor is written."""
    stack, expanded = [value], set()
    while stack:
        node = stack.pop()
        if node.type == "alias":
            name = _label(node)
            if name in anchors and name not in expanded:  # each anchor once: aliases may refer in circles
                expanded.add(name)
                stack.append(anchors[name])
            continue
        if node.type in ("block_mapping_pair", "flow_pair"):
            key = node.child_by_field_name("key")
            name = _scalar(key) if key is not None else None
            merged = node.child_by_field_name("value") if name == "<<" else None
            if merged is not None:
                stack.append(merged)
            elif name:
                yield name, node.start_point[0] + 1, what
            continue
        if node.type in ("block_sequence_item",) or (node.type == "flow_node" and node.parent is not None and node.parent.type == "flow_sequence"):
            item = _scalar(node)
            if item:
                yield item.split("=", 1)[0].strip(), node.start_point[0] + 1, what
            continue
        stack.extend(reversed(node.named_children))


def _scalar(node: Node) -> str | None:
    """The text of a plain or quoted scalar; None for anything structured."""
    while node.type in ("flow_node", "block_node", "block_sequence_item") and node.named_child_count == 1:
        node = node.named_children[0]
    if node.type not in ("plain_scalar", "double_quote_scalar", "single_quote_scalar"):
        return None
    text = (node.text or b"").decode("utf-8", errors="replace")
    return text[1:-1] if node.type != "plain_scalar" else text


_READERS: dict[str, Callable[[bytes], Defined]] = {
    "dotenv": lambda data: Defined(list(_dotenv(data))),
    "dockerfile": lambda data: Defined(list(_dockerfile(data))),
    "compose": _yaml("environment", "docker-compose environment"),
    "workflow": _yaml("env", "GitHub Actions env"),
}
