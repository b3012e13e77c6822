"""Ruby: `require "x"` (a feature path, matched by `/` segment), `ENV` (or `::ENV`) reads, modules/classes/methods.

`autoload :X, "x"` requires "x" too; `require_relative` loads a file of the project, so it is not an import.
Definitions nest with dots: `Outer.Store.save`, singleton methods and `attr_accessor`s included.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anchorcheck import Language, hookimpl
from anchorcheck.plugin import Define, Definitions, Facts, Parsed, definitions, enclosing_name, string_constants, string_value

if TYPE_CHECKING:
    from tree_sitter import Node

QUERIES = {
    "class_facts": """
        (class superclass: (superclass) @node)
        (call method: (identifier) @method (#any-of? @method "include" "extend" "prepend" "define_method" "define_singleton_method")) @node
        (method name: (identifier) @name (#eq? @name "method_missing")) @node
    """,
    "structs": """
        (assignment left: [(constant) (scope_resolution)] @name
            right: (call receiver: (constant) @receiver method: (identifier) @method) @call
            (#any-of? @receiver "Struct" "Data") (#any-of? @method "new" "define"))
    """,
    "imports": """
        (call method: (identifier) @method arguments: (argument_list . (string) @feature)) @stmt
        (call method: (identifier) @method arguments: (argument_list . (simple_symbol) . (string) @feature)) @stmt
    """,
    "env": """
        (element_reference object: [(constant) (scope_resolution)] @object . (_) @key) @read
        (call receiver: [(constant) (scope_resolution)] @object method: (identifier) @method
            arguments: (argument_list . (_) @key)) @read
    """,
    "constants": "(assignment left: [(constant) (identifier)] @name right: (_) @value)",
}
# The methods that load a feature, by import pattern: `require "x"` and `load "x"`; `autoload :X, "x"`,
# which requires "x" when X is first used.
_REQUIRES = ({"require", "load"}, {"autoload"})
_ENV_METHODS = {"fetch", "key?", "has_key?", "include?"}
_ENV = {"ENV", "::ENV"}  # `::ENV` names the top-level ENV from inside a namespace that might hide it


def extract(parsed: Parsed) -> Facts:
    facts = Facts()
    for pattern, found in parsed.matches("imports"):
        value = string_value(found["feature"][0])
        if Parsed.text(found["method"][0]) in _REQUIRES[pattern] and value:
            facts.imports.append((value, Parsed.line(found["stmt"][0]), ""))
    constants = string_constants(parsed, "constants", ("string",)) if parsed.mentions((b"ENV",)) else {}
    for _, found in parsed.matches("env"):
        if Parsed.text(found["object"][0]) not in _ENV:
            continue
        if "method" in found and Parsed.text(found["method"][0]) not in _ENV_METHODS:
            continue
        read, key = found["read"][0], found["key"][0]
        parent = read.parent
        if parent is not None and parent.type == "assignment" and parent.child_by_field_name("left") == read:
            continue  # `ENV["K"] = v` writes K
        facts.add_env_read(read, key, ("string",), constants)
    for use in parsed.spellings(_ENV, frozenset({"constant", "scope_resolution"}), separator=":"):
        if _hands_on(use):
            facts.add_env_whole(use)
    facts.defs = definitions_of(parsed)
    _class_facts(parsed, facts)
    return facts


_NAMESPACES = frozenset({"class", "module"})
_MIXINS = {"include", "extend", "prepend"}
_OPENERS = {"define_method", "define_singleton_method", "method_missing", "instance_variable_get", "send", "public_send"}


def _class_facts(parsed: Parsed, facts: Facts) -> None:
    """Superclasses and mixins (`class A < B`, `include M`) as bases; methods defined at run time
    (`define_method(name)`, `method_missing`) or a `Struct.new` value open the class."""
    for _, found in parsed.matches("class_facts"):
        node = found["node"][0]
        if node.type == "superclass" and node.parent is not None:
            owner = enclosing_name(node.parent, _NAMESPACES, "::")
            for base in node.named_children:
                facts.bases.append((owner, Parsed.text(base).replace("::", "."), Parsed.line(base)))
            continue
        if node.type == "method":
            owner = enclosing_name(node.parent, _NAMESPACES, "::") if node.parent is not None else ""
            facts.open.append((owner, Parsed.line(node), f"{owner or 'it'} defines method_missing, which answers any method"))
            continue
        method = node.child_by_field_name("method")
        if node.type != "call" or method is None or node.child_by_field_name("receiver") is not None:
            continue
        owner = enclosing_name(node, _NAMESPACES, "::")
        arguments = node.child_by_field_name("arguments")
        values = arguments.named_children if arguments is not None else []
        if Parsed.text(method) in _MIXINS and owner:
            facts.bases += [(owner, Parsed.text(v).replace("::", "."), Parsed.line(v)) for v in values if v.type in ("constant", "scope_resolution")]
        elif Parsed.text(method) in ("define_method", "define_singleton_method") and owner:
            if values and values[0].type == "simple_symbol":
                facts.defs.append((f"{owner}.{Parsed.text(values[0]).removeprefix(':')}", Parsed.line(node)))
            else:
                facts.open.append((owner, Parsed.line(node), f"defines methods of {owner} with computed names"))
    for _, found in parsed.matches("structs"):
        scope = enclosing_name(found["name"][0], _NAMESPACES, "::")
        name = ".".join(p for p in (scope, Parsed.text(found["name"][0]).replace("::", ".")) if p)
        facts.open.append((name, Parsed.line(found["name"][0]), f"{name} is built by {Parsed.text(found['call'][0]).split('(')[0]}, whose members are not listed"))


_KEYED = _ENV_METHODS | {"[]", "[]=", "store", "delete", "assoc"}  # a lookup or a write of one key


def _hands_on(use: Node) -> bool:
    """Whether a use of ENV may read any key: `ENV.to_h`, `ENV.each`, `ENV.merge(...)`, ENV handed
    to a call (`system(ENV.to_h, cmd)`). A lookup or write of one key is not; `Foo::ENV` is another constant."""
    parent = use.parent
    if parent is None:
        return True
    if parent.type == "element_reference":
        return parent.child_by_field_name("object") != use
    if parent.type == "scope_resolution":
        return parent.child_by_field_name("name") != use
    if parent.type == "call" and parent.child_by_field_name("receiver") == use:
        method = parent.child_by_field_name("method")
        return method is None or Parsed.text(method) not in _KEYED
    return parent.type != "assignment" or parent.child_by_field_name("left") != use


_ATTRIBUTES = {"attr_accessor", "attr_reader", "attr_writer"}


def _attributes(call: Node) -> list[Node]:
    """The symbols of `attr_accessor :name, :email` (or `attr_reader`, `attr_writer`): each names a method."""
    method, arguments = call.child_by_field_name("method"), call.child_by_field_name("arguments")
    if method is None or arguments is None or call.child_by_field_name("receiver") is not None:
        return []
    if Parsed.text(method) not in _ATTRIBUTES:
        return []
    return [node for node in arguments.named_children if node.type == "simple_symbol"]


# Modules and classes nest (`Outer.Store.save`); methods, singleton methods, attributes and constants are leaves.
# The methods of a `class << self` body are the class's own, named like `def self.m`.
_DEFINITIONS = Definitions(
    defines={
        **dict.fromkeys(("module", "class"), Define(nests=True)),
        **dict.fromkeys(("method", "singleton_method"), Define()),
        "call": Define(name=_attributes, spelling=lambda symbol: Parsed.text(symbol).removeprefix(":")),
        "assignment": Define(name="left", name_types=frozenset({"constant"})),
    },
    transparent=frozenset({"body_statement"}),
    wrappers={"singleton_class": "body"},
    scope="::",
)


def import_segments(module: str) -> tuple[str, ...]:
    return tuple(module.split("/"))


def definitions_of(parsed: Parsed) -> list[tuple[str, int]]:
    """Modules, classes and methods by the walk alone, the first of the facts' `defs`
    (`Language.definitions`); `_class_facts` adds the attributes that `attr_*` calls define."""
    return definitions(parsed.root, _DEFINITIONS)


LANGUAGE = Language(
    name="ruby",
    extensions=(".rb", ".rake", ".gemspec"),
    filenames=("Rakefile", "Gemfile"),
    grammar="ruby",
    queries=QUERIES,
    extract=extract,
    import_segments=import_segments,
    env_markers=(b"ENV",),
    definitions=definitions_of,
)


@hookimpl
def register_languages(register):  # noqa: ANN001, ANN201 - hook signature
    register(LANGUAGE)
