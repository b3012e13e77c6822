"""What every runner needs: results for one call, safe reads of its configuration, lines of definitions.

Runners read their configuration through the Repository only (it refuses
paths that leave the root) and never execute anything. A configuration that
cannot be read becomes a ConfigError naming the file and line, which the
runner turns into an INCONCLUSIVE result.
"""

from __future__ import annotations

import json
import posixpath
import re
import tomllib
from collections.abc import Container, Iterable, Iterator

from anchorcheck import AnchorResult, Ecosystem, Evidence, Invocation, Verdict
from anchorcheck.plugin import (
    LimitError,
    json_loads,
    toml_loads,
    Context,
    Wildcard,
    later,
    LOCKED,
    Declaration,
    PackageIndex,
    FileTooLargeError,
    UnsafePathError,
    looks_binary,
)

CONFIG_LIMIT = 4 * 1024 * 1024  # a runner configuration larger than this is not one a person wrote
_DYNAMIC = frozenset("$`*?[{")


class ConfigError(Exception):
    """A runner configuration that cannot be used as evidence: unreadable, too large, not its format."""

    def __init__(self, path: str, message: str, line: int | None = None) -> None:
        self.path, self.message, self.line = path, message, line
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {message}")


STEP_BUDGET = 20_000  # rules tried, includes read, aliases expanded for one answer: real configurations use hundreds
_PACE = 64  # steps between two looks at the deadline


class Steps:
    """The work budget of resolving one runner configuration: each unit of work (a pattern rule tried,
    an include read, an alias expanded) is counted, and the Context's deadline is looked at as it goes.

    A few hundred bytes of Makefile pattern rules, self-including Taskfiles or cargo aliases describe
    exponentially many steps, so the input's size bounds nothing: past the budget the configuration
    is a ConfigError naming the file (INCONCLUSIVE), and past the deadline BudgetExceeded says which
    file was being read.
    """

    __slots__ = ("context", "path", "limit", "spent", "_look")

    def __init__(self, context: Context, path: str, limit: int | None = None) -> None:
        self.context, self.path, self.limit = context, path, STEP_BUDGET if limit is None else limit
        self.spent, self._look = 0, _PACE

    def __call__(self, count: int = 1) -> None:
        """Spend `count` steps; ConfigError past the budget, BudgetExceeded past the deadline."""
        self.spent += count
        if self.spent > self.limit:
            raise ConfigError(self.path, f"resolving it takes more than {self.limit:,} steps (a rule, include or alias "
                                         "bomb?); anchorcheck stops there")
        if self.spent >= self._look:
            self._look = self.spent + _PACE
            self.context.check_deadline(f"while resolving {self.path}")




def verified(invocation: Invocation, reason: str, evidence: Iterable[Evidence] = ()) -> AnchorResult:
    return AnchorResult(invocation.text, Verdict.VERIFIED, reason, list(evidence), state="defined")


def refuted(invocation: Invocation, reason: str, evidence: Iterable[Evidence] = ()) -> AnchorResult:
    return AnchorResult(invocation.text, Verdict.REFUTED, reason, list(evidence), state="undefined")


def not_there(invocation: Invocation, reason: str, path: str) -> AnchorResult:
    """REFUTED: the call needs a file or folder (`path`, a folder ending in `/`) that is not here. The core asks
    history of `missing_path` for a command read from prose: one that never was there is an example, not stale."""
    result = refuted(invocation, reason)
    result.details["missing_path"] = path
    return result


def no_config(invocation: Invocation, reason: str, cwd: str, names: Iterable[str], *, above: bool = True) -> AnchorResult:
    """REFUTED: no configuration of these names in `cwd` (or above it, for a tool that looks upward), so the call has
    nothing to run. For a command read from prose the core asks history of every place one was looked for
    (`missing_path`, a list): one was there and is gone → stale; none ever was → not this checkout's command (an
    example, another project's, a submodule's)."""
    result = refuted(invocation, reason)
    names = list(names)
    result.details["missing_path"] = [in_dir(folder, name) for folder in (upward(cwd) if above else [cwd]) for name in names]
    return result


def unknown(invocation: Invocation, reason: str, evidence: Iterable[Evidence] = ()) -> AnchorResult:
    return AnchorResult(invocation.text, Verdict.INCONCLUSIVE, reason, list(evidence), state="unknown")


def unusable(invocation: Invocation, error: ConfigError) -> AnchorResult:
    """A configuration that cannot be read: INCONCLUSIVE with the file and line."""
    return AnchorResult(
        invocation.text, Verdict.INCONCLUSIVE, f"{error}", [Evidence(error.path, error.line, error.message)], state="unparsed"
    )


def read_text(context: Context, path: str) -> str:
    """A configuration file's text (UTF-8, a BOM tolerated); ConfigError when it cannot be read as text."""
    try:
        data = context.repo.read_bytes(path, limit=CONFIG_LIMIT)
    except FileTooLargeError as exc:
        raise ConfigError(path, f"too large to read ({exc.size} bytes)") from None
    except UnsafePathError as exc:
        raise ConfigError(path, f"refused: {exc.why}") from None
    except OSError as exc:
        raise ConfigError(path, f"cannot read: {exc.strerror or exc}") from None
    if looks_binary(data):
        raise ConfigError(path, "a binary file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(path, "not valid UTF-8", data[: exc.start].count(b"\n") + 1) from None


def is_file(context: Context, path: str) -> bool:
    """Whether a regular file is there; a refused path (outside the root) is not."""
    try:
        return context.repo.is_file(path)
    except UnsafePathError:
        return False


def is_dir(context: Context, path: str) -> bool:
    try:
        return context.repo.is_dir(path)
    except UnsafePathError:
        return False


def named_file(
    context: Context, invocation: Invocation, folder: str, written: str, what: str, *, inside: Iterable[str] = ()
) -> str | AnchorResult:
    """The file a command names with an option (`just -f FILE`, `compose -f`, `nox -f`, `task -t`, `tox -c`),
    written from `folder`: its repository path when it is a file here. INCONCLUSIVE when it leaves the repository
    or the shell computes it, or `-` reads it from standard input (nothing is known of it); REFUTED `not_there` when it is missing, so the core asks
    history whether it went (stale) or never was (an example). `inside`: the names the tool looks for when the
    path is a folder (`task -t DIR`), missing ones asked of history as `no_config` is."""
    if written == "-":
        return unknown(invocation, f"the {what} is read from standard input")
    path = join(folder, written)
    if path is None or dynamic(written):
        return unknown(invocation, f"the {what} {written} is outside the repository or computed")
    names = list(inside)
    if names and is_dir(context, path):
        found = next((in_dir(path, name) for name in names if is_file(context, in_dir(path, name))), None)
        return found if found is not None else no_config(invocation, f"no {what} in {path}/", path, names, above=False)
    if not is_file(context, path):
        return not_there(invocation, f"the {what} {path} does not exist", path)
    return path


def missing_wrapper(invocation: Invocation, context: Context) -> AnchorResult | None:
    """A build tool's wrapper written as a path (`./gradlew`, `java/mvnw`) is a file of the checkout: REFUTED with
    `missing_path` when it is not there (the core asks history), INCONCLUSIVE outside the repository, None when it
    is there or the program is called by name."""
    if "/" not in invocation.program:
        return None
    wrapper = join(invocation.cwd, invocation.program)
    if wrapper is None:
        return unknown(invocation, f"{invocation.program} is outside the repository")
    if is_file(context, wrapper):
        return None
    missing = refuted(invocation, f"{wrapper} does not exist in the repository")
    missing.state, missing.details = "missing", {**missing.details, "missing_path": wrapper}
    return missing


def no_folder(invocation: Invocation, context: Context, tool: str, folder: str) -> AnchorResult | None:
    """REFUTED when an option sends a call into a folder the repository does not have (`pnpm -C web`,
    `npm --prefix web`, `uv --directory web` after web/ went away): answered from the root instead, it
    would be a false VERIFIED. An ignored folder (a build output) says nothing: INCONCLUSIVE. None when
    the folder is there."""
    if folder in (".", "") or is_dir(context, folder):
        return None
    ignored = context.repo.ignored_because(folder)
    if ignored:
        return unknown(invocation, f"{tool} is told to run in {folder}/, which does not exist but is {ignored}")
    return not_there(invocation, f"{tool} is told to run in {folder}/, and there is no such folder in the repository", folder + "/")


def join(cwd: str, path: str) -> str | None:
    """`path` written from `cwd`, as a repo-relative path; None when it leaves the repository or is absolute."""
    if path.startswith(("/", "~")):
        return None
    joined = posixpath.normpath(posixpath.join(cwd, path))
    if joined == ".." or joined.startswith("../"):
        return None
    return joined


def upward(cwd: str) -> Iterator[str]:
    """`cwd` and each folder above it up to the root (`.`)."""
    here = posixpath.normpath(cwd)
    while True:
        yield here
        if here in (".", ""):
            return
        here = posixpath.dirname(here) or "."


def nearest(context: Context, cwd: str, names: Iterable[str]) -> str | None:
    """The first of `names` found in `cwd` or a folder above it, as a runner looks for its configuration."""
    wanted = tuple(names)
    for folder in upward(cwd):
        for name in wanted:
            path = name if folder == "." else f"{folder}/{name}"
            if is_file(context, path):
                return path
    return None


def in_dir(folder: str, name: str) -> str:
    """`folder/name`, or `name` at the root."""
    return name if folder in (".", "") else f"{folder}/{name}"


def dynamic(word: str) -> bool:
    """A word the shell would expand (`$VAR`, a glob, a brace list): its value is not known statically."""
    return bool(_DYNAMIC & set(word))


def option(word: str, words: list[str], takes_value: Container[str]) -> tuple[str, str]:
    """An option word's name and value: `--name=value`, or `--name value` when the option takes one
    (the next word is then consumed from `words`). Every runner's command line spells options so."""
    name, eq, value = word.partition("=")
    if name in takes_value and not eq:
        value = words.pop(0) if words else ""
    return name, value


def arguments(args: Iterable[str], takes_value: Container[str]) -> Iterator[tuple[str, str]]:
    """Each word of a command line as `(name, value)` for an option (`option`), or `("", word)` for a word that is
    none (a task, a goal, a phase): the one walk over a build tool's words."""
    words = list(args)
    while words:
        word = words.pop(0)
        yield option(word, words, takes_value) if word.startswith("-") else ("", word)


def line_at(text: str, offset: int) -> int:
    """The 1-based line of a character offset."""
    return text.count("\n", 0, offset) + 1


def line_of(text: str, pattern: str, start: int = 0) -> int | None:
    """The 1-based line of the first match of a regular expression (multiline mode) at or after `start`.

    A pattern indents with blanks, `^[ \\t]*`, never `^\\s*`: that runs on over the empty lines below each
    line start, which makes the search quadratic (a configuration of blank lines took minutes) and the
    match start on a blank line above the one meant."""
    match = re.compile(pattern, re.MULTILINE).search(text, start)
    return line_at(text, match.start()) if match else None


def yaml_key_line(text: str, key: str, section: str) -> int | None:
    """The line of an indented YAML key `key:` after the first `section` line (`tasks:`, `services:`).
    Asked for the key an answer names, not for each key read: a search per key is quadratic in a
    file of many keys."""
    return line_of(text, rf"^[ \t]+[\"']?{re.escape(key)}[\"']?\s*:(?:\s|$)", max(text.find(section), 0))


def listed(names: Iterable[str], most: int = 8) -> str:
    """A few names for a reason sentence: `build, lint, test and 4 more`."""
    items = sorted(set(names))
    if not items:
        return "none"
    shown = ", ".join(items[:most])
    return shown + (f" and {len(items) - most} more" if len(items) > most else "")


def parse_json(path: str, text: str) -> object:
    """JSON data, or ConfigError at the line of the syntax error."""
    try:
        return json_loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(path, f"invalid JSON: {exc.msg}", exc.lineno) from None
    except LimitError as exc:  # nested too deeply, an integer of thousands of digits
        raise ConfigError(path, f"invalid JSON: {exc.message}", exc.line) from None


def parse_toml(path: str, text: str) -> dict[str, object]:
    """TOML data, or ConfigError at the line of the syntax error."""
    try:
        return toml_loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"at line (\d+)", str(exc))
        raise ConfigError(path, f"invalid TOML: {str(exc).split(' (at')[0]}", int(found.group(1)) if found else None) from None
    except LimitError as exc:  # nested too deeply, a number too long, a dotted-key bomb
        raise ConfigError(path, f"invalid TOML: {exc.message}", exc.line) from None


def parse_yaml(path: str, text: str) -> object:
    """YAML data (safe loader), or ConfigError at the line of the syntax error.

    Aliases stay shared nodes, never expanded: runners look at the keys of a
    few mappings (services, tasks, workspace globs) and never walk the whole
    document, so an alias bomb costs nothing here.
    """
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        return yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise ConfigError(path, f"invalid YAML: {exc.problem or exc.context}", mark.line + 1 if mark else None) from None
    except (yaml.YAMLError, RecursionError) as exc:
        raise ConfigError(path, f"invalid YAML: {exc}") from None


def glob_regex(pattern: str) -> Wildcard:
    """A workspace glob, matched with `.fullmatch(path)`: `*` within a folder name, `**` across folders.
    Matched in linear time (`anchorcheck.base.globs.Wildcard`), since both the glob and the paths are untrusted."""
    return Wildcard(pattern.rstrip("/") if pattern.rstrip("/") else pattern)


def package_index(context: Context, ecosystem: str) -> tuple[Ecosystem, PackageIndex] | None:
    """What the project declares and locks in an ecosystem, as the `pkg:` kind reads it (the registered
    ecosystem's public `read`), once per Verifier; None when no plugin registers that ecosystem."""
    registered = context.registry.ecosystems.get(ecosystem)
    if registered is None:
        return None
    return registered, context.memo(("cmd-package-index", ecosystem), lambda: registered.read(context, None))


def declared(context: Context, ecosystem: str, names: Iterable[str], member: str | None = None) -> Declaration | None:
    """The first declaration (declared before locked-only) of any of these package names; with `member`
    (a workspace member's folder, "" for the root), that member's own declaration comes first: it is
    what a command run there installs, and the evidence a person looks for."""
    found = package_index(context, ecosystem)
    if found is None:
        return None
    registered, index = found
    for name in names:
        matches = index.find(registered.normalize(name))
        if member is not None:
            matches = sorted(matches, key=lambda d: (d.relation == LOCKED, d.member != member))
        if matches:
            return matches[0]
    return None


_JSONC_TOKEN = later(r'"(?:[^"\\]|\\.)*"|//[^\n]*|/\*.*?\*/|,(?=\s*[}\]])', re.DOTALL)


def parse_jsonc(path: str, text: str) -> object:
    """JSON with comments and trailing commas (turbo.json, tsconfig.json): both are blanked, keeping lines, then parsed."""

    def blank(match: re.Match[str]) -> str:
        token = match.group()
        return token if token.startswith('"') else re.sub(r"[^\n]", " ", token)

    return parse_json(path, _JSONC_TOKEN.sub(blank, text))


def searched(cwd: str) -> str:
    """Where a runner looked for its configuration, for a reason sentence: `the repository root`, `web/ or above`."""
    return "the repository root" if cwd in (".", "") else f"{cwd}/ or above"


def elsewhere(context: Context, names: Iterable[str], most: int = 3) -> str:
    """`; there is one in web/` when files of these names exist in other folders: a hint for the person
    fixing the command (it may need `cd web &&`), not evidence."""
    found = sorted({posixpath.dirname(p) or "." for p in context.repo.files(named=list(names))})
    if not found:
        return ""
    shown = ", ".join(f + "/" if f != "." else "the root" for f in found[:most])
    return f"; there is one in {shown}" + (" and more" if len(found) > most else "")
