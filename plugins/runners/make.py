"""`make [TARGET...]`: the targets of the Makefile (GNUmakefile, makefile, Makefile) and the files it includes.

Rules are read statically: `include`d files are followed (a missing or
computed include makes absence unknown), `define` blocks and recipe lines
are skipped, conditionals count both branches. A `$(eval $(call NAME,ARGS))`
of a template defined above with literal arguments is read as the rules it
expands to (elixir's `APP_TEMPLATE`, one `test_APP` target per call). A target defined explicitly
is VERIFIED with its line. A pattern rule whose prerequisites could exist
(`%: common-%` with a `common-X` target), a computed target (`$(NAME)-bin:`),
any other top-level `$(eval ...)`, `--eval`, a file the built-in implicit rules
could compile, or an existing file of that name makes a missing target
INCONCLUSIVE; otherwise it is REFUTED. `-C DIR`, `-f FILE` and `VAR=value`
arguments are understood.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from anchorcheck import AnchorResult, Evidence, Invocation, Runner, hookimpl
from anchorcheck.plugin import NOT_IN_CONFIG, Context, Wildcard
from anchorcheck_plugins.runners._support import (
    ConfigError,
    Steps,
    dynamic,
    elsewhere,
    in_dir,
    is_file,
    join,
    listed,
    no_config,
    no_folder,
    not_there,
    option,
    read_text,
    refuted,
    unknown,
    unusable,
    verified,
)

MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
_VALUE_OPTIONS = {"-f", "--file", "--makefile", "-C", "--directory", "-I", "--include-dir", "-o", "--old-file",
                  "--assume-old", "-W", "--what-if", "--new-file", "--assume-new", "-l", "--load-average", "--eval",
                  "-O", "--output-sync", "--jobserver-style"}
_ASSIGNMENT = re.compile(r"^\s*(?:(?:export|override|private)\s+)*(?P<name>[^\s:#=]+)\s*(?P<op>::?=|:::=|\?=|\+=|!=|=)(?P<value>.*)$")
_REFERENCE = re.compile(r"\$[({]([A-Za-z0-9_.-]+)[)}]")
_RULE = re.compile(r"^(?P<targets>[^:#=\t][^:#=]*?)\s*(?P<colon>::?|&:)(?!=)(?P<rest>.*)$")
_INCLUDE = re.compile(r"^\s*(?P<soft>-|s)?include\s+(?P<files>.+)$")
_DEFINE = re.compile(r"^(?:(?:export|override)\s+)*define\s+(?P<name>[^\s=:]+)")
_EVAL_CALL = re.compile(r"\$([({])eval\s+\$([({])call\s+(?P<name>[^\s,)}]+)\s*(?:,(?P<args>(?:[^)}$]|\$[({][\w.-]+[)}])*))?[)}]\s*[)}]")
_ARGUMENT = re.compile(r"\$(?:[({](\d+)[)}]|(\d))")
_DEPTH = 4  # how deep pattern-rule prerequisites and variable references are followed
_EXPANDED = 20_000  # template lines read for `$(eval $(call ...))` in one Makefile at most; past it, evals are unknown
_ALTERNATIVES = 16  # values of one variable, or expansions of one target, kept at most
_PLAIN_NAME = re.compile(r"[A-Za-z][\w-]*")  # a target name with no file extension: `lint`, `type-check`


@dataclass
class Makefile:
    """The rules of one Makefile and everything it includes."""

    path: str
    targets: dict[str, tuple[str, int]] = field(default_factory=dict)  # name -> (file, line)
    patterns: list[tuple[str, tuple[str, ...], str, int]] = field(default_factory=list)  # target, prereqs, file, line
    open: list[str] = field(default_factory=list)  # why absence is unknown: computed targets, evals, includes
    computed: list[tuple[re.Pattern[str], str]] = field(default_factory=list)  # what computed targets may be, and why
    default: str | None = None
    variables: dict[str, list[str] | None] = field(default_factory=dict)  # values as written; None once a shell computes one
    templates: dict[str, list[str]] = field(default_factory=dict)  # `define NAME` bodies, for `$(eval $(call NAME,...))`
    expanded: int = 0  # template lines read for evals so far (bounded: many calls of a long template)


def read_makefile(context: Context, path: str) -> Makefile:
    """A Makefile with its includes, parsed once per Verifier; ConfigError when it cannot be read."""

    def parse() -> Makefile:
        makefile = Makefile(path)
        _read_into(context, path, posixpath.dirname(path) or ".", makefile, set())
        return makefile

    return context.memo(("cmd-make", path), parse)


def _logical_lines(text: str) -> list[tuple[int, str]]:
    """Lines with backslash continuations joined, each with the number of its first line."""
    lines: list[tuple[int, str]] = []
    pending: list[str] = []
    start = 1
    for number, line in enumerate(text.splitlines(), start=1):
        if not pending:
            start = number
        if line.endswith("\\"):
            pending.append(line[:-1])
            continue
        pending.append(line)
        lines.append((start, " ".join(pending)))
        pending = []
    if pending:
        lines.append((start, " ".join(pending)))
    return lines


def _read_into(context: Context, path: str, folder: str, makefile: Makefile, seen: set[str]) -> None:
    if path in seen:
        return
    seen.add(path)
    text = read_text(context, path)
    in_define = 0
    in_rule = False
    body: list[str] = []
    for number, line in _logical_lines(text):
        stripped = line.strip()
        if in_define:
            if re.match(r"^endef\b", stripped):
                in_define -= 1
            elif re.match(r"^(?:(?:export|override)\s+)*define\b", stripped):
                in_define += 1
            if in_define:
                body.append(line)
            continue
        if line.startswith("\t") and in_rule:
            continue  # a recipe line
        if not stripped or stripped.startswith("#"):
            continue
        if define := _DEFINE.match(stripped):
            in_define, body = 1, []
            makefile.templates[define["name"]] = body
            continue
        if re.match(r"^(?:ifeq|ifneq|ifdef|ifndef|else|endif)\b", stripped):
            continue
        include = _INCLUDE.match(line)
        if include:
            in_rule = False
            _include(context, folder, include.group("files"), bool(include.group("soft")), path, number, makefile, seen)
            continue
        if stripped.startswith("$(eval") or stripped.startswith("${eval"):
            _eval(makefile, stripped, path, number)
            continue
        in_rule = _statement(makefile, line, path, number)


_PLAIN_ARGUMENT = re.compile(r"\s*(?:[^$]*|\$\([A-Za-z_][\w.-]*\)|\$\{[A-Za-z_][\w.-]*\})\s*")  # literal, or one variable


def _eval(makefile: Makefile, stripped: str, path: str, number: int) -> None:
    """`$(eval $(call NAME,ARGS))` of a known template adds the rules it expands to; an argument that is a variable
    (`$(BACKEND_LLAMA_CPP)`) stays computed in them, so a target it makes is a shape (`docker-build-*`, as any computed
    target is); any other eval makes absence unknown (its rules are computed)."""
    call = _EVAL_CALL.fullmatch(stripped)
    template = makefile.templates.get(call["name"]) if call else None
    makefile.expanded += len(template or ())
    if call is None or template is None or not all(map(_PLAIN_ARGUMENT.fullmatch, (call["args"] or "").split(","))) or makefile.expanded > _EXPANDED:
        makefile.open.append(f"{path}:{number} defines rules with $(eval ...)")
        return
    args = [a.strip() for a in (call["args"] or "").split(",")]
    def argument(match: re.Match[str]) -> str:
        index = int(match[1] or match[2]) - 1
        return args[index] if 0 <= index < len(args) else ""
    in_rule = False
    for line in template:
        line = _ARGUMENT.sub(argument, line.replace("$$", "\0")).replace("\0", "$")  # call expands $(1); eval reads $$ as $
        if line.startswith("\t") and in_rule or not line.strip() or line.lstrip().startswith("#"):
            continue
        if line.lstrip().startswith(("$(eval", "${eval", "define", "include", "-include")):
            makefile.open.append(f"{path}:{number} defines rules with $(eval ...)")
            return
        in_rule = _statement(makefile, line, path, number)


def _statement(makefile: Makefile, line: str, path: str, number: int) -> bool:
    """Read an assignment or a rule line; True when a rule starts (its recipe lines follow)."""
    if assignment := _ASSIGNMENT.match(line):
        _assign(makefile, assignment["name"], assignment["op"], assignment["value"].strip())
        return False
    rule = _RULE.match(line)
    if rule is None:
        return False
    rest = rule.group("rest")
    if re.match(r"^\s*[^\s:#=]+\s*(?::?=|\?=|\+=|!=)", rest) or re.match(r"^\s*(?:export|override|private)\b", rest):
        return True  # a target-specific variable, not a rule
    prereqs = rest.split(";", 1)[0].split("|", 1)[0]
    static_pattern = None
    if ":" in prereqs:  # a static pattern rule `objs: %.o: %.c`: the targets are still the explicit ones
        static_pattern, prereqs = (part.strip() for part in prereqs.split(":", 1))
    _add_rule(makefile, _targets(makefile, rule.group("targets")), tuple(prereqs.split()), path, number, static_pattern)
    return True


def _assign(makefile: Makefile, name: str, op: str, value: str) -> None:
    """Remember what a variable may hold as written (each branch of a conditional counts); `!=` runs a shell."""
    if "$" in name:
        return
    known = makefile.variables.get(name, [])
    if known is None or op == "!=":
        makefile.variables[name] = None
    elif op == "+=":
        makefile.variables[name] = [f"{v} {value}".strip() for v in known or [""]][:_ALTERNATIVES]
    else:
        makefile.variables[name] = [*known, value][:_ALTERNATIVES]


def _targets(makefile: Makefile, written: str) -> list[str]:
    """The words of a rule's targets with variable references expanded as far as their values are known."""
    texts = [written]
    for _ in range(_DEPTH):
        expanded: list[str] = []
        for text in texts:
            match = _REFERENCE.search(text)
            values = makefile.variables.get(match.group(1)) if match else None
            if match is None or values is None:
                expanded.append(text)
                continue
            expanded.extend(text[: match.start()] + v + text[match.end():] for v in values)
        texts = list(dict.fromkeys(expanded))[:_ALTERNATIVES]
    return list(dict.fromkeys(word for text in texts for word in _words(text)))


def _words(text: str) -> list[str]:
    """Split on whitespace outside `$(...)`/`${...}`: a function call is part of one word."""
    words: list[str] = []
    current: list[str] = []
    depth = 0
    for i, char in enumerate(text):
        if char in "({" and i and text[i - 1] == "$" or (char in "({" and depth):
            depth += 1
        elif char in ")}" and depth:
            depth -= 1
        elif char.isspace() and not depth:
            if current:
                words.append("".join(current))
                current = []
            continue
        current.append(char)
    if current:
        words.append("".join(current))
    return words


def _add_rule(
    makefile: Makefile, targets: list[str], prereqs: tuple[str, ...], path: str, number: int, static_pattern: str | None
) -> None:
    for target in targets:
        if "$" in target:
            # a computed target can only be a name its static parts allow (and a static pattern rule's pattern)
            shape = static_pattern if static_pattern and "$" not in static_pattern else target
            makefile.computed.append((_shape(shape), f"{path}:{number} has a computed target {target}"))
        elif "%" in target:
            makefile.patterns.append((target, prereqs, path, number))
        elif target.startswith("."):
            if target == ".DEFAULT":
                makefile.open.append(f"{path}:{number} has a .DEFAULT rule that makes any target")
        else:
            makefile.targets.setdefault(target, (path, number))
            if makefile.default is None:
                makefile.default = target


def _include(context: Context, folder: str, files: str, soft: bool, path: str, number: int, makefile: Makefile, seen: set[str]) -> None:
    for name in files.split("#", 1)[0].split():
        matched = _globbed(context, folder, name)
        ignored = matched is not None and _ignored_folder(context, folder, name)
        if ignored:  # a clone may hold files there the repository does not list: what the glob reads is not known
            makefile.open.append(f"{path}:{number} includes {name}, from a folder {ignored}")
        if matched:  # make expands a glob to the files there: each is read, and absence stays known
            for target in matched:
                _read_into(context, target, folder, makefile, seen)
            continue
        if matched is not None and (soft or ignored):
            continue  # `-include mk/*.mk` matching nothing includes nothing
        if dynamic(name) or "%" in name:
            makefile.open.append(f"{path}:{number} includes a computed file {name}")
            continue
        target = join(folder, name)
        if target is None:
            makefile.open.append(f"{path}:{number} includes {name}, outside the repository")
        elif is_file(context, target):
            _read_into(context, target, folder, makefile, seen)
        elif soft:  # a file each clone may write for itself (`-include local.mk`), or make may generate
            makefile.open.append(f"{path}:{number} includes {name} where there is one, and it is not in the repository")
        else:
            makefile.open.append(f"{path}:{number} includes {name}, which is not in the repository (make may generate it)")


def _globbed(context: Context, folder: str, name: str) -> list[str] | None:
    """The files an include written as a plain glob in its last segment (`build-tools/make/*.mk`) names: make
    expands it against the files there, which a checkout holds as tracked files. None for anything else (a
    variable, a `$(wildcard ...)`, a glob in a folder name, a folder outside the repository)."""
    head, _, last = name.rpartition("/")
    if not (set(last) & set("*?")) or set(name) & set("$`[{%") or set(head) & set("*?"):
        return None
    where = join(folder, head) if head else folder
    if where is None:
        return None
    pattern = Wildcard(in_dir(where, last))
    return [f for f in context.repo.paths(None if where == "." else where) if pattern.fullmatch(f)]


def _ignored_folder(context: Context, folder: str, name: str) -> str | None:
    """Why the folder a glob include reads is one the listing leaves out (vendored, generated, ignored by
    .gitignore): the files make would find there are a clone's own, so a glob matching none of the listed
    files says nothing of what it includes. None when the folder is listed."""
    where = join(folder, name.rpartition("/")[0] or ".")
    return None if where in (None, ".") else context.ignored_because(where)


@dataclass
class MakeCall:
    folder: str
    file: str | None = None
    targets: list[str] = field(default_factory=list)
    evals: bool = False


def _parse_call(args: tuple[str, ...], cwd: str) -> MakeCall:
    call = MakeCall(cwd)
    words = list(args)
    while words:
        word = words.pop(0)
        if word.startswith("-") and len(word) > 1:
            if word.startswith(("-C", "-f")) and len(word) > 2 and not word.startswith("--"):
                name, value = word[:2], word[2:]  # -Cdir, -fFILE
            else:
                name, value = option(word, words, _VALUE_OPTIONS)
            if name in ("-C", "--directory"):
                call.folder = join(call.folder, value) or call.folder
            elif name in ("-f", "--file", "--makefile"):
                call.file = value
            elif name == "--eval":
                call.evals = True
            elif name in ("-j", "--jobs", "-l") and words and words[0].isdigit():
                words.pop(0)
            continue
        if "=" in word:
            continue  # a variable assignment
        call.targets.append(word)
    return call


def verify_make(invocation: Invocation, context: Context) -> AnchorResult:
    call = _parse_call(invocation.args, invocation.cwd)
    gone = no_folder(invocation, context, "make", call.folder) if call.folder != invocation.cwd else None
    if gone is not None:
        return gone
    if call.file is not None:
        path = join(call.folder, call.file)
        if path is None or dynamic(call.file):
            return unknown(invocation, f"the makefile {call.file} is outside the repository or computed")
        if not is_file(context, path):
            return not_there(invocation, f"{path} does not exist", path)
    else:
        path = next((in_dir(call.folder, n) for n in MAKEFILES if is_file(context, in_dir(call.folder, n))), None)
        if path is None:
            where = "the repository root" if call.folder == "." else f"{call.folder}/"
            return no_config(invocation, f"no Makefile in {where}{elsewhere(context, MAKEFILES)}", call.folder, MAKEFILES, above=False)
    try:
        makefile = read_makefile(context, path)
        if not call.targets:
            if makefile.default is None:
                return unknown(invocation, f"{path} has no explicit target to be the default goal")
            file, line = makefile.targets[makefile.default]
            return verified(invocation, f"the default goal is {makefile.default}", [Evidence(file, line, f"target {makefile.default}")])
        results = [_target(invocation, context, makefile, t, call) for t in call.targets]
    except ConfigError as error:
        return unusable(invocation, error)
    worst = next((r for r in results if r.verdict.value == "REFUTED"), None) or next(
        (r for r in results if r.verdict.value == "INCONCLUSIVE"), None
    )
    if worst is not None:
        return worst
    return verified(invocation, "; ".join(r.reason for r in results), [e for r in results for e in r.evidence])


def _target(invocation: Invocation, context: Context, makefile: Makefile, target: str, call: MakeCall) -> AnchorResult:
    if dynamic(target):
        return unknown(invocation, f"the target {target} is a placeholder or a shell expansion")
    if target in makefile.targets:
        file, line = makefile.targets[target]
        return verified(invocation, f"target {target} is defined in {file}:{line}", [Evidence(file, line, f"target {target}")])
    made = _pattern_could_make(context, makefile, target, call.folder, _DEPTH, Steps(context, makefile.path))
    if made is not None:
        rule, file, line, sure = made
        if sure:
            return verified(invocation, f"target {target} is made by the pattern rule {rule} at {file}:{line}", [Evidence(file, line, f"pattern rule {rule}")])
        return unknown(invocation, f"no explicit target {target}, but the pattern rule {rule} at {file}:{line} could make it")
    missing = f"no target {target} in {makefile.path} (targets: {listed(makefile.targets)})"
    for shape, why in makefile.computed:
        if shape.fullmatch(target):
            return unknown(invocation, f"{missing}; {why}")
    if makefile.open or call.evals:
        why = makefile.open[0] if makefile.open else "--eval adds rules at run time"
        return unknown(invocation, f"{missing}; {why}")
    # A folder or file of that name: make finds it up to date (or builds it), so the call may name a file, not a
    # target; the Makefile's history may still show that target defined and removed (`not-in-config`: was true, is gone).
    folder = join(call.folder, target)
    if folder is not None and context.repo.is_dir(folder):
        beside = f"a folder {folder}/ exists, which make finds up to date"
    elif _buildable_file(context, call.folder, target):
        beside = f"a file {target} or a source for it exists, which make may build or find up to date"
    else:
        beside = None
    if beside is not None:
        result = unknown(invocation, f"{missing}; {beside}", [Evidence(makefile.path, None, "targets")])
        result.state = NOT_IN_CONFIG
        return result
    together = _written_together(invocation, makefile, target)
    if together is not None:
        return together
    return refuted(invocation, missing, [Evidence(makefile.path, None, "targets")])


def _written_together(invocation: Invocation, makefile: Makefile, target: str) -> AnchorResult | None:
    """`make format/lint/typecheck`: prose naming several targets at once, each checked; None when the
    slash does not read so (no part is a target, or a part looks like a file: `build/app.o`)."""
    parts = target.split("/")
    if len(parts) < 2 or not all(_PLAIN_NAME.fullmatch(p) for p in parts) or not any(p in makefile.targets for p in parts):
        return None
    named = f"{target} read as the targets {', '.join(parts[:-1])} and {parts[-1]}"
    gone = [p for p in parts if p not in makefile.targets]
    if gone:
        result = refuted(invocation, f"no target {gone[0]} in {makefile.path} ({named}; targets: {listed(makefile.targets)})", [Evidence(makefile.path, None, "targets")])
        # History is asked about the missing target itself: no revision defined `format/lint/typecheck` as such.
        result.details["decided_by"] = re.sub(rf"(?<!\S){re.escape(target)}(?!\S)", gone[0], invocation.text, count=1)
        return result
    where = [makefile.targets[p] for p in parts]
    return verified(invocation, f"{named}, defined at " + ", ".join(f"{file}:{line}" for file, line in where),
                    [Evidence(file, line, f"target {p}") for p, (file, line) in zip(parts, where)])


def _shape(word: str) -> re.Pattern[str]:
    """The names a computed target may expand to: each `$(...)`, `$X` or `%` stands for anything, except that
    `$(addprefix P,LIST)` and `$(addsuffix S,LIST)` keep their literal part (jaeger's `$(TOOLS_BIN_NAMES):`,
    an `addprefix` of `.tools/`, makes tool paths only, never `fmt`)."""
    return re.compile(_shape_of(word), re.DOTALL)


_AFFIX = re.compile(r"(add(?:prefix|suffix))\s+")


def _shape_of(word: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(word):
        char = word[i]
        if char == "%":
            out.append(".*")
            i += 1
        elif char == "$" and i + 1 < len(word) and word[i + 1] in "({":
            start, depth, i = i + 2, 1, i + 2
            while i < len(word) and depth:
                depth += {"(": 1, "{": 1, ")": -1, "}": -1}.get(word[i], 0)
                i += 1
            out.append(_call_shape(word[start : i - 1]))
        elif char == "$":
            out.append(".*")
            i += 2
        else:
            out.append(re.escape(char))
            i += 1
    return "".join(out)


def _call_shape(inside: str) -> str:
    """The shape of one `$(...)`: an affix function's words each carry the affix, anything else is anything (and so
    is an affix with a space in it: `$(addprefix pre ,fmt)` makes the words `pre` and `fmt`). An affix without a
    space holds no function call (`$(addprefix $(DIR)/,…)`: a variable at most), so the shape of it is read one level
    down at most, however deep a crafted Makefile nests its calls."""
    affix = _AFFIX.match(inside)
    first = _first_argument(inside[affix.end():]) if affix else None
    if first is None or not first.strip() or any(c.isspace() for c in first.lstrip()):
        return ".*"
    fixed = _shape_of(first.lstrip())
    return fixed + ".*" if affix[1] == "addprefix" else ".*" + fixed


def _first_argument(arguments: str) -> str | None:
    """The text before the first comma outside `$(...)`; None when there is no such comma."""
    depth = 0
    for i, char in enumerate(arguments):
        if char in "({":
            depth += 1
        elif char in ")}":
            depth -= 1
        elif char == "," and not depth:
            return arguments[:i]
    return None


def _stem(pattern: str, target: str) -> str | None:
    """What `%` stands for when `target` matches `pattern`, else None."""
    prefix, _, suffix = pattern.partition("%")
    if target.startswith(prefix) and target.endswith(suffix) and len(target) >= len(prefix) + len(suffix):
        return target[len(prefix): len(target) - len(suffix)]
    return None


def _pattern_could_make(
    context: Context, makefile: Makefile, target: str, folder: str, depth: int, steps: Steps
) -> tuple[str, str, int, bool] | None:
    """The pattern rule that could make `target`: (rule, file, line, sure).

    Sure when every prerequisite is an explicit target or an existing file;
    a prerequisite only another pattern rule could make leaves it unsure.
    Each rule tried is a step: chains of `%` rules branch at every level. A
    match-anything rule (`%: cloudbuild/%.enc`) never makes the prerequisite
    of an implicit rule (GNU make's rule for non-terminal ones): so Logflare's
    `make start` needs `cloudbuild/start.enc` to be there, not to be made.
    """
    for pattern, prereqs, file, line in makefile.patterns:
        stem = _stem(pattern, target) if pattern != "%" or depth == _DEPTH else None
        if stem is None:
            continue
        steps(1 + len(prereqs))
        needed = [p.replace("%", stem) for p in prereqs]
        if not all(_makeable(context, makefile, p, folder, depth - 1, steps) for p in needed):
            continue
        sure = all("$" not in p and (p in makefile.targets or _exists(context, folder, p)) for p in needed)
        return f"{pattern}: {' '.join(prereqs)}".strip(), file, line, sure
    return None


def _exists(context: Context, folder: str, name: str) -> bool:
    path = join(folder, name)
    return path is not None and context.repo.exists(path)


def _makeable(context: Context, makefile: Makefile, name: str, folder: str, depth: int, steps: Steps) -> bool:
    if "$" in name or name in makefile.targets or _exists(context, folder, name):
        return True
    return depth > 0 and _pattern_could_make(context, makefile, name, folder, depth, steps) is not None


def _buildable_file(context: Context, folder: str, target: str) -> bool:
    """A file of that name, or a source make's built-in rules compile into it (`prog` from `prog.c`)."""
    path = join(folder, target)
    if path is None:
        return True
    if context.repo.exists(path):
        return True
    stem = posixpath.basename(path)
    parent = posixpath.dirname(path) or "."
    return any(
        posixpath.basename(p).startswith(stem + ".") and (posixpath.dirname(p) or ".") == parent
        for p in context.repo.paths(None if parent == "." else parent)
    )


@hookimpl
def register_runners(register):  # noqa: ANN001, ANN201 - hook signature
    register(Runner(name="make", programs=("make", "gmake"), verify=verify_make, configs=("Makefile", "GNUmakefile", "makefile"), summary="Makefile targets, with included files"))
