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
from anchorcheck.plugin import Context
from anchorcheck_plugins.runners._support import (
    ConfigError,
    dynamic,
    in_dir,
    is_dir,
    is_file,
    join,
    line_of,
    listed,
    option,
    parse_yaml,
    read_text,
    refuted,
    searched,
    unknown,
    unusable,
    upward,
    verified,
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
    tasks: dict[str, tuple[str, int | None]] = field(default_factory=dict)
    open: list[str] = field(default_factory=list)  # why any missing name is unknown
    open_under: list[tuple[tuple[str, ...], str]] = field(default_factory=list)  # namespaces a missing optional include may fill, and why


def read_taskfile(context: Context, path: str) -> Taskfile:
    def parse() -> Taskfile:
        taskfile = Taskfile(path)
        _read_into(context, path, "", taskfile, [], 0)
        return taskfile

    return context.memo(("cmd-task", path), parse)


def _read_into(context: Context, path: str, prefix: str, taskfile: Taskfile, aliases: list[str], depth: int) -> None:
    text = read_text(context, path)
    doc = parse_yaml(path, text)
    if not isinstance(doc, dict):
        raise ConfigError(path, "a Taskfile should be a YAML mapping", 1)
    tasks = doc.get("tasks")
    start = text.find("\ntasks:")
    for name, body in (tasks.items() if isinstance(tasks, dict) else []):
        line = line_of(text, rf"^[ \t]+[\"']?{re.escape(str(name))}[\"']?\s*:(?:\s|$)", max(start, 0))
        names = [str(name)]
        if isinstance(body, dict) and isinstance(body.get("aliases"), list):
            names += [str(a) for a in body["aliases"]]
        for task in names:
            for spelled in [prefix + task] + [f"{a}:{task}" for a in aliases]:
                taskfile.tasks.setdefault(spelled, (path, line))
    includes = doc.get("includes")
    folder = posixpath.dirname(path) or "."
    for namespace, spec in (includes.items() if isinstance(includes, dict) else []):
        _include(context, folder, path, text, str(namespace), spec, prefix, taskfile, depth)


def _include(context: Context, folder: str, path: str, text: str, namespace: str, spec: object, prefix: str, taskfile: Taskfile, depth: int) -> None:
    line = line_of(text, rf"^[ \t]+[\"']?{re.escape(namespace)}[\"']?\s*:")
    where = f"{path}:{line}" if line else path
    if isinstance(spec, str):
        spec = {"taskfile": spec}
    if not isinstance(spec, dict) or not isinstance(spec.get("taskfile"), str):
        taskfile.open.append(f"{where} includes {namespace} in a form anchorcheck does not read")
        return
    written = spec["taskfile"]
    if "{{" in written or written.startswith(("http://", "https://", "git@")) or depth >= _MAX_DEPTH:
        taskfile.open.append(f"{where} includes {written}, which is templated or remote")
        return
    target = join(folder, written)
    if target is not None and is_dir(context, target):
        target = next((in_dir(target, n) for n in NAMES if is_file(context, in_dir(target, n))), None)
    aliases = [str(a) for a in spec.get("aliases", []) if isinstance(a, str)] if isinstance(spec.get("aliases"), list) else []
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
    _read_into(context, target, inner, taskfile, [f"{prefix}{a}" for a in aliases], depth + 1)


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
            path = join(folder, file_arg)
            if path is not None and is_dir(context, path):
                path = next((in_dir(path, n) for n in NAMES if is_file(context, in_dir(path, n))), None)
            if path is None or not is_file(context, path):
                return refuted(invocation, f"the Taskfile {file_arg} does not exist")
        else:
            path = next((in_dir(d, n) for d in upward(folder) for n in NAMES if is_file(context, in_dir(d, n))), None)
            if path is None:
                return refuted(invocation, f"no Taskfile in {searched(folder)}")
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
            (where for task, where in taskfile.tasks.items() if "*" in task and re.fullmatch(re.escape(task).replace(r"\*", ".*"), name)), None
        )
        if found is None:
            missing = f"no task {name} in {path} (tasks: {listed(taskfile.tasks)})"
            why = [reason for namespaces, reason in taskfile.open_under if name.startswith(namespaces)][:1] or taskfile.open[:1]
            if why:
                return unknown(invocation, f"{missing}; {why[0]}")
            return refuted(invocation, missing, [Evidence(path, None, "tasks")])
        evidence.append(Evidence(found[0], found[1], f"task {name}"))
        reasons.append(f"task {name} is defined in {found[0]}" + (f":{found[1]}" if found[1] else ""))
    return verified(invocation, "; ".join(reasons), evidence)


@hookimpl
def register_runners(register):  # noqa: ANN001, ANN201 - hook signature
    register(Runner(name="task", programs=("task", "go-task"), verify=verify_task, summary="Taskfile tasks, aliases and includes"))
