"""Writing citations back where they are stored: `anchorcheck.lock` and native `*.memories.toml`.

Two operations, both explicit and both narrow:

- relocate: a span that moved intact gets its new path and line numbers;
- rebank: a stale span is re-fingerprinted where its content went, only when that span is
  named, and only with `accept` when that content changed (`anchorcheck.verify.rebanking`).

The file is edited with tomlkit, so comments, ordering and layout survive;
only the fields of the touched records change, and the result goes into the
command's `Batch`, which writes every file it changed together
(`anchorcheck.memory.journal`). Nothing is put there when nothing changed.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.exceptions import ParseError, TOMLKitError
from tomlkit.items import AoT, Array, Table

from anchorcheck.model.citation import Citation
from anchorcheck.spans.citation import BankError
from anchorcheck.memory.journal import Batch
from anchorcheck.memory.lockfile import LOCK_NAME as LOCK_NAME  # where the lock commands have always found it
from anchorcheck.repo.safe_read import LOCK_CAP, read_in_root
from anchorcheck.verify.rebanking import SpanChanged, lines_of, rebank
from anchorcheck.verify.verifier import Verifier


class CitationStoreError(ValueError):
    """A lock or memory file that cannot be read or edited: names the file (and line)."""

    def __init__(self, path: str, line: int | None, message: str) -> None:
        self.path, self.line, self.message = path, line, message
        super().__init__(f"{path}:{line}: {message}" if line else f"{path}: {message}")


@dataclass(frozen=True)
class Change:
    """One record that was (or, in a dry run, would be) rewritten, or skipped with a reason."""

    file: str
    anchor: str
    action: str  # relocated | rebanked | skipped (nothing to do) | refused (changed, not accepted) | failed
    message: str
    renamed: str | None = None  # the record's new anchor text, when its key was rewritten
    texts: tuple[Citation, Citation] | None = None  # the span as banked and where its content is now, for a changed span


def relocate_file(path: Path, shown: str, verifier: Verifier, batch: Batch, *, rename: Collection[str] = ()) -> list[Change]:
    """Move the line numbers (and path) of every relocated span in one file to where it is now.

    A lock entry whose key is in `rename` (the anchors memory files write)
    is re-keyed to the span's new text, so that the memory files can be
    rewritten to match; unless another entry already has that key.
    """
    doc = _load(path, shown, verifier.root, batch)
    changes = []
    keys = {_citation(table)[1] for table in _records(doc, shown)}
    for table in _records(doc, shown):
        citation, key = _citation(table)
        result = verifier.check(citation)
        if result.state != "relocated":
            continue
        new = {name: result.details[name] for name in ("path", "start_line", "end_line")}
        for name, value in new.items():
            table[name] = value
        before = f"{citation.path} lines {citation.start_line}-{citation.end_line}"
        after = f"{new['path']} lines {new['start_line']}-{new['end_line']}"
        renamed, taken = _rekey(table, key, rename, keys)
        changes.append(Change(shown, key, "relocated", f"{before} → {after}{taken}", renamed))
    if changes:
        batch.put(path, tomlkit.dumps(doc))
    return changes


def rebank_file(
    path: Path, shown: str, verifier: Verifier, anchors: Collection[str], batch: Batch, *, accept: bool = False, rename: Collection[str] = ()
) -> list[Change]:
    """Re-fingerprint the named spans that are stale, where their content went; the others are reported, not touched.

    A span whose content changed is refused (the memory may now be false)
    unless `accept`: the change then says so, and carries both texts. The
    record follows the content to its new lines, and is re-keyed like a
    relocated one (`rename`: the anchors memory files write) so that the
    memory files can be rewritten to match.
    """
    doc = _load(path, shown, verifier.root, batch)
    changes = []
    keys = {_citation(table)[1] for table in _records(doc, shown)}
    for table in _records(doc, shown):
        citation, key = _citation(table)
        if key not in anchors:
            key = citation.anchor_text()
            if key not in anchors:
                continue
        result = verifier.check(citation)
        if result.state != "stale":
            hint = "; run anchorcheck relocate" if result.state == "relocated" else ""
            changes.append(Change(shown, key, "skipped", f"{result.state or result.verdict}: {result.reason}{hint}"))
            continue
        try:
            fresh = rebank(verifier, citation, accept=accept)
        except SpanChanged as exc:
            refused = f"{lines_of(exc.banked)} changed (now {lines_of(exc.current)}): the memory may now be false; re-read it, then rerun with --accept if it still holds"
            changes.append(Change(shown, key, "refused", refused, texts=(exc.banked, exc.current)))
            continue
        except BankError as exc:
            changes.append(Change(shown, key, "failed", exc.message))
            continue
        _replace_fields(table, fresh.to_dict())
        renamed, taken = _rekey(table, key, rename, keys)
        message = f"{lines_of(citation)} → {lines_of(fresh)} re-fingerprinted (sha256 {fresh.sha256[:12]}){taken}"
        message += "; accepted although the lines changed: the memory's text was written for the old lines"
        changes.append(Change(shown, key, "rebanked", message, renamed, texts=(citation, fresh)))
    if any(c.action == "rebanked" for c in changes):
        batch.put(path, tomlkit.dumps(doc))
    return changes


def _rekey(table: Table, key: str, rename: Collection[str], keys: set[str]) -> tuple[str | None, str]:
    """Give a moved record the anchor text of its new place, when memory files write its old text
    (`rename`) and no other record has the new one. Returns the new key (None when kept) and a note
    for the change when the new key was taken."""
    renamed = _citation(table)[0].anchor_text() if key in rename and "anchor" in table else None
    if renamed is None or renamed == key:
        return None, ""
    if renamed in keys:
        return None, f" (kept as {key}: {renamed} already has an entry)"
    table["anchor"] = renamed
    keys.add(renamed)
    return renamed, ""


def _load(path: Path, shown: str, root: Path, batch: Batch) -> tomlkit.TOMLDocument:
    """The file as this command left it so far (its batch), else as it is on disk."""
    try:
        return tomlkit.parse(batch.text(path, lambda: read_in_root(root, path, LOCK_CAP, shown=shown).decode("utf-8")))
    except ParseError as exc:
        raise CitationStoreError(shown, exc.line, f"invalid TOML: {exc}") from None
    except TOMLKitError as exc:  # a duplicate key in an inline table is KeyAlreadyPresent, not a ParseError
        raise CitationStoreError(shown, None, f"invalid TOML: {exc}") from None
    except UnicodeDecodeError:
        raise CitationStoreError(shown, None, "not valid UTF-8 text") from None
    except OSError as exc:
        raise CitationStoreError(shown, None, f"cannot read: {exc.strerror or exc}") from None


def _records(doc: tomlkit.TOMLDocument, shown: str) -> Iterator[Table]:
    """The citation tables of a lock (`[[citation]]`) or a memory file (`[[memory.citation]]`)."""
    yield from _tables(doc.get("citation"), shown, "citation")
    memories = doc.get("memory")
    if memories is None:
        return
    if not isinstance(memories, AoT | list):
        raise CitationStoreError(shown, None, "'memory' must be an array of tables ([[memory]])")
    for memory in memories:
        if isinstance(memory, Table | dict):
            yield from _tables(memory.get("citation"), shown, "memory.citation")


def _tables(value: Any, shown: str, where: str) -> Iterator[Table]:
    if value is None:
        return
    if not isinstance(value, AoT | list) or not all(isinstance(t, Table | dict) for t in value):
        raise CitationStoreError(shown, None, f"'{where}' must be an array of tables ([[{where}]])")
    yield from value


def _citation(table: Table) -> tuple[Citation, str]:
    data = table.unwrap()
    citation = Citation.from_dict({k: v for k, v in data.items() if k != "anchor"})
    key = data.get("anchor")
    return citation, key if isinstance(key, str) else citation.anchor_text()


def _replace_fields(table: Table, fields: dict[str, Any]) -> None:
    """Set every citation field, keeping the record's other keys (`anchor`) and array layout."""
    for name, value in fields.items():
        if isinstance(value, list):
            old = table.get(name)
            array = tomlkit.array()
            array.extend(value)
            if isinstance(old, Array) and "\n" in old.as_string():
                array.multiline(True)
            value = array
        table[name] = value
