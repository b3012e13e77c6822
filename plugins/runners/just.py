"""`just [RECIPE [ARGS...]]...`: the recipes and aliases of the justfile, its imports and its modules.

The justfile is the nearest `justfile`/`.justfile` (any case) at or above the
folder the call runs from, or `-f FILE`. `import 'file'` adds that file's
recipes; `mod NAME ['path']` makes a module whose recipes are called as
`just NAME::recipe` or `just NAME recipe`. A recipe's parameters take the
words after it, and the next word without one is the next recipe, as just
reads them. A missing recipe is REFUTED, unless `set fallback` lets just
look in a justfile further up (then that one decides; above the repository
nothing can), or an import cannot be read or an optional one is not there
(INCONCLUSIVE).
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
    elsewhere,
    in_dir,
    is_file,
    join,
    listed,
    named_file,
    nearest,
    no_config,
    read_text,
    refuted,
    searched,
    unknown,
    unusable,
    verified,
)

_NAMES = ("justfile", "Justfile", "JUSTFILE", ".justfile", ".Justfile")
# Possessive: a line of thousands of blanks made the lazy `\s+[^:]*?\s*` before the colon cubic (a 6 KB justfile: minutes).
_RECIPE = re.compile(r"^@?(?P<name>[A-Za-z_][A-Za-z0-9_-]*+)(?P<params>(?:\s[^:]*+)?+):(?!=)")
_ALIAS = re.compile(r"^(?:\[[^\]]*\]\s*)*alias\s+(?P<name>[A-Za-z_][\w-]*)\s*:=\s*(?P<target>[\w:-]+)")
_IMPORT = re.compile(r"^import(?P<optional>\?)?\s+(?P<quote>['\"])(?P<path>[^'\"]+)(?P=quote)")
_MOD = re.compile(r"^mod(?P<optional>\?)?\s+(?P<name>[A-Za-z_][\w-]*)(?:\s+(?P<quote>['\"])(?P<path>[^'\"]+)(?P=quote))?")
_FALLBACK = re.compile(r"^set\s+fallback(?:\s*:=\s*true)?\s*$")
_VALUE_OPTIONS = {"-f", "--justfile", "-d", "--working-directory", "--set", "--shell", "--shell-arg", "--dotenv-filename",
                  "--dotenv-path", "-E", "--color", "--dump-format", "--chooser", "--command-color", "--list-heading",
                  "--list-prefix", "--timestamp-format", "-c", "--command", "-s", "--show", "--usage", "--request"}
_INFO_OPTIONS = {"-l", "--list", "--summary", "--dump", "--evaluate", "--variables", "--choose", "--fmt", "--edit",
                 "--groups", "--init", "--man", "--completions", "--help", "-h", "--version", "-V", "--changelog",
                 "-s", "--show", "--usage"}


@dataclass
class Recipe:
    name: str
    file: str
    line: int
    params: int  # how many arguments it takes; -1 for a variadic one
    target: str | None = None  # an alias names its recipe


@dataclass
class Justfile:
    """One justfile with its imports: recipes and aliases by name, modules by name, and what is unknown."""

    path: str
    recipes: dict[str, Recipe] = field(default_factory=dict)
    modules: dict[str, tuple[str | None, str, int]] = field(default_factory=dict)  # name -> (path or None, file, line)
    open: list[str] = field(default_factory=list)
    fallback: bool = False
    first: str | None = None


def read_justfile(context: Context, path: str) -> Justfile:
    """A justfile with its imports, parsed once per Verifier; ConfigError when it cannot be read."""

    def parse() -> Justfile:
        justfile = Justfile(path)
        _read_into(context, path, justfile, set())
        return justfile

    return context.memo(("cmd-just", path), parse)


def _read_into(context: Context, path: str, justfile: Justfile, seen: set[str]) -> None:
    if path in seen:
        return
    seen.add(path)
    folder = posixpath.dirname(path) or "."
    for number, line in enumerate(read_text(context, path).splitlines(), start=1):
        if not line or line[0] in " \t#[":
            continue  # recipe bodies, comments and attributes
        if _FALLBACK.match(line):
            justfile.fallback = True
        elif match := _ALIAS.match(line):
            justfile.recipes.setdefault(match["name"], Recipe(match["name"], path, number, 0, match["target"]))
        elif match := _IMPORT.match(line):
            target = join(folder, match["path"])
            if target is not None and is_file(context, target):
                _read_into(context, target, justfile, seen)
            elif match["optional"]:  # a file each clone may write for itself: it may define the recipe
                justfile.open.append(f"{path}:{number} imports {match['path']} where there is one, and it is not in the repository")
            else:
                justfile.open.append(f"{path}:{number} imports {match['path']}, which cannot be read")
        elif match := _MOD.match(line):
            justfile.modules.setdefault(match["name"], (_module_path(context, folder, match["name"], match["path"]), path, number))
        elif line.startswith(("set ", "export ", "unexport ")) or re.match(r"^[A-Za-z_][\w-]*\s*:=", line):
            continue
        elif match := _RECIPE.match(line):
            recipe = Recipe(match["name"], path, number, _arity(match["params"]))
            justfile.recipes.setdefault(recipe.name, recipe)
            if justfile.first is None and not recipe.name.startswith("_"):
                justfile.first = recipe.name


def _arity(params: str) -> int:
    """How many arguments a recipe takes at most (just fills optional ones greedily); -1 for `*args`/`+args`."""
    names = re.findall(r"(?:^|\s)([*+$]*[A-Za-z_][\w-]*)(?:=(?:'[^']*'|\"[^\"]*\"|\S+))?", params)
    if any(n.lstrip("$").startswith(("*", "+")) for n in names):
        return -1
    return len(names)


def _module_path(context: Context, folder: str, name: str, written: str | None) -> str | None:
    candidates = [written] if written else [f"{name}.just", f"{name}/mod.just", f"{name}/justfile", f"{name}/.justfile"]
    for candidate in candidates:
        path = join(folder, candidate)
        if path is not None and is_file(context, path):
            return path
        if path is not None and written and context.repo.is_dir(path):
            for inner in ("mod.just", "justfile", ".justfile"):
                if is_file(context, in_dir(path, inner)):
                    return in_dir(path, inner)
    return None


def verify_just(invocation: Invocation, context: Context) -> AnchorResult:
    words = list(invocation.args)
    justfile_arg: str | None = None
    positionals: list[str] = []
    while words:
        word = words.pop(0)
        if word == "--":
            positionals.extend(words)
            break
        if word.startswith("-") and not positionals:
            name, eq, value = word.partition("=")
            if name in _INFO_OPTIONS and name not in ("-s", "--show", "--usage"):
                positionals = []
                justfile_arg = justfile_arg or ""
                break
            if name in _VALUE_OPTIONS and not eq:
                value = words.pop(0) if words else ""
            if name in ("-f", "--justfile"):
                justfile_arg = value
            continue
        positionals.append(word)
    try:
        if justfile_arg:
            path = named_file(context, invocation, invocation.cwd, justfile_arg, "justfile")
            if isinstance(path, AnchorResult):
                return path
        else:
            path = nearest(context, invocation.cwd, _NAMES)
            if path is None:
                return no_config(invocation, f"no justfile in {searched(invocation.cwd)}{elsewhere(context, _NAMES)}", invocation.cwd, _NAMES)
        justfile = read_justfile(context, path)
        if justfile_arg == "":  # --list and friends
            return verified(invocation, f"{path} is the justfile", [Evidence(path, None, "justfile")])
        return _recipes(invocation, context, justfile, [w for w in positionals if "=" not in w or w.startswith("-")])
    except ConfigError as error:
        return unusable(invocation, error)


def _recipes(invocation: Invocation, context: Context, justfile: Justfile, words: list[str]) -> AnchorResult:
    if not words:
        if justfile.first is None and "default" not in justfile.recipes:
            return refuted(invocation, f"{justfile.path} has no recipe to run by default")
        name = "default" if "default" in justfile.recipes else justfile.first
        recipe = justfile.recipes[name]  # type: ignore[index]
        return verified(invocation, f"the default recipe is {name}", [Evidence(recipe.file, recipe.line, f"recipe {name}")])
    evidence: list[Evidence] = []
    reasons: list[str] = []
    while words:
        word = words.pop(0)
        if dynamic(word):
            return unknown(invocation, f"the recipe {word} is a placeholder or a shell expansion")
        path = word.split("::")
        current = justfile
        while len(path) == 1 and path[0] in current.modules and words:
            path = [path[0], words.pop(0)]  # `just module recipe`
        found = _lookup(invocation, context, current, path)
        if isinstance(found, AnchorResult):
            return found
        recipe = found
        evidence.append(Evidence(recipe.file, recipe.line, f"recipe {recipe.name}"))
        reasons.append(f"recipe {word} is defined in {recipe.file}:{recipe.line}")
        takes = recipe.params
        if takes < 0:
            break
        del words[:takes]
    return verified(invocation, "; ".join(reasons), evidence)


def _lookup(invocation: Invocation, context: Context, justfile: Justfile, path: list[str]) -> Recipe | AnchorResult:
    """The recipe at a module path (`mod::recipe`), following aliases; a result when there is none."""
    for module in path[:-1]:
        if module not in justfile.modules:
            return refuted(invocation, f"no module {module} in {justfile.path} (modules: {listed(justfile.modules)})", [Evidence(justfile.path, None, "modules")])
        target, file, line = justfile.modules[module]
        if target is None:
            return unknown(invocation, f"module {module} ({file}:{line}) has no justfile anchorcheck can find")
        justfile = read_justfile(context, target)
    name = path[-1]
    recipe = justfile.recipes.get(name)
    if recipe is not None and recipe.target is not None:
        alias = recipe
        recipe = justfile.recipes.get(alias.target)
        if recipe is None:
            return refuted(invocation, f"alias {name} ({alias.file}:{alias.line}) names a recipe {alias.target} that does not exist")
    if recipe is not None:
        return recipe
    missing = f"no recipe {name} in {justfile.path} (recipes: {listed(n for n in justfile.recipes if not n.startswith('_'))})"
    if justfile.open:
        return unknown(invocation, f"{missing}; {justfile.open[0]}")
    if justfile.fallback and len(path) == 1:
        parent = posixpath.dirname(posixpath.dirname(justfile.path) or ".")
        above = nearest(context, parent, _NAMES) if posixpath.dirname(justfile.path) else None
        if above is not None:
            return _lookup(invocation, context, read_justfile(context, above), path)
        if not posixpath.dirname(justfile.path):  # just goes on above the repository, into folders not looked at
            return unknown(invocation, f"{missing}; `set fallback` lets just look for it in a justfile above the repository")
    return refuted(invocation, missing, [Evidence(justfile.path, None, "recipes")])


@hookimpl
def register_runners(register):  # noqa: ANN001, ANN201 - hook signature
    register(Runner(name="just", programs=("just",), verify=verify_just, configs=("justfile", "Justfile", ".justfile"), summary="justfile recipes, aliases, imports and modules"))
