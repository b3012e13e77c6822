"""`cargo X`: built-in subcommands, `.cargo/config.toml` aliases, `-p` packages, `--bin`/`--example`/`--test`/`--bench` targets.

A built-in subcommand that works on a package (`build`, `test`, `run`...)
needs a Cargo.toml at or above the folder the call runs from: VERIFIED
when there is one, REFUTED when there is none. An alias from
`.cargo/config.toml` (or `.cargo/config`) in that folder or above is
expanded and the expansion is checked (`cargo xtask dist` with
`xtask = "run -p xtask --"` checks that the xtask package exists), alias
of alias too, as cargo does; a chain that comes back to an alias it
expanded is INCONCLUSIVE (cargo refuses such an alias), and an alias never
shadows a built-in. Global subcommands (`cargo install ripgrep`, `cargo
new`, the third-party `cargo binstall`) need nothing of the repository:
a reader of prose does not read them (`reads_cargo`).
`-p NAME` must name a package of the workspace (or a dependency the
lockfile holds); `--bin`, `--example`, `--test` and `--bench` a target of
the selected packages (declared, or found where cargo looks: src/main.rs,
src/bin/, examples/, tests/, benches/); a target no package has says what
would have defined it (`details["defined_by"]`), for the core to ask history
whether it ever did. Any other subcommand is an external `cargo-X` program
installed separately: INCONCLUSIVE.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from dataclasses import dataclass, field

from anchorcheck import AnchorResult, Evidence, Invocation, Runner, Verdict, hookimpl
from anchorcheck.plugin import NOT_IN_CONFIG, Context
from anchorcheck_plugins.runners._support import (
    ConfigError,
    Steps,
    declared,
    dynamic,
    elsewhere,
    glob_regex,
    in_dir,
    is_file,
    line_at,
    line_of,
    listed,
    nearest,
    no_config,
    not_there,
    option,
    parse_toml,
    read_text,
    refuted,
    searched,
    unknown,
    unusable,
    upward,
    verified,
)

_PACKAGE_COMMANDS = frozenset(
    "build b check c clean doc d run r test t bench update fetch fix clippy fmt tree vendor package publish metadata "
    "pkgid locate-project verify-project generate-lockfile rustc rustdoc add remove rm yank miri".split()
)
_GLOBAL_COMMANDS = frozenset("new init install uninstall search login logout owner help version config info report".split())
_GLOBAL_INSTALLERS = frozenset({"binstall"})  # third-party subcommands that install a tool for the user
MAX_ALIASES = 16  # an alias chain longer than this is not one a person wrote
_VALUE_OPTIONS = frozenset(
    {"-p", "--package", "--bin", "--example", "--test", "--bench", "--manifest-path", "--features", "-F", "--target",
     "--profile", "-j", "--jobs", "--target-dir", "--exclude", "--color", "--message-format", "-Z", "--config", "--lib-name"}
)
_FEATURES = "[features]"
_TARGET_KINDS = {"--bin": ("bin", "src/bin"), "--example": ("example", "examples"), "--test": ("test", "tests"), "--bench": ("bench", "benches")}


@dataclass
class Crate:
    """One Cargo.toml: the package name and its declared targets by kind."""

    path: str
    name: str | None
    targets: dict[str, dict[str, int | None]] = field(default_factory=dict)  # kind -> name -> line
    members: tuple[str, ...] | None = None  # workspace member globs when this is a workspace root
    exclude: tuple[str, ...] = ()
    default_members: tuple[str, ...] | None = None  # what a call at the root selects without `-p`, when declared
    features: dict[str, int | None] = field(default_factory=dict)  # `[features]` and optional dependencies -> line


def read_crate(context: Context, path: str) -> Crate:
    def parse() -> Crate:
        text = read_text(context, path)
        doc = parse_toml(path, text)
        package = doc.get("package")
        name = package.get("name") if isinstance(package, dict) and isinstance(package.get("name"), str) else None
        targets: dict[str, dict[str, int | None]] = {}
        for kind in ("bin", "example", "test", "bench"):
            entries = doc.get(kind)
            # An array of tables keeps the order of its headers: the n-th entry is the n-th `[[kind]]`.
            headers = [line_at(text, m.start()) for m in re.finditer(rf"^[ \t]*\[\[[ \t]*{kind}[ \t]*\]\]", text, re.MULTILINE)]
            for at, entry in enumerate(entries if isinstance(entries, list) else []):
                if isinstance(entry, dict) and isinstance(entry.get("name"), str):
                    targets.setdefault(kind, {})[entry["name"]] = headers[at] if at < len(headers) else None
        workspace = doc.get("workspace")
        members = exclude = defaults = None
        if isinstance(workspace, dict):
            members = tuple(m for m in workspace.get("members", []) if isinstance(m, str))
            exclude = tuple(m for m in workspace.get("exclude", []) if isinstance(m, str))
            if isinstance(workspace.get("default-members"), list):
                defaults = tuple(m for m in workspace["default-members"] if isinstance(m, str))
        return Crate(path, name, targets, members, exclude or (), defaults, _features(doc, text))

    return context.memo(("cmd-cargo-crate", path), parse)


def _features(doc: dict[str, object], text: str) -> dict[str, int | None]:
    """The features `--features` may name: `[features]` keys and optional dependencies (each an implicit feature,
    unless a feature names it `dep:x`), with the line of each `[features]` key."""
    table = doc.get("features")
    declared = table if isinstance(table, dict) else {}
    section = re.search(r"^[ \t]*\[features\][^\n]*\n((?:(?![ \t]*\[)[^\n]*\n?)*)", text, re.MULTILINE)
    lines: dict[str, int] = {}
    if section:
        first = line_at(text, section.start(1))
        for number, line in enumerate(section.group(1).splitlines(), start=first):
            key = line.split("=", 1)[0].strip().strip("\"'")
            lines.setdefault(key, number)
    found: dict[str, int | None] = {name: lines.get(name) for name in declared}
    hidden = {v[4:] for values in declared.values() if isinstance(values, list) for v in values if isinstance(v, str) and v.startswith("dep:")}
    platforms = doc.get("target")
    tables = [doc, *(t for t in (platforms.values() if isinstance(platforms, dict) else ()) if isinstance(t, dict))]
    for key, holder in ((k, t) for t in tables for k in ("dependencies", "build-dependencies")):
        table = holder.get(key)
        for dependency, spec in (table.items() if isinstance(table, dict) else ()):
            if isinstance(spec, dict) and spec.get("optional") is True and dependency not in hidden:
                found.setdefault(dependency, None)
    return found


def _workspace(context: Context, manifest: str) -> list[Crate]:
    """The packages of the workspace `manifest` belongs to (itself alone when it is in none)."""
    for folder in upward(posixpath.dirname(manifest) or "."):
        root_path = in_dir(folder, "Cargo.toml")
        if not is_file(context, root_path):
            continue
        root = read_crate(context, root_path)
        if root.members is None:
            continue
        include = [glob_regex(posixpath.normpath(in_dir(folder, m))) for m in root.members]
        exclude = {posixpath.normpath(in_dir(folder, e)) for e in root.exclude}
        crates = [root] if root.name else []
        for path in context.repo.files(None if folder == "." else folder, named=["Cargo.toml"]):
            member = posixpath.dirname(path)
            if member != folder and member not in exclude and any(r.fullmatch(member) for r in include):
                crates.append(read_crate(context, path))
        return crates
    return [read_crate(context, manifest)]


def _default_selection(manifest: Crate, crates: list[Crate]) -> list[Crate]:
    """The packages a call without `-p` works on, as cargo picks them: the package of the folder it runs
    in; at a workspace root the declared `default-members`, else the root package, else (a virtual
    manifest) every member."""
    if manifest.members is None:
        return [manifest]
    folder = posixpath.dirname(manifest.path) or "."
    if manifest.default_members is not None:
        wanted = [glob_regex(posixpath.normpath(in_dir(folder, m))) for m in manifest.default_members]
        return [c for c in crates if any(r.fullmatch(posixpath.dirname(c.path) or ".") for r in wanted)]
    return [manifest] if manifest.name else [c for c in crates if c is not manifest]


_CONFIG_NAMES = (".cargo/config.toml", ".cargo/config")  # where cargo reads aliases, the first found in a folder


def _aliases(context: Context, cwd: str) -> dict[str, tuple[object, str]]:
    """`[alias]` entries of `.cargo/config.toml` files from `cwd` up, as written, with the file of each; the
    nearer one wins. Read once per folder: a call expands aliases of aliases, each a lookup here."""

    def read() -> dict[str, tuple[object, str]]:
        found: dict[str, tuple[object, str]] = {}
        for folder in upward(cwd):
            for name in _CONFIG_NAMES:
                path = in_dir(folder, name)
                if not is_file(context, path):
                    continue
                table = parse_toml(path, read_text(context, path)).get("alias")
                for alias, value in (table if isinstance(table, dict) else {}).items():
                    found.setdefault(alias, (value, path))
                break
        return found

    return context.memo(("cmd-cargo-aliases", cwd), read)


def _alias(context: Context, value: object, path: str, alias: str) -> tuple[list[str], int | None] | None:
    """An alias's words and line, worked out for an alias a call uses (a split and a search per alias
    of the file made 5,000 aliases cost a minute); None when it is neither a string nor a list."""
    if isinstance(value, str):
        try:
            words = shlex.split(value)
        except ValueError as exc:
            raise ConfigError(path, f"alias {alias} cannot be split: {exc}") from None
    elif isinstance(value, list):
        words = [v for v in value if isinstance(v, str)]
    else:
        return None
    return words, line_of(read_text(context, path), rf"^[ \t]*\"?{re.escape(alias)}\"?\s*=")


def verify_cargo(invocation: Invocation, context: Context) -> AnchorResult:
    try:
        return _check(invocation, context, list(invocation.args), expanded=(), steps=None)
    except ConfigError as error:
        return unusable(invocation, error)


def reads_cargo(program: str, args: tuple[str, ...]) -> bool:
    """Whether a call is a claim about the repository: `cargo install ripgrep`, `cargo new`, `cargo
    binstall` install or make things for the user, wherever they run, so they are not."""
    words = _subcommand_words(list(args))
    return bool(words) and words[0] not in _GLOBAL_COMMANDS | _GLOBAL_INSTALLERS


def _subcommand_words(words: list[str]) -> list[str]:
    """The words from the subcommand on, past `+toolchain` and global options (`cargo +nightly --locked`)."""
    while words and words[0].startswith(("+", "-")):
        option = words.pop(0)
        if option in ("-Z", "--config", "--color", "-C") and words:
            words.pop(0)
    return words


def _check(invocation: Invocation, context: Context, args: list[str], expanded: tuple[str, ...], steps: Steps | None) -> AnchorResult:
    """Check a cargo call; `expanded` are the aliases already expanded to reach these words, in order,
    `steps` the budget of their configuration file."""
    words = _subcommand_words(list(args))
    if not words:
        return unknown(invocation, "cargo without a subcommand only prints its help")
    command, rest = words[0], words[1:]
    aliases = _aliases(context, invocation.cwd)
    alias = aliases.get(command) if command not in _PACKAGE_COMMANDS | _GLOBAL_COMMANDS else None
    spelled = _alias(context, alias[0], alias[1], command) if alias is not None else None
    if spelled is not None and alias is not None:
        if command in expanded or len(expanded) >= MAX_ALIASES:
            chain = " → ".join([*expanded, command])
            return unknown(invocation, f"the aliases {chain} never reach a subcommand: cargo refuses a recursive alias")
        (alias_words, line), path = spelled, alias[1]
        steps = steps or Steps(context, path)
        steps(1 + len(alias_words) + len(rest))
        result = _check(invocation, context, alias_words + rest, (*expanded, command), steps)
        result.evidence.insert(0, Evidence(path, line, f"alias {command}"))
        result.reason = f"alias {command} ({path}:{line}) runs `cargo {shlex.join(alias_words)}`: {result.reason}"
        return result
    if command in _GLOBAL_COMMANDS:
        return unknown(invocation, f"`cargo {command}` needs no repository configuration")
    if command not in _PACKAGE_COMMANDS:
        return _external(invocation, context, command, rest)
    written = _manifest_path(invocation.cwd, rest)
    if written is not None and not written.startswith("/") and written != ".." and not written.startswith("../") and not is_file(context, written):
        return not_there(invocation, f"the manifest {written} does not exist", written)
    manifest = _manifest(context, invocation.cwd, rest)
    if manifest is None:
        return no_config(invocation, f"`cargo {command}` needs a Cargo.toml; there is none in {searched(invocation.cwd)}{elsewhere(context, ['Cargo.toml'])}",
                         invocation.cwd, ["Cargo.toml"])
    return _targets(invocation, context, manifest, command, rest)



def _external(invocation: Invocation, context: Context, command: str, rest: list[str]) -> AnchorResult:
    """An external `cargo-X`, installed separately: INCONCLUSIVE, but its configuration's history may still show
    a name of the call was true and is gone (`not-in-config`, the file first in the evidence): a feature its
    cargo options name (`cargo nextest run -p x --features f`: a subcommand that takes cargo's build options)
    that the selected packages do not declare, or else an alias of the nearest `.cargo/config.toml`."""
    external = unknown(invocation, f"cargo {command} is not built in or an alias here: an external cargo-{command} installed separately")
    manifest = _manifest(context, invocation.cwd, rest)
    options = _options(rest)
    if manifest is not None and any(name in ("--features", "-F") for name, _ in options):
        flags = _targets(invocation, context, manifest, command, rest)
        features = [e for e in flags.evidence if e.detail == _FEATURES] if flags.verdict is Verdict.REFUTED else []
        if features:  # the package's Cargo.toml decides, as `cargo check` with the same options would
            external.reason += f"; {flags.reason}"
            external.evidence, external.state = features, NOT_IN_CONFIG
            external.details["decided_by"] = shlex.join(["cargo", "check", *(word for pair in options for word in pair)])
            return external
    config = nearest(context, invocation.cwd, _CONFIG_NAMES)  # where an alias would be defined
    if config is not None:  # its history may show the alias defined there and removed (`not-in-config`)
        external.evidence.append(Evidence(config, None, "[alias]"))
        external.state = NOT_IN_CONFIG
    return external


def _manifest_path(cwd: str, rest: list[str]) -> str | None:
    """The manifest a `--manifest-path` names, from the repository root; None without one."""
    for index, word in enumerate(rest):
        if word.startswith("--manifest-path"):
            value = word.partition("=")[2] or (rest[index + 1] if index + 1 < len(rest) else "")
            return posixpath.normpath(posixpath.join(cwd, value))
    return None


def _manifest(context: Context, cwd: str, rest: list[str]) -> str | None:
    written = _manifest_path(cwd, rest)
    if written is not None:
        return written if is_file(context, written) else None
    for folder in upward(cwd):
        if is_file(context, in_dir(folder, "Cargo.toml")):
            return in_dir(folder, "Cargo.toml")
    return None


def _options(rest: list[str]) -> list[tuple[str, str]]:
    """The options before `--` that take a value, as (name, value)."""
    found = []
    words = list(rest)
    while words:
        word = words.pop(0)
        if word == "--":
            break
        name, value = option(word, words, _VALUE_OPTIONS)
        if name in _VALUE_OPTIONS:
            found.append((name, value))
    return found


def _targets(invocation: Invocation, context: Context, manifest: str, command: str, rest: list[str]) -> AnchorResult:
    options = _options(rest)
    crates = _workspace(context, manifest)
    picked = any(name in ("-p", "--package") for name, _ in options)
    root = read_crate(context, manifest)
    selected = _default_selection(root, crates)
    evidence = [Evidence(manifest, None, "Cargo.toml")]
    reasons = [f"`cargo {command}` is built in; {manifest} is the {'package' if root.name else 'workspace'}"]
    if any(dynamic(value) for _, value in options):
        return unknown(invocation, "a package or target is a placeholder or a shell expansion")
    for name, value in options:
        if name not in ("-p", "--package"):
            continue
        spec = value.split("@", 1)[0].split(":", 1)[0]
        match = [c for c in crates if c.name == spec]
        if not match and "*" in spec:
            match = [c for c in crates if c.name and glob_regex(spec).fullmatch(c.name)]
        if not match:
            if _locked(context, spec):
                reasons.append(f"{spec} is a dependency in the lockfile")
                continue
            return _no_package(invocation, crates, manifest, spec, f"no package {spec} in the workspace of {manifest} (packages: {listed(c.name for c in crates if c.name)})")
        selected = match
        evidence.append(Evidence(match[0].path, line_of(read_text(context, match[0].path), r"^[ \t]*name\s*="), f"package {spec}"))
        reasons.append(f"package {spec} is declared in {match[0].path}")
    for name, value in options:
        if name in _TARGET_KINDS:
            found = _target(context, selected, name, value)
            kind = _TARGET_KINDS[name][0]
            if found is None and not picked:
                return _unselected_target(invocation, context, crates, selected, name, value)
            if found is None:
                return _no_target(invocation, selected, name, value, f"no {kind} target {value} in {', '.join(c.path for c in selected)}")
            evidence.append(found)
            where = f"{found.path}:{found.line}" if found.line else found.path
            reasons.append(f"{kind} target {value} is {'declared in' if found.line else 'the file'} {where}")
    for name, value in options:
        if name in ("--features", "-F"):
            problem = _feature_problem(invocation, selected, crates, value, evidence, reasons)
            if problem is not None:
                return problem
    return verified(invocation, "; ".join(reasons), evidence)


def _feature_problem(
    invocation: Invocation, selected: list[Crate], crates: list[Crate], value: str, evidence: list[Evidence], reasons: list[str]
) -> AnchorResult | None:
    """`--features a,b`: each a feature of a selected package (evidence added), else REFUTED when no package of
    the workspace has it (renamed or removed) and INCONCLUSIVE naming the one that has it. `dep/feat` names a
    dependency's feature, which only that dependency's manifest could say: not judged."""
    for feature in (f for f in re.split(r"[\s,]+", value) if f and "/" not in f and f != "default"):
        owner = next((c for c in selected if feature in c.features), None)
        if owner is not None:
            evidence.append(Evidence(owner.path, owner.features[feature], f"feature {feature}"))
            reasons.append(f"feature {feature} is declared in {owner.path}")
            continue
        elsewhere = [c for c in crates if feature in c.features]
        if elsewhere:
            return unknown(invocation, f"feature {feature} is declared in {elsewhere[0].path} (package {elsewhere[0].name}), which this call does not select")
        names = listed(sorted({f for c in selected for f in c.features})) or "none"
        where = [Evidence(c.path, None, _FEATURES) for c in selected]  # whose history may show it declared there
        return refuted(invocation, f"no feature {feature} in {', '.join(c.path for c in selected)} (features: {names})", where)
    return None


def _unselected_target(invocation: Invocation, context: Context, crates: list[Crate], selected: list[Crate], option: str, name: str) -> AnchorResult:
    """A target the packages selected without `-p` lack: in another member, cargo wants `-p` (which a memory
    may leave out on purpose, so nothing is concluded); in no package of the workspace, it is gone."""
    kind = _TARGET_KINDS[option][0]
    for crate in (c for c in crates if c not in selected):
        found = _target(context, [crate], option, name)
        if found is not None:
            return unknown(invocation, f"{kind} target {name} is {found.path} of package {crate.name} ({crate.path}), which cargo runs from here only with -p {crate.name}")
    return _no_target(invocation, crates, option, name, f"no {kind} target {name} in the workspace")


def _no_target(invocation: Invocation, crates: list[Crate], option: str, name: str, reason: str) -> AnchorResult:
    """REFUTED: no package looked in has the target. What would have made it one (a `[[kind]]` or `[package]` name in
    a Cargo.toml, a file where cargo finds the target) is handed to the core (`details["defined_by"]`), whose history
    of them tells a target that existed and went (stale) from one that never did (an example, a placeholder)."""
    kind, folder = _TARGET_KINDS[option]
    roots = [posixpath.dirname(c.path) or "." for c in crates]
    paths = [in_dir(root, f"{folder}/{name}{end}") for root in roots for end in (".rs", "/main.rs")]
    defined_by = {"name": name, "configs": [c.path for c in crates], "paths": paths}
    manifest = crates[0].path if crates else "Cargo.toml"
    result = refuted(invocation, reason, [Evidence(manifest, None, f"[[{kind}]]")])
    result.details["defined_by"] = defined_by
    return result


def _no_package(invocation: Invocation, crates: list[Crate], manifest: str, name: str, reason: str) -> AnchorResult:
    """REFUTED: `-p NAME` selects no package of the workspace. A package is its Cargo.toml's `name`, so the
    workspace's manifests' history (`details["defined_by"]`) tells a package renamed or dropped (stale) from one
    never declared (`-p CRATE_NAME`, a placeholder). A package whose folder went whole is not among them: never
    concluded stale from there, it reads as never declared (a warning, not an error)."""
    configs = list(dict.fromkeys([manifest, *(c.path for c in crates)]))
    result = refuted(invocation, reason, [Evidence(manifest, None, "Cargo.toml")])
    result.details["defined_by"] = {"name": name, "configs": configs, "paths": []}
    return result


def _target(context: Context, crates: list[Crate], option: str, name: str) -> Evidence | None:
    """Where a `--bin`/`--example`/`--test`/`--bench` target is: declared, or a file where cargo finds one."""
    kind, folder = _TARGET_KINDS[option]
    for crate in crates:
        root = posixpath.dirname(crate.path) or "."
        if name in crate.targets.get(kind, {}):
            return Evidence(crate.path, crate.targets[kind][name], f"[[{kind}]] {name}")
        candidates = [f"{folder}/{name}.rs", f"{folder}/{name}/main.rs"]
        if kind == "bin" and name == crate.name:
            candidates.insert(0, "src/main.rs")
        for candidate in candidates:
            if is_file(context, in_dir(root, candidate)):
                return Evidence(in_dir(root, candidate), None, f"{kind} target {name}")
    return None


def _locked(context: Context, name: str) -> bool:
    return declared(context, "cargo", [name]) is not None


@hookimpl
def register_runners(register):  # noqa: ANN001, ANN201 - hook signature
    register(Runner(name="cargo", programs=("cargo",), verify=verify_cargo, reads=reads_cargo, configs=("Cargo.toml",), summary="cargo built-ins, config aliases, packages and targets"))
