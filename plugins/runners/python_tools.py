"""Python project tools: `uv`, `poetry`, `pdm`, `hatch`, `rye`, `poe`, and `python -m` / `python FILE`.

`TOOL run X` is VERIFIED by a script of the project (`[project.scripts]`,
`[tool.poetry.scripts]`, `[tool.pdm.scripts]`, `[tool.rye.scripts]`, a hatch
environment's `scripts`, in pyproject.toml or hatch.toml), by a file X, or
by a dependency that provides the console script X (`uv run pytest` with
pytest declared or locked: read through the pypi ecosystem, as `pkg:`
reads it). A program another runner claims (`uv run tox -e py`,
`uv run poe lint`) is handed to that runner. Without a pyproject.toml
there is no project to run in: REFUTED. A known console script whose
distribution the complete manifests neither declare nor lock is REFUTED;
an unknown program that is not a script is INCONCLUSIVE (any dependency
may provide it). `--group`/`--only-group`/`--extra` must name a group or
extra the project defines. Project subcommands (`uv sync`, `poetry
install`, `hatch test`) need a pyproject.toml; global ones (`uv tool`,
`uvx`) need nothing: INCONCLUSIVE.

`python -m pkg.mod` is VERIFIED when the module is in the repository (the
root, `src/`, the folder of any pyproject.toml or setup.py, and its `src/`),
in the standard library, or the top-level name of a declared dependency;
a package of the repository that lacks the submodule (or a `__main__.py`
to run) is REFUTED. `python FILE` checks that the file exists.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from anchorcheck import AnchorResult, Evidence, Invocation, Runner, hookimpl
from anchorcheck.plugin import NOT_IN_CONFIG, Context
from anchorcheck_plugins.runners._support import (
    ConfigError,
    declared,
    dynamic,
    elsewhere,
    in_dir,
    is_dir,
    is_file,
    join,
    line_of,
    listed,
    no_config,
    no_folder,
    option as take_option,
    package_index,
    parse_toml,
    read_text,
    refuted,
    searched,
    unknown,
    unusable,
    upward,
    verified,
)

_PYTHON = re.compile(r"python(?:3(?:\.\d+)?)?")
# Console scripts whose distribution has another name (any other script is looked up under its own name).
SCRIPT_DISTRIBUTIONS = {
    "py.test": "pytest", "sphinx-build": "sphinx", "sphinx-apidoc": "sphinx", "sphinx-autobuild": "sphinx-autobuild",
    "django-admin": "django", "pip-compile": "pip-tools", "pip-sync": "pip-tools", "dmypy": "mypy", "stubgen": "mypy",
    "cog": "cogapp", "ptw": "pytest-watch", "datamodel-codegen": "datamodel-code-generator", "cythonize": "cython",
    "huggingface-cli": "huggingface-hub", "dbt": "dbt-core", "jupyter-lab": "jupyterlab", "pre-commit": "pre-commit",
    "f2py": "numpy", "fastapi": "fastapi-cli", "pybabel": "babel", "normalizer": "charset-normalizer", "ty": "ty",
}
# Console scripts known well enough that a project without their distribution cannot run them.
KNOWN_SCRIPTS = frozenset(
    "pytest mypy ruff black isort flake8 pylint coverage tox nox pre-commit prek sphinx-build mkdocs uvicorn gunicorn "
    "alembic django-admin celery ipython pyright basedpyright maturin twine bandit codespell yamllint towncrier "
    "bump-my-version pyrefly ty poe".split()
)
_MODULE_DISTRIBUTIONS = {"grpc_tools": "grpcio-tools", "sklearn": "scikit-learn", "yaml": "pyyaml", "PyInstaller": "pyinstaller"}
_PROJECT_COMMANDS = {
    "uv": "run sync lock add remove tree export build version publish format",
    "poetry": "install update add remove lock build publish show check sync shell env export version run list",
    "pdm": "add build export fix import info install list lock outdated publish remove run show sync update use venv",
    "hatch": "build clean dep env fmt project publish run shell status test version",
    "rye": "add build fetch fmt install lint list lock make-req pin publish remove run show sync test uninstall version",
}
_GLOBAL_COMMANDS = {
    "uv": "pip venv tool python self cache init help generate-shell-completion auth",
    "poetry": "new init self config cache source about debug help search",
    "pdm": "cache completion config init python py search self",
    "hatch": "config new python self",
    "rye": "config init self toolchain tools",
}
_RUN_VALUE_OPTIONS = {
    "--with", "-w", "--with-editable", "--with-requirements", "--group", "--only-group", "--no-group", "--extra",
    "--package", "--env-file", "--python", "-p", "--index", "--index-url", "--default-index", "--directory", "--project",
    "--exclude-newer", "--config-file", "--color", "--cache-dir", "-E", "--extras", "--env", "-e",
}
_GLOBAL_VALUE_OPTIONS = {"--python", "--color", "--cache-dir", "--config-file", "--native-tls-cert", "-e", "--env"}
_GROUP_OPTIONS = {"--group": "group", "--only-group": "group", "--no-group": "group", "--extra": "extra", "-E": "extra", "--extras": "extra"}


@dataclass
class Project:
    """One pyproject.toml: its scripts tables, groups and extras, with the line of each entry."""

    path: str
    scripts: dict[str, tuple[str, int | None]] = field(default_factory=dict)  # name -> (table, line)
    tool_scripts: dict[str, dict[str, int | None]] = field(default_factory=dict)  # pdm/rye/poe -> name -> line
    hatch_envs: dict[str, dict[str, object]] = field(default_factory=dict)
    groups: set[str] = field(default_factory=set)
    extras: set[str] = field(default_factory=set)
    poe_includes: bool = False


def read_project(context: Context, path: str) -> Project:
    """A pyproject.toml (or hatch.toml beside it), parsed once per Verifier."""

    def parse() -> Project:
        text = read_text(context, path)
        doc = parse_toml(path, text)
        project = Project(path)
        tool = _table(doc, "tool")
        for table, where in (
            (_table(_table(doc, "project"), "scripts"), "[project.scripts]"),
            (_table(_table(doc, "project"), "gui-scripts"), "[project.gui-scripts]"),
            (_table(_table(tool, "poetry"), "scripts"), "[tool.poetry.scripts]"),
        ):
            for name in table:
                project.scripts.setdefault(name, (where, _key_line(text, name)))
        for name, table in (("pdm", _table(_table(tool, "pdm"), "scripts")), ("rye", _table(_table(tool, "rye"), "scripts")),
                            ("poe", _table(_table(tool, "poe"), "tasks"))):
            project.tool_scripts[name] = {key: _key_line(text, key) for key in table if not key.startswith("_")}
        project.poe_includes = "include" in _table(tool, "poe")
        project.hatch_envs = {k: v for k, v in _table(_table(tool, "hatch"), "envs").items() if isinstance(v, dict)}
        hatch_toml = in_dir(posixpath.dirname(path) or ".", "hatch.toml")
        if is_file(context, hatch_toml):
            envs = _table(parse_toml(hatch_toml, read_text(context, hatch_toml)), "envs")
            project.hatch_envs.update({k: v for k, v in envs.items() if isinstance(v, dict)})
        project.groups = set(_table(doc, "dependency-groups")) | set(_table(_table(tool, "poetry"), "group"))
        project.groups |= set(_table(_table(tool, "pdm"), "dev-dependencies"))
        if _table(tool, "uv").get("dev-dependencies") is not None:
            project.groups.add("dev")
        project.extras = set(_table(_table(doc, "project"), "optional-dependencies")) | set(_table(_table(tool, "poetry"), "extras"))
        return project

    return context.memo(("cmd-python-project", path), parse)


def _table(doc: object, key: str) -> dict[str, object]:
    value = doc.get(key) if isinstance(doc, dict) else None
    return value if isinstance(value, dict) else {}


def _key_line(text: str, key: str) -> int | None:
    return line_of(text, rf"^[ \t]*(?:{re.escape(key)}|\"{re.escape(key)}\"|'{re.escape(key)}')\s*[=.]")


def _nearest_project(context: Context, cwd: str) -> str | None:
    for folder in upward(cwd):
        if is_file(context, in_dir(folder, "pyproject.toml")):
            return in_dir(folder, "pyproject.toml")
    return None


def verify_python(invocation: Invocation, context: Context) -> AnchorResult:
    program = invocation.program.rsplit("/", 1)[-1]
    try:
        if _PYTHON.fullmatch(program):
            return _python(invocation, context, list(invocation.args), invocation.cwd)
        if program == "uvx":
            return unknown(invocation, "uvx runs a tool in a throwaway environment and needs no repository configuration")
        if program == "poe":
            return _poe(invocation, context, list(invocation.args), invocation.cwd)
        return _tool(invocation, context, program, list(invocation.args))
    except ConfigError as error:
        return unusable(invocation, error)


def reads_python(program: str, args: tuple[str, ...]) -> bool:
    """Whether a call is a claim about the repository: `uvx ruff`, `uv tool install x`, `uv python install`,
    `poetry new` install or make things for the user, wherever they run, so they are not."""
    if program == "uvx":
        return False
    if program not in _GLOBAL_COMMANDS:
        return True
    words, _ = _subcommand_words(program, list(args), ".")
    return bool(words) and words[0] not in _GLOBAL_COMMANDS[program].split()


def _subcommand_words(tool: str, words: list[str], cwd: str) -> tuple[list[str], str]:
    """The words from the subcommand on, and the folder that the global options before it move to."""
    folder_options = {"--directory", "--project", "-C"} | ({"-p"} if tool == "pdm" else set())
    while words and words[0].startswith("-"):
        option = words.pop(0)
        name, eq, value = option.partition("=")
        if (name in folder_options or name in _GLOBAL_VALUE_OPTIONS) and not eq and words:
            value = words.pop(0)
        if name in folder_options:
            cwd = join(cwd, value) or cwd
    return words, cwd


def _tool(invocation: Invocation, context: Context, tool: str, words: list[str]) -> AnchorResult:
    words, cwd = _subcommand_words(tool, words, invocation.cwd)
    moved = no_folder(invocation, context, tool, cwd) if cwd != invocation.cwd else None
    if moved is not None:
        return moved
    if not words:
        return unknown(invocation, f"{tool} without a subcommand only prints its help")
    command, rest = words[0], words[1:]
    if command in _GLOBAL_COMMANDS[tool].split():
        return unknown(invocation, f"`{tool} {command}` needs no repository configuration")
    if tool == "pdm" and command not in _PROJECT_COMMANDS[tool].split():
        rest, command = [command, *rest], "run"  # `pdm lint` runs the script lint
    if command not in _PROJECT_COMMANDS[tool].split():
        return unknown(invocation, f"{tool} has no `{command}` command anchorcheck knows")
    manifest = _nearest_project(context, cwd)
    if manifest is None and tool == "uv" and command == "run":
        return _run(invocation, context, tool, None, rest, cwd)  # uv runs scripts and commands outside projects too
    if manifest is None:
        return no_config(invocation, f"`{tool} {command}` needs a pyproject.toml; there is none in {searched(cwd)}{elsewhere(context, ['pyproject.toml'])}",
                         cwd, ["pyproject.toml"])
    project = read_project(context, manifest)
    bad_group = _groups(invocation, project, rest)
    if bad_group is not None:
        return bad_group
    if command == "run":
        return _run(invocation, context, tool, project, rest, cwd)
    return verified(invocation, f"`{tool} {command}` works on the project {manifest}", [Evidence(manifest, None, "pyproject.toml")])



def _groups(invocation: Invocation, project: Project, words: list[str]) -> AnchorResult | None:
    """A `--group`/`--extra` that the project does not define: REFUTED (uv and poetry stop there)."""
    for index, word in enumerate(words):
        if word == "--" or (not word.startswith("-") and index and not words[index - 1].startswith("-")):
            break
        name, eq, value = word.partition("=")
        kind = _GROUP_OPTIONS.get(name)
        if kind is None:
            continue
        value = value if eq else (words[index + 1] if index + 1 < len(words) else "")
        defined = project.groups if kind == "group" else project.extras
        for wanted in value.split(","):
            if wanted and not dynamic(wanted) and _norm(wanted) not in {_norm(d) for d in defined}:
                return refuted(invocation, f"no {kind} {wanted} in {project.path} ({kind}s: {listed(defined)})", [Evidence(project.path, None, f"{kind}s")])
    return None


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


# A PEP 508 requirement's name, then its extras, and a version, marker or URL, or nothing. A path or an
# archive (`./dist/x.whl`, `tools/`, `x-1.0.tar.gz`) has none: what it installs cannot be known here.
_REQUIREMENT_NAME = re.compile(r"\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[[^\]]*\]\s*)?(?:[<>=!~;@(]|$)")
_ARCHIVE = re.compile(r"\.(?:whl|zip|tar(?:\.\w+)?|tgz)$", re.IGNORECASE)


def _requirement_name(spec: str) -> str | None:
    """The distribution a `--with` value (or an environment's dependency) names; None for a path, an archive,
    a URL, and the `--with-requirements FILE` and `--with-editable PATH` this runner notes as they are written."""
    found = _REQUIREMENT_NAME.match(spec)
    if found is None or _ARCHIVE.search(found.group(1)):
        return None
    return _norm(found.group(1))


def _run(invocation: Invocation, context: Context, tool: str, project: Project | None, words: list[str], cwd: str) -> AnchorResult:
    """`TOOL run ...` in a project; `project` None for `uv run` where there is none: uv then runs a script
    (`uv run tool.py`, with or without inline metadata) or a command in whatever environment it finds."""
    module = False
    added: list[str] = []
    while words and words[0].startswith("-") and words[0] != "--":
        option = words.pop(0)
        name, value = take_option(option, words, _RUN_VALUE_OPTIONS)
        if name in ("-m", "--module"):
            module = True
        elif name in ("--with", "-w"):
            added.extend(v.strip() for v in value.split(","))
        elif name == "--with-requirements":
            added.append(f"{name} {value}")  # what the file adds is not looked at: nothing it could provide is ruled out
        elif name == "--with-editable":
            added.append(f"{name} {value}")
    if words and words[0] == "--":
        words.pop(0)
    if not words and project is None:
        return unknown(invocation, f"`{tool} run` without a command, and no pyproject.toml in {searched(cwd)}")
    if not words:
        return verified(invocation, f"`{tool} run` lists or runs in the project {project.path}", [Evidence(project.path, None, "pyproject.toml")])
    program, args = words[0], words[1:]
    if module:
        return _module(invocation, context, program, cwd)
    if dynamic(program):
        return unknown(invocation, f"{program} is a placeholder or a shell expansion")
    if project is None:
        if _PYTHON.fullmatch(program):
            return _python(invocation, context, args, cwd)
        if program.endswith(".py") or "/" in program:
            return _file(invocation, context, program, cwd)
        return unknown(invocation, f"no pyproject.toml in {searched(cwd)}: uv runs {program} in the environment it finds, which the repository does not name")
    if tool == "hatch":
        return _hatch(invocation, context, project, program, args, added)
    return _program(invocation, context, tool, project, program, args, cwd, added)


def _program(
    invocation: Invocation, context: Context, tool: str, project: Project, program: str, args: list[str], cwd: str, added: list[str]
) -> AnchorResult:
    """What `TOOL run PROGRAM` runs: a script of the project, a file, another runner, or a dependency's console script."""
    own = project.tool_scripts.get(tool, {})
    if program in own:
        return verified(invocation, f"{tool} script {program} is defined in {project.path}", [Evidence(project.path, own[program], f"[tool.{tool}.scripts] {program}")])
    for candidate in _projects(context, project):
        if program in candidate.scripts:
            table, line = candidate.scripts[program]
            return verified(invocation, f"{program} is a script of the project ({table} in {candidate.path})", [Evidence(candidate.path, line, f"{table} {program}")])
    if _PYTHON.fullmatch(program):
        return _python(invocation, context, args, cwd)
    if program.endswith(".py") or "/" in program:
        return _file(invocation, context, program, cwd)
    if context.registry.runner_for(program) is not None:
        return invocation.delegate(program, tuple(args), cwd)
    return _console_script(invocation, context, project, program, added)


def _projects(context: Context, project: Project) -> list[Project]:
    """The project and the other pyproject.toml files of the repository (workspace members install their scripts too)."""
    others = [p for p in context.repo.files(named=["pyproject.toml"]) if p != project.path]
    found = [project]
    for path in others:
        try:
            found.append(read_project(context, path))
        except ConfigError:
            continue
    return found


def _console_script(invocation: Invocation, context: Context, project: Project, program: str, added: list[str]) -> AnchorResult:
    distribution = SCRIPT_DISTRIBUTIONS.get(program, program)
    if _norm(distribution) in {_requirement_name(spec) for spec in added}:
        return verified(invocation, f"{program} comes from {distribution}, added with --with")
    unnamed = [spec for spec in added if _requirement_name(spec) is None]
    found = declared(context, "pypi", [distribution], member=posixpath.dirname(project.path))
    if found is not None:
        where = f"{found.file}:{found.line}" if found.line else found.file
        return verified(invocation, f"{program} is a console script of {found.name}, {found.describe()} ({where})", [Evidence(found.file, found.line, f"{found.name}")])
    index = package_index(context, "pypi")
    complete = index is not None and not index[1].problems()
    if unnamed:
        return unknown(invocation, f"{program} may come from `{unnamed[0]}`, added to the run: what that installs is not looked into")
    if program in KNOWN_SCRIPTS or program in SCRIPT_DISTRIBUTIONS:
        if complete:
            why = f"{program} would come from {distribution}, which the project neither declares nor locks, and it is no script of {project.path}"
            return refuted(invocation, why, [Evidence(project.path, None, "dependencies")])  # its history: declared once?
        return unknown(invocation, f"{program} would come from {distribution}; the manifests cannot tell whether it is declared")
    # The project's configuration does not define it now: its history may show that it did (`not-in-config`).
    result = unknown(invocation, f"{program} is no script of {project.path}; a dependency may provide it", [Evidence(project.path, None, "scripts")])
    result.state = NOT_IN_CONFIG
    return result


def _hatch(invocation: Invocation, context: Context, project: Project, program: str, args: list[str], added: list[str]) -> AnchorResult:
    """`hatch run [ENV:]SCRIPT`: a script of that environment (or the ones it inherits), else a command in it."""
    env, sep, script = program.partition(":")
    if not sep:
        env, script = "default", program
    base = env.split(".", 1)[0]  # a matrix environment `test.py3.11`
    if base != "default" and base not in project.hatch_envs:
        return refuted(invocation, f"no hatch environment {base} in {project.path} (environments: {listed(project.hatch_envs)})", [Evidence(project.path, None, "hatch environments")])
    chain = [base]
    config = project.hatch_envs.get(base, {})
    template = config.get("template", "default") if not config.get("detached") else None
    if isinstance(template, str) and template not in chain:
        chain.append(template)
    for name in chain:
        scripts = _table(project.hatch_envs.get(name, {}), "scripts")
        if script in scripts:
            return verified(invocation, f"script {script} of hatch environment {name} is defined in {project.path}", [Evidence(project.path, _key_line(read_text(context, project.path), script), f"hatch script {script}")])
    env_deps = [d for d in project.hatch_envs.get(base, {}).get("dependencies", []) if isinstance(d, str)]
    return _console_script(invocation, context, project, script, added + env_deps)


def _poe(invocation: Invocation, context: Context, words: list[str], cwd: str) -> AnchorResult:
    tasks = [w for w in words if not w.startswith("-")]
    manifest = _nearest_project(context, cwd)
    if manifest is None:
        return no_config(invocation, f"poe reads [tool.poe.tasks] from a pyproject.toml; there is none in {searched(cwd)}", cwd, ["pyproject.toml"])
    project = read_project(context, manifest)
    if not tasks:
        return verified(invocation, f"poe lists the tasks of {manifest}", [Evidence(manifest, None, "pyproject.toml")])
    task = tasks[0]
    found = project.tool_scripts.get("poe", {})
    if task in found:
        return verified(invocation, f"poe task {task} is defined in {manifest}", [Evidence(manifest, found[task], f"[tool.poe.tasks] {task}")])
    missing = f"no poe task {task} in {manifest} (tasks: {listed(found)})"
    if project.poe_includes:
        return unknown(invocation, f"{missing}; [tool.poe] include adds tasks from other files")
    return refuted(invocation, missing, [Evidence(manifest, None, "[tool.poe.tasks]")])


def _python(invocation: Invocation, context: Context, words: list[str], cwd: str) -> AnchorResult:
    while words:
        word = words.pop(0)
        if word == "-m" or (word.startswith("-m") and len(word) > 2):
            name = word[2:] or (words.pop(0) if words else "")
            return _module(invocation, context, name, cwd)
        if word in ("-c", "-"):
            return unknown(invocation, "the program is given inline")
        if word.startswith("-"):
            if word in ("-W", "-X", "--check-hash-based-pycs") and words:
                words.pop(0)
            continue
        return _file(invocation, context, word, cwd)
    return unknown(invocation, "an interactive interpreter")


def _file(invocation: Invocation, context: Context, written: str, cwd: str) -> AnchorResult:
    if dynamic(written):
        return unknown(invocation, f"{written} is a placeholder or a shell expansion")
    path = join(cwd, written)
    if path is None:
        return unknown(invocation, f"{written} is outside the repository")
    if is_file(context, path):
        return verified(invocation, f"{path} exists", [Evidence(path, None, "file")])
    # The program file is missing: the core asks git's history whether it was there once (`missing_path`).
    missing = refuted(invocation, f"{path} does not exist in the repository")
    missing.state, missing.details = "missing", {**missing.details, "missing_path": path}
    return missing


def _module(invocation: Invocation, context: Context, name: str, cwd: str) -> AnchorResult:
    if not name or dynamic(name) or not all(part.isidentifier() for part in name.split(".")):
        return unknown(invocation, f"{name or 'nothing'} is not a module name anchorcheck can look up")
    top = name.split(".", 1)[0]
    found = package_index(context, "pypi")
    if found is not None and found[0].builtin is not None and found[0].builtin(top):
        return verified(invocation, f"{name} is {found[0].builtin(top)}")
    parts = name.split(".")
    for root in _source_roots(context, cwd):
        package = in_dir(root, top)
        if is_file(context, package + ".py") or is_dir(context, package):
            return _in_repository(invocation, context, root, parts)
    distribution = declared(context, "pypi", [_MODULE_DISTRIBUTIONS.get(top, top), SCRIPT_DISTRIBUTIONS.get(top, top)])
    if distribution is not None:
        return verified(invocation, f"{name} comes from {distribution.name}, {distribution.describe()}", [Evidence(distribution.file, distribution.line, distribution.name)])
    return unknown(invocation, f"{top} is not in the repository and no declared dependency is named {top}")


def _in_repository(invocation: Invocation, context: Context, root: str, parts: list[str]) -> AnchorResult:
    base = in_dir(root, "/".join(parts))
    for candidate in (base + ".py", base + "/__main__.py"):
        if is_file(context, candidate):
            return verified(invocation, f"the module is {candidate}", [Evidence(candidate, None, "module")])
    if is_dir(context, base):
        return refuted(invocation, f"{base}/ is a package without a __main__.py, so `python -m` cannot run it")
    return refuted(invocation, f"{base}.py does not exist in the repository (the package {in_dir(root, parts[0])} does)")


def _source_roots(context: Context, cwd: str) -> list[str]:
    """Folders a module may be imported from: the working folder, the root, and each Python project's folder and src/."""
    roots = [cwd, "."]
    for path in context.repo.files(named=["pyproject.toml", "setup.py", "setup.cfg"]):
        roots.append(posixpath.dirname(path) or ".")
    with_src = [r for root in roots for r in (root, in_dir(root, "src"))]
    return [r for r in dict.fromkeys(with_src) if is_dir(context, r)]


@hookimpl
def register_runners(register):  # noqa: ANN001, ANN201 - hook signature
    register(
        Runner(
            name="python",
            programs=("uv", "uvx", "poetry", "pdm", "hatch", "rye", "poe", "python", "python3", *(f"python3.{n}" for n in range(8, 16))),
            verify=verify_python,
            reads=reads_python,
            configs=("pyproject.toml",),
            summary="pyproject scripts, dependencies' console scripts, python -m modules (uv, poetry, pdm, hatch, rye, poe)",
        )
    )
