"""Which anchors of the memories read are checked: a line marked `<!-- anchorcheck-ignore -->`, and
`check --select/--ignore KIND` (what a team adopting the tool on an existing repository narrows first).

Anchors are left out before verification, with their positions (a memory's anchors and their places are
parallel lists), so what is not checked costs nothing and is never shown or counted.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable

from anchorcheck.model.anchors import anchor_text
from anchorcheck.model.results import Memory, Position

IGNORE_COMMENT = "<!-- anchorcheck-ignore -->"


def kind_of(anchor: object) -> str:
    """`pkg` of `pkg:pypi/redis`, `span` of `!span:a.py#L1`: the kind an anchor (typed, or a reference read from prose) names."""
    return anchor_text(anchor).strip().lstrip("!").split(":", 1)[0]


def drop_ignored_lines(memories: Iterable[Memory], text: str) -> None:
    """Leave out the anchors and references written on a line that carries the ignore comment."""
    if IGNORE_COMMENT not in text:
        return
    ignored = {number for number, line in enumerate(text.splitlines(), start=1) if IGNORE_COMMENT in line}
    for memory in memories:
        _keep(memory, lambda _anchor, where: where is None or where.line not in ignored)


def select_kinds(memories: Iterable[Memory], select: Collection[str] = (), ignore: Collection[str] = ()) -> None:
    """Keep only the anchors of the `select`ed kinds (all when empty), less those of the `ignore`d ones."""
    if not select and not ignore:
        return
    for memory in memories:
        _keep(memory, lambda anchor, _where: (not select or kind_of(anchor) in select) and kind_of(anchor) not in ignore)


def _keep(memory: Memory, wanted: Callable[[object, Position | None], bool]) -> None:
    kept = [(anchor, memory.anchor_position(i)) for i, anchor in enumerate(memory.anchors) if wanted(anchor, memory.anchor_position(i))]
    if len(kept) != len(memory.anchors):
        memory.anchors = [anchor for anchor, _ in kept]
        memory.anchor_positions = [where for _, where in kept]
