"""`npm`, `pnpm`, `yarn`, `bun` (and `npx`, `pnpx`, `bunx`): package.json scripts of the package a call runs in.

The package is the nearest package.json at or above the folder the call runs
from, moved by `--prefix`/`-C`/`--dir`/`--cwd`, or picked out of the
workspace (package.json `workspaces`, pnpm-workspace.yaml `packages`) by
`-w`/`--workspace` (npm), `-F`/`--filter` (pnpm, bun), `-w` (pnpm: the
workspace root) or `yarn workspace NAME`. `run X` and the shorthands
(`npm test`, `pnpm lint`, `yarn build`, `bun dev`) are VERIFIED by a script
X and REFUTED when the package.json lacks it. pnpm, yarn and bun also run a
dependency's binary when no script matches, so there a missing script is
REFUTED only when no dependency could provide a binary of that name.
Built-in subcommands (`npm install`, `pnpm i`) are VERIFIED when there is
a package.json. `npx X`, `pnpm dlx X`, `bunx X`, `pnpm exec X` are VERIFIED
by a declared dependency providing X and INCONCLUSIVE otherwise (they may
download it); a runner that claims X (`npx turbo run build`) checks the rest.

bun's own tools run whatever the scripts say: `bun test` is bun's test
runner (the script test runs with `bun run test`) and `bun build` its
bundler. They need no configuration, so they are VERIFIED in a bun project
(a package.json, bun.lock, bun.lockb or bunfig.toml in the folder or above)
and INCONCLUSIVE elsewhere: nothing says the repository meant them.
`bun FILE` and `bun run FILE` (a path, or a name with a JavaScript or
TypeScript extension, that no script is called) run the file: VERIFIED
when it exists, INCONCLUSIVE when it may be a build output, else REFUTED.
Global installs and commands that need no project (`npm i -g x`, `yarn
global add x`, `bun create x`, `pnpm store prune`) are not claims about
the repository: a reader of prose does not read them (`reads_npm`).
"""

from __future__ import annotations

from typing import NamedTuple

from anchorcheck import AnchorResult, Evidence, Invocation, Runner, hookimpl
from anchorcheck.plugin import NOT_IN_CONFIG, Context, later
from anchorcheck_plugins.runners._npm_packages import Package, find_workspace, nearest_manifest, package_name, read_package, select
from anchorcheck_plugins.runners._support import (
    ConfigError,
    declared,
    dynamic,
    elsewhere,
    is_dir,
    is_file,
    join,
    listed,
    nearest,
    no_config,
    no_folder,
    not_there,
    option,
    package_index,
    refuted,
    searched,
    unknown,
    unusable,
    verified,
)

_RUN = {"npm": {"run", "run-script", "rum", "urn"}, "pnpm": {"run", "run-script"}, "yarn": {"run"}, "bun": {"run"}}
_SHORTHAND_SCRIPTS = frozenset({"test", "t", "tst", "start", "stop", "restart"})
_SCRIPT_ALIASES = {"t": "test", "tst": "test"}
_EXEC = {"npm": {"exec", "x"}, "pnpm": {"exec", "dlx"}, "yarn": {"exec", "dlx"}, "bun": {"x"}}
_DOWNLOADS = frozenset({"npx", "pnpx", "bunx", "dlx", "x"})
# Built-in subcommands that act on the project, so they need its package.json.
_PROJECT_BUILTINS = {
    "npm": "install i in ins inst insta instal isnt isnta isntal add ci clean-install install-clean isntall-clean "
    "install-test it install-ci-test cit uninstall un unlink remove rm r update up upgrade ls list la ll audit outdated "
    "dedupe ddp find-dupes prune rebuild rb pack publish version explain why fund query sbom shrinkwrap pkg link ln",
    "pnpm": "install i add update up upgrade remove rm uninstall un unlink link ln import rebuild rb prune fetch "
    "install-test it patch patch-commit audit list ls ll la outdated why licenses publish pack deploy dedupe "
    "recursive m multi approve-builds ignored-builds",
    "yarn": "install add remove up upgrade upgrade-interactive why info workspaces list outdated audit dedupe pack "
    "publish version link unlink rebuild constraints autoclean check licenses import bin",
    "bun": "install i add a remove rm update outdated link unlink pm publish pack audit why patch",
}
# Built-ins that need no project at all (help, account, registry and global-store commands).
_GLOBAL_BUILTINS = {
    "npm": "access adduser login logout whoami owner org team token profile bugs docs repo help help-search search "
    "view v info show cache completion config c set get doctor edit explore hook init create innit ping prefix root "
    "star stars unstar deprecate dist-tag unpublish diff",
    "pnpm": "help init create store server setup env config c get set root bin self-update doctor cat-file "
    "cat-index find-hash login logout whoami view info search",
    "yarn": "help init create cache config global login logout owner tag team policies generate-lock-entry node npm "
    "plugin set",
    "bun": "help init create upgrade repl completions",
}
# bun's own tools: they run whatever package.json says, and need no configuration to run.
_BUN_TOOLS = {"test": "bun's own test runner (the script test runs with `bun run test`)", "build": "bun's bundler"}
_BUN_PROJECT = ("package.json", "bun.lock", "bun.lockb", "bunfig.toml")
_SCRIPT_FILE = later(r".*/.*|.*\.(?:[cm]?[jt]s|[jt]sx)$")
# Binaries whose package has another name; any other binary is looked up under its own name.
_BIN_PACKAGES = {
    "tsc": ("typescript",), "tsserver": ("typescript",), "changeset": ("@changesets/cli",),
    "playwright": ("@playwright/test", "playwright"), "biome": ("@biomejs/biome",), "ng": ("@angular/cli",),
    "vue-tsc": ("vue-tsc",), "nuxi": ("nuxi", "nuxt"), "svelte-kit": ("@sveltejs/kit",), "commitlint": ("@commitlint/cli",),
    "run-s": ("npm-run-all", "npm-run-all2"), "run-p": ("npm-run-all", "npm-run-all2"), "dotenv": ("dotenv-cli",),
    "webpack": ("webpack", "webpack-cli"), "swc": ("@swc/cli",), "babel": ("@babel/cli",), "postcss": ("postcss-cli",),
    "graphql-codegen": ("@graphql-codegen/cli",), "gql-gen": ("@graphql-codegen/cli",), "sb": ("storybook",),
    "wrangler": ("wrangler",), "vercel": ("vercel",), "tailwindcss": ("tailwindcss", "@tailwindcss/cli"),
    "napi": ("@napi-rs/cli",), "eslint": ("eslint",), "oxlint": ("oxlint",), "prisma": ("prisma",),
    "drizzle-kit": ("drizzle-kit",), "lerna": ("lerna",), "nx": ("nx",), "turbo": ("turbo",),
}
_VALUE_OPTIONS = {
    "npm": {"-w", "--workspace", "--prefix", "-C", "--loglevel", "--registry", "--userconfig", "--cache", "--tag",
            "--omit", "--include", "--script-shell", "-p", "--package", "-c", "--call"},
    "pnpm": {"-C", "--dir", "-F", "--filter", "--filter-prod", "--reporter", "--loglevel", "--workspace-concurrency",
             "--resume-from", "--test-pattern", "--changed-files-ignore-pattern", "--config-dir"},
    "yarn": {"--cwd", "--modules-folder", "--mutex", "--network-timeout", "--registry", "-p", "--package"},
    "bun": {"--cwd", "-F", "--filter", "--elide-lines", "-c", "--config", "--shell", "-p", "--package"},
}
_TOOL_OF = {"npx": "npm", "pnpx": "pnpm", "bunx": "bun"}


class Options:
    """What the options of one call select: the folder, the workspace packages, and how. A plain class
    (nothing compares or prints it): a dataclass's generated methods cost a check's start-up."""

    __slots__ = ("cwd", "workspace", "root", "recursive", "if_present", "global_", "packages", "positionals", "rest")

    def __init__(self, cwd: str, workspace: list[str] | None = None, positionals: list[str] | None = None, if_present: bool = False) -> None:
        self.cwd = cwd
        self.workspace = [] if workspace is None else workspace  # npm -w, bun/pnpm --filter, yarn workspace
        self.root = False  # pnpm -w
        self.recursive = False  # -r, --workspaces
        self.if_present = if_present
        self.global_ = False
        self.packages: list[str] = []  # npx -p
        self.positionals = [] if positionals is None else positionals
        self.rest: list[str] = []  # after `--`


def _options(tool: str, args: tuple[str, ...], cwd: str, launcher: bool = False) -> Options:
    """Split a call's words into the options that select packages and the positional words.

    Words after the program of `npx`/`exec`, and (for pnpm, yarn and bun)
    after a script name, belong to that program or script and are kept as written.
    """
    opts = Options(cwd)
    takes_value = _VALUE_OPTIONS[tool]
    words = list(args)
    while words:
        if len(opts.positionals) >= _own_words(tool, opts.positionals, launcher):
            opts.positionals.extend(words)
            break
        word = words.pop(0)
        if word == "--":
            opts.rest = words
            break
        if not word.startswith("-") or len(word) == 1:
            opts.positionals.append(word)
            continue
        name, value = option(word, words, takes_value)
        if name in ("-w", "--workspace") and tool == "npm":
            opts.workspace.append(value)
        elif name in ("-F", "--filter", "--filter-prod"):
            opts.workspace.append(value)
        elif name in ("--prefix", "-C", "--dir", "--cwd"):
            opts.cwd = join(opts.cwd, value) or opts.cwd
        elif name in ("-p", "--package"):
            opts.packages.append(value)
        elif name in ("-w", "--workspace-root"):
            opts.root = True
        elif name in ("-r", "--recursive", "--workspaces", "-ws"):
            opts.recursive = True
        elif name == "--if-present":
            opts.if_present = True
        elif name in ("-g", "--global"):
            opts.global_ = True
    return opts


def _own_words(tool: str, positionals: list[str], launcher: bool) -> int:
    """How many positional words the tool itself reads before the rest belongs to a script or program."""
    if launcher:
        return 1
    if not positionals:
        return 2
    first = positionals[0]
    if first in _EXEC[tool]:
        return 2
    if tool == "npm":
        return 1_000_000  # npm reads its options anywhere before `--`
    return 2 if first in _RUN[tool] else 1


def verify_npm(invocation: Invocation, context: Context) -> AnchorResult:
    program = invocation.program.rsplit("/", 1)[-1]
    tool = _TOOL_OF.get(program, program)
    opts = _options(tool, invocation.args, invocation.cwd, launcher=program in _TOOL_OF)
    moved = no_folder(invocation, context, tool, opts.cwd) if opts.cwd != invocation.cwd else None
    if moved is not None:
        return moved
    try:
        if program in _TOOL_OF:
            return _exec(invocation, context, tool, opts, opts.positionals, download=True)
        return _subcommand(invocation, context, tool, opts)
    except ConfigError as error:
        return unusable(invocation, error)


def _subcommand(invocation: Invocation, context: Context, tool: str, opts: Options) -> AnchorResult:
    words = opts.positionals
    command = words[0] if words else ("install" if tool == "yarn" else None)
    if command is None:
        return unknown(invocation, f"{tool} without a subcommand only prints its help")
    if tool == "yarn" and command == "workspace" and len(words) >= 2:
        opts.workspace.append(words[1])
        rest = Options(opts.cwd, opts.workspace, positionals=words[2:], if_present=opts.if_present)
        return _subcommand(invocation, context, tool, rest)
    if tool == "yarn" and command == "workspaces" and len(words) >= 2 and words[1] == "foreach":
        return unknown(invocation, "yarn workspaces foreach runs in packages picked at run time")
    if dynamic(command):
        return unknown(invocation, f"{command} is a placeholder or a shell expansion")
    if command in _RUN[tool]:
        if len(words) < 2:
            return _builtin(invocation, context, tool, opts, command)
        return _script(invocation, context, tool, opts, words[1], binary_fallback=tool in ("yarn", "bun"))
    if command in _EXEC[tool]:
        return _exec(invocation, context, tool, opts, words[1:], download=command in _DOWNLOADS)
    if tool == "bun" and command in _BUN_TOOLS:
        return _bun_tool(invocation, context, opts, command)
    if command in _SHORTHAND_SCRIPTS:
        return _script(invocation, context, tool, opts, _SCRIPT_ALIASES.get(command, command), binary_fallback=False)
    if command in _PROJECT_BUILTINS[tool].split() or command in _GLOBAL_BUILTINS[tool].split():
        return _builtin(invocation, context, tool, opts, command)
    if tool == "npm":
        return unknown(invocation, f"npm has no `{command}` command (`npm run {command}` would run a script)")
    return _script(invocation, context, tool, opts, command, binary_fallback=True)


def reads_npm(program: str, args: tuple[str, ...]) -> bool:
    """Whether a call is a claim about the repository: a global install (`npm i -g x`, `yarn global add
    x`) or a command that needs no project (`bun create`, `npm login`) is not."""
    if program in _TOOL_OF:
        return True
    opts = _options(program, args, ".")
    command = opts.positionals[0] if opts.positionals else ("install" if program == "yarn" else None)
    return command is not None and not opts.global_ and command not in _GLOBAL_BUILTINS[program].split()


def _bun_tool(invocation: Invocation, context: Context, opts: Options, command: str) -> AnchorResult:
    """`bun test`, `bun build`: VERIFIED in a bun project, INCONCLUSIVE where nothing says it is one."""
    project = nearest(context, opts.cwd, _BUN_PROJECT)
    if project is None:
        return unknown(invocation, f"`bun {command}` needs no configuration, and no {', '.join(_BUN_PROJECT)} in {searched(opts.cwd)} says this is a bun project")
    return verified(invocation, f"`bun {command}` runs {_BUN_TOOLS[command]}; {project} makes this a bun project", [Evidence(project, None, project.rsplit("/", 1)[-1])])


def _bun_file(invocation: Invocation, context: Context, folder: str, name: str, missing: str) -> AnchorResult | None:
    """`bun src/x.ts`: a file bun runs when no script has the name; None when the name is no file name."""
    if not _SCRIPT_FILE.fullmatch(name):
        return None
    path = join(folder, name)
    if path is None:
        return unknown(invocation, f"{name} is outside the repository")
    if is_file(context, path):
        return verified(invocation, f"bun runs the file {path}", [Evidence(path, None, "file")])
    if context.repo.ignored_because(path):  # a build output: its absence from a fresh checkout says nothing
        return unknown(invocation, f"{missing}; {path} does not exist, but it may be a build output")
    return not_there(invocation, f"{missing}, and there is no file {path}", path)


def _builtin(invocation: Invocation, context: Context, tool: str, opts: Options, command: str) -> AnchorResult:
    if opts.global_ or command in _GLOBAL_BUILTINS[tool].split():
        return unknown(invocation, f"`{tool} {command}` needs no repository configuration")
    manifest = nearest_manifest(context, opts.cwd)
    if manifest is None:
        return no_config(invocation, f"`{tool} {command}` needs a package.json; there is none in {searched(opts.cwd)}{elsewhere(context, ['package.json'])}",
                         opts.cwd, ["package.json"])
    selection = _targets(context, tool, opts) if opts.workspace else None  # `pnpm --filter web add zod`: web must be there
    if selection is not None and selection.open is None and not selection.packages:
        return _unmatched(invocation, selection)
    return verified(invocation, f"`{tool} {command}` is a {tool} built-in; {manifest} is the package", [Evidence(manifest, None, "package.json")])



def _unmatched(invocation: Invocation, selection: Selection) -> AnchorResult:
    """REFUTED: a workspace selector (`--filter web`) that matches no package. History tells stale from never: a
    folder it names that is not here is asked by path (`missing_path`); a package name by the members' package.json
    history (`details["defined_by"]`, as cargo's `-p`): renamed or dropped from one that is still a member is stale,
    one no member ever had is an example or a placeholder (a package whose folder went whole is not among them)."""
    why = f"no workspace package matches {selection.how}"
    if selection.folder is not None:
        return not_there(invocation, why, selection.folder + "/")
    if selection.name is None:
        return refuted(invocation, why)
    result = refuted(invocation, why, [Evidence(selection.configs[0], None, "the workspace's members")])
    result.details["defined_by"] = {"name": selection.name, "configs": list(selection.configs), "paths": []}
    return result


class Selection(NamedTuple):
    """The packages a call runs in, how they were picked, and why that is unknown when it is."""

    packages: list[Package]
    how: str
    open: str | None = None
    folder: str | None = None  # the folder a path selector (`--filter ./web`) names, when no package is there
    name: str | None = None  # the package name one name selector (`--filter web`) asks for
    configs: tuple[str, ...] = ()  # the workspace's configuration, then the package.json files that could give that name


def _targets(context: Context, tool: str, opts: Options) -> Selection | None:
    """The packages a call runs in; None when there is no package.json to run in at all."""
    if not (opts.workspace or opts.root or opts.recursive):
        manifest = nearest_manifest(context, opts.cwd)
        return None if manifest is None else Selection([read_package(context, manifest)], manifest)
    workspace = find_workspace(context, opts.cwd)
    if workspace is None:
        return None
    if opts.root and not opts.workspace:
        return Selection([workspace.root], "the workspace root")
    if not opts.workspace:
        return Selection(list(workspace.members[1:]) or [workspace.root], f"every workspace of {workspace.config}")
    picked: list[Package] = []
    for selector in opts.workspace:
        if "[" in selector or dynamic(selector.strip("{}").replace("*", "")):
            return Selection([], selector, f"{selector} picks packages only known at run time (a placeholder, a variable or a git revision)")
        picked.extend(select(workspace, selector, unscoped=tool == "pnpm"))
    paths = [s.strip("{}") for s in opts.workspace if s.startswith(("./", "{"))]
    folder = join(workspace.root.folder, paths[0]) if len(paths) == len(opts.workspace) == 1 else None
    how = f"{' '.join(opts.workspace)} in {workspace.config}"
    if folder is None and len(opts.workspace) == 1 and not picked:
        name = package_name(opts.workspace[0])
        if name is not None:
            return Selection(picked, how, name=name, configs=tuple(dict.fromkeys([workspace.config, *(p.path for p in workspace.members)])))
    return Selection(picked, how, folder=None if folder in (None, ".") or is_dir(context, folder) else folder)


def _script(invocation: Invocation, context: Context, tool: str, opts: Options, script: str, binary_fallback: bool) -> AnchorResult:
    if dynamic(script):
        return unknown(invocation, f"the script name {script} is a placeholder or a shell expansion")
    selection = _targets(context, tool, opts)
    if selection is None:
        none = f"no package.json in {searched(opts.cwd)}, so there is no script {script}"
        ran = _bun_file(invocation, context, opts.cwd, script, none) if tool == "bun" else None
        return ran or no_config(invocation, f"{none}{elsewhere(context, ['package.json'])}", opts.cwd, ["package.json"])
    if selection.open is not None:
        return unknown(invocation, selection.open)
    packages = selection.packages
    if not packages:
        return _unmatched(invocation, selection)
    having = [p for p in packages if script in p.scripts]
    if having:
        evidence = [Evidence(p.path, p.scripts[script], f'script "{script}"') for p in having]
        where = ", ".join(p.path for p in having)
        return verified(invocation, f"script {script} is defined in {where}", evidence)
    scripts = sorted({s for p in packages for s in p.scripts})
    missing = f"no script {script} in {', '.join(p.path for p in packages[:3])}{' and others' if len(packages) > 3 else ''} (scripts: {listed(scripts)})"
    if opts.if_present:
        return unknown(invocation, f"{missing}; --if-present runs nothing then")
    ran = _bun_file(invocation, context, packages[0].folder, script, missing) if tool == "bun" else None
    if ran is not None:  # bun runs a file of that name before looking for a binary
        return ran
    if binary_fallback:
        runner = context.registry.runner_for(script)
        if runner is not None and runner.name != "npm":  # `pnpm turbo build`: the binary's own runner checks the rest
            after = opts.positionals[opts.positionals.index(script) + 1:] if script in opts.positionals else []
            return invocation.delegate(script, tuple(after) + tuple(opts.rest), packages[0].folder)
        return _binary(invocation, context, tool, packages, script, missing)
    return refuted(invocation, missing, [Evidence(p.path, None, "package.json scripts") for p in packages])


def _binary(invocation: Invocation, context: Context, tool: str, packages: list[Package], name: str, missing: str) -> AnchorResult:
    """pnpm/yarn/bun run a dependency's binary when no script has the name: is there one to run?"""
    provider = _provider(context, packages, name)
    read = [Evidence(p.path, None, "package.json scripts") for p in packages]  # where the script was looked for
    if provider is not None:
        path, line, package, sure = provider
        at = f"{path}:{line}" if line else path
        if not sure:  # the script's history may show it was the package's (`not-in-config`)
            return _not_in_config(unknown(invocation, f"{missing}; {package} ({at}) may provide a binary {name}", read))
        runs = f"{tool} runs the binary {name} of {package} ({at})"
        result = verified(invocation, f"{runs}: no script is named so", [Evidence(path, line, package)])
        if tool == "pnpm":  # `pnpm run NAME` runs a script only: the core asks history whether a script was renamed away
            result.details["stands_in"] = {"config": packages[0].path, "name": name, "runs": runs}
        return result
    if ":" in name or "=" in name or context.holds_only:  # (asked only whether it holds: no lockfile makes it hold)
        return refuted(invocation, missing, read)
    if _maybe_transitive(context, name):
        return _not_in_config(unknown(invocation, f"{missing}; {name} may be the binary of a transitive dependency", read))
    return refuted(invocation, f"{missing}, and no dependency provides a binary {name}", read)


def _not_in_config(result: AnchorResult) -> AnchorResult:
    """A script the package.json does not define now, which a binary may stand for: the history of the package.json
    first in the evidence is asked whether it defined the script and a commit removed it (was true, is gone)."""
    result.state = NOT_IN_CONFIG
    return result


def _provider(context: Context, packages: list[Package], name: str) -> tuple[str, int | None, str, bool] | None:
    """A package of the repository (these, their workspace root, a member of their workspace) whose `bin`
    is `name`, or a dependency of these packages or their workspace root that provides it; the last item says
    whether that is sure (a member's bin is where these depend on it: moon's root runs `yarn moon`, the bin of a
    member nothing at the root depends on). A scoped package named so by its last word alone (`@react-router/dev` for `dev`) is not:
    its own manifest, which is not here, names its bins (`react-router`)."""
    wanted = _BIN_PACKAGES.get(name, (name,))
    candidates = list(packages)
    members: list[Package] = []
    for package in packages:
        workspace = find_workspace(context, package.folder)
        if workspace is not None:
            candidates.append(workspace.root)
            members += workspace.members
    for package in (*candidates, *members):
        if name in package.bins:  # another member's bin is linked where a package depends on it (yarn 2+, pnpm), maybe
            linked = package in candidates or any(package.name in c.dependencies for c in candidates)  # hoisted (yarn 1)
            return package.path, None, f"package {package.name or package.folder} (its bin)", linked
    for package in candidates:
        for dependency, line in package.dependencies.items():
            base = dependency.rsplit("/", 1)[-1]
            if dependency in wanted or base in (name, f"{name}-cli") or base.removesuffix("-cli") == name:
                return package.path, line, f"dependency {dependency}", dependency in wanted or "/" not in dependency or base != name
    return None


def _maybe_transitive(context: Context, name: str) -> bool:
    """Whether a lockfile locks a package of that name (an npm or yarn tree links transitive binaries),
    or the manifests cannot tell."""
    found = package_index(context, "npm")
    if found is None or found[1].problems():
        return True
    return declared(context, "npm", _BIN_PACKAGES.get(name, (name,))) is not None


def _exec(invocation: Invocation, context: Context, tool: str, opts: Options, words: list[str], download: bool) -> AnchorResult:
    """`npx X`, `pnpm exec X`, `pnpm dlx X`, `bunx X`: a declared dependency provides X, else it may be downloaded."""
    while words and words[0].startswith("-"):  # launcher flags such as `--yes`
        words = words[1:]
    if not words and not opts.packages:
        return unknown(invocation, "no program to run")
    program = _bare(words[0]) if words else _bare(opts.packages[0])
    runner = context.registry.runner_for(program)
    if runner is not None and runner.name != "npm" and words:
        return invocation.delegate(program, tuple(words[1:]) + tuple(opts.rest), opts.cwd)
    manifest = nearest_manifest(context, opts.cwd)
    packages = [read_package(context, manifest)] if manifest else []
    for wanted in opts.packages or [program]:
        provider = _provider(context, packages, _bare(wanted).rsplit("/", 1)[-1]) if packages else None
        if provider is not None:
            path, line, package, _ = provider
            return verified(invocation, f"{program} comes from {package}", [Evidence(path, line, package)])
    if download:
        return unknown(invocation, f"{program} is not a dependency here; {invocation.program} may download it")
    if manifest is None:
        return no_config(invocation, f"`{tool} exec` needs a package.json; there is none in {searched(opts.cwd)}", opts.cwd, ["package.json"])
    return unknown(invocation, f"{program} is not a declared dependency of {manifest}; it may be a transitive binary")


def _bare(spec: str) -> str:
    """A package spec without its version: `@scope/pkg@1.2` is `@scope/pkg`, `cowsay@latest` is `cowsay`."""
    at = spec.find("@", 1)
    return spec[:at] if at > 0 else spec


@hookimpl
def register_runners(register):  # noqa: ANN001, ANN201 - hook signature
    register(
        Runner(
            name="npm",
            programs=("npm", "pnpm", "yarn", "bun", "npx", "pnpx", "bunx"),
            verify=verify_npm,
            reads=reads_npm,
            configs=("package.json",),
            summary="package.json scripts of the package a call runs in (workspaces, filters, prefixes)",
        )
    )
