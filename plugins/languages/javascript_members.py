"""JavaScript and TypeScript: members that are assigned rather than declared, bases, and import bindings.

Much of npm defines its API by assignment: `app.listen = function listen() {}`
(express), `X.prototype.m = ...`, `Object.assign(X.prototype, {...})`,
`this.x = ...` in a constructor. Those statements at the top level define
`app.listen`, `X.prototype.m` (also `X.m`), `X.x`. A member added under a
computed key (`app[method] = ...` in a loop over names, `Object.assign(app,
mixin)`) is recorded as opening its object, so that absence there is
INCONCLUSIVE, naming the line. Import bindings and `extends` let `sym:`
follow a base class to the file that defines it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from anchorcheck.plugin import Facts, Parsed, string_value

if TYPE_CHECKING:
    from tree_sitter import Node

QUERIES = {
    "computed_members": "(assignment_expression left: (subscript_expression object: (_) @object index: (_) @key)) @assign",
    "object_calls": """
        (call_expression function: (member_expression object: (identifier) @global property: (property_identifier) @method)
            arguments: (arguments . (_) @object)) @call
    """,
    "this_members": "(assignment_expression left: (member_expression object: (this) property: (property_identifier) @name)) @assign",
}
_STRINGS = ("string", "template_string")
_CHAIN = frozenset({"identifier", "property_identifier", "member_expression"})
_EXPORTS = ("exports", "module")  # CommonJS exports, already defined by name (`exports.f` is f)
_ADDERS = frozenset({"assign", "defineProperty", "defineProperties"})


def member_facts(parsed: Parsed, facts: Facts) -> None:
    """Add assigned members, `this.x` fields, bases, open objects and import bindings to a file's facts."""
    defined = {name for name, _ in facts.defs}

    def define(name: str, line: int) -> None:
        for spelling in (name, name.replace(".prototype.", ".")):
            if spelling not in defined:
                defined.add(spelling)
                facts.defs.append((spelling, line))

    for statement in _top_level(parsed.root):
        node = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children else None
        while node is not None and node.type == "assignment_expression":
            left = node.child_by_field_name("left")
            name = _static(left)
            if name is not None and "." in name and name.split(".")[0] not in _EXPORTS and left is not None:
                define(name, Parsed.line(left))
            node = node.child_by_field_name("right")
    if parsed.mentions((b"Object.",)):
        _object_calls(parsed, facts, define)
    if b"[" in parsed.source:
        _computed(parsed, facts, define)
    if parsed.mentions((b"this.",)):
        for _, found in parsed.matches("this_members"):
            owner = _constructed(found["assign"][0])
            if owner is not None:
                define(f"{owner}.{Parsed.text(found['name'][0])}", Parsed.line(found["name"][0]))
    _classes(parsed.root, facts, define)
    _bindings(parsed.root, facts)
    _declared_values(parsed.root, facts, define)


def _top_level(root: Node) -> Iterator[Node]:
    for child in root.named_children:
        yield child.child_by_field_name("declaration") or child if child.type == "export_statement" else child


def _static(node: Node | None) -> str | None:
    """`a.b.c` when the expression is a plain chain of names (not `this`, calls or computed keys)."""
    names: list[str] = []  # walked down the chain, not recursed: a crafted `a.a.a…` is thousands deep
    while node is not None and node.type == "member_expression":
        prop = node.child_by_field_name("property")
        if prop is None or prop.type != "property_identifier":
            return None
        names.append(Parsed.text(prop))
        node = node.child_by_field_name("object")
    if node is None or node.type not in _CHAIN:
        return None
    return ".".join([Parsed.text(node), *reversed(names)])


def _opened(facts: Facts, owner: str, line: int, why: str) -> None:
    facts.open.append((owner, line, why))
    if owner.endswith(".prototype"):
        facts.open.append((owner.removesuffix(".prototype"), line, why))


def _object_calls(parsed: Parsed, facts: Facts, define) -> None:  # noqa: ANN001 - the local `define`
    """`Object.assign(T, {a, b() {}})` and `Object.defineProperty(T, "k", ...)` define T.a, T.b, T.k;
    with anything but literal keys they may add any member of T (of the class, for `this` in its
    constructor or methods: `Object.assign(this, options)`)."""
    for _, found in parsed.matches("object_calls"):
        call, first = found["call"][0], found["object"][0]
        target = _constructed(call) if first.type == "this" else _static(first)
        if Parsed.text(found["global"][0]) != "Object" or Parsed.text(found["method"][0]) not in _ADDERS or target is None:
            continue
        arguments = [a for a in found["object"][0].parent.named_children[1:] if a.type != "comment"]  # type: ignore[union-attr]
        method = Parsed.text(found["method"][0])
        if method == "defineProperty":
            key = string_value(arguments[0]) if arguments and arguments[0].type in _STRINGS else None
            keys = [key] if key else None
        else:
            keys = []
            for argument in arguments:
                written = _object_keys(argument)
                keys += written if written is not None else [None]
        if keys is None or None in keys:
            _opened(facts, target, Parsed.line(call), f"adds members to {target} that are not written out (Object.{method})")
        for key in keys or []:
            if key:
                define(f"{target}.{key}", Parsed.line(call))


def _object_keys(node: Node) -> list[str | None] | None:
    """The keys of an object literal (None for a computed one or a spread); None when it is not one."""
    if node.type != "object":
        return None
    keys: list[str | None] = []
    for item in node.named_children:
        if item.type == "comment":
            continue
        key = item if item.type == "shorthand_property_identifier" else item.child_by_field_name("key") or item.child_by_field_name("name")
        if key is not None and key.type in ("property_identifier", "shorthand_property_identifier"):
            keys.append(Parsed.text(key))
        else:
            keys.append(string_value(key) if key is not None and key.type == "string" else None)
    return keys


def _computed(parsed: Parsed, facts: Facts, define) -> None:  # noqa: ANN001 - the local `define`
    """`T["k"] = v` defines T.k; `T[name] = v` (express's `app[method] = ...` in a loop) may add any member."""
    for _, found in parsed.matches("computed_members"):
        key, assign = found["key"][0], found["assign"][0]
        inside = found["object"][0].type == "this"  # `this[m] = ...` in a constructor: a member of its class
        target = _constructed(assign) if inside else _static(found["object"][0])
        if target is None:
            continue
        value = string_value(key) if key.type in _STRINGS else None
        if value and value.isidentifier():
            if inside or (assign.parent is not None and assign.parent.type == "expression_statement" and assign.parent.parent == parsed.root):
                define(f"{target}.{value}", Parsed.line(assign))
        else:
            _opened(facts, target, Parsed.line(assign), f"adds members to {target} under a computed key")


_CLOSED_VALUES = frozenset({"function_expression", "arrow_function", "string", "template_string", "number", "true", "false", "null", "array", "regex"})


def _declared_values(root: Node, facts: Facts, define) -> None:  # noqa: ANN001 - the local `define`
    """What a top-level `const x = value` gives x: an object literal's keys (`x.get`), another name's
    members (`const y = Base`: a base to follow), or, for a call's or `new`'s result
    (`Object.create(proto)`, `express()`), members no definition lists."""
    for statement in _top_level(root):
        if statement.type not in ("lexical_declaration", "variable_declaration"):
            continue
        for declarator in statement.named_children:
            name, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
            if name is None or name.type != "identifier" or value is None:
                continue
            while value.type == "assignment_expression" and value.child_by_field_name("right") is not None:
                value = value.child_by_field_name("right")  # type: ignore[assignment]
            owner, line = Parsed.text(name), Parsed.line(value)
            keys = _object_keys(value)
            if keys is not None:
                for key in keys:
                    if key is None:
                        _opened(facts, owner, line, f"{owner} has a computed key or a spread")
                    else:
                        define(f"{owner}.{key}", line)
            elif (alias := _static(value)) is not None:
                facts.bases.append((owner, alias, line))
            elif value.type not in _CLOSED_VALUES and not _required_value(value):
                shown = Parsed.text(value).split("\n")[0][:60]
                _opened(facts, owner, line, f"{owner} is {shown}, whose members are not listed")


def _required_value(value: Node) -> bool:
    while value.type == "member_expression":
        value = value.child_by_field_name("object") or value
        if value.type != "member_expression":
            break
    function = value.child_by_field_name("function") if value.type == "call_expression" else None
    return function is not None and Parsed.text(function) == "require"


def _constructed(assign: Node) -> str | None:
    """The class (or constructor function) whose `this` an assignment is in, if it is top level."""
    node = assign.parent
    # An arrow function has its enclosing function's `this` (`names.forEach((m) => { this[m] = ... })`).
    while node is not None and node.type not in ("function_expression", "function_declaration", "method_definition", "class_body"):
        node = node.parent
    if node is None:
        return None
    if node.type == "function_declaration":
        name = node.child_by_field_name("name")
        holder = node.parent
    elif node.type == "method_definition":
        body = node.parent
        cls = body.parent if body is not None else None
        name = cls.child_by_field_name("name") if cls is not None and cls.type in ("class_declaration", "abstract_class_declaration") else None
        holder = cls.parent if cls is not None else None
    else:
        return None
    if holder is not None and holder.type == "export_statement":
        holder = holder.parent
    return Parsed.text(name) if name is not None and holder is not None and holder.type == "program" else None


def _classes(root: Node, facts: Facts, define) -> None:  # noqa: ANN001 - the local `define`
    """Bases (`extends B`, an interface's `extends J`), TS parameter properties (`constructor(private p)`)
    and index signatures (any key) of the top-level classes and interfaces."""
    for node in _top_level(root):
        name = node.child_by_field_name("name")
        if name is None or node.type not in ("class_declaration", "abstract_class_declaration", "interface_declaration"):
            continue
        owner = Parsed.text(name)
        for base in _heritage(node):
            written = _static(base) if base.type != "type_identifier" else Parsed.text(base)
            if written is None:
                facts.open.append((owner, Parsed.line(base), f"{owner} extends {Parsed.text(base)}, computed at run time"))
            else:
                facts.bases.append((owner, written, Parsed.line(base)))
        body = node.child_by_field_name("body")
        for member in body.named_children if body is not None else []:
            if member.type == "index_signature":
                facts.open.append((owner, Parsed.line(member), f"{owner} has an index signature: any key"))
            key = member.child_by_field_name("name")
            if member.type == "method_definition" and key is not None and Parsed.text(key) == "constructor":
                parameters = member.child_by_field_name("parameters")
                for parameter in parameters.named_children if parameters is not None else []:
                    if any(c.type in ("accessibility_modifier", "readonly") or Parsed.text(c) == "readonly" for c in parameter.children):
                        pattern = parameter.child_by_field_name("pattern")
                        if pattern is not None and pattern.type == "identifier":
                            define(f"{owner}.{Parsed.text(pattern)}", Parsed.line(pattern))


def _heritage(node: Node) -> list[Node]:
    """What a class extends (JS: the heritage expression; TS: its `extends` clause) or an interface extends."""
    found = []
    for child in node.named_children:
        if child.type == "class_heritage":
            clauses = [c for c in child.named_children if c.type == "extends_clause"]
            found += [c.child_by_field_name("value") for c in clauses] if clauses else child.named_children[:1]
        elif child.type == "extends_type_clause":
            found += child.children_by_field_name("type")
    return [n for n in found if n is not None and n.type != "comment"]


def _bindings(root: Node, facts: Facts) -> None:
    """Top-level import bindings (`import B, {C as D} from "m"`, `const B = require("m")`, `const {C} =
    require("m")`) and the default export (`module.exports = A`, `export default A`)."""
    for child in root.named_children:
        line = Parsed.line(child)
        if child.type == "import_statement":
            source = child.child_by_field_name("source")
            module = string_value(source) if source is not None else None
            clause = next((c for c in child.named_children if c.type == "import_clause"), None)
            if module and clause is not None:
                facts.bound += [(local, module, name, line) for local, name in _import_clause(clause)]
        elif child.type in ("lexical_declaration", "variable_declaration"):
            for declarator in child.named_children:
                _required(declarator, facts, line)
        elif child.type == "export_statement":
            declared = child.child_by_field_name("declaration") or child.child_by_field_name("value")
            if any(c.type == "default" for c in child.children) and declared is not None:
                name = declared.child_by_field_name("name") if declared.type != "identifier" else declared
                if name is not None:
                    facts.bound.append(("default", "", Parsed.text(name), line))
            _exports(child, facts, line)
        elif child.type == "expression_statement" and child.named_children:
            assign = child.named_children[0]
            right = assign.child_by_field_name("right") if assign.type == "assignment_expression" else None
            left = assign.child_by_field_name("left") if right is not None else None
            if left is not None and right is not None and Parsed.text(left) == "module.exports" and right.type == "identifier":
                facts.bound.append(("default", "", Parsed.text(right), line))


def _exports(statement: Node, facts: Facts, line: int) -> None:
    """`export { a as b }` makes b another name of a (a base to follow, as `const b = a` is: a core
    class exported under another name has its members); `export { a as b } from "m"` binds b to m's
    a, `export * as ns from "m"` ns to m, and `export * from "m"` every name of m, so that a base
    imported through an index file is followed to its definition."""
    source = statement.child_by_field_name("source")
    module = string_value(source) if source is not None and source.type == "string" else None
    clause = next((c for c in statement.named_children if c.type in ("export_clause", "namespace_export")), None)
    if clause is None:
        if module and any(c.type == "*" for c in statement.children):
            facts.bound.append(("*", module, "*", line))
            # Every name of m is this file's too: absence of one proves nothing without following it.
            facts.open.append(("", line, f"re-exports every name of {module}"))
    elif clause.type == "namespace_export":
        if module and clause.named_children:
            facts.bound.append((Parsed.text(clause.named_children[-1]), module, "", line))
    else:
        for specifier in clause.named_children:
            name, alias = specifier.child_by_field_name("name"), specifier.child_by_field_name("alias")
            if specifier.type != "export_specifier" or name is None:
                continue
            if module:
                facts.bound.append((Parsed.text(alias or name), module, Parsed.text(name), line))
            elif alias is not None and Parsed.text(alias) == "default":
                facts.bound.append(("default", "", Parsed.text(name), line))
            elif alias is not None and Parsed.text(alias) != Parsed.text(name):
                facts.bases.append((Parsed.text(alias), Parsed.text(name), line))


def _import_clause(clause: Node) -> Iterator[tuple[str, str]]:
    for part in clause.named_children:
        if part.type == "identifier":
            yield Parsed.text(part), "default"
        elif part.type == "namespace_import" and part.named_children:
            yield Parsed.text(part.named_children[-1]), ""
        elif part.type == "named_imports":
            for specifier in part.named_children:
                name, alias = specifier.child_by_field_name("name"), specifier.child_by_field_name("alias")
                if name is not None:
                    yield Parsed.text(alias or name), Parsed.text(name)


def _required(declarator: Node, facts: Facts, line: int) -> None:
    """`const B = require("m")` (B is the module), `require("m").C` and `const {C, D: E} = require("m")`."""
    name, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
    member = None
    if value is not None and value.type == "member_expression":
        prop = value.child_by_field_name("property")
        member = Parsed.text(prop) if prop is not None else None
        value = value.child_by_field_name("object")
    function = value.child_by_field_name("function") if value is not None and value.type == "call_expression" else None
    arguments = value.child_by_field_name("arguments") if function is not None else None
    if function is None or Parsed.text(function) != "require" or arguments is None or not arguments.named_children:
        return
    first = arguments.named_children[0]
    module = string_value(first) if first.type == "string" else None
    if not module or name is None:
        return
    if name.type == "identifier":
        facts.bound.append((Parsed.text(name), module, member or "", line))
    elif name.type == "object_pattern" and member is None:
        for item in name.named_children:
            if item.type == "shorthand_property_identifier_pattern":
                facts.bound.append((Parsed.text(item), module, Parsed.text(item), line))
            elif item.type == "pair_pattern" and (key := item.child_by_field_name("key")) and (local := item.child_by_field_name("value")):
                facts.bound.append((Parsed.text(local), module, Parsed.text(key), line))


_RESOLVED = ("", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".mts", ".cts", ".d.ts", "/index.js", "/index.ts", "/index.tsx", "/index.mjs", "/index.cjs")


def module_files(module: str, path: str, repo: object, roots: tuple[str, ...]) -> tuple[str, ...]:
    """The files a relative specifier (`./b`, `../lib/c.js`) written in `path` may be, as Node and
    TypeScript resolve it; for a package name, the source of a package of the repository's own
    workspace (`@acme/core` is packages/core, whose package.json names it); none for another
    (third-party code, in node_modules)."""
    if not module.startswith(("./", "../")) and module not in (".", ".."):
        return _workspace_package(module, repo)
    parts = path.split("/")[:-1]
    for segment in module.split("/"):
        if segment == "..":
            if not parts:
                return ()
            parts.pop()
        elif segment not in ("", "."):
            parts.append(segment)
    base = "/".join(parts)
    is_file = getattr(repo, "is_file")
    return tuple(candidate for candidate in (base + suffix for suffix in _RESOLVED) if candidate and is_file(candidate))


# Where a package's TypeScript or JavaScript source starts, by convention: its package.json points at
# the built `dist/`, which a checkout rarely holds.
_SOURCE_DIRS = ("src", "lib", "")


def _workspace_package(module: str, repo: object) -> tuple[str, ...]:
    """The source files of a package of this repository that `module` (`@s/p`, `@s/p/sub`, `p/sub`)
    names: the folder of the package.json (outside tests, examples and vendored code) whose `name`
    it is, then `src/`, `lib/` or the folder itself, as `sub` or its index."""
    from anchorcheck.plugin import classify

    parts = module.split("/")
    size = 2 if module.startswith("@") else 1
    if len(parts) < size:
        return ()
    name, sub = "/".join(parts[:size]), "/".join(parts[size:])
    paths, read, is_file = getattr(repo, "paths"), getattr(repo, "read_bytes"), getattr(repo, "is_file")
    for manifest in paths(named=["package.json"]):
        if classify(manifest) != "production" or f'"{name}"'.encode() not in (data := _read(read, manifest)):
            continue
        try:
            declared = json.loads(data).get("name")
        except (ValueError, AttributeError):
            continue
        if declared != name:
            continue
        folder = manifest.rpartition("/")[0]
        for source in _SOURCE_DIRS:
            base = "/".join(p for p in (folder, source, sub) if p)
            found = tuple(c for c in (base + suffix for suffix in _RESOLVED[1:]) if is_file(c))
            if found:
                return found
    return ()


def _read(read: Callable[[str], bytes], path: str) -> bytes:
    try:
        return read(path)
    except OSError:
        return b""
