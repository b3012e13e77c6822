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
    facts = Facts()
    facts.defs = _read_calls(parsed.root, facts.open)
    _uses(parsed.root, facts)
    return facts


def _uses(root: Node, facts: Facts) -> None:
    """One walk of the whole tree: the modules a file names, as imports (Elixir calls another module with no
    `alias` or `import` first, so `Jason.encode!(x)` uses Jason as `alias Jason` would; `alias MyApp.{A, B}` names
    MyApp.A and MyApp.B), and its environment reads."""
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        if node.type == "call" and _called(node) in _IMPORTS:
            module = _first_argument(node)
            if module is not None and module.type == "dot" and len(module.named_children) == 2 and module.named_children[1].type == "tuple":
                base, group = module.named_children
                facts.imports += [(f"{Parsed.text(base)}.{Parsed.text(a)}", Parsed.line(node), "") for a in group.named_children if a.type == "alias"]
            elif module is not None and module.type == "alias":
                facts.imports.append((Parsed.text(module), Parsed.line(node), ""))
        elif node.type == "dot" and node.named_children and node.named_children[0].type == "alias" and node.parent is not None and node.parent.type == "call":
            facts.imports.append((Parsed.text(node.named_children[0]), Parsed.line(node), ""))
        if node.type == "call":
            _env_read(node, facts)


def definitions_of(parsed: Parsed) -> list[tuple[str, int]]:
    """Modules by their full names and their functions as `Module.function`, in document order."""
    return _read_calls(parsed.root, [])


def _read_calls(root: Node, open_scopes: list[tuple[str, int, str]]) -> list[tuple[str, int]]:
    """One walk of the calls that define (`_calls`): the definitions, in document order, and in `open_scopes` where a
    module may hold names no definition shows (`use X` may define any function; `def unquote(name)()` is computed)."""
    found: list[tuple[str, int]] = []
    for call, _ in _calls(root):
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
            else:
                open_scopes.append((_module_of(call), Parsed.line(call), "a function whose name is computed"))
        elif name == "use":
            module = _first_argument(call)
            open_scopes.append((_module_of(call), Parsed.line(call), f"`use {Parsed.text(module) if module is not None else '…'}` may define any function"))
    return found


def _calls(root: Node) -> Iterator[tuple[Node, int]]:
    """Every call at the top of the file or in a `do` block of another, in document order: not in arguments, nor
    in a function's body or a `quote` (what a macro's quoted code defines is defined where the macro is used)."""
    stack: list[tuple[Node, int]] = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > _MAX_DEPTH:
            continue
        if node.type == "call":
            yield node, depth
            if _called(node) in _FUNCTIONS or _called(node) == "quote":
                continue
        for child in reversed(node.named_children):
            if child.type in ("call", "do_block", "block"):
                stack.append((child, depth + 1))


def _called(call: Node) -> str:
    target = call.child_by_field_name("target") or (call.named_children[0] if call.named_children else None)
    return Parsed.text(target) if target is not None and target.type == "identifier" else ""


def _first_argument(call: Node) -> Node | None:
    arguments = next((c for c in call.named_children if c.type == "arguments"), None)
    return arguments.named_children[0] if arguments is not None and arguments.named_children else None


def _function_name(head: Node | None) -> str:
    """`connect(device)`, `connect`, `connect(d) when is_map(d)` → the function's name; "" for a computed one
    (`unquote(name)()`) or an operator (`a + b`)."""
    while head is not None and head.type == "binary_operator" and (op := head.child_by_field_name("operator")) is not None and Parsed.text(op) == "when":
        head = head.child_by_field_name("left")
    if head is not None and head.type == "call":
        name = _called(head)
        return "" if name == "unquote" else name
    return Parsed.text(head) if head is not None and head.type == "identifier" else ""


def _module_of(node: Node, include_self: bool = False) -> str:
    """The full name of the module a call is in (`A.B.C` for `defmodule C` in `defmodule B` in `defmodule A`)."""
    names: list[str] = []
    current: Node | None = node if include_self else node.parent
    while current is not None:
        if current.type == "call" and _called(current) in _MODULES:
            names.append(_module_name(current))
            if names[-1].startswith("__MODULE__."):  # `defmodule __MODULE__.Sub` inside its parent: Parent.Sub
                names[-1] = names[-1].removeprefix("__MODULE__.")
        current = current.parent
    return ".".join(n for n in reversed(names) if n)


def _module_name(call: Node) -> str:
    """`defmodule A.B` → `A.B`; `defimpl Proto, for: T` → `Proto.T`, as Elixir names an implementation."""
    name = _first_argument(call)
    written = Parsed.text(name) if name is not None and name.type in ("alias", "dot") else ""
    if _called(call) != "defimpl" or not written:
        return written
    arguments = next((c for c in call.named_children if c.type == "arguments"), None)
    for keywords in (c for c in (arguments.named_children if arguments is not None else ()) if c.type == "keywords"):
        for pair in keywords.named_children:
            if len(pair.named_children) == 2 and Parsed.text(pair.named_children[0]).strip() == "for:":
                return f"{written}.{Parsed.text(pair.named_children[1])}"
    return written


def _env_read(call: Node, facts: Facts) -> None:
    """`System.get_env("K")`, `System.fetch_env!("K")`: K read; with a computed key, computed; `System.get_env()`
    with no argument returns the whole environment."""
    target = call.child_by_field_name("target")
    if target is None or target.type != "dot" or Parsed.text(target).removeprefix("System.") not in _ENV_READS or not Parsed.text(target).startswith("System."):
        return
    key = _first_argument(call)
    if key is None:
        facts.add_env_whole(call)
        return
    value = string_value(key) if key.type == "string" else None
    if value:
        facts.env.append((value, Parsed.line(call)))
    else:
        facts.env_computed.append(Parsed.line(call))


def import_segments(module: str) -> tuple[str, ...]:
    return tuple(module.split("."))


LANGUAGE = Language(
    "elixir", (".ex", ".exs"), "elixir", {}, extract,
    import_segments=import_segments, env_markers=_ENV_MARKERS, definitions=definitions_of,
)


@hookimpl
def register_languages(register):  # noqa: ANN001, ANN201 - hook signature
    register(LANGUAGE)
