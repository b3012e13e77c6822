"""Implicit references: the paths, commands and packages a memory names without anchor syntax.

Most memory files (AGENTS.md, CLAUDE.md, Cursor rules...) carry no anchors, yet
they are full of claims that can be checked exactly: `src/app.py` in inline
code, `[ADR](docs/adr/0003.md)`, `@AGENTS.md`, `pnpm test:unit` in a shell
block, `uv add redis`. `read_references(text, claims=...)` finds them in Markdown text and
says which typed anchor each amounts to:

    >>> make = lambda argv: program_of(argv) == "make"
    >>> [r.anchor for r in read_references("Run `make lint`; the API is in `src/api.py`.", claims=make)]
    ['cmd:make lint', 'file:src/api.py']

Precision comes first: a token is read only when its form is unambiguous.
Never read: URLs, URL routes and absolute or home paths (`/api/users`,
`~/x`, `/etc/hosts`; a leading-slash path is returned marked `rooted`, so a
caller that knows the repository's top-level folders can keep it),
placeholders (`path/to/file`, `<name>`, `your-project`, `foo/bar`, `...`),
globs, bare words, package names outside an install command, and commands of
programs no runner claims (`git status`, `ls`, `cd`). Whether a path exists is
not this module's business: it reads text only, so the `suggest` command and
the checker share one reading.

The public API is `read_references`, `Reference` and `runner_claims` (the
commands a registry's runners claim).
"""

from __future__ import annotations

import itertools
import posixpath
import re
import shlex
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from anchorcheck.memory.chains import cd_form, scoped_calls, unexpanded
from anchorcheck.memory.commonmark import Block, Line, fence_body, frontmatter_end, read_document
from anchorcheck.memory.dependencies import package_word
from anchorcheck.memory.fillins import filled
from anchorcheck.memory.trees import TreeEntry, is_tree, tree_entries
from anchorcheck.base.globs import expand_braces
from anchorcheck.base.lazyregex import later
from anchorcheck.memory import identifiers
from anchorcheck.memory.installs import ENV_ASSIGNMENT, install
from anchorcheck.memory.outside import entered_outside
from anchorcheck.memory.placing import leads_in, plain_place, runs_in, runs_in_prose
from anchorcheck.memory.shellblock import shell_lines
from anchorcheck.memory.prose import GENERATED, ProseLine
from anchorcheck.memory.pathtokens import (
    PLACEHOLDER_ARGUMENT, backslash_path, clean_path, dotted_name, folderish, host_rooted, loose_path, placeholder_word, program_path,
)
from anchorcheck.model.reference import Reference

if TYPE_CHECKING:
    from anchorcheck.model.registry import Registry

__all__ = ["Reference", "read_references", "runner_claims", "apply_to", "program_of", "MENTION"]

INSTALL = "install"  # the form of a package an install command names (`pnpm add zod`): added by it, not claimed declared
MENTION = "mention"  # the form of a word in inline code read as a package name (`wrapt`), kept only on history's word

SHELL_LANGUAGES = frozenset({"sh", "bash", "shell", "console", "zsh", "shell-session", "shellsession"})

_LINK = re.compile(r"(?<!!)\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_IMPORT = re.compile(r"(?:(?<=\s)|(?<=^)|(?<=\())@((?:\.{1,2}/)?[A-Za-z0-9_][\w.\-/]*)")
_KIND_PREFIX = re.compile(r"^!?[a-z][a-z0-9_-]*:(?!:)\S")  # (`facade::OpStatus` is a scoped name, not a kind)
# A pnpm filter's dependency-graph markers: `-F ...pkg`, `--filter=pkg...`, `-F ...^pkg`, `-F pkg^...`
_FILTER_GRAPH = re.compile(r"((?:^|\s)(?:-F|--filter(?:-prod)?)(?:\s+|=)['\"]?)(\.\.\.\^?)?([^\s'\".^][^\s'\"]*?)(\^?\.\.\.)?(?=['\"]?(?:\s|$))")
_MOST_HINTS = 8  # folders a sentence or list item keeps as hints: a table of thousands made each reference copy them all
_MOST_SIBLINGS = 12  # other identifiers of a sentence an identifier keeps: a table row of hundreds would copy them all

# Where a download is written; where `cmake` configures a build tree (its Makefiles are made there).
_OUTPUT_OPTIONS = {"curl": ("-o", "--output"), "wget": ("-O", "--output-document"), "cmake": ("-B",)}
# A code block that says which file it shows: a first line `# app.py`, `// src/x.ts`, `<!-- page.html -->`, or an
# info string `python title="app.py"`. A later command running that file runs the document's file (a user's app
# the text has them write), not one of the repository's.
_SHOWN_FIRST_LINE = later(r"^(?:#|//|--|;|<!--|/\*)\s*(?:file(?:name)?\s*:\s*)?([\w.-]+(?:/[\w.-]+)*\.[A-Za-z]\w*)\s*(?:-->|\*/)?$")
_SHOWN_INFO = later(r"\b(?:title|file|filename)=[\"']?([\w.-]+(?:/[\w.-]+)*\.[A-Za-z]\w*)")
# A lead-in that says what its list names may be absent: "Read these files if they exist:", "(when present):".
_CONDITIONAL_LEAD = later(r"\b(?:if|when(?:ever)?)\s+(?:(?:it|they|one|any|these|those|present)\s+)?(?:exists?|(?:is|are)\s+present|present)\b", re.I)
_ASSIGNED_VALUE = re.compile(r"(?<!\S)([A-Za-z_]\w*=)[^\s'\"]+(?=\s|$)")  # an unquoted value: quotes stay balanced

_HEADING_WORD = later(r"[A-Za-z0-9_][\w.-]*(?:/[\w.-]+)*/?")  # the words of a heading that may name a folder
# What says a folder named next is where to run: "run (these) from the", "execute in", or a sentence that starts "From the", "Inside"
# (the text before the folder as written, a line's start given as ". "; a code span between breaks it: "`pytest` in `tests/`").
_PLACING = later(r"(?:\b(?:run|runs|running|execute)(?:\s+(?:it|them|these|this|all|each|every|the|commands?|scripts?|tests?|checks?))*\s+|[.!?:;]\s+(?:(?:[-*+>]|\d+[.)])\s+)?(?:\*\*|__|\*|_)?)(?:from|in|inside|within)\s+(?:the\s+)?$", re.I)


Claims = Callable[[Sequence[str]], bool]


def program_of(argv: Sequence[str]) -> str | None:
    """The program a command line runs, past `VAR=value` assignments; None for an empty line."""
    for word in argv:
        if not ENV_ASSIGNMENT.match(word):
            return word
    return None


def runner_claims(registry: Registry) -> Claims:
    """Whether one of the registry's command runners claims a command line (`git`, `ls`: none does), and
    reads it as a claim about the repository (`cargo install ripgrep`, a global tool install, is none)."""

    def claims(argv: Sequence[str]) -> bool:
        program = program_of(argv)
        runner = registry.runner_for(program) if program is not None else None
        if runner is None or program is None:
            return False
        args = tuple(argv[list(argv).index(program) + 1 :])  # past `VAR=value` words, which hold a `=`
        return runner.reads is None or runner.reads(program.rsplit("/", 1)[-1], args)

    return claims


def read_references(
    text: str,
    *,
    claims: Claims | None = None,
    kinds: Iterable[str] = ("file", "cmd", "pkg"),
    mentions: bool = False,
) -> list[Reference]:
    """The implicit references in Markdown `text`, in reading order.

    `claims(argv)` says whether a registered command runner claims a command
    line (split like a shell would, `VAR=value` prefixes included); commands
    it does not claim are not read, and without `claims` none is (the caller
    knows its registry: `runner_claims(registry)`). `kinds` limits
    what is read (`file`, `cmd`, `pkg`). Headings, front matter, HTML
    comments and fenced code that is not a shell block are not read; in a
    `console` block only `$ ` lines are commands, as in an untagged block.
    With `mentions`, a word in inline code that could be a package name is
    returned too (form MENTION, as `pkg:NAME`), for a caller that knows which
    names the repository's manifests dropped (`anchorcheck.memory.dependencies`).
    """
    wanted = frozenset(kinds)
    reader = _Reader(claims or (lambda argv: False), wanted, mentions and "pkg" in wanted)
    reader.read(text)
    return reader.found


MAX_TOKENS = 5_000  # code spans, links, imports and shell lines read in one text: each costs up to a millisecond


_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")  # `https://`: a link out of the checkout (Cursor's `mdc:PATH` is in it)


def _links_elsewhere(offset: int, links: list[re.Match[str]]) -> bool:
    """Whether a code span at `offset` is the text of a link to a URL (prisma's "[`docs/drive/`](https://github.com/
    prisma/ignite/tree/main/docs/drive) live in prisma/ignite"): the path it writes is the one the URL names, in
    another place, not this checkout's (gone from here, it would read as stale)."""
    return any(m.start() < offset < m.start(1) and _URL.match(m.group(1)) for m in links)


class _Reader:
    """One pass over a Markdown text, remembering the folders named in the current sentence and list.

    It reads at most MAX_TOKENS tokens: 370 KB of tables and lists of code spans held 30,000 and took
    seconds to read. What lies past the budget is left unread, which is silence, never a wrong verdict.
    """

    def __init__(self, claims: Claims, kinds: frozenset[str], mentions: bool = False) -> None:
        self.left = MAX_TOKENS
        self.mentions = mentions
        self.claims = claims
        self.kinds = kinds
        self.found: list[Reference] = []
        self.sentence: list[str] = []  # folders named earlier in the current sentence
        self.foreign = ""  # a loose `owner/repo` named earlier in the sentence: if it is a repository, so are its paths
        self.lists: list[tuple[int, list[str]]] = []  # (indent, folders) of each open list item
        self.lead: list[str] = []  # folders named in the paragraph that introduces the list (or table) below it
        self.cwd: str | None = None  # the folder a `cd DIR` line of the current shell block moved to
        self.outside = ""  # the folder, written from outside the repository, a `cd` of the block moved to (`outside`)
        self.sections: list[tuple[int, list[str]]] = []  # (level, words) of each open heading
        self.made: set[str] = set()  # what earlier lines of the current shell block downloaded or wrote
        self.conditional = False  # the list below was introduced as what may not be there ("Read these if present:")
        self.shown: set[str] = set()  # files earlier code blocks of the document said they show (`# app.py`)
        self.placing = ["", ""]  # the folder the current sentence, and the lead-in of the list, say commands run in
        self.names: list[int] = []  # where in `found` the identifiers of the current sentence are

    def _end_sentence(self) -> None:
        _share_siblings(self.found, self.names)
        self.names, self.sentence, self.foreign, self.placing[0] = [], [], "", ""

    def _placing(self, before: str) -> None:
        """"Run from the `ui/` directory:", "Inside `core/`,": a folder the sentence names as where to run, in so many
        words, places the commands after it (read there alone)."""
        folder = self.found[-1]
        if folder.kind == "file" and folderish(folder.value) and not folder.rooted and _PLACING.search(before):
            self.placing[0] = folder.value

    def read(self, text: str) -> None:
        lines = text.splitlines()
        document = read_document(text)
        for block in document.blocks:
            if self.left <= 0:
                break
            self._end_sentence()  # a block (a paragraph, a list item, a fence) starts a sentence
            if block.kind in ("paragraph", "table"):
                self._prose_block(block)
            elif block.kind == "heading":
                self.lists, self.lead, self.conditional, self.placing[1] = [], [], False, ""
                self._section(block)
                self._prose(block.lines[0])  # "### Go backend (`internal/`)": what it writes in code is a claim too
            elif block.kind == "fence":
                self._fenced(lines, block)
        self._end_sentence()
        for definition in document.definitions:  # `[adr]: docs/adr/3.md`, used by a `[the ADR][adr]` link
            self._path(definition.destination, definition.line, definition.column, "link")

    def _section(self, block: Block) -> None:
        """A heading opens a section; the words it is written with may name the folder its commands run in
        ("## Python bindings" over python/'s Makefile): kept as the `sections` of the commands under it, read
        after every other reading, so a folder that is not there, or a word that is no folder, costs nothing."""
        level = int(block.info or 1)
        self.sections = [(lvl, words) for lvl, words in self.sections if lvl < level]
        text = " ".join(line.text for line in block.lines[:1])
        words = [w.rstrip("/") for w in _HEADING_WORD.findall(text) if not w.isdigit()]
        self.sections.append((level, list(dict.fromkeys(w for word in words for w in (word, word.lower())))[:_MOST_HINTS]))

    # -- prose ---------------------------------------------------------------

    def _prose_block(self, block: Block) -> None:
        if block.item:
            self.lists = [(d, f) for d, f in self.lists if d < block.depth]
            self.lists.append((block.depth, []))
        elif block.depth == 0 and block.kind == "paragraph":
            self.lists, self.lead, self.conditional, self.placing[1] = [], [], False, ""  # a paragraph at the margin ends the list and its lead-in
        carried = ""  # the day the sentence open at the end of the line before dates itself to
        for index, line in enumerate(block.lines):
            if block.kind == "table" and index:
                self._end_sentence()  # a row is a sentence of its own: an `owner/repo` in one says nothing of the next
                carried = ""
            following = block.lines[index + 1].text if index + 1 < len(block.lines) and block.kind != "table" else ""
            carried = self._prose(line, following, conditional=block.item and self.conditional, carried=carried)
            if block.depth == 0 and block.kind == "paragraph" and leads_in(line.text, index == len(block.lines) - 1, self.placing[0]):
                self.lead, self.placing[1] = self._folders_here(line.number), self.placing[0] or plain_place(line.text)
                self.conditional = bool(_CONDITIONAL_LEAD.search(line.text))

    def _prose(self, source: Line, following: str = "", conditional: bool = False, carried: str = "") -> str:
        """One line of prose; `following` is the next line of its paragraph ("`x`" then "if it exists"),
        `conditional` says the list it is an item of was introduced as what may not be there, and `carried` is the
        day its lines before date the sentence still open to. The day the sentence open at its end dates itself to."""
        line, number = source.text, source.number
        spans = [(span.start(), span.end(), span.group(2), span.start(2)) for span in source.spans]
        events: list[tuple[int, str, str, int, int]] = []  # (offset, form, token, column0, end)
        for start, end, content, content_start in spans:
            stripped = content.strip()
            events.append((start, "code", stripped, content_start + content.index(stripped[0]) if stripped else content_start, end))
        prose = ProseLine(line, [(s, e) for s, e, _, _ in spans], following)
        links = [m for m in _LINK.finditer(line) if not prose.in_code(m.start())]
        events = [e for e in events if not _links_elsewhere(e[0], links)]
        events += [(m.start(1), "link", m.group(1), m.start(1), m.end()) for m in links]
        for match in _IMPORT.finditer(line):
            if not prose.in_code(match.start()):
                events.append((match.start(), "import", match.group(1), match.start(), match.end()))
        events.sort()
        self.left -= len(events)
        cursor = 0
        for offset, form, token, column0, end in events:
            if prose.ends_sentence(cursor, offset):
                self._end_sentence()
            cursor = offset
            gone, generated, hedged, dated = prose.sentence_at(offset, carried)
            if gone or conditional or prose.unclaimed(offset, end):
                continue  # names what is gone, forbidden or conditional: not a claim about the checkout now
            first = len(self.found)
            if hedged:  # "used to": a past or a purpose; only its paths are read, each hedged (`Reference.hedged`)
                if form != "import" and not (form == "code" and (" " in token or "\t" in token)):
                    self._path(token, number, column0, form, generated=generated, hedged=True)
            elif form == "code":
                self._code(token, number, column0, generated)
                if len(self.found) > first:  # (a command's `VAR=value` prefixes come before it)
                    runs_in(self.found, line)
                    runs_in_prose(self.found, line)
                    self._placing(("" if offset > 60 else ". ") + line[max(0, offset - 60) : offset])  # (a line's start starts a sentence)
            elif form == "link":
                self._path(token, number, column0, "link", generated=generated)
            else:
                self._path(token, number, column0, "import", written=f"@{token}", generated=generated)
            if dated:  # the sentence tells what was that day (`Reference.dated`)
                self.found[first:] = [r._replace(dated=dated) for r in self.found[first:]]
        if prose.ends_sentence(cursor, len(line)):
            self._end_sentence()
        return prose.open_date(carried)

    def _folders_here(self, number: int) -> list[str]:
        here = itertools.takewhile(lambda r: r.line == number, reversed(self.found))  # not every line's: quadratic
        return [r.value for r in reversed(list(here)) if r.kind == "file" and folderish(r.value)]

    def _code(self, token: str, number: int, column0: int, generated: bool = False) -> None:
        if not token or _KIND_PREFIX.match(token) and not token.startswith(("./", "../")):
            return  # a typed anchor (or something else with a scheme): not ours to read
        if " " in token or "\t" in token:
            self._command(token, number, column0, "code")
            return
        before, slashed = len(self.found), backslash_path(token)  # `src\Orleans.Core`: a path as Windows writes it
        self._path(slashed or token, number, column0, "code", written=token if slashed else None, generated=generated, evidence=bool(slashed))
        before = len(self.found) if not slashed and dotted_name(token) else before  # `console.log`: a root file or a name
        if len(self.found) == before:  # no path: maybe a function, class or variable (`parse_config()`, `CACHE_DIR`)
            found = identifiers.reference(token, number, column0 + 1)
            if found is not None and found.kind in self.kinds:
                self.names.append(len(self.found))
                self.found.append(found)
        if self.mentions and len(self.found) == before and package_word(token):  # else maybe a package a manifest dropped
            self.found.append(Reference("pkg", f"pkg:{_purl_name(token)}", token, number, column0 + 1, column0 + 1 + len(token), MENTION,
                                        sections=self._headings()))  # ("## Dependencies": the manifest's own table's name)

    def _headings(self) -> tuple[str, ...]:
        """The words of the open headings, innermost first."""
        return tuple(dict.fromkeys(w for _, words in reversed(self.sections) for w in words))

    def _path(self, token: str, number: int, column0: int, form: str, written: str | None = None, generated: bool = False,
              program: bool = False, evidence: bool = False, hedged: bool = False) -> None:
        """Read a path; one that names a folder is a hint for what follows, unless it is a `program` run (`bin/dev`).
        One read only on `evidence` (written with backslashes) is `loose`: kept where its first folder is here."""
        read = _path_of(token, form, evidence) if "file" in self.kinds else None
        if read is None:
            return
        path, rooted, loose, evidence = read
        shown = written or token
        self.found.append(
            Reference("file", f"file:{path}", shown, number, column0 + 1, column0 + 1 + len(shown), form, rooted, self._hints(),
                      loose=loose, after=self.foreign, generated=generated, hedged=hedged)
        )
        if loose and not evidence and not self.foreign:
            self.foreign = token
        elif _hint(path, evidence) and not rooted and not program and len(self.sentence) < _MOST_HINTS:
            self.sentence.append(path)
            if self.lists and len(self.lists[-1][1]) < _MOST_HINTS:
                self.lists[-1][1].append(path)

    # -- commands ------------------------------------------------------------

    def _command(self, command: str, number: int, column0: int, form: str, before: str = "") -> None:
        """Read one command line; `before` is what runs it but is written apart: the `cd DIR && ` of its chain, the
        `VAR=value` lines it continues."""
        if not before and self._outside(command, number, column0, form):
            return
        chain = None if before or cd_form(command) else scoped_calls(command)
        if chain is not None:  # `pnpm db:migrate && pnpm generate`: every call of the chain is a command
            for offset, call, before in chain:
                self._command(call, number, column0 + offset, form, before)
            return
        if form == "shell" and not before and self._entered(command, number, column0):
            return
        written, (command, path_only) = command, filled(command, before)  # `pnpm test-types <filename>`: `pnpm test-types`
        unmarked = _FILTER_GRAPH.sub(r"\1\3", command)  # `-F pkg...` is pnpm's graph syntax, not a placeholder
        # `make release VERSION=<version>`: a value to fill in for a variable the program is given leaves the target
        # a claim (a `VAR=<x>` prefix stays a placeholder: it sets the command's environment)
        unmarked = unexpanded(unmarked)
        program = re.match(r"\s*(?:[A-Za-z_]\w*=\S*\s+)*\S+", unmarked)
        if program is not None:
            unmarked = unmarked[: program.end()] + _ASSIGNED_VALUE.sub("", unmarked[program.end() :])
        if PLACEHOLDER_ARGUMENT.search(unmarked):
            return
        try:
            argv = shlex.split(command, comments=False)
        except ValueError:
            return
        if form == "shell" and argv and _makes(argv, self.made, self.shown):
            return
        if not argv or any(placeholder_word(w) for w in shlex.split(unmarked, comments=False)) or any(w in ("&&", "||", "|", ";") or w.endswith(";") for w in argv[1:] if w != "&&"):
            return
        if "&&" in argv and not (argv[0] == "cd" and argv.index("&&") == 2):
            return  # a chain of commands is not one claim (only `cd dir && ...` is)
        if form == "code" and self.lists and len(argv) == 2 and argv[0] == "cd":  # "1. `cd web`" "2. `npm ci`": the steps after it run there
            self.placing[1] = _cd_target(self.placing[1] or None, argv[1]) or ""
        tail = argv[3:] if argv[0] == "cd" else argv
        end = column0 + 1 + len(written)
        if "env" in self.kinds:  # `FOO_BAR=1 pnpm test`: the program reads FOO_BAR, whatever runs it
            self.found += identifiers.assignments(written, tail[len(tail) - len(shlex.split(written)) :], number, column0 + 1 + (len(written) - len(written.lstrip())), form)
        packages = install(tail)
        if packages is not None:
            if "pkg" in self.kinds:
                ecosystem, names = packages
                for name in names:
                    self.found.append(Reference("pkg", f"pkg:{ecosystem}/{_purl_name(name)}", written, number, column0 + 1, end, INSTALL))
            return
        if "cmd" in self.kinds and not path_only and self.claims(tail):
            hints = self._hints() if self.cwd is None else (self.cwd, *self._hints())
            self.found.append(Reference("cmd", f"cmd:{command}", written, number, column0 + 1, end, form, hints=hints, sections=self._headings(),
                                        placed=(self.outside or self.cwd or self.placing[0] or self.placing[1]).rstrip("/")))
        elif not self.outside and (program := _program_file(argv, tail, self.cwd)) is not None:
            self._path(program[0], number, column0 + written.find(program[1]), form, written=program[1], program=True)

    def _outside(self, command: str, number: int, column0: int, form: str) -> bool:
        """Whether the line enters a folder written from outside the repository (`cd ~/projects/REPO/DIR`, `ssh HOST
        'cd … && CMD'`): the rest of the line, or of the block for a `cd` alone, is placed there (`memory.outside`)."""
        entered = entered_outside(command)
        if entered is None:
            return False
        folder, start, end = entered
        if start >= end:
            if form == "shell":
                self.cwd, self.outside = None, folder
            return True
        # `cd ~/a && cd ~/b && make`: the last places the rest (a loop, not a recursion: a line chains as many as it likes)
        while (inner := entered_outside(command[start:end])) is not None and inner[1] < inner[2]:
            folder, start, end = inner[0], start + inner[1], start + inner[2]
        kept = self.cwd, self.outside
        self.cwd, self.outside = None, folder
        self._command(command[start:end], number, column0 + start, form)
        self.cwd, self.outside = kept
        return True

    def _entered(self, command: str, number: int, column0: int) -> bool:
        """Whether the line is `cd DIR` alone, which places the block's later commands in DIR. The folder is a claim too
        (gone, the block fails here: history says where it went), unless the block made it (`git clone URL dir`) or it
        stands for the reader's project (`cd my-app`, `cd <app>`): no path here, and still not the root. `cd $DIR`: unknown."""
        try:
            argv = shlex.split(command, comments=False)
        except ValueError:
            return False
        if len(argv) != 2 or argv[0] != "cd":
            return False
        folder = argv[1]
        if self.outside and not set("$`") & set(folder):  # `cd sub` after `cd ~/src/app`: further from there
            self.outside = posixpath.normpath(posixpath.join(self.outside, folder))
        elif set("$`") & set(folder):  # (`cd ~/x`, `cd /x`, `cd $X/y`: `_outside`)
            self.cwd = None
        elif _makes(argv, self.made, self.shown) or placeholder_word(folder):
            self.cwd = folder.removeprefix("./").rstrip("/") or None
        else:
            self.cwd = _cd_target(self.cwd, folder)
            if self.cwd not in (None, "."):
                self._path(self.cwd, number, column0 + command.find(folder), "shell", written=folder)
        return True

    def _hints(self) -> tuple[str, ...]:
        """The folders named earlier in the list's lead-in, the enclosing list items and the sentence."""
        return tuple(dict.fromkeys([*self.lead, *(f for _, fs in self.lists for f in fs), *self.sentence]))

    def _fenced(self, lines: list[str], block: Block) -> None:
        """Read a fenced block: every line of a shell block, the `$ ` lines of a console or untagged one, the
        paths of a drawn directory tree."""
        body = fence_body(lines, block)
        shell = block.info in SHELL_LANGUAGES
        self.shown.update(_shown_file(lines[block.start - 1], body))
        if not shell and is_tree(body):
            self.found += _tree_references(tree_entries(body, block.start + 1)) if "file" in self.kinds else []
            return
        if block.info and not shell:
            return
        only_prompts = block.info in ("console", "shell-session", "shellsession") or not block.info
        self.cwd, self.made, self.outside = None, set(), ""
        self.left -= len(body)
        for shell in shell_lines(body, block.start + 1, only_prompts):
            if not shell.environment:
                self._command(shell.text, shell.line, shell.column0, "shell", shell.before)
            elif "env" in self.kinds:  # `VAR=value \` over lines: each variable where it is written
                self.found += identifiers.assignments(shell.text, shlex.split(shell.text), shell.line, shell.column0 + 1, "shell")
        self.cwd, self.outside = None, ""


def _makes(argv: list[str], made_before: set[str], shown: set[str]) -> bool:
    """Add to `made_before` what a shell line downloads or writes (`curl -o x.py URL`, `wget URL`, `> out.txt`, `touch`,
    `mkdir`, `git clone URL dir`, `cmake -B dir`); True when it uses something an earlier line of its block made (`python x.py`
    after `curl -o x.py`): that file is the block's, not the repository's, and the line claims nothing."""
    words = [w.removeprefix("./").rstrip("/") for w in argv]
    ours = made_before | shown
    if any(w in ours or "/" in w and any(w.startswith(m + "/") for m in ours) for w in words[1:]):
        return True  # a file the block made, or one under a folder it made (`cmake -B build`, then `build/Makefile`)
    made = [words[i + 1] for i, w in enumerate(words[:-1]) if w in (">", ">>") or w in _OUTPUT_OPTIONS.get(words[0], ())]
    made += [w[2:] for w in words[1:] if words[0] == "cmake" and w.startswith("-B") and len(w) > 2]  # `-Bbuild`
    if words[0] in ("touch", "mkdir"):
        made += [w for w in words[1:] if not w.startswith("-")]
    elif words[0] in ("curl", "wget") and not made or words[:2] == ["git", "clone"]:
        plain = [w for w in words[1:] if not w.startswith("-")]
        made += [plain[-1].rsplit("/", 1)[-1].removesuffix(".git")] if plain else []
        made += plain[-1:] if words[0] == "git" and len(plain) > 2 else []
    made_before.update(made)
    return False


def _tree_references(entries: list[TreeEntry]) -> list[Reference]:
    """The paths of a drawn tree, each where its name is written; one whose comment says it is generated
    or built (`dist/  # Build output`) is marked so."""
    found = []
    for entry in entries:
        path, rooted = clean_path(entry.path)
        if path is None or rooted:
            continue
        start, end = entry.column + 1, entry.column + 1 + len(entry.written)
        generated = bool(GENERATED.search(entry.comment))
        found.append(Reference("file", f"file:{path}", entry.written, entry.line, start, end, "tree", generated=generated))
    return found


def _path_of(token: str, form: str, evidence: bool) -> tuple[str, bool, bool, bool] | None:
    """(path, rooted, loose, evidence) of a token read as a path, or None. `src/components`, `/common/namespace` or
    `owner/repo` are loose: read only if the first folder is one here; `gradle.properties`, a dotted name no list of
    extensions knows, is loose on evidence: kept where such a file is, or history says was."""
    path, rooted = clean_path(token, link=form == "link")
    if path is None and host_rooted(token):  # `ai.symfony.com/public/llms.txt`: kept only where that folder is here
        path, rooted = clean_path(token, link=form == "link", host=True)
        return (path, rooted, True, True) if path is not None and not rooted else None
    plain = token[1:] if token.startswith("/") and not token.startswith("//") else token
    if path is None and form == "code" and loose_path(plain):
        return plain, plain != token, True, evidence
    if path is None and form == "code" and dotted_name(token):
        return token, False, True, True
    return (path, rooted, evidence, evidence) if path is not None else None


def _hint(path: str, evidence: bool) -> bool:
    """Whether a path read is a folder later paths of its sentence may be relative to (a name read on evidence only
    when it is no dotted file name: `src\\Directory.Build.props` is a file, `src\\Orleans.Core` a folder)."""
    return folderish(path) and not (evidence and dotted_name(posixpath.basename(path.rstrip("/"))))


def _cd_target(cwd: str | None, folder: str) -> str | None:
    """Where `cd folder` goes from `cwd` (None: where the block began): relative to it, so `cd cli` … `cd ..` is back
    where the block began ("."); None when it leaves the repository or is no clean path."""
    target = posixpath.normpath(posixpath.join(cwd or "", folder))
    return "." if target == "." else clean_path(target + "/")[0]


def _share_siblings(found: list[Reference], names: list[int]) -> None:
    """Close a sentence: each identifier it named (at `names` in `found`) learns the others (its `siblings`), the
    evidence that a sentence listing names this repository never defined speaks of another project."""
    first = list(dict.fromkeys(identifiers.name_of(found[at]) for at in names))[: _MOST_SIBLINGS + 1]
    for at in names if len(names) > 1 else ():  # (linear: a table of thousands is one sentence)
        own = identifiers.name_of(found[at])
        found[at] = found[at]._replace(siblings=tuple(n for n in first if n != own)[:_MOST_SIBLINGS])


def _program_file(argv: list[str], tail: list[str], cwd: str | None) -> tuple[str, str] | None:
    """`./mvnw -q verify`, `./scripts/gen.py --check`, `bin/rubocop -a`: a program no runner reads, written as a path
    (with or without `./`: the shell runs that file either way), is a file of the checkout, relative to the folder a
    `cd` entered (`cd java && ./mvnw test`): (that path, marked relative, and the program as written)."""
    program = program_of(tail)
    clean = program_path(program) if program is not None else None
    if program is None or clean is None:
        return None
    folder = argv[1] if argv[0] == "cd" else cwd
    path = posixpath.normpath(posixpath.join(folder, clean)) if folder else clean
    return (path if path.startswith("../") else f"./{path}"), program


def _purl_name(name: str) -> str:
    return name.replace("@", "%40", 1) if name.startswith("@") else name


# Copilot's `applyTo`, Cursor's and Windsurf's `globs`, Claude Code's and Cline's rules' `paths`, Kiro steering's
# `fileMatchPattern`: one meaning, four names.
_APPLY_TO = later(r"^(?:applyTo|globs|paths|fileMatchPattern)\s*:\s*(.*)$")
_LIST_ITEM = later(r"^\s+-\s+(.*)$")


def apply_to(text: str) -> tuple[str, ...] | None:
    """The globs a memory file's front matter says it applies to (`"**/*.ts,**/*.tsx"`, a YAML list), under any
    of the names above; None when it names none (or names them empty, as a Cursor rule with `alwaysApply`
    does), so it applies to the whole repository. `{a,b}` alternatives are expanded (`**/*.{yml,yaml}`)."""
    return tuple(g for glob, _, _ in apply_to_places(text) for g in expand_braces(glob)) or None


def apply_to_places(text: str) -> list[tuple[str, int, int]]:
    """The globs of `apply_to`, each with the 1-based line and column it is written at."""
    lines = text.splitlines()
    end = frontmatter_end(lines)
    for index in range(1, end - 1):
        match = _APPLY_TO.match(lines[index])
        if match is None:
            continue
        items = [(index, match.start(1))] if match.group(1).strip() else []
        for at in range(index + 1, end - 1) if not items else ():
            item = _LIST_ITEM.match(lines[at])
            if item is None:
                break
            items.append((at, item.start(1)))
        places = []
        for at, start in items:
            line = lines[at]
            for piece in re.finditer(r"(?:[^,\[\]\"'\s{]|\{[^{}\s]*\})+", line[start:]):  # a comma inside `{a,b}` is the glob's
                places.append((piece.group(), at + 1, start + piece.start() + 1))
        return places
    return []


def _shown_file(opener: str, body: list[str]) -> list[str]:
    """The file a code block says it shows, by its info string (`title="app.py"`) or a first-line comment (`# app.py`)."""
    named = _SHOWN_INFO.search(opener)
    first = next((line.strip() for line in body if line.strip()), "")
    named = named or _SHOWN_FIRST_LINE.match(first)
    return [named.group(1).removeprefix("./")] if named else []
