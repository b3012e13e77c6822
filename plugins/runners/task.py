"""`task NAME...` (go-task): the tasks of the Taskfile, their aliases, and included Taskfiles as namespaces.

The Taskfile is the first of Taskfile.yml, taskfile.yml, Taskfile.yaml,
taskfile.yaml and their `.dist` variants in the folder the call runs from
or above, or `-t FILE` / `-d DIR`. `includes:` adds another Taskfile's
tasks under `NAMESPACE:` (or without one when `flatten: true`), with the
include's own aliases; a task name with `*` matches as a wildcard. An
include whose path is templated (`{{.DIR}}`) or cannot be read makes absence
INCONCLUSIVE; an `optional: true` one that is not here (each clone may write
its own) does for the tasks of its namespace (for all with `flatten: true`);
otherwise a missing task is REFUTED. `task` alone runs the `default` task; `--list` and other
informational flags need only a Taskfile.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from anchorcheck import AnchorResult, Evidence, Invocation, Runner, hookimpl
from anchorcheck.plugin import Context, Wildcard
from anchorcheck_plugins.runners._support import (
    ConfigError,
    Steps,
    dynamic,
    in_dir,
    is_dir,
    is_file,
    join,
    line_of,
    listed,
    named_file,
    no_config,
    option,
    parse_yaml,
    read_text,
    refuted,
    searched,
    unknown,
    unusable,
    upward,
    verified,
    yaml_key_line,
)

NAMES = ("Taskfile.yml", "taskfile.yml", "Taskfile.yaml", "taskfile.yaml", "Taskfile.dist.yml", "taskfile.dist.yml",
         "Taskfile.dist.yaml", "taskfile.dist.yaml")
_VALUE_OPTIONS = frozenset({"-t", "--taskfile", "-d", "--dir", "-o", "--output", "-C", "--concurrency", "--interval",
                            "--output-group-begin", "--output-group-end", "--sort", "--remote-cache-dir", "--cache-expiry"})
_INFO_OPTIONS = frozenset({"-l", "--list", "-a", "--list-all", "--summary", "--init", "-i", "--version", "-h", "--help",
                           "--json", "--completion"})
_MAX_DEPTH = 8


@dataclass
class Taskfile:
    """The tasks callable from one Taskfile: full names (with namespaces) to where each is defined."""

    path: str
    tasks: dict[str, tuple[str, str]] = field(default_factory=dict)  # name -> (file, the task's key there)
    open: list[str] = field(default_factory=list)  # why any missing name is unknown
    open_under: list[tuple[tuple[str, ...], str]] = field(default_factory=list)  # namespaces a missing optional include may fill, and why
    texts: dict[str, str] = field(default_factory=dict)  # each file read, for the line of the task found

    def line(self, file: str, key: str) -> int | None:
        """The line of a task's key in its file: looked up for the task an answer names, not for each
        task read (a search per task made a Taskfile of many tasks quadratic)."""
        return yaml_key_line(self.texts[file], key, "\ntasks:")


def read_taskfile(context: Context, path: str) -> Taskfile:
    def parse() -> Taskfile:
        taskfile = Taskfile(path)
        _read_into(context, path, "", taskfile, [], (), Steps(context, path))
        return taskfile

    return context.memo(("cmd-task", path), parse)


def _names(value: object, path: str, owner: str) -> list[str]:
    """The names in a list of aliases; ConfigError when one is not a name. A YAML alias can make an
    item a structure of exponential size (an alias bomb), which `str()` would spell out."""
    if not isinstance(value, list):
        return []
    if not all(isinstance(v, (str, int, float)) for v in value):
        raise ConfigError(path, f"the aliases of {owner} are not all names")
    return [str(v) for v in value]


def _read_into(context: Context, path: str, prefix: str, taskfile: Taskfile, aliases: list[str], chain: tuple[str, ...], steps: Steps) -> None:
    """Add the tasks of `path` and its includes; `chain` are the files that included it, in order."""
    text = taskfile.texts[path] = read_text(context, path)
    steps(1 + len(text) // 4096)  # a read and its parse cost as the file is long
    doc = parse_yaml(path, text)
    if not isinstance(doc, dict):
        raise ConfigError(path, "a Taskfile should be a YAML mapping", 1)
    tasks = doc.get("tasks")
    for name, body in (tasks.items() if isinstance(tasks, dict) else []):
        names = [str(name), *_names(body.get("aliases") if isinstance(body, dict) else None, path, f"task {name}")]
        steps(len(names) * (1 + len(aliases)))
        for task in names:
            for spelled in [prefix + task] + [f"{a}:{task}" for a in aliases]:
                taskfile.tasks.setdefault(spelled, (path, str(name)))
    includes = doc.get("includes")
    folder = posixpath.dirname(path) or "."
    for namespace, spec in (includes.items() if isinstance(includes, dict) else []):
        _include(context, folder, path, text, str(namespace), spec, prefix, taskfile, (*chain, path), steps)


def _include(context: Context, folder: str, path: str, text: str, namespace: str, spec: object, prefix: str, taskfile: Taskfile,
             chain: tuple[str, ...], steps: Steps) -> None:
    steps()
    # The line is searched for while few reasons are kept (the first is the one shown): a search per
    # include would make a Taskfile of many unreadable includes quadratic.
    line = line_of(text, rf"^[ \t]+[\"']?{re.escape(namespace)}[\"']?\s*:") if len(taskfile.open) + len(taskfile.open_under) < 8 else None
    where = f"{path}:{line}" if line else path
    if isinstance(spec, str):
        spec = {"taskfile": spec}
    if not isinstance(spec, dict) or not isinstance(spec.get("taskfile"), str):
        taskfile.open.append(f"{where} includes {namespace} in a form anchorcheck does not read")
        return
    written = spec["taskfile"]
    if "{{" in written or written.startswith(("http://", "https://", "git@")) or len(chain) > _MAX_DEPTH:
        taskfile.open.append(f"{where} includes {written}, which is templated or remote")
        return
    target = join(folder, written)
    if target is not None and is_dir(context, target):
        target = next((in_dir(target, n) for n in NAMES if is_file(context, in_dir(target, n))), None)
    aliases = _names(spec.get("aliases"), path, f"the include {namespace}")
    if target in chain:  # task itself stops at an include cycle
        taskfile.open.append(f"{where} includes {written}, which includes it back: task refuses an include cycle")
        return
    if target is None or not is_file(context, target):
        if not spec.get("optional"):
            taskfile.open.append(f"{where} includes {written}, which is not in the repository")
        elif spec.get("flatten"):  # each clone may write its own (`Taskfile.local.yml`): any task may come from it
            taskfile.open.append(f"{where} includes {written} where there is one, and it is not in the repository")
        else:
            why = f"{where} includes {written} as {namespace}: where there is one, and it is not in the repository"
            taskfile.open_under.append((tuple(f"{prefix}{n}:" for n in [namespace, *aliases]), why))
        return
    inner = prefix if spec.get("flatten") else f"{prefix}{namespace}:"
    _read_into(context, target, inner, taskfile, [f"{prefix}{a}" for a in aliases], chain, steps)


def verify_task(invocation: Invocation, context: Context) -> AnchorResult:
    words = list(invocation.args)
    folder, file_arg, info = invocation.cwd, None, False
    names: list[str] = []
    while words:
        word = words.pop(0)
        if word == "--":
            break
        if word.startswith("-"):
            name, value = option(word, words, _VALUE_OPTIONS)
            if name in ("-d", "--dir"):
                folder = join(folder, value) or folder
            elif name in ("-t", "--taskfile"):
                file_arg = value
            elif name in _INFO_OPTIONS:
                info = True
        elif "=" not in word:  # `VAR=value` sets a variable
            names.append(word)
    try:
        if file_arg is not None:
            path = named_file(context, invocation, folder, file_arg, "Taskfile", inside=NAMES)  # a folder: its Taskfile
            if isinstance(path, AnchorResult):
                return path
        else:
            path = next((in_dir(d, n) for d in upward(folder) for n in NAMES if is_file(context, in_dir(d, n))), None)
            if path is None:
                return no_config(invocation, f"no Taskfile in {searched(folder)}", folder, NAMES)
        taskfile = read_taskfile(context, path)
    except ConfigError as error:
        return unusable(invocation, error)
    if info:
        return verified(invocation, f"{path} is the Taskfile", [Evidence(path, None, "Taskfile")])
    evidence, reasons = [], []
    for name in names or ["default"]:
        if dynamic(name.replace("*", "")) or "{{" in name:
            return unknown(invocation, f"the task {name} is a placeholder, a shell expansion or templated")
        found = taskfile.tasks.get(name) or next(
            (where for task, where in taskfile.tasks.items() if "*" in task and Wildcard(task, crosses=True).fullmatch(name)), None
        )
        if found is None:
            missing = f"no task {name} in {path} (tasks: {listed(taskfile.tasks)})"
            why = [reason for namespaces, reason in taskfile.open_under if name.startswith(namespaces)][:1] or taskfile.open[:1]
            if why:
                return unknown(invocation, f"{missing}; {why[0]}")
            return refuted(invocation, missing, [Evidence(path, None, "tasks")])
        file, line = found[0], taskfile.line(*found)
        evidence.append(Evidence(file, line, f"task {name}"))
        reasons.append(f"task {name} is defined in {file}" + (f":{line}" if line else ""))
    return verified(invocation, "; ".join(reasons), evidence)


@hookimpl
def register_runners(register):  # noqa: ANN001, ANN201 - hook signature
    register(Runner(name="task", programs=("task", "go-task"), verify=verify_task, configs=("Taskfile.yml", "Taskfile.yaml", "taskfile.yml", "taskfile.yaml"), summary="Taskfile tasks, aliases and includes"))
