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

import bisect
import itertools
import re
import shlex
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from anchorcheck.memory.codespans import code_spans
from anchorcheck.base.lazyregex import later
from anchorcheck.model.reference import Reference

if TYPE_CHECKING:
    from anchorcheck.model.registry import Registry

__all__ = ["Reference", "read_references", "runner_claims", "apply_to", "INSTALLERS", "program_of"]

# Install commands: program and the argv prefix that names packages after it, and their ecosystem.
INSTALLERS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("pip", "install"), "pypi"),
    (("pip3", "install"), "pypi"),
    (("python", "-m", "pip", "install"), "pypi"),
    (("python3", "-m", "pip", "install"), "pypi"),
    (("uv", "pip", "install"), "pypi"),
    (("uv", "add"), "pypi"),
    (("poetry", "add"), "pypi"),
    (("npm", "install"), "npm"),
    (("npm", "i"), "npm"),
    (("npm", "add"), "npm"),
    (("pnpm", "add"), "npm"),
    (("pnpm", "install"), "npm"),
    (("pnpm", "i"), "npm"),
    (("yarn", "add"), "npm"),
    (("bun", "add"), "npm"),
    (("cargo", "add"), "cargo"),
    (("go", "get"), "golang"),
)
# Options of install commands that take a value (the value is not a package).
_OPTION_VALUES = frozenset(
    {"-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-i", "--index-url", "--extra-index-url",
     "-t", "--target", "--prefix", "-C", "--dir", "--filter", "-F", "--features", "-p", "--package",
     "--group", "--optional", "--extra", "--python", "--registry", "--rename", "--path", "--git", "--branch",
     "--tag", "--rev", "-w", "--workspace", "--cwd", "--directory"}
)
# Options that make an install command not a claim about this project (a global tool, a user install).
_NOT_A_PROJECT_INSTALL = frozenset({"-g", "--global", "--user", "-U", "--upgrade", "--system", "--dry-run"})
# What `pip install` sets up for the user rather than for the project: the tools that make and run
# environments (`pip install uv`, then `uv venv`). `uv add tox` still adds tox to the project and is read.
_PIP_INSTALLERS = frozenset({("pip", "install"), ("pip3", "install"), ("python", "-m", "pip", "install"), ("python3", "-m", "pip", "install"), ("uv", "pip", "install")})
_ENVIRONMENT_TOOLS = frozenset({"pip", "uv", "pipx", "poetry", "pdm", "hatch", "pipenv", "virtualenv", "tox", "nox", "pre-commit"})
SHELL_LANGUAGES = frozenset({"sh", "bash", "shell", "console", "zsh", "shell-session", "shellsession"})

_LINK = re.compile(r"(?<!!)\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_IMPORT = re.compile(r"(?:(?<=\s)|(?<=^)|(?<=\())@((?:\.{1,2}/)?[A-Za-z0-9_][\w.\-/]*)")
_FENCE = re.compile(r"^(\s{0,3})(`{3,}|~{3,})\s*([^`\s]*)")
_HEADING = re.compile(r"^\s{0,3}#{1,6}(\s|$)")
_BULLET = re.compile(r"^(\s*)(?:[-*+]|\d{1,9}[.)])\s+")
_ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_KIND_PREFIX = re.compile(r"^!?[a-z][a-z0-9_-]*:\S")
_LINE_SUFFIX = re.compile(r"(?::\d+(?:[:-]\d+)?|#L\d+(?:-L?\d+)?)$")
_SEGMENT = re.compile(r"^[A-Za-z0-9_@+][A-Za-z0-9_.@+\-]*$|^\.[A-Za-z0-9_][A-Za-z0-9_.\-]*$")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
_DOMAIN = re.compile(r"^[a-z0-9\-]+(\.[a-z0-9\-]+)*\.(com|org|net|io|dev|ai|app|co|sh|rs|so|gg|me|xyz|cloud|run|edu|gov|in|de|uk)$")
# `<crate>`, `<formatter crate>`, `{pkg}`, `[filename]`, `...` (but Go's `./...`), `$VAR`: the line is a template.
_PLACEHOLDER_ARGUMENT = re.compile(r"<[^<>=]+>|\{[^{}]*\}|(?:^|\s)\[[\w -]+\](?:\s|$)|…|(?<!/)\.\.\.|\$")
# A pnpm filter's dependency-graph markers: `-F ...pkg`, `--filter=pkg...`, `-F ...^pkg`, `-F pkg^...`
_FILTER_GRAPH = re.compile(r"((?:^|\s)(?:-F|--filter(?:-prod)?)(?:\s+|=)['\"]?)(\.\.\.\^?)?([^\s'\".^][^\s'\"]*?)(\^?\.\.\.)?(?=['\"]?(?:\s|$))")
_FOO_PART = later(r"(?:^|[/_.-])(?:foo|bar|baz|qux)(?:[/_.-]|$)", re.I)  # `test_foo.py`, `foo-bar/`: metasyntactic
_SLUG = later(r"^[A-Za-z0-9][\w-]*/[A-Za-z0-9][\w.-]*$")
_SENTENCE_END = re.compile(r"[.!?](\s|$)")
_MOST_HINTS = 8  # folders a sentence or list item keeps as hints: a table of thousands made each reference copy them all
# A sentence saying what it names is made by something ("generated by", "`make gen` generates", a step
# "Generate `x`"): missing, such a path is an output not made yet.
# "writes the proofs under `x/`", "saves results into `y/`": a place a tool writes to (git holds no empty folder).
_GENERATED = re.compile(
    r"\b(?:auto-?|re)?generat(?:ed|es?)\b|\bbuild (?:output|artifacts?)\b|\b(?:created|written|produced|emitted) by\b"
    r"|\b(?:writes|saves|dumps|stores|puts|emits)\b(?:\s+[\w-]+){0,3}\s+(?:under|into|to)\b",
    re.I,
)
# A sentence that says a thing is gone, or was elsewhere once ("`old.py` was removed", "no longer
# exists", "renamed", "used to live in", "moved from"): what it names is not claimed to be here now,
# so nothing in it is read (a file it names may rightly be absent: read, it would be a REFUTED true
# memory). "Moved to `x`" and "is removed when..." claim the present or the future: read as before.
_GONE = re.compile(
    r"\b(?:was|were|been|got)\s+(?:re)?(?:removed|deleted|dropped|retired)\b|\bno longer\b"
    r"|\b(?:removed|deleted)\s+(?:in|from|since)\b|\bused to\b|\bformerly\b|\bpreviously\b|\brenamed\b"
    r"|\bmoved\s+(?:from|out|away)\b|\b(?:does|do|did)(?:n't|\s+not)\s+exist\b|\bnot\s+exist\b",
    re.I,
)

# File extensions that make a bare name (no slash) a file name rather than a word or a dotted identifier.
FILE_EXTENSIONS = frozenset(
    """md mdc mdx markdown rst txt adoc py pyi pyx ipynb toml cfg ini json jsonc json5 yaml yml lock js mjs cjs ts mts
    cts tsx jsx vue svelte astro css scss sass less html htm xml svg rs go mod sum rb rake gemspec java kt kts gradle
    scala swift m mm c h cc cpp cxx hpp hh cs fs php ex exs erl hrl hs ml sh bash zsh fish ps1 bat sql prisma graphql
    gql proto thrift tf tfvars hcl nix lua r jl dart zig wasm example template tmpl j2 jinja snap csv tsv
    dockerfile mk cmake""".split()
)
# Files people name without an extension.
KNOWN_NAMES = frozenset(
    {"Makefile", "GNUmakefile", "makefile", "Dockerfile", "Containerfile", "justfile", "Justfile", ".justfile",
     "Taskfile", "Gemfile", "Rakefile", "Procfile", "Brewfile", "Vagrantfile", "Jenkinsfile", "Pipfile",
     "LICENSE", "CODEOWNERS", "Cargo.lock", ".gitignore", ".gitattributes", ".dockerignore", ".editorconfig",
     ".npmrc", ".nvmrc", ".python-version", ".tool-versions", ".env.example", ".envrc", ".pre-commit-config.yaml"}
)
_PLACEHOLDER_SEGMENTS = frozenset(
    {"foo", "bar", "baz", "qux", "xxx", "yyy", "zzz", "example", "examples.com", "some", "my", "your", "path", "to",
     "file", "dir", "folder", "name", "module", "package", "project", "repo", "owner", "user", "username", "org",
     "something", "somewhere", "whatever", "x", "y", "z", "n", "a", "b", "etc"}
)
_PLACEHOLDER_MARKERS = ("<", ">", "{", "}", "$", "%", "…", "...", "*", "?", "[", "]", "|", "\\", "'", '"', ",", ";", "=")
_PLACEHOLDER_WORDS = re.compile(r"(^|[-_/])(your|my|some)[-_]|(^|/)(path/to|to/file|to/dir)(/|$)|(^|[-_])(placeholder|todo|tbd)([-_.]|$)", re.I)
# Written in capitals or glued to a word, what is to be filled in: `EventNameHere`, `name_here`, `NNNN` (an issue
# number), `YYYY-MM-DD`, `XXXX`; and example names glued to my/your: `myagent.py`, `yourapp/` (not `mypy.ini`).
_PLACEHOLDER_SHAPES = later(
    r"[a-z0-9]Here(?=[-_./A-Z]|$)|(?:^|[-_/.])(?:name|path|file|id|value|key|token|text|event|module|class|function)[-_]here(?=[-_./]|$)"
    r"|(?:^|[-_/.])(?:N{2,}|X{3,}|YYYY)(?=[-_/.]|$)"
)
_EXAMPLE_NAMES = later(
    r"(?:^|/)(?:my|your)(?:agent|app|project|module|package|script|file|lib|library|service|server|tool|component|plugin|bot"
    r"|model|program|code|func|function|class|workflow|task|handler|api|site|repo|env|data|config)s?(?=[-_./]|$)",
    re.I,
)
# Words that, alone in a path argument, stand for the reader's own (`go test ./path`).
_GENERIC_SEGMENTS = frozenset({"path", "dir", "directory", "folder", "file", "pkg", "package", "module", "subdir"})
_RUNS_IN = later(r"`\s+(?:in|from|inside|within)\s+`")  # between a command's code span and a folder's
_GIT_REF_KINDS = frozenset({"heads", "tags", "remotes", "pull", "notes"})
# `3.x`, `v1.2`, `2.0.1`: a version, as in a branch (`release/3.x`); its dots are no sign of a file name.
_VERSION = later(r"^v?\d+(?:\.(?:\d+|x|X))+$")


Claims = Callable[[Sequence[str]], bool]


def program_of(argv: Sequence[str]) -> str | None:
    """The program a command line runs, past `VAR=value` assignments; None for an empty line."""
    for word in argv:
        if not _ENV_ASSIGNMENT.match(word):
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
) -> list[Reference]:
    """The implicit references in Markdown `text`, in reading order.

    `claims(argv)` says whether a registered command runner claims a command
    line (split like a shell would, `VAR=value` prefixes included); commands
    it does not claim are not read, and without `claims` none is (the caller
    knows its registry: `runner_claims(registry)`). `kinds` limits
    what is read (`file`, `cmd`, `pkg`). Headings, front matter, HTML
    comments and fenced code that is not a shell block are not read; in a
    `console` block only `$ ` lines are commands, as in an untagged block.
    """
    wanted = frozenset(kinds)
    reader = _Reader(claims or (lambda argv: False), wanted)
    reader.read(text)
    return reader.found


MAX_TOKENS = 5_000  # code spans, links, imports and shell lines read in one text: each costs up to a millisecond


class _Reader:
    """One pass over a Markdown text, remembering the folders named in the current sentence and list.

    It reads at most MAX_TOKENS tokens: 370 KB of tables and lists of code spans held 30,000 and took
    seconds to read. What lies past the budget is left unread, which is silence, never a wrong verdict.
    """

    def __init__(self, claims: Claims, kinds: frozenset[str]) -> None:
        self.left = MAX_TOKENS
        self.claims = claims
        self.kinds = kinds
        self.found: list[Reference] = []
        self.sentence: list[str] = []  # folders named earlier in the current sentence
        self.foreign = ""  # a loose `owner/repo` named earlier in the sentence: if it is a repository, so are its paths
        self.lists: list[tuple[int, list[str]]] = []  # (indent, folders) of each open list item
        self.lead: list[str] = []  # folders named in the paragraph that introduces the list (or table) below it
        self.cwd: str | None = None  # the folder a `cd DIR` line of the current shell block moved to

    def _end_sentence(self) -> None:
        self.sentence = []
        self.foreign = ""

    def read(self, text: str) -> None:
        lines = text.splitlines()
        index = _after_frontmatter(lines)
        in_comment = False
        while index < len(lines) and self.left > 0:
            line = lines[index]
            number = index + 1
            fence = _FENCE.match(line)
            if in_comment or line.lstrip().startswith("<!--"):
                in_comment = "-->" not in line.split("<!--", 1)[-1] if not in_comment else "-->" not in line
                index += 1
                continue
            if fence:
                index = self._fenced(lines, index, fence)
                continue
            if not line.strip():
                self._end_sentence()
                index += 1
                continue
            if _HEADING.match(line):
                self._end_sentence()
                self.lists, self.lead = [], []
                index += 1
                continue
            self._prose(line, number)
            index += 1

    # -- prose ---------------------------------------------------------------

    def _prose(self, line: str, number: int) -> None:
        bullet = _BULLET.match(line)
        if bullet:
            indent = len(bullet.group(1))
            self.lists = [(i, f) for i, f in self.lists if i < indent]
            self.lists.append((indent, []))
            self._end_sentence()
        elif not line.startswith((" ", "\t", "|")):
            self.lists, self.lead = [], []  # a paragraph at the margin ends the list and what introduced it
        spans = [(span.start(), span.end(), span.group(2), span.start(2)) for span in code_spans(line)]
        events: list[tuple[int, str, str, int]] = []  # (offset, form, token, column0)
        for start, _end, content, content_start in spans:
            stripped = content.strip()
            events.append((start, "code", stripped, content_start + content.index(stripped[0]) if stripped else content_start))
        prose = _Prose(line, [(s, e) for s, e, _, _ in spans])
        for match in _LINK.finditer(line):
            if not prose.in_code(match.start()):
                events.append((match.start(1), "link", match.group(1), match.start(1)))
        for match in _IMPORT.finditer(line):
            if not prose.in_code(match.start()):
                events.append((match.start(), "import", match.group(1), match.start()))
        events.sort()
        self.left -= len(events)
        cursor = 0
        for offset, form, token, column0 in events:
            if prose.ends_sentence(cursor, offset):
                self._end_sentence()
            cursor = offset
            gone, generated = prose.sentence_at(offset)
            if gone:
                continue  # names what is gone or was elsewhere: not a claim about the checkout now
            if form == "code":
                before = len(self.found)
                self._code(token, number, column0, generated)
                if len(self.found) == before + 1:
                    self._runs_in(line)
            elif form == "link":
                self._path(token, number, column0, "link", generated=generated)
            else:
                self._path(token, number, column0, "import", written=f"@{token}", generated=generated)
        if prose.ends_sentence(cursor, len(line)):
            self._end_sentence()
        if line.rstrip().endswith(":") and not bullet and not line.startswith((" ", "\t")):
            self.lead = self._folders_here(number)

    def _folders_here(self, number: int) -> list[str]:
        here = itertools.takewhile(lambda r: r.line == number, reversed(self.found))  # not every line's: quadratic
        return [r.value for r in reversed(list(here)) if r.kind == "file" and _folderish(r.value)]

    def _code(self, token: str, number: int, column0: int, generated: bool = False) -> None:
        if not token or _KIND_PREFIX.match(token) and not token.startswith(("./", "../")):
            return  # a typed anchor (or something else with a scheme): not ours to read
        if " " in token or "\t" in token:
            self._command(token, number, column0, "code")
            return
        self._path(token, number, column0, "code", generated=generated)

    def _path(self, token: str, number: int, column0: int, form: str, written: str | None = None, generated: bool = False) -> None:
        if "file" not in self.kinds:
            return
        path, rooted = clean_path(token, link=form == "link")
        loose = False
        if path is None and form == "code" and _loose(token):
            path, loose = token, True  # `src/components` or `owner/repo`: read only if the first folder is one here
        if path is None:
            return
        hints = self._hints()
        shown = written or token
        self.found.append(
            Reference("file", f"file:{path}", shown, number, column0 + 1, column0 + 1 + len(shown), form, rooted, hints,
                      loose=loose, after=self.foreign, generated=generated)
        )
        if loose and not self.foreign:
            self.foreign = token
        elif _folderish(path) and not rooted and len(self.sentence) < _MOST_HINTS:
            self.sentence.append(path)
            if self.lists and len(self.lists[-1][1]) < _MOST_HINTS:
                self.lists[-1][1].append(path)

    # -- commands ------------------------------------------------------------

    def _command(self, command: str, number: int, column0: int, form: str) -> None:
        unmarked = _FILTER_GRAPH.sub(r"\1\3", command)  # `-F pkg...` is pnpm's graph syntax, not a placeholder
        if _PLACEHOLDER_ARGUMENT.search(unmarked):
            return
        try:
            argv = shlex.split(command, comments=False)
        except ValueError:
            return
        if not argv or any(_placeholder_word(w) for w in shlex.split(unmarked, comments=False)) or any(w in ("&&", "||", "|", ";") or w.endswith(";") for w in argv[1:] if w != "&&"):
            return
        if form == "shell" and len(argv) == 2 and argv[0] == "cd":
            path, _ = clean_path(argv[1].rstrip("/") + "/")
            self.cwd = path  # the block's later commands run there
            return
        if "&&" in argv and not (argv[0] == "cd" and argv.index("&&") == 2):
            return  # a chain of commands is not one claim (only `cd dir && ...` is)
        tail = argv[3:] if argv[0] == "cd" else argv
        end = column0 + 1 + len(command)
        packages = _install(tail)
        if packages is not None:
            if "pkg" in self.kinds:
                ecosystem, names = packages
                for name in names:
                    self.found.append(Reference("pkg", f"pkg:{ecosystem}/{_purl_name(name)}", command, number, column0 + 1, end, "install"))
            return
        if "cmd" in self.kinds and self.claims(tail):
            hints = self._hints() if self.cwd is None else (self.cwd, *self._hints())
            self.found.append(Reference("cmd", f"cmd:{command}", command, number, column0 + 1, end, form, hints=hints))

    def _runs_in(self, line: str) -> None:
        """`yarn test:prepare` in `dev-packages/e2e-tests`: a folder named right after a command, joined by
        "in" or "from", is where that command runs (a hint, as a folder named before it is)."""
        if len(self.found) < 2:
            return
        command, folder = self.found[-2], self.found[-1]
        if command.kind != "cmd" or folder.kind != "file" or command.line != folder.line or not _folderish(folder.value):
            return
        if _RUNS_IN.fullmatch(line[command.end_column - 1 : folder.column - 1]):
            self.found[-2] = command._replace(hints=tuple(dict.fromkeys((folder.value.rstrip("/"), *command.hints))))

    def _hints(self) -> tuple[str, ...]:
        """The folders named earlier in the list's lead-in, the enclosing list items and the sentence."""
        return tuple(dict.fromkeys([*self.lead, *(f for _, fs in self.lists for f in fs), *self.sentence]))

    def _fenced(self, lines: list[str], index: int, fence: re.Match[str]) -> int:
        """Read a fenced block's commands; return the index after its closing fence."""
        marker, info = fence.group(2), fence.group(3).lower()
        shell = info in SHELL_LANGUAGES
        only_prompts = info in ("console", "shell-session", "shellsession") or not info
        index += 1
        pending: tuple[str, int, int] | None = None  # a command continued with a trailing backslash
        self.cwd = None
        while index < len(lines):
            line = lines[index]
            closing = _FENCE.match(line)
            self.left -= 1
            if closing and closing.group(2)[0] == marker[0] and len(closing.group(2)) >= len(marker) and not closing.group(3):
                self.cwd = None
                return index + 1
            if shell or not info:
                pending = self._shell_line(line, index + 1, only_prompts, pending)
            index += 1
        self.cwd = None
        return index

    def _shell_line(self, line: str, number: int, only_prompts: bool, pending: tuple[str, int, int] | None) -> tuple[str, int, int] | None:
        body = line.strip()
        column0 = len(line) - len(line.lstrip())
        if pending is not None:
            command, start_line, start_col = pending
            command = f"{command} {body.rstrip(chr(92)).strip()}".strip()
            if body.endswith("\\"):
                return command, start_line, start_col
            self._command(command, start_line, start_col, "shell")
            return None
        if body.startswith("$ "):
            column0 += 2
            body = body[2:].strip()
        elif only_prompts:
            return None
        if not body or body.startswith("#"):
            return None
        body = _strip_comment(body)
        if body.endswith("\\"):
            return body[:-1].strip(), number, column0
        self._command(body, number, column0, "shell")
        return None


def clean_path(token: str, link: bool = False) -> tuple[str | None, bool]:
    """The repository path a token names, and whether it was written with a leading slash; (None, _) when it is not one.

    Strips a Markdown link's `#anchor` and `?query`, a `:line` or `#L10-L20`
    suffix and a pytest `::node`; refuses URLs, home paths, globs, placeholders
    and anything that is not a plain relative path of path-like segments.
    """
    text = token.strip()
    if link:
        text = text.split("#", 1)[0].split("?", 1)[0]
        if not text:
            return None, False
    if "::" in text:
        head = text.split("::", 1)[0]
        if not head.endswith(".py"):
            return None, False  # Rust or C++ paths (`crate::module`), not files
        text = head
    text = _LINE_SUFFIX.sub("", text)
    if not text or _SCHEME.match(text) or text.startswith(("~", "//", "-", "@")) or "//" in text:
        return None, False
    if any(marker in text for marker in _PLACEHOLDER_MARKERS) or " " in text:
        return None, False
    rooted = text.startswith("/")
    body = text.lstrip("/") if rooted else text
    while body.startswith("./"):
        body = body[2:]
    segments = [s for s in body.split("/") if s]
    if not segments or body.startswith("/"):
        return None, False
    if any(s not in ("..",) and not _SEGMENT.match(s) for s in segments):
        return None, False
    if rooted and ".." in segments:
        return None, False
    if len(segments) > 1 and _domain(segments[0]):
        return None, False  # github.com/owner/repo, a Go module path
    if _placeholder_text(body) or _placeholder_path(segments) or (segments[0] == "refs" and len(segments) > 2 and segments[1] in _GIT_REF_KINDS):
        return None, False  # ... or a git ref (`refs/heads/main`)
    if len(segments) == 1 or (len(segments) == 2 and segments[0] == ".."):
        name = segments[-1]
        if not body.endswith("/") and not _file_name(name) and not (link and "." in name):
            return None, False
    elif not _plausible_multi(segments, body):
        return None, False
    normalized = "/".join(segments) + ("/" if body.endswith("/") else "")
    return normalized, rooted


def _domain(segment: str) -> bool:
    """`github.com`, `charm.land`: a host name, not a folder (`.github` and `v1.2` are folders)."""
    if _DOMAIN.match(segment.lower()):
        return True
    stem, dot, tld = segment.rpartition(".")
    return bool(dot) and bool(stem) and not stem.startswith(".") and tld.isalpha() and tld.islower() and tld not in FILE_EXTENSIONS


def _plausible_multi(segments: list[str], body: str) -> bool:
    """A path of several segments is read unless it looks like prose with a slash (`and/or`, `I/O`, `text/html`)."""
    if body.endswith("/") or _file_name(segments[-1]) or len(segments) >= 3:
        return True
    first, last = segments[0], segments[-1]
    if first.lower() in _PROSE_PAIRS or last.lower() in _PROSE_PAIRS:
        return False
    # Two bare words: an `owner/repo` slug, a MIME type, a git ref, a model name... unless it looks like code.
    return any(c in first for c in "_.") or (any(c in last for c in "_.") and not _VERSION.match(last))


_PROSE_PAIRS = frozenset(
    {"and", "or", "not", "yes", "no", "true", "false", "on", "off", "in", "out", "input", "output", "read", "write",
     "get", "set", "text", "application", "image", "audio", "video", "multipart", "origin", "upstream", "main",
     "master", "feat", "fix", "chore", "refactor", "docs", "client", "server", "async", "await", "sync", "i", "o",
     "n", "a", "tcp", "ip", "udp", "http", "https", "s", "ms", "sec", "min", "h"}
)


def _loose(token: str) -> bool:
    """Two plain words with a slash that are no prose pair and no placeholder: a folder here, or a repository."""
    if not _SLUG.match(token) or _placeholder_text(token):
        return False
    segments = token.split("/")
    return segments[0].lower() not in _PROSE_PAIRS and segments[1].lower() not in _PROSE_PAIRS and not _placeholder_path(segments)


def _placeholder_text(text: str) -> bool:
    """A path or a word that stands for something to fill in (`path/to/x`, `my_app`, `NNNN`, `NameHere`, `myagent.py`)."""
    return bool(_PLACEHOLDER_WORDS.search(text) or _PLACEHOLDER_SHAPES.search(text) or _EXAMPLE_NAMES.search(text))


def _placeholder_path(segments: list[str]) -> bool:
    lowered = [s.lower() for s in segments]
    if len(lowered) >= 2 and all(s in _PLACEHOLDER_SEGMENTS for s in lowered[:2]):
        return True
    return any(s in ("foo", "bar", "baz", "qux", "xxx", "path/to") or s.startswith(("foo.", "bar.")) for s in lowered)


def _file_name(name: str) -> bool:
    if name in KNOWN_NAMES:
        return True
    stem, dot, ext = name.rpartition(".")
    return bool(dot) and bool(stem.strip(".")) and ext.lower() in FILE_EXTENSIONS and not ext.isupper()


def _folderish(path: str) -> bool:
    """A path that names a folder (written with a trailing slash, or with no file extension)."""
    last = path.rstrip("/").rsplit("/", 1)[-1]
    return path.endswith("/") or not _file_name(last)


def _placeholder_word(word: str) -> bool:
    """A command word that stands for something to fill in: `<file>`, `$X`, `path/to/x`, `tests/path/test_foo.py`,
    or a path made only of generic words (`go test ./path`, `./dir/`, `../file`)."""
    if _PLACEHOLDER_ARGUMENT.search(word) or _placeholder_text(word):
        return True
    if "/" not in word:
        return False
    named = [s for s in word.split("/") if s not in ("", ".", "..")]
    if named and all(s.lower() in _GENERIC_SEGMENTS for s in named):
        return True
    return _placeholder_path(word.split("/")) or bool(_FOO_PART.search(word))


def _install(argv: list[str]) -> tuple[str, list[str]] | None:
    """(ecosystem, package names) when argv is an install command that names packages; None otherwise."""
    words = list(argv)
    while words and _ENV_ASSIGNMENT.match(words[0]):
        words.pop(0)
    for prefix, ecosystem in INSTALLERS:
        if tuple(words[: len(prefix)]) != prefix:
            continue
        rest = words[len(prefix):]
        if any(w in _NOT_A_PROJECT_INSTALL for w in rest):
            return ecosystem, []
        names: list[str] = []
        skip = False
        for word in rest:
            if skip:
                skip = False
                continue
            if word.startswith("-"):
                skip = word in _OPTION_VALUES
                continue
            name = _package_name(word, ecosystem)
            if name is None:
                return ecosystem, []  # a path, an archive or a URL among the names: not a claim to read
            if not (prefix in _PIP_INSTALLERS and name.lower() in _ENVIRONMENT_TOOLS):
                names.append(name)
        return ecosystem, names
    return None


_PYPI_NAME = later(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?\s*((?:[<>=!~]=?|===).*)?$")
_NPM_NAME = later(r"^((?:@[a-z0-9][\w.-]*/)?[a-z0-9][\w.-]*)(?:@.+)?$")
_CARGO_NAME = later(r"^([A-Za-z0-9][A-Za-z0-9_-]*)(?:@.+)?$")
_GO_NAME = later(r"^([a-z0-9.-]+\.[a-z]{2,}(?:/[\w.\-~]+)+?)(?:/\.\.\.)?(?:@.+)?$")


def _package_name(word: str, ecosystem: str) -> str | None:
    if "/" in word and ecosystem == "pypi" or word.startswith((".", "/", "~")) or "://" in word:
        return None
    pattern = {"pypi": _PYPI_NAME, "npm": _NPM_NAME, "cargo": _CARGO_NAME, "golang": _GO_NAME}[ecosystem]
    match = pattern.match(word)
    return match.group(1) if match else None


def _purl_name(name: str) -> str:
    return name.replace("@", "%40", 1) if name.startswith("@") else name


# Copilot's `applyTo`, Cursor's and Windsurf's `globs`, Claude Code's and Cline's rules' `paths`, Kiro steering's
# `fileMatchPattern`: one meaning, four names.
_APPLY_TO = later(r"^(?:applyTo|globs|paths|fileMatchPattern)\s*:\s*(.*)$")
_LIST_ITEM = later(r"^\s+-\s+(.*)$")


def apply_to(text: str) -> tuple[str, ...] | None:
    """The globs a memory file's front matter says it applies to (`"**/*.ts,**/*.tsx"`, a YAML list), under any
    of the names above; None when it names none (or names them empty, as a Cursor rule with `alwaysApply`
    does), so it applies to the whole repository."""
    lines = text.splitlines()
    end = _after_frontmatter(lines)
    for index in range(1, end - 1):
        match = _APPLY_TO.match(lines[index])
        if match is None:
            continue
        value = match.group(1).strip()
        items = [value.strip("[]")] if value else []
        for line in lines[index + 1 : end - 1] if not value else ():
            item = _LIST_ITEM.match(line)
            if item is None:
                break
            items.append(item.group(1))
        globs = tuple(g.strip().strip("\"'").strip() for item in items for g in item.split(","))
        return tuple(g for g in globs if g) or None
    return None


def _after_frontmatter(lines: list[str]) -> int:
    if not lines or lines[0].strip() != "---":
        return 0
    for index in range(1, len(lines)):
        if lines[index].strip() in ("---", "..."):
            return index + 1
    return 0


def _strip_comment(body: str) -> str:
    """A shell line without its trailing ` # comment` (a `#` inside quotes or a word is kept)."""
    match = re.search(r"\s#(?![^'\"]*['\"])", body)
    return body[: match.start()].rstrip() if match else body


class _Prose:
    """One line of prose with its code spans blanked (a `.` inside `a.b` does not end a sentence), and
    where its sentences end, worked out once per line. Blanking and searching again for every token
    made a line of 4,000 code spans take 13 s (quadratic); here each question is a bisection."""

    def __init__(self, line: str, spans: list[tuple[int, int]]) -> None:
        parts, at = [], 0
        for start, end in spans:  # in order and disjoint, as code_spans returns them
            parts += [line[at:start], " " * (end - start)]
            at = end
        self.text = "".join([*parts, line[at:]])
        self.span_starts, self.span_ends = [s for s, _ in spans], [e for _, e in spans]
        found = list(_SENTENCE_END.finditer(self.text))
        self.end_starts, self.end_ends = [m.start() for m in found], [m.end() for m in found]
        self._judged: dict[tuple[int, int], tuple[bool, bool]] = {}

    def in_code(self, offset: int) -> bool:
        at = bisect.bisect_right(self.span_starts, offset) - 1
        return at >= 0 and offset < self.span_ends[at]

    def ends_sentence(self, start: int, stop: int) -> bool:
        """Whether a sentence ends in `start:stop`, read as if the line stopped at `stop`."""
        at = bisect.bisect_left(self.end_starts, start)
        if at < len(self.end_starts) and self.end_ends[at] <= stop:
            return True
        return stop > start and self.text[stop - 1] in ".!?"  # the line read up to `stop` ends there

    def sentence_at(self, offset: int) -> tuple[bool, bool]:
        """Whether the sentence holding `offset` names what is gone, and what is generated."""
        before = bisect.bisect_right(self.end_ends, offset)
        start = self.end_ends[before - 1] if before else 0
        if offset and self.text[offset - 1] in ".!?":
            start = offset  # the line read up to `offset` ends a sentence there
        after = bisect.bisect_left(self.end_starts, offset)
        end = self.end_starts[after] if after < len(self.end_starts) else len(self.text)
        if (start, end) not in self._judged:
            sentence = self.text[start:end]
            self._judged[start, end] = (bool(_GONE.search(sentence)), bool(_GENERATED.search(sentence)))
        return self._judged[start, end]
