"""`--format github`: GitHub Actions workflow commands, so findings appear as annotations on the diff.

Anchors written wrongly (unknown kind, malformed, span not banked) are
`::error`; a REFUTED anchor follows its severity (`::error` where the
evidence is certain, `::warning` where it is likely: a path that never
existed), INCONCLUSIVE ones are `::notice` (VERIFIED, with `-v`, are not
annotated), each at the memory file's line and column and
titled with the rule id shared with SARIF. The text summary line closes the
output so the log still says what was checked.
"""

from __future__ import annotations

from typing import IO

from anchorcheck.base.printable import printable
from anchorcheck.model.results import Verdict
from anchorcheck.report import Run
from anchorcheck.report.findings import findings
from anchorcheck.report.text import summary

_COMMAND = {Verdict.REFUTED: "error", Verdict.INCONCLUSIVE: "notice"}


def escape_data(text: str) -> str:
    """The message part of a workflow command: `%`, CR and LF percent-encoded, then every other control
    character removed (the log viewer renders ANSI escapes)."""
    return printable(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(text: str) -> str:
    """A `key=value` property: additionally `:` and `,`, which delimit properties."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(run: Run, out: IO[str]) -> None:
    for finding in findings(run):
        command = "error" if finding.mistake else _COMMAND.get(finding.result.verdict)
        if command == "error" and not finding.mistake and finding.result.severity == "warning":
            command = "warning"
        if command is None or (run.quiet and command != "error"):
            continue
        # An annotation sits on one file: a reference written in copied files is annotated in each copy.
        for file, line, column in [(finding.file, finding.line, finding.column), *finding.copies]:
            props = []
            if file is not None:
                props.append(f"file={escape_property(run.from_root(file) or file)}")  # Actions places it from the root
                if line:
                    props.append(f"line={line}")
                if column:
                    props.append(f"col={column}")
            props.append(f"title={escape_property('anchorcheck ' + finding.rule_id)}")
            out.write(f"::{command} {','.join(props)}::{escape_data(finding.message)}\n")
    if not run.quiet:
        out.write(summary(run) + "\n")
