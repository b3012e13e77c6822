"""Python: what a class has beyond the names its body defines, and where a module's names come from.

`self.x = ...` in any method makes `Class.x` an attribute; `class A(B)`
records B as a base for `sym:` to follow; members added at run time
(`setattr(C, name, v)` with a computed name, `__getattr__`, `globals()[k] =`)
open the owner's world, so absence there is INCONCLUSIVE. Module files and
the standard-library classes whose members are known are the capabilities
the Python language registers for `sym:`.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from anchorcheck.plugin import Facts, Parsed, string_value, later

if TYPE_CHECKING:
    from tree_sitter import Node

QUERIES = {
    "setattr": "(call function: (identifier) @fn arguments: (argument_list . (_) @object . (_) @key)) @call",
}
# A statement that starts with `obj.name` and assigns to it (`= v`, not `==`; `,` in a tuple target; `:`
# annotated): a byte scan finds the few candidates, so no query walks every node of a class-heavy file.
# Written from the newline before the line rather than as a MULTILINE `^`: a pattern that starts with a
# literal lets `re` skip to each newline, where `^` is tried at every byte (32 -> 14 ms over the 1.6 MB
# a cold run on Django extracts); the bytes are scanned with a newline in front, for the first line.
_ATTRIBUTE_TARGET = later(rb"\n[ \t]*([A-Za-z_]\w*)\.[A-Za-z_]\w*[ \t]*(?:[,:]|=(?!=))")
_TARGET_LISTS = frozenset({"pattern_list", "tuple_pattern"})
_SCOPES = frozenset({"function_definition", "class_definition", "lambda"})
_PLAIN_METACLASSES = frozenset({"type", "ABCMeta", "abc.ABCMeta"})  # they add no members to the class


def class_facts(parsed: Parsed, facts: Facts, transparent: frozenset[str]) -> None:
    """Add instance attributes, bases and run-time members to facts whose `defs` are already found."""
    defined = {name for name, _ in facts.defs}
    for node, qualified in _classes(parsed.root, "", transparent):
        _bases(node, qualified, facts)
        if node.parent is not None and node.parent.type == "decorated_definition":
            _decorators(node.parent, qualified, facts, defined)
    for statement, prefix in _assignments(parsed.root, "", transparent):
        _assigned_value(statement, prefix, facts, defined)
    for attribute, line in _instance_attributes(parsed, transparent):
        if attribute not in defined:
            defined.add(attribute)
            facts.defs.append((attribute, line))
    if b"setattr" in parsed.source:
        _setattr_calls(parsed, facts, defined, transparent)
    for name, line in facts.defs:
        owner, _, last = name.rpartition(".")
        if last in ("__getattr__", "__getattribute__"):
            what = f"{owner} defines {last}, which may provide any attribute" if owner else "it defines a module __getattr__, which may provide any name"
            facts.open.append((owner, line, what))
    if b"globals()" in parsed.source:
        for at, line in enumerate(parsed.source.splitlines(), start=1):
            if b"globals()[" in line or b"globals().update" in line:
                facts.open.append(("", at, "sets module names through globals()"))
                break


def _classes(node: Node, prefix: str, transparent: frozenset[str]) -> Iterator[tuple[Node, str]]:
    """Each class `definitions` records, with its qualified name (classes in functions are not)."""
    for child in node.named_children:
        target = child.child_by_field_name("definition") if child.type == "decorated_definition" else child
        if target is None:
            continue
        if target.type in transparent:
            yield from _classes(target, prefix, transparent)
        elif target.type == "class_definition" and (name := target.child_by_field_name("name")) is not None:
            qualified = prefix + Parsed.text(name)
            yield target, qualified
            body = target.child_by_field_name("body")
            if body is not None:
                yield from _classes(body, f"{qualified}.", transparent)


def _assignments(node: Node, prefix: str, transparent: frozenset[str]) -> Iterator[tuple[Node, str]]:
    """The assignments of module and class bodies, with the class prefix their names get."""
    for child in node.named_children:
        target = child.child_by_field_name("definition") if child.type == "decorated_definition" else child
        if target is None:
            continue
        if target.type == "assignment":
            yield target, prefix
        elif target.type in transparent:
            yield from _assignments(target, prefix, transparent)
        elif target.type == "class_definition" and (name := target.child_by_field_name("name")) is not None:
            body = target.child_by_field_name("body")
            if body is not None:
                yield from _assignments(body, f"{prefix}{Parsed.text(name)}.", transparent)


# Values whose members are those of a built-in literal: `X = 1`, `X = "a"`, `X = [..]` add nothing to know.
_LITERALS = frozenset(
    {"string", "concatenated_string", "integer", "float", "true", "false", "none", "list", "tuple", "dictionary", "set"}
    | {"list_comprehension", "dictionary_comprehension", "set_comprehension", "binary_operator", "unary_operator"}
    | {"comparison_operator", "boolean_operator", "not_operator", "parenthesized_expression", "lambda"}
)


def _assigned_value(assignment: Node, prefix: str, facts: Facts, defined: set[str]) -> None:
    """`N = Other` makes N another name of Other (its members are Other's: a base to follow);
    `N = make()` (a namedtuple, a functional Enum, an instance) has members no definition lists;
    `__slots__ = ("a", "b")` lists attributes."""
    left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
    if left is None or right is None or left.type != "identifier":
        return
    name = prefix + Parsed.text(left)
    if Parsed.text(left) == "__slots__" and right.type in ("tuple", "list"):
        for item in right.named_children:
            slot = string_value(item) if item.type == "string" else None
            if slot and f"{prefix}{slot}" not in defined:
                defined.add(f"{prefix}{slot}")
                facts.defs.append((f"{prefix}{slot}", Parsed.line(item)))
    elif right.type in ("identifier", "attribute"):
        facts.bases.append((name, Parsed.text(right), Parsed.line(right)))
    elif right.type not in _LITERALS:
        shown = Parsed.text(right).split("\n")[0][:60]
        facts.open.append((name, Parsed.line(right), f"{name} is {shown}, whose members are not listed"))


# Class decorators that add no members, and what `@dataclass` adds.
_NEUTRAL_DECORATORS = frozenset({"final", "runtime_checkable", "unique", "dataclass_transform"})
_DATACLASS = ("__init__", "__repr__", "__eq__", "__dataclass_fields__", "__dataclass_params__", "__match_args__")


def _decorators(decorated: Node, qualified: str, facts: Facts, defined: set[str]) -> None:
    """`@dataclass` adds `__init__`, `__repr__`, `__eq__`...; another class decorator may add anything."""
    for decorator in (d for d in decorated.named_children if d.type == "decorator"):
        name = Parsed.text(decorator).lstrip("@").split("(")[0].strip()
        last = name.rpartition(".")[2]
        if last == "dataclass":
            for member in _DATACLASS:
                if f"{qualified}.{member}" not in defined:
                    defined.add(f"{qualified}.{member}")
                    facts.defs.append((f"{qualified}.{member}", Parsed.line(decorator)))
        elif last not in _NEUTRAL_DECORATORS:
            facts.open.append((qualified, Parsed.line(decorator), f"the class decorator @{name} may add members to {qualified}"))


def _bases(cls: Node, qualified: str, facts: Facts) -> None:
    """`class A(B, mod.C, Generic[T])`: bases as written; a computed base (`class A(make())`) opens A."""
    arguments = cls.child_by_field_name("superclasses")
    for argument in arguments.named_children if arguments is not None else []:
        if argument.type == "keyword_argument":
            keyword, value = argument.child_by_field_name("name"), argument.child_by_field_name("value")
            if keyword is not None and Parsed.text(keyword) == "metaclass" and value is not None and Parsed.text(value) not in _PLAIN_METACLASSES:
                facts.open.append((qualified, Parsed.line(argument), f"the metaclass {Parsed.text(value)} may add members to {qualified}"))
            continue
        if argument.type == "comment":
            continue
        base = argument.child_by_field_name("value") if argument.type == "subscript" else argument
        if base is not None and base.type in ("identifier", "attribute"):
            if Parsed.text(base) != "object":
                facts.bases.append((qualified, Parsed.text(base), Parsed.line(base)))
        else:
            facts.open.append((qualified, Parsed.line(argument), f"{qualified} inherits from {Parsed.text(argument)}, computed at run time"))


def _function(node: Node) -> Node | None:
    """The innermost function (or lambda, or class body) a node is in."""
    function = node.parent
    while function is not None and function.type not in _SCOPES:
        function = function.parent
    return function


def _method_class(node: Node, transparent: frozenset[str]) -> tuple[Node, Node] | None:
    """The innermost function around a node, and the class it is a method of (None for a plain function)."""
    function = _function(node)
    if function is None or function.type != "function_definition":
        return None
    holder = function.parent
    if holder is not None and holder.type == "decorated_definition":
        if any(Parsed.text(d).lstrip("@").strip() == "staticmethod" for d in holder.named_children if d.type == "decorator"):
            return None
        holder = holder.parent
    while holder is not None and holder.type in transparent:
        holder = holder.parent
    return (function, holder) if holder is not None and holder.type == "class_definition" else None


def _first_parameter(function: Node) -> str | None:
    parameters = function.child_by_field_name("parameters")
    first = parameters.named_children[0] if parameters is not None and parameters.named_children else None
    if first is not None and first.type in ("typed_parameter", "default_parameter", "typed_default_parameter"):
        first = first.named_children[0] if first.named_children else None
    return Parsed.text(first) if first is not None and first.type == "identifier" else None


def _qualified_class(cls: Node) -> str | None:
    """`Outer.Inner` for a class the definitions record; None for one inside a function."""
    names = []
    node: Node | None = cls
    while node is not None:
        if node.type == "class_definition" and (name := node.child_by_field_name("name")) is not None:
            names.append(Parsed.text(name))
        elif node.type in ("function_definition", "lambda"):
            return None
        node = node.parent
    return ".".join(reversed(names))


def _owner(node: Node, obj: str, transparent: frozenset[str]) -> str | None:
    """The class whose instance (or class object) `obj` is at `node`: the method's first parameter."""
    found = _method_class(node, transparent)
    if found is None or _first_parameter(found[0]) != obj:
        return None
    return _qualified_class(found[1])


def _instance_attributes(parsed: Parsed, transparent: frozenset[str]) -> Iterator[tuple[str, int]]:
    """`self.x = ...` (also `self.x: T = ...`, `self.a, self.b = ...`) in a method: `Class.x`."""
    owners: dict[int, tuple[str | None, str | None]] = {}  # per function: (its first parameter, the class it is a method of)
    for match in _ATTRIBUTE_TARGET.finditer(b"\n" + parsed.source):
        obj = parsed.root.descendant_for_byte_range(match.start(1) - 1, match.end(1) - 1)
        attribute = obj.parent if obj is not None and obj.type == "identifier" else None
        if attribute is None or attribute.type != "attribute" or attribute.child_by_field_name("object") != obj:
            continue
        target = attribute.parent
        assignment = target.parent if target is not None and target.type in _TARGET_LISTS else target
        if assignment is None or assignment.type != "assignment" or assignment.child_by_field_name("left") not in (attribute, target):
            continue
        function = _function(obj)
        if function is None:
            continue
        if function.start_byte not in owners:
            found = _method_class(obj, transparent)
            owners[function.start_byte] = (_first_parameter(found[0]), _qualified_class(found[1])) if found else (None, None)
        this, owner = owners[function.start_byte]
        if owner is None or this != Parsed.text(obj):
            continue
        for item in target.named_children if target is not attribute else [attribute]:
            name = item.child_by_field_name("attribute") if item.type == "attribute" else None
            base = item.child_by_field_name("object") if name is not None else None
            if base is not None and base.type == "identifier" and Parsed.text(base) == Parsed.text(obj):
                yield f"{owner}.{Parsed.text(name)}", Parsed.line(name)


def _setattr_calls(parsed: Parsed, facts: Facts, defined: set[str], transparent: frozenset[str]) -> None:
    """`setattr(C, "x", v)` defines C.x; with a computed name, any member of C."""
    for _, found in parsed.matches_around("setattr", (b"setattr",), frozenset({"call"})):
        if Parsed.text(found["fn"][0]) != "setattr":
            continue
        obj, key, call = found["object"][0], found["key"][0], found["call"][0]
        owner = Parsed.text(obj)
        owner = _owner(call, owner, transparent) or owner
        value = string_value(key) if key.type == "string" else None
        if value and value.isidentifier():
            if f"{owner}.{value}" not in defined:
                defined.add(f"{owner}.{value}")
                facts.defs.append((f"{owner}.{value}", Parsed.line(call)))
        else:
            facts.open.append((owner, Parsed.line(call), f"sets attributes of {owner} by a computed name"))


# Modules of the standard library whose classes are bases often enough, and import nothing of the project.
_KNOWN_LIBRARIES = frozenset({"builtins", "abc", "enum", "typing", "collections", "collections.abc", "numbers", "contextlib"})


def external_members(module: str, name: str) -> frozenset[str] | None:
    """The attributes of a standard-library class (`Exception`, `enum.Enum`, `typing.Generic`), as
    this interpreter has them; None for anything else. These modules are loaded with the interpreter."""
    module = module or "builtins"
    if module not in _KNOWN_LIBRARIES:
        return None
    try:
        found = getattr(sys.modules.get(module) or importlib.import_module(module), name, None)
    except ImportError:
        return None
    # The class dictionaries along the MRO, not dir(): a metaclass may shorten dir() (enum.Enum's does).
    return frozenset(name for klass in found.__mro__ for name in vars(klass)) if isinstance(found, type) else None


def module_files(
    module: str, path: str, repo: object, roots: tuple[str, ...], module_name: Callable[[str, object], str]
) -> tuple[str, ...]:
    """The files a module written in `path` is: `a.b` → `a/b.py`, `a/b/__init__.py` or `a/b.pyi` below
    a source root; a relative `.x` → `x.py` beside `path`, as far up as its package goes."""
    is_file = getattr(repo, "is_file")
    if module.startswith("."):
        level = len(module) - len(module.lstrip("."))
        directories = path.split("/")[:-1]
        depth = len(module_name(path, repo).split(".")) - (0 if path.endswith("__init__.py") else 1) if path else 0
        if level > depth:
            return ()
        base = "/".join([*directories[: len(directories) - (level - 1)], *[p for p in module[level:].split(".") if p]])
        roots = ("",)
    else:
        base = module.replace(".", "/")
    found = []
    for root in roots:
        stem = f"{root}{base}"
        candidates = (f"{stem}.py", f"{stem}/__init__.py", f"{stem}.pyi") if stem else ("__init__.py",)
        found += [c.lstrip("/") for c in candidates if is_file(c.lstrip("/"))]
    if not found and base and not module.startswith("."):
        found = _in_projects(base, repo, roots)
    return tuple(found)


def _in_projects(base: str, repo: object, roots: tuple[str, ...]) -> list[str]:
    """The module in the folder of one of the repository's projects (a folder holding a `pyproject.toml`,
    `setup.py` or `setup.cfg`: a uv workspace's `graph/graph/__init__.py`, a monorepo's
    `libs/core/src/core/`), below the same source roots, nearest project first. Projects in test,
    example or vendored folders are left out: uv's `test/packages/anyio_local/anyio/` fakes anyio,
    and taking it for anyio REFUTED `sym:py:anyio.to_thread`. Asked only where the top level found
    nothing, and answered from the listing: a stat per project and root is too slow."""
    from anchorcheck.plugin import classify

    paths = getattr(repo, "paths", None)
    if not callable(paths):
        return []
    last = base.rsplit("/", 1)[-1]
    listed = set(paths(named=[f"{last}.py", f"{last}.pyi", "__init__.py"]))
    manifests = [p for p in paths(named=_PROJECT_FILES) if classify(p) == "production"]
    projects = sorted({p.rpartition("/")[0] for p in manifests} - {""}, key=lambda d: (d.count("/"), d))
    return [
        candidate
        for project in projects
        for root in roots
        for candidate in (f"{project}/{root}{base}.py", f"{project}/{root}{base}/__init__.py", f"{project}/{root}{base}.pyi")
        if candidate in listed
    ]


_PROJECT_FILES = ("pyproject.toml", "setup.py", "setup.cfg")
