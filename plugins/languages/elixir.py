"""Elixir (`.ex`, `.exs`): modules and the functions, macros and guards they define, `alias`/`import`/`use`/`require`
of modules as imports, and `System.get_env("K")` / `System.fetch_env!("K")` reads.

Everything in Elixir is a call: `defmodule NervesHub.Devices do` and `def connect(device), do: …` are calls of
`defmodule` and `def`, so the walk reads the calls a module's `do` block makes. A module nested in another is
named in full (`NervesHub.Devices.Device` for `defmodule Device` inside `NervesHub.Devices`), as Elixir names it;
its functions are `Module.function`. `use X` runs X's `__using__` macro, which may define any function in the
module: absence of a member of such a module is not known (the module is open).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from anchorcheck import Language, hookimpl
from anchorcheck.plugin import Facts, Parsed, string_value

if TYPE_CHECKING:
    from tree_sitter import Node

_MODULES = frozenset({"defmodule", "defprotocol", "defimpl"})
_FUNCTIONS = frozenset({"def", "defp", "defmacro", "defmacrop", "defguard", "defguardp", "defdelegate", "defn", "defnp"})
_IMPORTS = frozenset({"alias", "import", "use", "require"})
_ENV_READS = frozenset({"get_env", "fetch_env", "fetch_env!"})
_ENV_MARKERS = (b"System.",)
_MAX_DEPTH = 200  # module and block nesting followed; a deeper file is read as far as that


def extract(parsed: Parsed) -> Facts:
    facts = Facts(defs=definitions_of(parsed))
    for call, _ in _calls(parsed.root):
        name = _called(call)
        if name in _IMPORTS:
            module = _first_argument(call)
            if module is not None and module.type == "alias":
                facts.imports.append((Parsed.text(module), Parsed.line(call), ""))
            if name == "use":
                facts.open.append((_module_of(call), Parsed.line(call), f"`use {Parsed.text(module) if module is not None else '…'}` may define any function"))
    if parsed.mentions(_ENV_MARKERS):
        _env_reads(parsed.root, facts)
    return facts


def definitions_of(parsed: Parsed) -> list[tuple[str, int]]:
    """Modules by their full names and their functions as `Module.function`, in document order."""
    found: list[tuple[str, int]] = []
    for call, _ in _calls(parsed.root):
        name = _called(call)
        if name in _MODULES:
            module = _module_of(call, include_self=True)
            if module:
                found.append((module, Parsed.line(call)))
        elif name in _FUNCTIONS:
            function = _function_name(_first_argument(call))
            if function:
                owner = _module_of(call)
                found.append((f"{owner}.{function}" if owner else function, Parsed.line(call)))
    return found


def _calls(root: Node) -> Iterator[tuple[Node, int]]:
    """Every call at the top of the file or in a `do` block of another, in document order (arguments are not
    walked: a function's body defines nothing, a nested module is a call in its parent's `do` block)."""
    stack: list[tuple[Node, int]] = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > _MAX_DEPTH:
            continue
        children = node.named_children
        for child in reversed(children):
            if child.type == "call":
                stack.append((child, depth + 1))
            elif child.type in ("do_block", "block"):
                stack.append((child, depth + 1))
        if node.type == "call":
            yield node, depth


def _called(call: Node) -> str:
    target = call.child_by_field_name("target") or (call.named_children[0] if call.named_children else None)
    return Parsed.text(target) if target is not None and target.type == "identifier" else ""


def _first_argument(call: Node) -> Node | None:
    arguments = next((c for c in call.named_children if c.type == "arguments"), None)
    return arguments.named_children[0] if arguments is not None and arguments.named_children else None


def _function_name(head: Node | None) -> str:
    """`connect(device)`, `connect`, `connect(d) when is_map(d)`, `a + b` (an operator) → the function's name."""
    while head is not None and head.type == "binary_operator":  # a guard: `name(args) when …`
        head = head.child_by_field_name("left") or (head.named_children[0] if head.named_children else None)
    if head is not None and head.type == "call":
        return _called(head)
    return Parsed.text(head) if head is not None and head.type == "identifier" else ""


def _module_of(node: Node, include_self: bool = False) -> str:
    """The full name of the module a call is in (`A.B.C` for `defmodule C` in `defmodule B` in `defmodule A`)."""
    names: list[str] = []
    current: Node | None = node if include_self else node.parent
    while current is not None:
        if current.type == "call" and _called(current) in _MODULES:
            alias = _first_argument(current)
            if alias is not None and alias.type == "alias":
                names.append(Parsed.text(alias))
        current = current.parent
    return ".".join(reversed(names))


def _env_reads(root: Node, facts: Facts) -> None:
    """`System.get_env("K")`, `System.fetch_env!("K")`: K read; with a computed key, computed; `System.get_env()`
    with no argument returns the whole environment."""
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        if node.type != "call":
            continue
        target = node.child_by_field_name("target")
        if target is None or target.type != "dot" or not Parsed.text(target).startswith("System."):
            continue
        if Parsed.text(target).removeprefix("System.") not in _ENV_READS:
            continue
        key = _first_argument(node)
        if key is None:
            facts.add_env_whole(node)
        else:
            value = string_value(key) if key.type == "string" else None
            if value:
                facts.env.append((value, Parsed.line(node)))
            else:
                facts.env_computed.append(Parsed.line(node))


def import_segments(module: str) -> tuple[str, ...]:
    return tuple(module.split("."))


LANGUAGE = Language(
    "elixir", (".ex", ".exs"), "elixir", {}, extract,
    import_segments=import_segments, env_markers=_ENV_MARKERS, definitions=definitions_of,
)


@hookimpl
def register_languages(register):  # noqa: ANN001, ANN201 - hook signature
    register(LANGUAGE)
