"""Prisma schemas (`schema.prisma`, `prisma/schema/*.prisma`): the models and enums they define.

A Prisma model is the type a TypeScript application's client is generated from, and instruction files
name it as they name a class ("`OrganisationClaim` holds the claim's limits"); no TypeScript file
defines it, the generated client is not committed. Reading the schema's `model` and `enum` blocks makes
such a name VERIFIED at the schema's line while it is there, and shown gone (with the commit) once a
migration renamed or dropped it, as a class is. The grammar (tree-sitter-language-pack's `prisma`) knows
`model`, `enum`, `datasource` and `generator` blocks; a `type` or `view` block is a parse error to it, so
a schema with one is not read cleanly and proves no name absent (a name still written there is never
shown gone).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anchorcheck import Language, hookimpl
from anchorcheck.plugin import Define, Definitions, Facts, Parsed, definitions

if TYPE_CHECKING:
    from tree_sitter import Node


def _block_name(node: Node) -> list[Node]:
    """`model OrganisationClaim {`: the block's first identifier (no field holds it)."""
    return next(([c] for c in node.named_children if c.type == "identifier"), [])


_DEFINITIONS = Definitions(defines={"model_block": Define(name=_block_name), "enum_block": Define(name=_block_name)})


def definitions_of(parsed: Parsed) -> list[tuple[str, int]]:
    """The schema's models and enums, with the line of their block."""
    return definitions(parsed.root, _DEFINITIONS)


def extract(parsed: Parsed) -> Facts:
    facts = Facts()
    facts.defs = definitions_of(parsed)
    return facts


LANGUAGE = Language(name="prisma", extensions=(".prisma",), grammar="prisma", extract=extract, definitions=definitions_of, imports=False)


@hookimpl
def register_languages(register):  # noqa: ANN001, ANN201 - hook signature
    register(LANGUAGE)
