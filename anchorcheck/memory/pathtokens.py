"""Which tokens of a memory's text read as repository paths, and which are placeholders.

A memory names paths in inline code, links and commands; it also writes
`path/to/file`, `<name>`, `your-project`, `foo/bar`, URLs, routes and prose
with a slash (`and/or`, `text/html`). Only a token whose form is unambiguous is
read as a path: `clean_path` says which path it names, or that it names none.
The reader of references (`anchorcheck.memory.references`) asks it for every
token; these functions read text only, never the disk.
"""

from __future__ import annotations

import re

from anchorcheck.base.lazyregex import later

_LINE_SUFFIX = re.compile(r"(?::\d+(?:[:-]\d+)?|#L\d+(?:-L?\d+)?)$")
_SEGMENT = re.compile(r"^[A-Za-z0-9_@+][A-Za-z0-9_.@+\-]*$|^\.[A-Za-z0-9_][A-Za-z0-9_.\-]*$")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
_DOMAIN = re.compile(r"^[a-z0-9\-]+(\.[a-z0-9\-]+)*\.(com|org|net|io|dev|ai|app|co|sh|rs|so|gg|me|xyz|cloud|run|edu|gov|in|de|uk)$")
# `<crate>`, `<formatter crate>`, `{pkg}`, `[filename]`, `...` (but Go's `./...`), `$VAR`: the line is a template.
PLACEHOLDER_ARGUMENT = re.compile(r"<[^<>=]+>|\{[^{}]*\}|(?:^|\s)\[[\w -]+\](?:\s|$)|…|(?<!/)\.\.\.|\$")
_FOO_PART = later(r"(?:^|[/_.-])(?:foo|bar|baz|qux)(?:[/_.-]|$)", re.I)  # `test_foo.py`, `foo-bar/`: metasyntactic
_SLUG = later(r"^[A-Za-z0-9][\w-]*/[A-Za-z0-9][\w.-]*$")
# File extensions that make a bare name (no slash) a file name rather than a word or a dotted identifier.
FILE_EXTENSIONS = frozenset(
    """md mdc mdx markdown rst txt adoc py pyi pyx ipynb toml cfg ini json jsonc json5 yaml yml lock js mjs cjs ts mts
    cts tsx jsx vue svelte astro css scss sass less html htm xml svg rs go mod sum rb rake gemspec java kt kts gradle
    scala swift m mm c h cc cpp cxx c++ hpp hh hxx h++ ipp inl capnp cs fs php ex exs erl hrl hs ml sh bash zsh fish ps1 bat sql prisma graphql
    gql proto thrift tf tfvars hcl nix lua r jl dart zig wasm clj cljs cljc edn example template tmpl j2 jinja snap csv tsv
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
_GIT_REF_KINDS = frozenset({"heads", "tags", "remotes", "pull", "notes"})
# `3.x`, `v1.2`, `2.0.1`: a version, as in a branch (`release/3.x`); its dots are no sign of a file name.
_VERSION = later(r"^v?\d+(?:\.(?:\d+|x|X))+$")
_COMMIT_TYPES = frozenset({"feat", "fix", "chore", "refactor", "docs"})  # of _PROSE_PAIRS: branch prefixes, and folders
_PROSE_PAIRS = frozenset(
    {"and", "or", "not", "yes", "no", "true", "false", "on", "off", "in", "out", "input", "output", "read", "write",
     "get", "set", "text", "application", "image", "audio", "video", "multipart", "origin", "upstream", "main",
     "master", "feat", "fix", "chore", "refactor", "docs", "client", "server", "async", "await", "sync", "i", "o",
     "n", "a", "tcp", "ip", "udp", "http", "https", "s", "ms", "sec", "min", "h"}
)


def clean_path(token: str, link: bool = False, host: bool = False) -> tuple[str | None, bool]:
    """The repository path a token names, and whether it was written with a leading slash; (None, _) when it is not one.

    Strips a Markdown link's `#anchor` and `?query`, a `:line` or `#L10-L20`
    suffix and a pytest `::node`; refuses URLs, home paths, globs, placeholders
    and anything that is not a plain relative path of path-like segments. A first
    segment shaped like a host name (`github.com/owner/repo`) is refused too, unless
    `host`: then the caller keeps the path only where a folder of that name is.
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
    if len(segments) > 1 and _domain(segments[0]) and not host:
        return None, False  # github.com/owner/repo, a Go module path
    if _placeholder_text(body) or _placeholder_path(segments) or (segments[0] == "refs" and len(segments) > 2 and segments[1] in _GIT_REF_KINDS):
        return None, False  # ... or a git ref (`refs/heads/main`)
    # `./mvnw`: written relative to here, a path whatever its name; so is a link's target (`[sources](docs/sources)`)
    explicit = text.startswith("./") or link
    if len(segments) == 1 or (len(segments) == 2 and segments[0] == ".."):
        name = segments[-1]
        if not body.endswith("/") and not _file_name(name) and not (link and "." in name) and not explicit:
            return None, False
    elif not explicit and not _plausible_multi(segments, body):
        return None, False
    normalized = "/".join(segments) + ("/" if body.endswith("/") else "")
    return normalized, rooted


def host_rooted(token: str) -> bool:
    """`ai.symfony.com/config/x.json`: a path whose first segment is shaped like a host name, which may be a host
    (a URL without its scheme) or a folder named after the site it builds; the tree decides (`clean_path(host=True)`)."""
    first, slash, _ = token.lstrip("./").partition("/")
    return bool(slash) and _domain(first)


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


def loose_path(token: str) -> bool:
    """Two plain words with a slash that are no prose pair and no placeholder: a folder here, or a repository.
    A first word that is a folder as often as a commit type (`docs/zh`, `fix/x`) is no bar: such a token is read
    only where that folder is here, and checked against the tree and its history."""
    if not _SLUG.match(token) or _placeholder_text(token):
        return False
    segments = token.split("/")
    first = segments[0].lower()
    return (first not in _PROSE_PAIRS or first in _COMMIT_TYPES) and segments[1].lower() not in _PROSE_PAIRS and not _placeholder_path(segments)


def _placeholder_text(text: str) -> bool:
    """A path or a word that stands for something to fill in (`path/to/x`, `my_app`, `NNNN`, `NameHere`, `myagent.py`)."""
    return bool(_PLACEHOLDER_WORDS.search(text) or _PLACEHOLDER_SHAPES.search(text) or _EXAMPLE_NAMES.search(text))


def _placeholder_path(segments: list[str]) -> bool:
    lowered = [s.lower() for s in segments]
    if len(lowered) >= 2 and all(s in _PLACEHOLDER_SEGMENTS for s in lowered[:2]):
        return True
    return any(s in ("foo", "bar", "baz", "qux", "xxx", "path/to") or s.startswith(("foo.", "bar.")) for s in lowered)


def _file_name(name: str) -> bool:
    if name in KNOWN_NAMES or _dot_name(name):
        return True
    stem, dot, ext = name.rpartition(".")
    return bool(dot) and bool(stem.strip(".")) and ext.lower() in FILE_EXTENSIONS and not ext.isupper()


def _dot_name(name: str) -> bool:
    """`.node-version`, `.changeset`: a name that starts with a dot is the shape of a file or folder name (hidden by
    convention), unless it is only an extension (`.py`, "files ending in `.tsx`"). Whether it is one here is then for
    the tree and its history to say."""
    return name.startswith(".") and bool(_SEGMENT.match(name)) and name[1:2].isalnum() and name[1:].lower() not in FILE_EXTENSIONS


def program_path(word: str) -> str | None:
    """The file a command's program names when it is written as a path (`./mvnw`, `./scripts/gen.py`,
    `bin/dev`): the shell runs that file of the checkout, whatever its name; None for anything else."""
    if "/" not in word or word.startswith(("/", "~")) or word.endswith("/") or placeholder_word(word):
        return None
    path, _ = clean_path(word if word.startswith(("./", "../")) else f"./{word}")
    return path


def folderish(path: str) -> bool:
    """A path that names a folder (written with a trailing slash, or with no file extension)."""
    last = path.rstrip("/").rsplit("/", 1)[-1]
    return path.endswith("/") or not _file_name(last)


def placeholder_word(word: str) -> bool:
    """A command word that stands for something to fill in: `<file>`, `$X`, `path/to/x`, `tests/path/test_foo.py`,
    or a path made only of generic words (`go test ./path`, `./dir/`, `../file`)."""
    if PLACEHOLDER_ARGUMENT.search(word) or _placeholder_text(word):
        return True
    if "/" not in word:
        return False
    named = [s for s in word.split("/") if s not in ("", ".", "..")]
    if named and all(s.lower() in _GENERIC_SEGMENTS for s in named):
        return True
    return _placeholder_path(word.split("/")) or bool(_FOO_PART.search(word))


# A name shaped like a file's, with an extension no list holds (`Directory.Packages.props`, `gradle.properties`,
# `Orleans.sln`): lower-case letters after the last dot. Also the shape of a dotted identifier (`console.log`), so it is
# read only on evidence: a file of that name where the text is read from, or history's word that one was there.
_DOTTED_NAME = later(r"^[A-Za-z0-9_][\w-]*(?:\.[\w-]+)*\.[a-z][a-z0-9]{1,11}$")
# Segments joined by `\`, as Windows writes paths (`src\Orleans.Core`, `.\Build.cmd`, `test\testconfig.json`); each a
# plain name of two characters or more, so `\n`, `\d+`, `\\`, `C:\x` and regular expressions are not one.
_BACKSLASH_PATH = later(r"^(?:\.\\[A-Za-z0-9_.@-]{2,}(?:\\[A-Za-z0-9_.@-]{2,})*|[A-Za-z0-9_.@-]{2,}(?:\\[A-Za-z0-9_.@-]{2,})+)\\?$")


def dotted_name(token: str) -> bool:
    """A bare name with a dot and an extension of lower-case letters that no list names (`Directory.Build.targets`):
    maybe a file at the root, maybe a dotted identifier. The reader marks it `loose`, read only on evidence."""
    return bool(_DOTTED_NAME.match(token)) and not _VERSION.match(token) and not _placeholder_text(token) and not _file_name(token)


def backslash_path(token: str) -> str | None:
    """The `/` path a path written with backslashes names (`src\\Orleans.Core` → `src/Orleans.Core`); None for
    anything else: escapes (`\\n`), regular expressions (`\\d+`), drive letters (`C:\\x`), a `\\\\` share."""
    if not _BACKSLASH_PATH.match(token) or token.startswith("\\"):
        return None
    slashed = token.replace("\\", "/")
    path, _ = clean_path(slashed)
    return path if path is not None else slashed if loose_path(slashed.rstrip("/")) else None
