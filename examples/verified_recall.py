"""Wrap a memory store's recall so the agent only sees memories checked against the code.

A store recalls memories (here: the `[[memory]]` tables of a `*.memories.toml`
file, filtered by a word of the query); the wrapper verifies each one with
anchorcheck and renders them for the prompt with a policy:

- `mark`: every memory is shown; a REFUTED one carries a line saying what
  changed and to re-read the code before relying on it;
- `filter`: REFUTED memories are left out, and the prompt says how many.

Run:  python examples/verified_recall.py --root REPO STORE.memories.toml QUERY [--policy filter]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from pathlib import Path

import anchorcheck
from anchorcheck.lockfile import attach, load_lock
from anchorcheck.memoryfiles import read_memory_file
from anchorcheck.render import Rendered, render_prompt

Recall = Callable[[str], Iterable[anchorcheck.Memory]]


def verified_recall(recall: Recall, root: str | Path, *, policy: str = "mark") -> Callable[[str], Rendered]:
    """A recall function that verifies what the store returns and renders it with `policy`."""

    def wrapped(query: str) -> Rendered:
        verifier = anchorcheck.Verifier(root)  # fresh per recall: the code may have changed since the last one
        memories = list(recall(query))
        attach(memories, load_lock(verifier.root), verifier.registry.kinds)  # span anchors banked in the lock
        reports = [verifier.verify(memory) for memory in memories]
        return render_prompt(reports, policy)

    return wrapped


def toml_store(path: Path, root: Path) -> Recall:
    """A toy store: the memories of one native file whose text mentions the query."""

    def recall(query: str) -> list[anchorcheck.Memory]:
        registry = anchorcheck.Verifier(root).registry
        memories = read_memory_file(path, path.name, registry)
        return [m for m in memories if query.lower() in m.text.lower()]

    return recall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=".", type=Path)
    parser.add_argument("--policy", choices=["mark", "filter"], default="mark")
    parser.add_argument("store", type=Path)
    parser.add_argument("query")
    args = parser.parse_args()
    recall = verified_recall(toml_store(args.store, args.root), args.root, policy=args.policy)
    rendered = recall(args.query)
    print(rendered.text)


if __name__ == "__main__":
    main()
