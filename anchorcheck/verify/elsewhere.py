"""A command the text does not place, REFUTED where it was read, but defined by another configuration here.

"Run `npm run build`" in a root AGENTS.md, with the script in web/package.json
and none at the root: the text does not say which of the repository's
configurations runs the command, and one defines it. That is no stale
memory, so it is never REFUTED: INCONCLUSIVE, naming where it is defined
(VERIFIED needs the text to point there: a heading, a sentence, a `cd`).
When the text named a folder (in its sentence, list or block), it said where
the command runs, and the REFUTED reading stands; a heading whose words name a
folder is read first but says less, so it does not. So does a reading whose
configuration's history shows the command defined there and removed: it was
true where it was read.

The mirror case: a nested memory file's command (`pnpm run generate` in
packages/db/CLAUDE.md) is read from the file's own folder first and from the
root after. When only the root's configuration defines it now, and the history
of the file's own package shows the command defined there and removed, the
text was true where it was written and is not: REFUTED with that commit
(`gone_from_own`), not VERIFIED by the root's command of the same name, nor by
a sibling folder a heading's words name (`ui/` for "# Prefect UI v2").
"""

from __future__ import annotations

import posixpath
import shlex
from collections.abc import Callable
from typing import NamedTuple

from anchorcheck.memory import implicit
from anchorcheck.memory.references import program_of
from anchorcheck.model.anchors import encode_path
from anchorcheck.model.reference import Reference
from anchorcheck.model.registry import Registry
from anchorcheck.model.results import AnchorResult, Verdict
from anchorcheck.repo.checkout import Repository

MOST_FOLDERS = 16  # configurations tried; a monorepo of hundreds of packages is not searched whole


class Readings(NamedTuple):
    """Where a command may run, worked out once per command for every step that asks: the folder its text says it
    runs in (`placed`, None when it names none here), the readings its text gives (`written`,
    `implicit.command_readings`), and all that are tried (`tried`: those, then the headings' where it is placed nowhere)."""

    placed: str | None
    written: list[str]
    tried: list[str]

    @classmethod
    def of(cls, reference: Reference, repo: Repository) -> Readings:
        placed = implicit.placed_in(reference, repo)
        written = implicit.command_readings(reference, repo)
        tried = list(written)
        if placed is None:  # the headings above it: tried last
            sections = implicit.command_readings(reference._replace(hints=reference.sections), repo)
            tried += [r for r in sections if r not in tried]
        return cls(placed, written, tried)


def defined_elsewhere(
    reference: Reference, refuted: AnchorResult, readings: Readings, check: Callable[[str], AnchorResult], registry: Registry, repo: Repository
) -> AnchorResult:
    """`refuted` (every reading of a command REFUTED), or INCONCLUSIVE when another configuration of its runner
    defines the command and the text named no folder for it. A command whose own configuration's history shows
    it defined there and removed (`gone`) stays REFUTED: the text was true where it was read, and is not now."""
    if refuted.state == "gone":
        return refuted
    if readings.placed is not None:
        return refuted  # the text said in so many words where it runs
    if len(readings.written) > len(implicit.command_readings(reference._replace(hints=()), repo)):
        return refuted  # the text said where it runs (a heading's words are no such statement)
    try:
        program = program_of(shlex.split(reference.value))
    except ValueError:
        return refuted
    runner = registry.runner_for(program) if program else None
    if runner is None or not runner.configs:
        return refuted
    places = {a.partition(" in:")[2].rstrip("/") for a in readings.tried}
    folders = sorted({posixpath.dirname(p) for p in repo.files(named=list(runner.configs))} - places - {""})
    defining = [(folder, found) for folder in folders[:MOST_FOLDERS]
                if (found := check(f"{reference.anchor} in:{encode_path(folder)}/")).verdict is Verdict.VERIFIED]
    if not defining:
        return refuted
    # the configurations that declare every name the command gives (a compose `--profile`) say more than the others
    fewest = min(len(f.details.get("undeclared") or ()) for _, f in defining)
    defining = [(folder, f) for folder, f in defining if len(f.details.get("undeclared") or ()) == fewest]
    wheres = [", ".join(sorted({e.path for e in f.evidence if e.path})) or f"{folder}/" for folder, f in defining]
    folder = defining[0][0]
    if len(defining) == 1:
        reason = f"{refuted.reason}; but it is defined in {wheres[0]}, and the text does not say it runs in {folder}/"
    else:  # several run it (`docker compose up -d` with any compose file): naming one would say more than the text
        more = f" and {len(wheres) - 4} more" if len(wheres) > 4 else ""
        reason = f"{refuted.reason}; but it is defined in {'; '.join(wheres[:4])}{more}, and the text does not say which runs it"
    return AnchorResult(refuted.anchor, Verdict.INCONCLUSIVE, reason, [e for _, f in defining[:4] for e in f.evidence], state="elsewhere")


def gone_from_own(reference: Reference, verified: AnchorResult, readings: Readings, check: Callable[[str], AnchorResult]) -> AnchorResult:
    """`verified`, or the REFUTED reading of a nested memory file's own folder when only the root, or a folder a
    heading's words name (`ui/` for "# Prefect UI v2" in ui-v2/AGENTS.md), verified the command and the history of
    the file's own configuration shows the command defined there and removed (`gone`)."""
    if verified.verdict is not Verdict.VERIFIED or not reference.folder or readings.placed is not None:
        return verified
    own_anchor = f"{reference.anchor} in:{encode_path(reference.folder)}/"
    if verified.anchor == own_anchor or (verified.anchor != reference.anchor and verified.anchor in readings.written):
        return verified  # the file's own folder, or a folder the text named: not the root's or a heading's fallback
    own = check(own_anchor)
    return own if own.verdict is Verdict.REFUTED and own.state == "gone" else verified
