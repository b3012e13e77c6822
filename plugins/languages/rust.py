"""Rust: `use` trees, `extern crate`, crate paths in code (`serde_json::to_string`), env reads, items.

A crate is named with `_` in code and often `-` in Cargo.toml, so segments
are compared with `-` folded to `_`. `crate::`, `self::` and `super::` paths
are first-party and not recorded as imports. Macro arguments and attributes
(`println!("{}", env::var("K")?)`, `#[derive(serde::Serialize)]`) are token
trees that tree-sitter leaves unparsed, so their paths are read from the tokens.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from anchorcheck import Language, hookimpl
from anchorcheck.plugin import Define, Definitions, Facts, Parsed, definitions, string_constants

if TYPE_CHECKING:
    from tree_sitter import Node

QUERIES = {
    "imports": """
        (use_declaration argument: (_) @use)
        (extern_crate_declaration name: (identifier) @crate)
        (scoped_identifier path: (identifier) @root)
        (scoped_type_identifier path: (identifier) @root)
        (scoped_identifier !path name: (identifier) @root)
    """,
    "tokens": "(token_tree) @tree",
    "attributes": "(attribute_item (attribute . (identifier) @name arguments: (token_tree) @arguments)) @item",
    "env": """
        (call_expression function: (_) @function arguments: (arguments . (_) @key)) @read
        (macro_invocation macro: (identifier) @function (token_tree . "(" . (_) @key)) @read
    """,
    "whole_env": "(call_expression function: [(scoped_identifier) (identifier)] @function) @read",
    "constants": """
        (const_item name: (identifier) @name value: (_) @value)
        (static_item name: (identifier) @name value: (_) @value)
        (let_declaration pattern: (identifier) @name value: (_) @value)
        (parameter pattern: (identifier) @name)
    """,
}
_LOCAL_ROOTS = {"crate", "self", "super", "Self"}
_ENV_CALLS = {"env::var", "std::env::var", "env::var_os", "std::env::var_os", "var", "var_os"}
_ENV_MACROS = {"env", "option_env"}
_WHOLE_CALLS = {"env::vars", "std::env::vars", "env::vars_os", "std::env::vars_os"}  # every variable, iterated
_STRINGS = ("string_literal", "raw_string_literal")
_QUOTING = {"quote", "quote_spanned", "parse_quote", "parse_quote_spanned"}  # macros whose body is generated code
_JOINED = {"identifier", "::", "metavariable", "self", "crate", "super", ">"}  # tokens a `::` continues


def extract(parsed: Parsed) -> Facts:
    facts = Facts()
    found = parsed.captures("imports")
    for node in found.get("use", []):
        for path in _use_paths(node):
            if path.split("::")[0] not in _LOCAL_ROOTS:
                facts.imports.append((path, Parsed.line(node), ""))
    for node in found.get("crate", []):
        facts.imports.append((Parsed.text(node), Parsed.line(node), ""))
    for node in found.get("root", []):
        path = _code_path(node)
        if path is not None:
            facts.imports.append((path, Parsed.line(node), ""))
    _env_reads(parsed, facts)
    _token_trees(parsed, facts)
    facts.defs = definitions_of(parsed)
    _trait_impls_and_derives(parsed.root, facts)
    return facts


def _code_path(root: Node) -> str | None:
    """The whole path a crate name starts in code (`serde_json::to_string`); None inside `use` or local."""
    if Parsed.text(root) in _LOCAL_ROOTS or root.parent is None:
        return None
    top = root.parent
    while top.parent is not None and top.parent.type in ("scoped_identifier", "scoped_type_identifier"):
        top = top.parent
    ancestor = top.parent
    while ancestor is not None:
        if ancestor.type == "use_declaration":
            return None
        ancestor = ancestor.parent
    return _path_text(top)


def _path_text(node: Node) -> str:
    """A path as written, without spaces or the leading `::` of a global path (`::serde::Serialize`)."""
    return Parsed.text(node).replace(" ", "").removeprefix("::")


def _use_paths(node: Node) -> list[str]:
    """Every path a use tree names: `a::{b, c::{self, d}}` -> a::b, a::c, a::c::d."""
    kind = node.type
    if kind in ("identifier", "scoped_identifier", "crate", "self", "super"):
        return [_path_text(node)]
    if kind == "use_as_clause" or kind == "use_wildcard":
        inner = node.child_by_field_name("path") or (node.named_children[0] if node.named_children else None)
        return _use_paths(inner) if inner is not None else []
    if kind == "scoped_use_list":
        path = node.child_by_field_name("path")
        items = node.child_by_field_name("list")
        base = _path_text(path) if path is not None else ""
        paths = [base] if base else []
        for item in items.named_children if items is not None else []:
            for sub in _use_paths(item):
                if sub != "self":
                    paths.append(f"{base}::{sub}" if base else sub)
        return paths
    if kind == "use_list":
        return [p for item in node.named_children for p in _use_paths(item)]
    return []


def _env_reads(parsed: Parsed, facts: Facts) -> None:
    # Names bound once in the file to a plain string (`const KEY: &str = "X"`, `let name = "X"`): a key kept in one.
    constants = string_constants(parsed, "constants", _STRINGS, _unreferenced) if parsed.mentions((b"const ", b"static ", b"let ")) else {}
    for _, found in parsed.matches("env"):
        read, function, key = found["read"][0], found["function"][0], found["key"][0]
        name = _path_text(function)
        if read.type == "macro_invocation" and name not in _ENV_MACROS:
            continue
        if read.type == "call_expression" and name not in _ENV_CALLS:
            continue
        facts.add_env_read(read, _unreferenced(key), _STRINGS, constants)
    if parsed.mentions((b"vars",)):
        for _, found in parsed.matches("whole_env"):
            if _path_text(found["function"][0]) in _WHOLE_CALLS:
                facts.add_env_whole(found["read"][0])
    if parsed.mentions((b"env",)):
        _clap_env(parsed, facts, constants)


_CLAP_ATTRIBUTES = {"arg", "clap"}


def _clap_env(parsed: Parsed, facts: Facts, constants: dict[str, str]) -> None:
    """clap reads a variable for an argument: `#[arg(long, env = "K")]` reads K, `env = EnvVars::K` a
    key kept elsewhere (computed, as `var(EnvVars::K)` is), and a bare `env` one named after the field."""
    for _, found in parsed.matches("attributes"):
        if Parsed.text(found["name"][0]) not in _CLAP_ATTRIBUTES:
            continue
        tokens = found["arguments"][0].children
        for at, token in enumerate(tokens):
            if token.type != "identifier" or Parsed.text(token) != "env" or tokens[at - 1].type not in ("(", ","):
                continue
            if at + 2 < len(tokens) and tokens[at + 1].type == "=":
                facts.add_env_read(token, tokens[at + 2], _STRINGS, constants)
                continue
            # A bare `env` reads the field's name in capitals (or as `rename_all_env` says): a name the
            # file does not spell, which a search by the key's bytes never looks for. A computed key.
            facts.env_computed.append(Parsed.line(token))


def _unreferenced(key: Node) -> Node:
    """`var(&KEY)` reads what KEY holds: the key under its `&`."""
    while key.type == "reference_expression" and key.child_by_field_name("value") is not None:
        key = key.child_by_field_name("value")  # type: ignore[assignment]
    return key


def _token_trees(parsed: Parsed, facts: Facts) -> None:
    """Crate paths and env reads among the tokens of macro arguments and attributes, except
    code a macro only quotes: `quote! { ::serde::Serialize }` in a proc-macro crate is code
    generated for other crates, which import serde; this one does not."""
    for tree in parsed.captures("tokens").get("tree", []):
        if _quoted(tree):
            continue
        tokens = tree.children
        for names, after in _token_paths(tokens):
            path = "::".join(Parsed.text(name) for name in names)
            if len(names) > 1 and path.split("::")[0] not in _LOCAL_ROOTS:
                facts.imports.append((path, Parsed.line(names[0]), ""))
            macro = after + 1 < len(tokens) and tokens[after].type == "!"
            arguments = tokens[after + 1] if macro else tokens[after] if after < len(tokens) else None
            reads = path in (_ENV_MACROS if macro else _ENV_CALLS)
            if not macro and path in _WHOLE_CALLS:
                facts.add_env_whole(names[0])
            if reads and arguments is not None and arguments.type == "token_tree" and arguments.named_children:
                facts.add_env_read(names[0], arguments.named_children[0], _STRINGS)


def _quoted(tree: Node) -> bool:
    """Whether a token tree is (inside) the body of a quoting macro such as `quote!`."""
    outer: Node | None = tree
    while outer is not None and outer.type == "token_tree":
        outer = outer.parent
    macro = outer.child_by_field_name("macro") if outer is not None and outer.type == "macro_invocation" else None
    return macro is not None and Parsed.text(macro).rpartition("::")[2] in _QUOTING


def _token_paths(tokens: list[Node]) -> Iterator[tuple[list[Node], int]]:
    """Each `a::b::c` path among one token tree's own tokens: its names, and the index of the token after it.

    A path starts at a name not joined to one before it; a leading `::` is a
    global path, but one after `self`, `$crate` or `Vec::<u8>` continues that path.
    """
    for at, token in enumerate(tokens):
        if token.type != "identifier":
            continue
        if at > 1 and tokens[at - 1].type == "::" and tokens[at - 2].type in _JOINED:
            continue
        names, end = [token], at + 1
        while end + 1 < len(tokens) and tokens[end].type == "::" and tokens[end + 1].type == "identifier":
            names.append(tokens[end + 1])
            end += 2
        yield names, end


def _impl_type(impl: Node) -> list[Node]:
    """The type an `impl` block adds to (`impl<T> Tr for Vec<T>`: Vec); its methods are that type's."""
    node = impl.child_by_field_name("type")
    while node is not None and node.type in ("generic_type", "reference_type", "scoped_type_identifier"):
        node = node.child_by_field_name("type") or node.child_by_field_name("name")
    return [node] if node is not None and Parsed.text(node) else []


def _trait_impls_and_derives(root: Node, facts: Facts) -> None:
    """The traits a type gets methods from: `impl Tr for S` (Tr's provided methods are S's too) and
    `#[derive(Clone)]` on S (the derived impl's methods), as bases for `sym:` to follow."""
    derives: list[tuple[str, int]] = []
    for item in root.named_children:
        if item.type == "attribute_item":
            attribute = item.named_children[0] if item.named_children else None
            name = attribute.named_children[0] if attribute is not None and attribute.named_children else None
            arguments = attribute.child_by_field_name("arguments") if attribute is not None else None
            if name is not None and Parsed.text(name) == "derive" and arguments is not None:
                written = Parsed.text(arguments).strip("()").replace(" ", "").replace("\n", "")
                derives += [(name.replace("::", "."), Parsed.line(arguments)) for name in written.split(",") if name]
            continue
        name = item.child_by_field_name("name")
        if item.type in ("struct_item", "enum_item", "union_item") and name is not None:
            facts.bases += [(Parsed.text(name), derived, line) for derived, line in derives]
        elif item.type == "impl_item" and (trait := item.child_by_field_name("trait")) is not None:
            owner = _impl_type(item)
            if owner:
                base = trait.child_by_field_name("type") if trait.type == "generic_type" else trait
                facts.bases.append((Parsed.text(owner[0]), _path_text(base or trait).replace("::", "."), Parsed.line(trait)))
        derives = []


# Methods of the standard library's derivable and common traits: a type that derives or implements one has them.
_STD_TRAITS = {
    "Debug": {"fmt"}, "Display": {"fmt"}, "Clone": {"clone", "clone_from"}, "Copy": set(), "Eq": set(),
    "PartialEq": {"eq", "ne"}, "PartialOrd": {"partial_cmp", "lt", "le", "gt", "ge"}, "Ord": {"cmp", "max", "min", "clamp"},
    "Hash": {"hash", "hash_slice"}, "Default": {"default"}, "Drop": {"drop"}, "From": {"from"}, "AsRef": {"as_ref"},
}


def external_members(module: str, name: str) -> frozenset[str] | None:
    """The methods a standard trait gives a type (`Clone`: clone, clone_from); None for another trait."""
    found = _STD_TRAITS.get(name.rpartition(".")[2]) if name.startswith(("std.", "core.")) or "." not in name else None
    return frozenset(found) if found is not None and not module else None


def inheritable(member: str) -> bool:
    """Whether a trait could give a type this member: not an UpperCamelCase name (`Action::AdminAction`), which
    on a type is a variant. A trait's items are methods and constants, snake_case and SCREAMING_CASE by the
    compiler's default lints, and its associated types cannot be written `Type::Assoc` (E0223); a derive
    (`#[derive(Serialize)]`) only adds items after the type, never a variant or field to it. So a variant the
    enum does not declare is absent whatever traits it implements or derives, while a method may come from one."""
    return not (member[:1].isupper() and any(c.islower() for c in member))


# A struct's or union's fields (`S.a`) and an enum's variants (`E.A`).
_FIELDS = Definitions(defines={"field_declaration": Define(), "enum_variant": Define()})
# Items with their module path (`inner.q`), trait methods (`Tr.t`) and impl methods (`S.m`).
_DEFINITIONS = Definitions(
    defines={
        **dict.fromkeys(
            ("function_item", "function_signature_item", "type_item", "const_item", "static_item", "macro_definition"),
            Define(),
        ),
        **dict.fromkeys(("struct_item", "enum_item", "union_item"), Define(members=_FIELDS)),
        **dict.fromkeys(("mod_item", "trait_item"), Define(nests=True)),
        "impl_item": Define(name=_impl_type, nests=True, recorded=False),
    }
)


def package_files(path: str, repo: object) -> tuple[str, ...]:
    """The other `.rs` files of the crate `path` is in (below its Cargo.toml's `src/`, binaries in
    `src/bin/` aside): an `impl` of a type may sit in any module of the type's crate, as uv's
    `impl Cache` in cli.rs for the `Cache` of lib.rs. None for a file outside `src/` (a test or
    example is a crate of its own) or with no Cargo.toml above it."""
    paths = getattr(repo, "paths")
    manifests = {p.rpartition("/")[0] for p in paths(named=["Cargo.toml"])}
    directory = path.rpartition("/")[0]
    while directory and directory not in manifests:
        directory = directory.rpartition("/")[0]
    if directory not in manifests:
        return ()
    source = f"{directory}/src" if directory else "src"
    if not path.startswith(f"{source}/") or path.startswith(f"{source}/bin/"):
        return ()
    return tuple(p for p in paths(scope=source) if p != path and p.endswith(".rs") and not p.startswith(f"{source}/bin/"))


def import_segments(module: str) -> tuple[str, ...]:
    return tuple(module.replace("-", "_").split("::"))


def definitions_of(parsed: Parsed) -> list[tuple[str, int]]:
    """Items and the methods of `impl` blocks by the walk alone (`Language.definitions`): all of the
    facts' `defs`, which the trait impls and derives after it leave alone."""
    return definitions(parsed.root, _DEFINITIONS)


LANGUAGE = Language(
    name="rust",
    extensions=(".rs",),
    grammar="rust",
    queries=QUERIES,
    extract=extract,
    import_segments=import_segments,
    env_markers=(b"env", b"var"),
    external_members=external_members,
    inheritable=inheritable,
    package_files=package_files,
    definitions=definitions_of,
)


@hookimpl
def register_languages(register):  # noqa: ANN001, ANN201 - hook signature
    register(LANGUAGE)
