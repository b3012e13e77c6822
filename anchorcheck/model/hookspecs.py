"""The hooks a plugin may implement. Every hook is documented where it is declared.

Registration hooks receive a `register` callback (the llm convention): a
plugin calls it once per thing it adds. `verify_anchor` is the one dispatch
hook: the first plugin to return a result claims the anchor.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from collections.abc import Callable

    from anchorcheck.model.anchors import Anchor
    from anchorcheck.repo.context import Context
    from anchorcheck.model.results import AnchorResult
    from anchorcheck.model.registry import AnchorKind, Ecosystem, Language, MemoryFormat, Runner

PROJECT = "anchorcheck"

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def register_anchor_kinds(register: Callable[[AnchorKind], None]) -> None:
    """Add anchor kinds: call `register(AnchorKind(prefix, verify, parse, scoped))` for each."""


@hookspec
def register_languages(register: Callable[[Language], None]) -> None:
    """Add source languages: call `register(Language(name, extensions, grammar, queries))`."""


@hookspec
def register_ecosystems(register: Callable[[Ecosystem], None]) -> None:
    """Add package ecosystems: call `register(Ecosystem(name, manifests, read))`.

    An ecosystem that also registers `languages`, `import_names` and
    `packages_for_import` gets `import:` <-> `pkg:` evidence (which package
    provides an import, whether a declared package is ever imported, an import
    under a renamed or aliased name); `range_relation` decides version claims
    against manifests without a lockfile.
    """


@hookspec
def register_memory_formats(register: Callable[[MemoryFormat], None]) -> None:
    """Add memory file formats: call `register(MemoryFormat(name, read, patterns))`."""


@hookspec
def register_runners(register: Callable[[Runner], None]) -> None:
    """Add command runners for `cmd:` anchors: call `register(Runner(name, programs, verify))`."""


@hookspec(firstresult=True)
def verify_anchor(anchor: Anchor, context: Context) -> AnchorResult | None:
    """Claim and verify an anchor before its kind's own verifier does.

    Return an AnchorResult to claim the anchor (the first result wins and no
    other plugin is asked), or None to let the next plugin, and finally the
    registered kind, answer. The anchor arrives without negation; the core
    applies `!` to whatever verdict is returned.
    """

