"""Wrap a memory store's recall so the agent only sees memories checked against the code.

The write path types a memory when it is stored: `remember` asks
`anchorcheck.suggest` for the anchors that hold now (banked spans included)
and appends the memory to the store with them, so that later drift refutes
it. The read path: a store recalls memories (here: the `[[memory]]` tables of a `*.memories.toml`
file, filtered by a word of the query); the wrapper verifies each one with
anchorcheck and renders them for the prompt with a policy:

- `mark`: every memory is shown; a REFUTED one carries a line saying what
  changed and to re-read the code before relying on it;
- `filter`: REFUTED memories are left out, and the prompt says how many.

Run:  python examples/verified_recall.py --root REPO STORE.memories.toml QUERY [--policy filter]
      python examples/verified_recall.py --root REPO STORE.memories.toml --remember "We cache with Redis."
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from pathlib import Path

import tomlkit

import anchorcheck
from anchorcheck.repo.atomic import write_atomic
from anchorcheck.memory.memoryfiles import read_memory_file

Recall = Callable[[str], Iterable[anchorcheck.Memory]]


def verified_recall(recall: Recall, root: str | Path, *, policy: str = "mark") -> Callable[[str], anchorcheck.Rendered]:
    """A recall function that verifies what the store returns and renders it with `policy`."""

    def wrapped(query: str) -> anchorcheck.Rendered:
        verifier = anchorcheck.Verifier(root)  # fresh per recall: the code may have changed since the last one
        memories = list(recall(query))
        verifier.attach_lock(memories)  # span anchors banked in the lock
        reports = [verifier.verify(memory) for memory in memories]
        return anchorcheck.render_prompt(reports, policy)

    return wrapped


def toml_store(path: Path, root: Path) -> Recall:
    """A toy store: the memories of one native file whose text mentions the query."""

    def recall(query: str) -> list[anchorcheck.Memory]:
        registry = anchorcheck.Verifier(root).registry
        memories = read_memory_file(path, path.name, registry)
        return [m for m in memories if query.lower() in m.text.lower()]

    return recall


def remember(path: Path, root: str | Path, text: str) -> anchorcheck.Memory:
    """Store a memory typed with the anchors that hold now; its spans' citations ride along."""
    suggestions = anchorcheck.suggest(root, text)
    doc = tomlkit.parse(path.read_text(encoding="utf-8")) if path.exists() else tomlkit.document()
    doc.setdefault("version", 1)
    memories = doc.setdefault("memory", tomlkit.aot())
    table = tomlkit.table()
    table.update({"id": f"m{len(memories) + 1}", "text": text, "anchors": [s.anchor for s in suggestions]})
    citations = [{"anchor": s.anchor, **s.citation} for s in suggestions if s.citation is not None]
    if citations:
        table["citation"] = tomlkit.aot()
        table["citation"].extend(citations)
    memories.append(table)
    write_atomic(path, tomlkit.dumps(doc))  # the store file is replaced whole or not at all
    return anchorcheck.Memory(text=text, anchors=list(table["anchors"]), id=table["id"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=".", type=Path)
    parser.add_argument("--policy", choices=["mark", "filter"], default="mark")
    parser.add_argument("--remember", metavar="TEXT", help="store this memory, typed with the anchors that hold now")
    parser.add_argument("store", type=Path)
    parser.add_argument("query", nargs="?", default="")
    args = parser.parse_args()
    if args.remember:
        memory = remember(args.store, args.root, args.remember)
        print(f"stored {memory.id}: {' '.join(memory.anchors) or '(no anchors hold: nothing to check it by)'}")
        return
    recall = verified_recall(toml_store(args.store, args.root), args.root, policy=args.policy)
    rendered = recall(args.query)
    print(rendered.text)


if __name__ == "__main__":
    main()
