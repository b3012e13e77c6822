"""JavaScript (and the shared walk that TypeScript reuses): imports, `process.env` reads, definitions.

`import`/`export ... from`, `require("x")` and `import("x")` with a literal
are imports; module names keep npm's shape (`@scope/pkg/sub`), so
`import:@scope/pkg` matches by path segment and `node:fs` is `fs`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anchorcheck import Language, hookimpl
from anchorcheck_plugins.languages import javascript_members
from anchorcheck.plugin import TYPE_CHECKING_ONLY, Define, Definitions, Facts, Parsed, definitions, single_bindings, string_value

if TYPE_CHECKING:
    from tree_sitter import Node

QUERIES = {
    "imports": """
        (import_statement source: (string) @source) @stmt
        (export_statement source: (string) @source) @stmt
        (call_expression function: (identifier) @fn arguments: (arguments . (_) @source)) @stmt
        (call_expression function: (import) @fn arguments: (arguments . (_) @source)) @stmt
    """,
    "env": """
        (member_expression object: (_) @object property: (property_identifier) @key) @read
        (subscript_expression object: (_) @object index: (_) @key) @read
        (variable_declarator name: (object_pattern) @pattern value: (_) @object) @read
        (variable_declarator name: (identifier) @alias value: (_) @object) @read
    """,
    **javascript_members.QUERIES,
}
_IMPORT_MARKERS = (b"import", b"require", b"export")
_IMPORTS = frozenset({"import_statement", "export_statement", "call_expression"})  # what the imports query's statements are
def _chained(names: tuple[str, ...]) -> frozenset[str]:
    """Each name also as optional chaining spells it (`global?.process?.env`, hono's), in every combination."""
    spelled = set()
    for name in names:
        parts = name.split(".")
        for mask in range(1 << (len(parts) - 1)):
            spelled.add(parts[0] + "".join(("?." if mask >> i & 1 else ".") + part for i, part in enumerate(parts[1:])))
    return frozenset(spelled)


# The environment object: Node's (also reached through the global object), Vite's, and Bun's own.
_ENV_OBJECTS = _chained(("process.env", "import.meta.env", "Bun.env", "globalThis.process.env", "global.process.env"))
_DENO_READS = frozenset({"get", "has"})  # `Deno.env.get("K")`; `set`/`delete` write, `toObject()` is every key
_STRINGS = ("string", "template_string")


def extract(parsed: Parsed) -> Facts:
    facts = Facts()
    for _, found in parsed.matches_around("imports", _IMPORT_MARKERS, _IMPORTS):
        stmt, source = found["stmt"][0], found["source"][0]
        function = found.get("fn", [None])[0]
        if function is not None and function.type == "identifier" and Parsed.text(function) != "require":
            continue
        value = string_value(source) if source.type in _STRINGS else None
        if value:
            type_only = any(child.type == "type" for child in stmt.children)  # the keyword, not `import typeorm`
            facts.imports.append((value, Parsed.line(stmt), TYPE_CHECKING_ONLY if type_only else ""))
    if parsed.mentions(ENV_MARKERS):
        env_reads(parsed, facts)
    facts.defs = definitions_of(parsed)
    javascript_members.member_facts(parsed, facts)
    return facts


def env_reads(parsed: Parsed, facts: Facts) -> None:
    matches = [found for _, found in parsed.matches("env")]
    objects = _ENV_OBJECTS | _env_aliases(matches)
    constants = _string_constants(matches)
    for found in matches:
        read, obj = found["read"][0], found["object"][0]
        if Parsed.text(obj) not in objects or "alias" in found or _written(read):
            continue
        if "pattern" in found:
            _destructured_reads(found["pattern"][0], facts)
            continue
        key = found["key"][0]
        if key.type == "property_identifier":
            facts.env.append((Parsed.text(key), Parsed.line(read)))
        else:
            facts.add_env_read(read, key, _STRINGS, constants)
    for use in parsed.spellings(objects, _NAME_EXPRESSIONS):
        test = use.parent
        if test is not None and test.type == "binary_expression" and test.child_by_field_name("right") == use and _operator(test) == "in":
            left = test.child_by_field_name("left")  # `"NO_COLOR" in process.env` looks the key up
            if left is not None:
                facts.add_env_read(test, left, _STRINGS, constants)
        elif _hands_on(use):
            facts.add_env_whole(use)
    if parsed.mentions((b"Deno.env",)):
        _deno_reads(matches, facts, constants)


def _operator(expression: Node) -> str:
    operator = expression.child_by_field_name("operator")
    return Parsed.text(operator) if operator is not None else ""


def _deno_reads(matches: list[dict[str, list[Node]]], facts: Facts, constants: dict[str, str]) -> None:
    """Deno's environment is read by calls: `Deno.env.get("K")` and `.has("K")` read K, `toObject()` every key."""
    for found in matches:
        read, obj = found["read"][0], found["object"][0]
        call = read.parent
        if "key" not in found or Parsed.text(obj) != "Deno.env" or call is None or call.type != "call_expression":
            continue
        method, arguments = Parsed.text(found["key"][0]), call.child_by_field_name("arguments")
        if method == "toObject":
            facts.add_env_whole(call)
        elif method in _DENO_READS and arguments is not None and arguments.named_children:
            facts.add_env_read(call, arguments.named_children[0], _STRINGS, constants)


_NAME_EXPRESSIONS = frozenset({"identifier", "member_expression", "shorthand_property_identifier"})
# Where a name is bound, not used: `const env = ...`, a parameter, an import.
_BINDINGS = frozenset({"variable_declarator", "formal_parameters", "required_parameter", "optional_parameter", "import_specifier", "namespace_import"})


def _string_constants(matches: list[dict[str, list[Node]]]) -> dict[str, str]:
    """Names declared once with a plain string (`const KEY = "REDIS_URL"`): a key kept in one."""
    pairs = []
    for found in matches:
        if "alias" in found:
            value = found["object"][0]
            pairs.append((Parsed.text(found["alias"][0]), string_value(value) if value.type in _STRINGS else None))
    return single_bindings(pairs)


def _written(read: Node) -> bool:
    """`process.env.K = v`, `process.env[k] = v` and `delete process.env.K` write the key: none reads it."""
    parent = read.parent
    if parent is None or read.type not in ("member_expression", "subscript_expression"):
        return False
    if parent.type == "assignment_expression":
        return parent.child_by_field_name("left") == read
    return parent.type == "unary_expression" and Parsed.text(parent).startswith("delete")


def _hands_on(use: Node) -> bool:
    """Whether a use of the environment object may read any key: spread (`{...process.env}`),
    copied (`Object.assign({}, process.env)`), iterated, or handed to a call or an object
    (`spawn(cmd, {env: process.env})`). A lookup by key, a write, a destructuring and
    `const env = process.env` (followed as an alias) are not."""
    parent = use.parent
    if parent is None or parent.type in _BINDINGS:
        return False
    if parent.type in ("member_expression", "subscript_expression"):
        return parent.type == "subscript_expression" and parent.child_by_field_name("object") != use  # `o[process.env]`
    if parent.type in ("assignment_expression", "augmented_assignment_expression"):
        return parent.child_by_field_name("left") != use
    return parent.type not in ("pair_pattern", "object_pattern")


def _env_aliases(matches: list[dict[str, list[Node]]]) -> set[str]:
    """Local names the environment is kept in (`const env = process.env`), read like it afterwards.

    By name for the whole file, as Python's import aliases are: a shadowing name elsewhere is rare.
    """
    return {Parsed.text(m["alias"][0]) for m in matches if "alias" in m and Parsed.text(m["object"][0]) in _ENV_OBJECTS}


_NAMED_KEYS = frozenset({"shorthand_property_identifier_pattern", "property_identifier"})


def _destructured_reads(pattern: Node, facts: Facts) -> None:
    """`const {A, B: b, C = 1, "D": d} = process.env` reads A to D by name; a computed key
    (`[name]: v`) or `...rest` may read any key, so it counts as a computed read."""
    for item in pattern.named_children:
        if item.type == "comment":
            continue
        key = item
        if item.type == "object_assignment_pattern":  # `C = 1`: a default for a shorthand key
            key = item.child_by_field_name("left") or item
        elif item.type == "pair_pattern":
            key = item.child_by_field_name("key") or item
        if key.type in _NAMED_KEYS:
            facts.env.append((Parsed.text(key), Parsed.line(item)))
        else:
            facts.add_env_read(item, key, _STRINGS)


def _member_name(member: Node) -> list[Node]:
    """A class field names itself in `property` (`x = 1;`, `#x;`), a method or TS member in `name`."""
    name = member.child_by_field_name("name") or member.child_by_field_name("property")
    return [name] if name is not None else []


def _exported_name(specifier: Node) -> list[Node]:
    """`export { a as b }` defines b here, and so does `export { a as b } from "m"`: the module's
    name b, as `import { a } from "m"; export { a as b }` is (`sym:` follows it to a's members)."""
    name = specifier.child_by_field_name("alias") or specifier.child_by_field_name("name")
    return [name] if name is not None else []


_EXPORTS_OBJECTS = frozenset({"exports", "module.exports"})
_OBJECT_KEYS = frozenset({"shorthand_property_identifier", "property_identifier"})
_KEY_FIELDS = {"pair": "key", "method_definition": "name"}  # where an object literal's member holds its name


def _commonjs_exports(assignment: Node) -> list[Node]:
    """CommonJS exports: `exports.f = ...` and `module.exports.f = ...` define f,
    `module.exports = { f, g: h }` defines f and g; any other assignment defines nothing."""
    left = assignment.child_by_field_name("left")
    if left is None:
        return []
    if left.type == "member_expression":
        target, name = left.child_by_field_name("object"), left.child_by_field_name("property")
        if target is not None and name is not None and Parsed.text(target) in _EXPORTS_OBJECTS:
            return [name]
    right = assignment.child_by_field_name("right")
    if Parsed.text(left) != "module.exports" or right is None or right.type != "object":
        return []
    keys = [item.child_by_field_name(_KEY_FIELDS[item.type]) if item.type in _KEY_FIELDS else item for item in right.named_children]
    return [key for key in keys if key is not None and key.type in _OBJECT_KEYS]


_CLASS_MEMBERS = Definitions(
    defines=dict.fromkeys(
        ("method_definition", "field_definition", "public_field_definition", "abstract_method_signature", "method_signature"),
        Define(name=_member_name),
    )
)
def _declared(declarator: Node) -> list[Node]:
    """`const x = ...` defines x; `const send = require("send")` (or `require("m").x`, `await
    import("m")`) only binds a name to another module's, which is an import, not a definition."""
    value = declarator.child_by_field_name("value")
    while value is not None and value.type in ("member_expression", "await_expression"):
        value = value.child_by_field_name("object") if value.type == "member_expression" else (value.named_children or [None])[0]
    function = value.child_by_field_name("function") if value is not None and value.type == "call_expression" else None
    if function is not None and (function.type == "import" or Parsed.text(function) == "require"):
        return []
    return declarator.children_by_field_name("name")


def _enum_member(member: Node) -> list[Node]:
    """A TS enum member is its own name (`A`, `'C'`), or the name of `B = 2`."""
    return [member.child_by_field_name("name") or member] if member.type != "comment" else []


# The members of a TS interface or object type (`I.a`, `I.m`) and of an enum (`E.A`).
_TYPE_MEMBERS = Definitions(defines=dict.fromkeys(("property_signature", "method_signature"), Define()))
_ENUM_MEMBERS = Definitions(
    defines=dict.fromkeys(("property_identifier", "enum_assignment", "string"), Define(name=_enum_member, spelling=lambda n: string_value(n) or Parsed.text(n)))
)
# Top-level functions, classes (with their members), consts/lets/vars, TS types and namespaces; exported or not.
_DEFINITIONS = Definitions(
    defines={
        **dict.fromkeys(("function_declaration", "generator_function_declaration", "function_signature"), Define()),
        "interface_declaration": Define(members=_TYPE_MEMBERS),
        "type_alias_declaration": Define(members=_TYPE_MEMBERS, body=("value",)),
        "enum_declaration": Define(members=_ENUM_MEMBERS),
        **dict.fromkeys(("class_declaration", "abstract_class_declaration"), Define(members=_CLASS_MEMBERS)),
        **dict.fromkeys(("module", "internal_module"), Define(nests=True)),
        "variable_declarator": Define(name=_declared, name_types=frozenset({"identifier"})),
        "export_specifier": Define(name=_exported_name),
        "assignment_expression": Define(name=_commonjs_exports, at_name=True),
    },
    # A TS `namespace N {}` at the top level parses as an expression statement; `declare ...` (the
    # whole of a .d.ts file) wraps the declaration it makes, and `function f(): T;` is a signature.
    transparent=frozenset(
        {"lexical_declaration", "variable_declaration", "export_statement", "export_clause", "expression_statement", "ambient_declaration"}
    ),
    wrappers={"export_statement": "declaration"},
)


def import_segments(module: str) -> tuple[str, ...]:
    """`@scope/pkg/sub` -> ('@scope/pkg', 'sub'); `node:fs/promises` -> ('fs', 'promises')."""
    if module.startswith("node:"):
        module = module[len("node:") :]
    parts = module.split("/")
    if module.startswith("@") and len(parts) > 1:
        parts = [f"{parts[0]}/{parts[1]}", *parts[2:]]
    return tuple(parts)


ENV_MARKERS = (b".env",)

def definitions_of(parsed: Parsed) -> list[tuple[str, int]]:
    """Classes, functions and declared names by the walk alone, the first of the facts' `defs`
    (`Language.definitions`, TypeScript's too); `javascript_members` adds members assigned later."""
    return definitions(parsed.root, _DEFINITIONS)


LANGUAGE = Language(
    name="javascript",
    extensions=(".js", ".mjs", ".cjs", ".jsx"),
    grammar="javascript",
    queries=QUERIES,
    extract=extract,
    import_segments=import_segments,
    env_markers=ENV_MARKERS,
    module_files=javascript_members.module_files,
    definitions=definitions_of,
)


@hookimpl
def register_languages(register):  # noqa: ANN001, ANN201 - hook signature
    register(LANGUAGE)
