"""`deno task NAME`: the tasks of deno.json / deno.jsonc, and the scripts of package.json, that Deno runs.

Deno looks for its configuration from the folder the call runs in (`--cwd
DIR`, else the current one) upward: the nearest folder with a deno.json (or
deno.jsonc) or a package.json, whose `"tasks"` and `scripts` it runs. A
workspace member (a folder a configuration above lists under `"workspace"`)
runs the workspace root's tasks too. A task is a key of `"tasks"` (a string
or an object with a `command`); what follows its name is its arguments.
`-c` / `--config`, `-r` / `--recursive`, `-f` / `--filter` and `--eval`
choose other tasks, or none: INCONCLUSIVE; so is a wildcard (`"build-*"`).
`deno task` alone lists the tasks: it needs a configuration only. Other
`deno` subcommands (`deno test`, `deno fmt`, `deno run x.ts`) need no
configuration of this repository and are not read.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re

from anchorcheck import AnchorResult, Evidence, Invocation, Runner, hookimpl
from anchorcheck.plugin import Context
from anchorcheck_plugins.runners._support import (ConfigError, dynamic, in_dir, is_file, join, line_of, listed, no_config, option,
                                                  no_folder, parse_json, parse_jsonc, read_text, refuted, searched, unknown, unusable,
                                                  upward, verified)

NAMES = ("deno.json", "deno.jsonc")
_VALUE_OPTIONS = frozenset({"--cwd", "-c", "--config", "-f", "--filter"})  # (`--lock`, `--env-file`: a value only after `=`)


def reads(program: str, args: tuple[str, ...]) -> bool:
    """Only `deno task` names this repository's configuration."""
    return bool(args) and args[0] == "task"


def _read(context: Context, path: str) -> tuple[dict[str, str], tuple[str, ...]]:
    """The task names of one configuration (name -> the file defining it) and the members of its workspace."""
    def read() -> tuple[dict[str, str], tuple[str, ...]]:
        package = path.endswith("package.json")
        doc = (parse_json if package else parse_jsonc)(path, read_text(context, path))
        if not isinstance(doc, dict):
            raise ConfigError(path, "a configuration should be a JSON object", 1)
        table = doc.get("scripts" if package else "tasks")
        members = doc.get("workspace") if not package else None
        members = members.get("members") if isinstance(members, dict) else members
        listed_members = tuple(str(m) for m in members) if isinstance(members, list) else ()
        return ({str(k): path for k in table} if isinstance(table, dict) else {}), listed_members

    return context.memo(("cmd-deno", path), read)


def _here(context: Context, folder: str) -> list[str]:
    """The configurations of one folder whose tasks `deno task` runs: its deno.json (or .jsonc) and package.json."""
    deno = next((p for p in (in_dir(folder, n) for n in NAMES) if is_file(context, p)), None)
    return [p for p in (deno, in_dir(folder, "package.json")) if p is not None and is_file(context, p)]


def _configs(context: Context, cwd: str) -> list[str]:
    """The files whose tasks a call from `cwd` runs: the nearest folder's, then, for a workspace member, the root's."""
    folders = list(upward(cwd))
    at = next((i for i, folder in enumerate(folders) if _here(context, folder)), None)
    if at is None:
        return []
    nearest = folders[at]
    for folder in folders[at + 1 :]:
        for path in _here(context, folder):
            members = _read(context, path)[1]
            if members and any(fnmatch.fnmatchcase(nearest, posixpath.normpath(join(folder, m) or m)) for m in members):
                return [*_here(context, nearest), *_here(context, folder)]
    return _here(context, nearest)


def _options(words: list[str]) -> dict[str, str]:
    """The options written before the task's name, taken off `words`, each with its value ("" for a flag)."""
    found = {}
    while words and words[0].startswith("-") and words[0] != "--":
        name, value = option(words.pop(0), words, _VALUE_OPTIONS)
        found[name] = value
    return found


def verify_deno(invocation: Invocation, context: Context) -> AnchorResult:
    if not reads(invocation.program, invocation.args):
        return unknown(invocation, "only `deno task` is read: the other subcommands need no configuration of this repository")
    words = list(invocation.args[1:])
    options = _options(words)
    if {"-c", "--config", "-r", "--recursive", "-f", "--filter", "--eval"} & options.keys():
        return unknown(invocation, "--config, --recursive, --filter or --eval: which tasks run is not read from the name alone")
    cwd = invocation.cwd  # `--cwd`: the folder the task runs in, and where its configuration is looked up from
    if "--cwd" in options:  # never answered from the folder the call was written in (a false VERIFIED)
        moved = join(cwd, options["--cwd"])
        if moved is None or dynamic(options["--cwd"]):
            return unknown(invocation, f"deno is told to run in {options['--cwd']}, outside the repository or computed")
        gone = no_folder(invocation, context, "deno", moved)
        if gone is not None:
            return gone
        cwd = moved
    name = words[0] if words and words[0] != "--" else None  # what follows the task's name is its arguments
    try:
        files = _configs(context, cwd)
        if not files:
            return no_config(invocation, f"no deno.json or package.json in {searched(cwd)}", cwd, NAMES)
        if name is None:
            return verified(invocation, f"{files[0]} is the configuration", [Evidence(files[0], None, "tasks")])
        if dynamic(name) or "*" in name:
            return unknown(invocation, f"the task {name} is a placeholder, a shell expansion or a wildcard")
        tasks: dict[str, str] = {}
        for path in files:
            for task, where in _read(context, path)[0].items():
                tasks.setdefault(task, where)
        where = tasks.get(name)
        if where is None:
            return refuted(invocation, f"no task {name} in {', '.join(files)} (tasks: {listed(tasks)})", [Evidence(files[0], None, "tasks")])
        line = line_of(read_text(context, where), rf'^\s*"{re.escape(name)}"\s*:')
    except ConfigError as error:
        return unusable(invocation, error)
    return verified(invocation, f"task {name} is defined in {where}" + (f":{line}" if line else ""), [Evidence(where, line, f"task {name}")])


@hookimpl
def register_runners(register):  # noqa: ANN001, ANN201 - hook signature
    register(Runner(name="deno", programs=("deno",), verify=verify_deno, reads=reads, configs=NAMES, summary="deno.json tasks"))
