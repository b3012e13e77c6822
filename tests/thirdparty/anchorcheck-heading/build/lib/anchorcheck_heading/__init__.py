"""`heading:docs/guide.md#Install` — the Markdown file has a heading with that title."""

from __future__ import annotations

import re

from anchorcheck import AnchorKind, AnchorResult, AnchorSyntaxError, Evidence, Verdict, hookimpl

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")


def parse(value):
    path, sep, title = value.partition("#")
    if not sep or not path or not title:
        raise AnchorSyntaxError("expected PATH#Title", column=len(path) + 1)
    return path, title.replace("-", " ")


def verify(anchor, context):
    path, title = anchor.detail
    if not context.repo.is_file(path):
        return AnchorResult(str(anchor), Verdict.REFUTED, f"{path} does not exist")
    text = context.repo.read_bytes(path).decode("utf-8", errors="replace")
    for number, line in enumerate(text.splitlines(), start=1):
        match = _HEADING.match(line)
        if match and match.group(1).casefold() == title.casefold():
            return AnchorResult(str(anchor), Verdict.VERIFIED, f"heading found in {path}", [Evidence(path, number, line.strip())])
    return AnchorResult(str(anchor), Verdict.REFUTED, f"{path} has no heading {title!r}")


@hookimpl
def register_anchor_kinds(register):
    register(AnchorKind(prefix="heading", parse=parse, verify=verify, summary="a Markdown heading exists"))
