"""C and C++: functions (a prototype is one: a header declares what a `.c` file defines), structs, unions,
enums (`enum class` too) with their enumerators, classes with their members and bases, typedef and `using`
aliases, `#define` macros, globals; `#include`s as imports; and `getenv("K")` (`std::getenv`, `secure_getenv`,
Qt's `qgetenv` and `qEnvironmentVariable`, Windows' `GetEnvironmentVariable`).

An include is the module its path names without the extension, by `/` segment: `#include <openssl/ssl.h>` imports
`openssl/ssl` (so `import:openssl` and `import:zlib` for `<zlib.h>`), `#include "facade/op_status.h"` imports
`facade/op_status`.

Names are qualified with dots as in every language: a member is `Class.member`, a method defined out of line
(`void Conn::Send() {}`) is `Conn.Send` as the one declared in the class is, an enumerator `OpStatus.OK`.
Namespaces do not qualify names, as Java's packages and C#'s namespaces do not: `sym:` names the file, and
prose names `OpStatus`, not `facade::OpStatus`. So a qualifier of an out-of-line definition that is a
namespace this file opens or uses (`void facade::Conn::Send()` beside `namespace facade {`) is dropped.

One module, two grammars: `.c` is read with tree-sitter's C grammar, every C++ extension and `.h` with its
C++ grammar, which reads C headers about as cleanly as the C grammar does and C++ headers far better
(measured on dragonfly's, valkey's and tmux's headers: docs/benchmarks.md, "C and C++ plugin (session 36)").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from anchorcheck import Language, hookimpl
from anchorcheck.plugin import Define, Definitions, Facts, Parsed, definitions, enclosing_name

if TYPE_CHECKING:
    from tree_sitter import Node

_CALL = "(call_expression function: {} @function arguments: (argument_list . (_) @key)) @read"
C_QUERIES = {"env": _CALL.format("(identifier)"), "whole_env": '((identifier) @read (#eq? @read "environ"))'}
CPP_QUERIES = {**C_QUERIES, "env": _CALL.format("[(identifier) (qualified_identifier)]")}  # `std::getenv` too
_ENV_FUNCTIONS = {
    "getenv", "secure_getenv", "std::getenv", "::getenv", "_wgetenv", "qgetenv", "qEnvironmentVariable",
    "qEnvironmentVariableIsSet", "qEnvironmentVariableIsEmpty", "qEnvironmentVariableIntValue",
    "GetEnvironmentVariable", "GetEnvironmentVariableA", "GetEnvironmentVariableW",
}
_ENV_MARKERS = (b"getenv", b"environ", b"EnvironmentVariable")
_STRINGS = ("string_literal", "raw_string_literal")
# What a declarator wraps its name in: `*p`, `&r`, `a[3]`, `f(int)`, `(*cb)`, `x = 1`.
_DECLARATORS = frozenset({
    "pointer_declarator", "reference_declarator", "array_declarator", "function_declarator",
    "parenthesized_declarator", "init_declarator", "attributed_declarator", "abstract_function_declarator",
})
_NAMES = frozenset({"identifier", "field_identifier", "type_identifier", "qualified_identifier", "template_function", "template_type"})
_TYPES = ("struct_specifier", "union_specifier", "class_specifier", "enum_specifier")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
# Blocks whose definitions are at their parent's level: include guards and `#if`s, `extern "C" {`, templates.
_PREPROCESSOR = frozenset({"preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef"})
_TOP = frozenset({*_PREPROCESSOR, "namespace_definition", "declaration_list", "linkage_specification", "template_declaration", "export_declaration"})


def extract(parsed: Parsed) -> Facts:
    facts = Facts()
    for include in (node for node in _top_level(parsed.root) if node.type == "preproc_include"):
        module = _included(include)
        if module:
            facts.imports.append((module, Parsed.line(include), ""))
    if parsed.mentions(_ENV_MARKERS):
        _env_reads(parsed, facts)
    facts.defs = definitions_of(parsed)
    called = next(_macro_calls(parsed.root), None)
    if called is not None:
        macro = Parsed.text(called.named_children[0]) if called.named_children else "a macro"
        facts.open.append(("", Parsed.line(called), f"{macro}(...) at the top level may be a macro that defines names no declaration writes"))
    for node in _classes(parsed.root):
        owner = _unqualified(enclosing_name(node, _CLASSES))
        for clause in (c for c in node.named_children if c.type == "base_class_clause"):
            for base in (b for b in clause.named_children if b.type in _NAMES):
                written = base.child_by_field_name("name") if base.type == "template_type" else base
                facts.bases.append((owner, Parsed.text(written or base).replace("::", "."), Parsed.line(base)))
    return facts


def _included(include: Node) -> str:
    """`openssl/ssl` for `#include <openssl/ssl.h>`, `facade/op_status` for `#include "facade/op_status.h"`;
    "" for an include of a macro's value (`#include FOO_H`), which names no file here."""
    path = include.child_by_field_name("path")
    if path is None or path.type not in ("string_literal", "system_lib_string"):
        return ""
    written = Parsed.text(path)[1:-1].strip()
    folder, slash, file = written.rpartition("/")
    return folder + slash + (file.rpartition(".")[0] or file)


def _env_reads(parsed: Parsed, facts: Facts) -> None:
    """`getenv("K")` reads K (a computed key: any); `environ` is the whole environment, which any key may be read from."""
    for _, found in parsed.matches("env"):
        if "".join(Parsed.text(found["function"][0]).split()) in _ENV_FUNCTIONS:
            facts.add_env_read(found["read"][0], found["key"][0], _STRINGS)
    if parsed.mentions((b"environ",)):
        for use in parsed.captures("whole_env").get("read", []):
            facts.add_env_whole(use)


def _top_level(root: Node) -> Iterator[Node]:
    """The nodes at the top of a file and in its `#if` blocks, namespaces and `extern "C"` blocks, in document
    order (not what functions or classes hold). A loop, not a recursion: `#if`s nest as deep as a file likes."""
    stack = [iter(root.named_children)]
    while stack:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
            continue
        yield child
        if child.type in _TOP:
            stack.append(iter(child.named_children))


def _macro_calls(root: Node) -> Iterator[Node]:
    """`NAME(...)` at the top level, outside any function: a macro's call, which may define what no declaration
    writes (`DEFINE_CMD(get)` pasting `get##Command` together, `LIST_HEAD(foo)`), so the file's absence of a name is
    no proof. C++'s grammar reads it as a call statement, C's as a type written `NAME(...)`, alone or in an error."""
    for node in _top_level(root):
        if node.type == "expression_statement" and node.named_children and node.named_children[0].type == "call_expression":
            yield node.named_children[0]
        elif node.type in ("ERROR", "declaration"):
            yield from (c for c in node.named_children if c.type == "macro_type_specifier")


def import_segments(module: str) -> tuple[str, ...]:
    return tuple(module.split("/"))


def _classes(root: Node) -> Iterator[Node]:
    """The classes and structs with a name and a body, at the top, in namespaces and blocks, nested in each other
    and in typedefs; function bodies are not entered."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in ("class_specifier", "struct_specifier") and node.child_by_field_name("name") is not None:
            yield node
        stack.extend(c for c in node.named_children if c.type in _HOLDERS)


_HOLDERS = frozenset({*_TOP, *_TYPES, "field_declaration_list", "field_declaration", "declaration", "type_definition"})


def _name(declarator: Node | None) -> Node | None:
    """The name a declarator declares, through the pointers, arrays, calls and parentheses around it."""
    while declarator is not None and declarator.type in _DECLARATORS:
        inner = declarator.child_by_field_name("declarator")
        declarator = inner if inner is not None else next((c for c in declarator.named_children if c.type in _DECLARATORS or c.type in _NAMES), None)
    return declarator if declarator is not None and declarator.type in _NAMES else None


def _declared(node: Node) -> list[Node]:
    """The names a declaration, field, typedef or function defines, and the type it defines with them
    (`typedef struct node {...} node_t` defines node_t and node; `struct S {...} s;` S and s)."""
    names = [n for n in (_name(d) for d in node.children_by_field_name("declarator")) if n is not None]
    kind = node.child_by_field_name("type")
    if kind is not None and kind.type in _TYPES and kind.child_by_field_name("body") is not None:
        name = kind.child_by_field_name("name")
        names += [name] if name is not None else []
    return names


def _defined_type(node: Node) -> list[Node]:
    """A struct, class, union or enum defines its name where it has a body (`struct S;` only declares it)."""
    name = node.child_by_field_name("name")
    return [name] if name is not None and node.child_by_field_name("body") is not None else []


def _body(node: Node) -> list[Node]:
    """The members of the type a declaration defines (a typedef's struct, an enum's enumerators), if any."""
    kind = node if node.type in _TYPES else node.child_by_field_name("type")
    body = kind.child_by_field_name("body") if kind is not None and kind.type in _TYPES else None
    return [body] if body is not None else []


def _unqualified(written: str, namespaces: frozenset[str] = frozenset()) -> str:
    """`Conn.Send` for `facade::Conn<T>::Send` where facade is one of `namespaces`: template arguments and leading
    namespaces dropped, `::` folded to dots."""
    parts = "".join(_without_arguments(written).split()).replace("::", ".").split(".")
    while len(parts) > 1 and (parts[0] in namespaces or not parts[0]):
        parts.pop(0)
    return ".".join(parts)


def _without_arguments(written: str) -> str:
    """`written` without its template arguments, nested or not (`Conn<Map<K, V>>` is `Conn`); a `<` or `>` that no other
    closes stays (`operator<`). One pass with a stack of the open `<`s: a name nested 20,000 deep, taken off one
    innermost pair at a time, cost seconds."""
    kept: list[str] = []
    opened: list[int] = []
    for char in written:
        if char == ">" and opened:
            del kept[opened.pop():]
            continue
        if char == "<":
            opened.append(len(kept))
        kept.append(char)
    return "".join(kept)


_CLASSES = frozenset({"class_specifier", "struct_specifier"})


def _rules(namespaces: frozenset[str]) -> Definitions:
    """The definition rules of a file that opens or uses `namespaces`, whose qualifiers are dropped from names."""

    def spelling(name: Node) -> str:
        return _unqualified(Parsed.text(name), namespaces)

    def named(node: Node) -> list[Node]:
        return [n for n in _declared(node) if _IDENTIFIER.fullmatch(spelling(n).replace(".", "_"))]

    member = Define(name=named, spelling=spelling, body=_body, nests=True)
    members = Definitions(
        defines={
            **dict.fromkeys(("field_declaration", "declaration", "function_definition", "type_definition"), member),
            "enumerator": Define(),
            "alias_declaration": Define(),
            **dict.fromkeys(_TYPES, Define(name=_defined_type, spelling=spelling, body=_body, nests=True)),
        },
        transparent=frozenset({*_PREPROCESSOR, "template_declaration", "field_declaration_list", "enumerator_list"}),
    )
    whole = Define(name=named, spelling=spelling, body=_body, members=members)
    return Definitions(
        defines={
            **dict.fromkeys(("function_definition", "declaration", "type_definition"), whole),
            **dict.fromkeys(_TYPES, Define(name=_defined_type, spelling=spelling, body=_body, members=members)),
            "alias_declaration": Define(),
            **dict.fromkeys(("preproc_def", "preproc_function_def"), Define()),
        },
        transparent=_TOP,
    )


def _namespaces(root: Node) -> Iterable[str]:
    """The namespaces a file opens (`namespace a::b {`) or uses (`using namespace a;`), by their parts."""
    for node in _top_level(root):
        name = node.child_by_field_name("name") if node.type == "namespace_definition" else None
        if node.type == "using_declaration" and any(c.type == "namespace" for c in node.children) and node.named_children:
            name = node.named_children[-1]
        yield from Parsed.text(name).split("::") if name is not None else ()


def definitions_of(parsed: Parsed) -> list[tuple[str, int]]:
    """Functions, types and their members, aliases and macros by the walk alone: all of the facts' `defs`."""
    return definitions(parsed.root, _rules(frozenset(_namespaces(parsed.root))))


def _language(name: str, queries: dict[str, str], extensions: tuple[str, ...]) -> Language:
    return Language(name, extensions, name, queries, extract, import_segments=import_segments, env_markers=_ENV_MARKERS, definitions=definitions_of)


LANGUAGES = (
    _language("c", C_QUERIES, (".c",)),
    _language("cpp", CPP_QUERIES, (".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".h", ".ipp", ".tpp", ".inl")),
)


@hookimpl
def register_languages(register):  # noqa: ANN001, ANN201 - hook signature
    for language in LANGUAGES:
        register(language)
