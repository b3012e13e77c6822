"""`turbo run TASK...` / `turbo TASK...`: the tasks of turbo.json (`tasks`, or `pipeline` before turbo 2).

Tasks are the keys of the root turbo.json and of the package turbo.json
files that extend it, `build` or `web#build` (a package's task) or
`//#lint` (the root's). A task named on the command line must be one of
them: VERIFIED with its line, REFUTED when the turbo.json files parse and
lack it, or when there is no turbo.json at all. `pnpm turbo build` and
`npx turbo run build` reach this runner through the npm runner.
"""

from __future__ import annotations

import json
import posixpath
import re

from anchorcheck import AnchorResult, Evidence, Invocation, Runner, hookimpl
from anchorcheck.plugin import Context
from anchorcheck_plugins.runners._support import (
    ConfigError,
    dynamic,
    in_dir,
    is_file,
    line_of,
    listed,
    no_config,
    option,
    parse_jsonc,
    read_text,
    refuted,
    unknown,
    unusable,
    upward,
    verified,
)

_VALUE_OPTIONS = frozenset({"--filter", "-F", "--concurrency", "--cache-dir", "--log-order", "--output-logs", "--env-mode",
                            "--cache", "--log-prefix", "--profile", "--summarize", "--affected-base", "--token", "--team",
                            "--api", "--login", "--heap", "--cwd", "--ui", "--scope", "--since", "--graph"})
_OTHER_COMMANDS = frozenset({"login", "logout", "link", "unlink", "daemon", "gen", "generate", "telemetry", "prune", "ls",
                             "info", "scan", "bin", "completion", "query", "watch", "boundaries", "devtools", "docs"})


def read_tasks(context: Context, root: str) -> dict[str, tuple[str, int | None]]:
    """Every task key of the root turbo.json and the package ones, with file and line."""

    def parse() -> dict[str, tuple[str, int | None]]:
        tasks: dict[str, tuple[str, int | None]] = {}
        folder = posixpath.dirname(root)
        for path in [root, *(p for p in context.repo.files(folder or None, named=["turbo.json", "turbo.jsonc"]) if p != root)]:
            text = read_text(context, path)
            doc = parse_jsonc(path, text)
            if not isinstance(doc, dict):
                raise ConfigError(path, "turbo.json should be a JSON object", 1)
            table = doc.get("tasks", doc.get("pipeline"))
            start = max(text.find('"tasks"'), text.find('"pipeline"'), 0)
            package = posixpath.dirname(path)
            for key in table if isinstance(table, dict) else {}:
                spelled = key if path == root or "#" in key else f"{package}#{key}"
                tasks.setdefault(spelled, (path, line_of(text, rf"^[ \t]*{re.escape(_quoted(key))}\s*:", start)))
        return tasks

    return context.memo(("cmd-turbo", root), parse)


def _quoted(key: str) -> str:
    return json.dumps(key)


def verify_turbo(invocation: Invocation, context: Context) -> AnchorResult:
    words = _positionals(list(invocation.args))
    if words and words[0] in _OTHER_COMMANDS:
        return unknown(invocation, f"`turbo {words[0]}` runs no task")
    if words and words[0] == "run":
        words = words[1:]
    try:
        root = _root(context, invocation.cwd)
        if root is None:
            return no_config(invocation, "no turbo.json here or above", invocation.cwd, ("turbo.json", "turbo.jsonc"))
        tasks = read_tasks(context, root)
    except ConfigError as error:
        return unusable(invocation, error)
    if not words:
        return unknown(invocation, "turbo without a task runs nothing")
    paths = [w for w in words if _path_like(w)]
    evidence, reasons = [], []
    for task in (w for w in words if w not in paths):
        if dynamic(task):
            return unknown(invocation, f"the task {task} is a placeholder or a shell expansion")
        found = tasks.get(task) or tasks.get(f"//#{task}") or next((w for k, w in tasks.items() if k.endswith(f"#{task}")), None)
        if found is None:
            return refuted(invocation, f"no task {task} in {root} (tasks: {listed(tasks)})", [Evidence(root, None, "tasks")])
        evidence.append(Evidence(found[0], found[1], f"task {task}"))
        reasons.append(f"task {task} is defined in {found[0]}" + (f":{found[1]}" if found[1] else ""))
    if paths:
        return unknown(invocation, f"{paths[0]} is written where turbo takes a task name; arguments for a task go after --")
    return verified(invocation, "; ".join(reasons), evidence)


def _root(context: Context, cwd: str) -> str | None:
    """turbo's root configuration: the nearest turbo.json that extends no other (a package's one says
    `"extends": ["//"]` and adds to the root's tasks); the nearest one when none above is such a root."""
    def find() -> str | None:
        found = [p for folder in upward(cwd) for p in (in_dir(folder, "turbo.json"), in_dir(folder, "turbo.jsonc")) if is_file(context, p)]
        for path in found:
            doc = parse_jsonc(path, read_text(context, path))
            if not (isinstance(doc, dict) and "extends" in doc):
                return path
        return found[0] if found else None

    return context.memo(("cmd-turbo-root", cwd), find)


def _path_like(word: str) -> bool:
    """A file or folder written where a task name goes (`turbo test src/x.test.ts`): no task is named so."""
    return "#" not in word and ("/" in word or word.startswith("."))


def _positionals(words: list[str]) -> list[str]:
    found = []
    while words:
        word = words.pop(0)
        if word == "--":
            break
        if word.startswith("-"):
            option(word, words, _VALUE_OPTIONS)  # and its value, when it takes one
            continue
        found.append(word)
    return found


@hookimpl
def register_runners(register):  # noqa: ANN001, ANN201 - hook signature
    register(Runner(name="turbo", programs=("turbo",), verify=verify_turbo, configs=("turbo.json",), summary="turbo.json tasks"))
