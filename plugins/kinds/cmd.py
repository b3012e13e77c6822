"""`cmd:COMMAND LINE` — the repository defines the command a memory says to run (it is never run).

The command line is split with shlex, as a POSIX shell would split it, and
nothing else: no expansion, no execution. `cd DIR &&`, `FOO=1` environment
prefixes, wrappers such as `env` or `time`, `&&`/`||`/`;`/`|` chains,
subshell parentheses, redirections and a leading `$ ` prompt are understood;
every call of a program that a registered runner claims (`pnpm`, `make`,
`cargo`...) is checked by that runner against its configuration. Any call
REFUTED makes the anchor REFUTED; all VERIFIED make it VERIFIED; anything
else (a runner that cannot tell, a directory that an earlier call may have
created) is INCONCLUSIVE. Calls of programs no runner claims (`git`, `ls`),
and calls a runner answers with the state "unread" (`docker run`: the
compose runner reads only `docker compose`), are not claims about the
repository and are skipped; a line with no call a
runner claims is INCONCLUSIVE.

`in:DIR` names the directory the command runs from (a memory file's folder
for a nested AGENTS.md: `cmd:pnpm test in:web/`); a file there means its
folder.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from typing import NamedTuple

from anchorcheck import AnchorKind, AnchorResult, Evidence, Invocation, Verdict, hookimpl
from anchorcheck.plugin import LEAVES_CHECKOUT, Anchor, AnchorSyntaxError, BudgetExceeded, Context, UnsafePathError

MAX_NESTING = 8  # launchers within launchers (`npx uv run tox`) followed at most this deep
UNREAD = "unread"  # the state of a result that is no claim about the repository
_SEPARATORS = frozenset({"&&", "||", ";", "|", "&", "|&", ";;", "\n"})
_WRAPPERS = frozenset({"time", "command", "exec", "nohup", "sudo", "builtin"})
# `<file>` is a placeholder, not a redirection; a lone `...` or `…` stands for more arguments
_PLACEHOLDER = re.compile(r"<([A-Za-z][\w .:/@-]*)>|(?<!\S)(?:\.\.\.|…)(?!\S)")
_PROMPTS = ("$", "%", ">")  # a shell prompt before the command, followed by a space


class Call(NamedTuple):
    """One simple command of the line: its words after environment prefixes and wrappers."""

    words: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()
    depth: int = 0

    @property
    def text(self) -> str:
        return shlex.join(self.words)


class CommandLine(NamedTuple):
    """A parsed `cmd:` value: the calls in order (a subshell's calls one level deeper)."""

    calls: tuple[Call, ...] = ()


def parse_cmd(value: str) -> CommandLine:
    """Split a command line into calls; raises AnchorSyntaxError for unbalanced quotes or an empty line."""
    text = value.strip()
    if text[:1] in _PROMPTS and text[1:2] in ("", " "):
        text = text[1:].lstrip()
    lexer = shlex.shlex(_PLACEHOLDER.sub(_as_variable, _without_comment(text)), posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = ""  # `#` starts a comment only at the start of a word: `turbo run web#build`
    try:
        tokens = list(lexer)
    except ValueError as exc:
        raise AnchorSyntaxError(f"cannot split the command line: {exc}", column=1) from None
    calls: list[Call] = []
    words: list[str] = []
    depth = 0
    skip_next = False

    def flush() -> None:
        if words:
            calls.append(_call(words, depth))
            words.clear()

    for token in tokens:
        if skip_next:
            skip_next = False
            continue
        if token in _SEPARATORS:
            flush()
        elif token in ("(", ")"):
            flush()
            depth = max(0, depth + (1 if token == "(" else -1))
        elif "<" in token or ">" in token:
            # a redirection (`> out`, `2>&1`, `&> log`): its file descriptor and target are not arguments
            if words and words[-1].isdigit():
                words.pop()
            skip_next = True
        elif set(token) <= set("&|;"):
            flush()
        else:
            words.append(token)
    flush()
    if not any(call.words for call in calls):
        raise AnchorSyntaxError("expected a command line", column=1)
    return CommandLine(tuple(calls))


def _without_comment(text: str) -> str:
    """The line up to an unquoted `#` that starts a word (the shell's comment), which may hold any quote."""
    quote = ""
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\" and quote != "'":
            index += 2  # an escaped character, inside double quotes or outside any
            continue
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or text[index - 1].isspace() or text[index - 1] in ";&|()"):
            return text[:index]
        index += 1
    return text


def _as_variable(match: re.Match[str]) -> str:
    """A placeholder (`<file>`, `<directory changed in PR>`, `...`) as the variable a runner treats as unknown."""
    name = re.sub(r"\W+", "_", match.group(1) or "placeholder").strip("_") or "placeholder"
    return "${" + name + "}"


def _call(words: list[str], depth: int) -> Call:
    """Take environment prefixes (`FOO=1`) and wrappers (`env`, `time`, `sudo`) off a simple command."""
    env: list[tuple[str, str]] = []
    rest = list(words)
    while rest:
        head = rest[0]
        name, eq, val = head.partition("=")
        if eq and name.isidentifier():
            env.append((name, val))
            rest.pop(0)
        elif head == "env" or head in _WRAPPERS:
            rest.pop(0)
            while rest and rest[0].startswith("-"):
                option = rest.pop(0)
                if head == "env" and option in ("-u", "--unset", "-C", "--chdir") and rest:
                    rest.pop(0)
        else:
            break
    return Call(tuple(rest), tuple(env), depth)


def verify_cmd(anchor: Anchor, context: Context) -> AnchorResult:
    shown = str(anchor)
    line: CommandLine = anchor.detail if anchor.detail is not None else parse_cmd(anchor.value)
    start = _start_dir(anchor.scope, context)
    if isinstance(start, AnchorResult):
        return AnchorResult(shown, start.verdict, start.reason)
    dispatch = _dispatcher(context)
    results: list[tuple[str, AnchorResult]] = []
    skipped: list[str] = []
    # The folder at each subshell depth, outermost first: a stack, so that a line of 20,000 nested `$(`
    # costs 20,000 steps, not a scan of every depth at every call.
    cwd_at: list[str | None] = [start]
    earlier = False  # an earlier call may have created what a later `cd` enters
    for call in line.calls:
        del cwd_at[call.depth + 1 :]
        cwd_at.extend([cwd_at[-1]] * (call.depth + 1 - len(cwd_at)))
        cwd = cwd_at[call.depth]
        if not call.words:
            continue
        program, args = call.words[0], call.words[1:]
        if program in ("cd", "pushd"):
            moved = _cd(cwd, args, context, earlier, call.text)
            if isinstance(moved, AnchorResult):
                results.append((call.text, moved))
                moved = None
            cwd_at[call.depth] = moved
            continue
        earlier = True
        if context.registry.runner_for(program) is None:
            skipped.append(program)
            continue
        if cwd is None:
            results.append((call.text, AnchorResult(call.text, Verdict.INCONCLUSIVE, "runs in a directory anchorcheck cannot tell")))
            continue
        invocation = Invocation(program, tuple(args), cwd, dict(call.env), call.text, dispatch)
        result = dispatch(invocation)
        if result.state == UNREAD:  # the runner reads this program, but not this use of it (`docker run`)
            skipped.append(program)
        else:
            results.append((call.text, result))
    return _combine(shown, results, skipped)


def _start_dir(scope: str | None, context: Context) -> str | AnchorResult:
    """The directory the command runs from: the root, or the `in:` folder (a file there: its folder)."""
    if scope is None:
        return "."
    if set("*?[") & set(scope):
        return AnchorResult("", Verdict.INCONCLUSIVE, f"in:{scope} is a glob; a command runs from one folder")
    clean = scope.strip("/") or "."
    if context.repo.is_dir(clean):
        return clean
    if context.repo.is_file(clean):
        return posixpath.dirname(clean) or "."
    return AnchorResult("", Verdict.INCONCLUSIVE, f"in:{scope} does not exist, so the folder the command runs from is unknown")


def _cd(cwd: str | None, args: tuple[str, ...], context: Context, earlier: bool, text: str) -> str | None | AnchorResult:
    """The directory after `cd ARGS`: None when it cannot be told, a REFUTED result when it is not there (history
    then tells a folder that was deleted from one that never was)."""
    targets = [a for a in args if not a.startswith("-") or a == "-"]
    if cwd is None or len(targets) != 1:
        return None
    target = targets[0]
    if target.startswith(("/", "~", "-")) or set("$`*?[{") & set(target):
        return None
    joined = posixpath.normpath(posixpath.join(cwd, target))
    if joined == ".." or joined.startswith("../"):
        where = f"{cwd}/" if cwd != "." else "the root"
        return AnchorResult(text, Verdict.INCONCLUSIVE, f"leaves the repository from {where}", state=LEAVES_CHECKOUT)
    if context.repo.is_dir(joined):
        return joined
    if earlier or context.repo.exists(joined) or context.repo.ignored_because(joined) or context.repo.not_checked_out(joined):
        return None  # an earlier call (a build, a clone) may create it, it is generated, or not checked out here
    # The core asks git's history whether the folder was there once (`missing_path`): gone is stale, never is an example.
    return AnchorResult(text, Verdict.REFUTED, f"{joined}/ does not exist in the repository", state="missing", details={"missing_path": f"{joined}/"})


def _dispatcher(context: Context):  # noqa: ANN202 - a closure over the context
    def dispatch(invocation: Invocation) -> AnchorResult:
        runner = context.registry.runner_for(invocation.program)
        if runner is None:
            return AnchorResult(
                invocation.text, Verdict.INCONCLUSIVE, f"{invocation.program} is not a runner anchorcheck reads"
            )
        if invocation.depth > MAX_NESTING:
            return AnchorResult(invocation.text, Verdict.INCONCLUSIVE, f"calls nested more than {MAX_NESTING} deep (`uv run uv run ...`)")
        context.check_deadline()
        try:
            result = runner.verify(invocation, context)
        except (BudgetExceeded, UnsafePathError):
            raise  # the core reports these for the whole anchor
        except Exception as exc:  # a runner's bug costs this call, named after the plugin that registered it
            return AnchorResult(
                invocation.text, Verdict.INCONCLUSIVE, f"runner {runner.name} ({runner.plugin}) failed: {type(exc).__name__}: {exc}",
                state="error", plugin=runner.plugin,
            )
        if result.plugin is None:
            result.plugin = runner.plugin
        if result.verdict is Verdict.REFUTED:
            return _not_here(invocation, context) or result
        return result

    return dispatch


def _not_here(invocation: Invocation, context: Context) -> AnchorResult | None:
    """A refutation that may only say a folder or file is not on disk here: the call runs in, or names, a
    submodule that is not checked out or what a sparse checkout left out (its configuration may be there)."""
    places = [invocation.cwd]
    for word in invocation.args:
        value = word.partition("=")[2] if word.startswith("-") else word
        if value and not set("$`*?[{~") & set(value) and not value.startswith("/"):  # `-C sub`, `sub/run.py`
            places.append(posixpath.normpath(posixpath.join(invocation.cwd, value)))
    for place in places:
        if place in (".", "") or place == ".." or place.startswith("../"):
            continue
        why = context.repo.not_checked_out(place)
        if why is not None:
            return AnchorResult(invocation.text, Verdict.INCONCLUSIVE, f"{place} is {why}", state="not-checked-out")
    return None


def _combine(shown: str, results: list[tuple[str, AnchorResult]], skipped: list[str]) -> AnchorResult:
    if not results:
        programs = ", ".join(dict.fromkeys(skipped)) or "nothing"
        return AnchorResult(shown, Verdict.INCONCLUSIVE, f"{programs}: not a runner anchorcheck reads", state=UNREAD)
    evidence: list[Evidence] = [e for _, r in results for e in r.evidence]
    if len(results) == 1:
        _, only = results[0]
        return AnchorResult(shown, only.verdict, only.reason, evidence, only.state, only.details, only.plugin)
    for verdict in (Verdict.REFUTED, Verdict.INCONCLUSIVE):
        picked = [(text, r) for text, r in results if r.verdict is verdict]
        if picked:
            reason = "; ".join(f"`{text}`: {r.reason}" for text, r in picked)
            details = picked[0][1].details if len(picked) == 1 else {}  # what history is asked about is that one call's
            return AnchorResult(shown, verdict, reason, evidence, picked[0][1].state, details, picked[0][1].plugin)
    reason = "; ".join(f"`{text}`: {r.reason}" for text, r in results)
    return AnchorResult(shown, Verdict.VERIFIED, reason, evidence, results[0][1].state, plugin=results[0][1].plugin)


@hookimpl
def register_anchor_kinds(register):  # noqa: ANN001, ANN201 - hook signature
    register(
        AnchorKind(
            prefix="cmd",
            verify=verify_cmd,
            parse=parse_cmd,
            scoped=True,
            spaced=True,
            summary="the repository's runner configuration defines the command (package.json scripts, make targets, ...)",
            example="cmd:pnpm run build",
        )
    )
