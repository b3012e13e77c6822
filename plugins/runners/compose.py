"""`docker compose [-f FILE]... SUBCOMMAND [SERVICE...]` (and `docker-compose`, `podman compose`): the services exist.

The compose files are the `-f` files, else the first of compose.yaml,
compose.yml, docker-compose.yaml, docker-compose.yml (with its
`.override` file) in the folder the call runs from or above (or
`--project-directory`). Their `services:` keys, and those of files they
`include:`, are the services: every service a subcommand names (`up`,
`run`, `exec`, `logs`, `build`...) must be one of them, else REFUTED. A
word after an option anchorcheck does not know may be that option's
value, so it is INCONCLUSIVE instead. No compose file at all is REFUTED.
`docker` commands other than `compose` are not read (state "unread").
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from anchorcheck import AnchorResult, Evidence, Invocation, Runner, Verdict, hookimpl
from anchorcheck.plugin import Context
from anchorcheck_plugins.runners._support import (
    ConfigError,
    Steps,
    dynamic,
    in_dir,
    is_file,
    join,
    listed,
    named_file,
    no_config,
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

DEFAULT_FILES = ("compose.yaml", "compose.yml", "docker-compose.yaml", "docker-compose.yml")
_GLOBAL_VALUE_OPTIONS = frozenset({"-f", "--file", "-p", "--project-name", "--profile", "--env-file", "--project-directory",
                                   "--ansi", "--parallel", "--progress"})
# Subcommands that name services, with the options of each that take a value.
_SERVICE_COMMANDS = {
    "up": {"--scale", "-t", "--timeout", "--exit-code-from", "--attach", "--no-attach", "--wait-timeout", "--pull"},
    "run": {"-e", "--env", "--env-from-file", "--name", "-u", "--user", "-w", "--workdir", "-v", "--volume", "-p",
            "--publish", "--entrypoint", "-l", "--label", "--cap-add", "--cap-drop", "--pull"},
    "exec": {"-e", "--env", "-u", "--user", "-w", "--workdir", "--index"},
    "logs": {"-n", "--tail", "--since", "--until", "--index"},
    "build": {"--build-arg", "--ssh", "--progress", "-m", "--memory", "--builder"},
    "start": set(), "stop": {"-t", "--timeout"}, "restart": {"-t", "--timeout"}, "rm": set(), "pull": set(), "push": set(),
    "create": {"--scale", "--pull"}, "kill": {"-s", "--signal"}, "pause": set(), "unpause": set(), "ps": {"--format", "--filter", "--status"},
    "top": set(), "port": {"--index", "--protocol"}, "images": {"--format"}, "attach": {"--index", "--detach-keys"},
    "watch": set(), "events": set(), "down": {"-t", "--timeout", "--rmi"}, "config": {"--format", "-o", "--output", "--hash"},
}
_ONE_SERVICE = frozenset({"run", "exec", "port", "attach"})  # the words after the service are its command


@dataclass
class Compose:
    files: list[str]
    services: dict[str, tuple[str, str]] = field(default_factory=dict)  # name -> (file, its key there)
    open: list[str] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)  # each file read, for the line of a service found
    profiles: set[str] = field(default_factory=set)  # the `profiles:` its services are in


def read_compose(context: Context, files: tuple[str, ...]) -> Compose:
    def parse() -> Compose:
        compose = Compose(list(files))
        for path in files:
            _read_into(context, path, compose, (), Steps(context, path))
        return compose

    return context.memo(("cmd-compose", files), parse)


def _read_into(context: Context, path: str, compose: Compose, chain: tuple[str, ...], steps: Steps) -> None:
    """Add the services of `path` and its includes; `chain` are the files that included it."""
    text = compose.texts[path] = read_text(context, path)
    steps(1 + len(text) // 4096)  # a read and its parse cost as the file is long
    doc = parse_yaml(path, text)
    if not isinstance(doc, dict):
        raise ConfigError(path, "a compose file should be a YAML mapping", 1)
    services = doc.get("services")
    for name, service in services.items() if isinstance(services, dict) else ():
        compose.services.setdefault(str(name), (path, str(name)))
        profiles = service.get("profiles") if isinstance(service, dict) else None
        if isinstance(profiles, list):
            compose.profiles.update(str(p) for p in profiles)
    includes = doc.get("include")
    folder = posixpath.dirname(path) or "."
    for entry in includes if isinstance(includes, list) else []:
        paths = entry if isinstance(entry, str) else entry.get("path") if isinstance(entry, dict) else None
        for written in [paths] if isinstance(paths, str) else paths if isinstance(paths, list) else []:
            target = join(folder, str(written)) if "$" not in str(written) else None
            if target is None or not is_file(context, target) or len(chain) > 4 or target in (*chain, path):
                compose.open.append(f"{path} includes {written}, which anchorcheck cannot read (or which includes it back)")
            else:
                _read_into(context, target, compose, (*chain, path), steps)


def reads_compose(program: str, args: tuple[str, ...]) -> bool:
    """Whether a call is a claim about the repository: `docker run`, `docker build` are not read."""
    return program not in ("docker", "podman") or args[:1] == ("compose",)


def verify_compose(invocation: Invocation, context: Context) -> AnchorResult:
    words = list(invocation.args)
    program = invocation.program.rsplit("/", 1)[-1]
    if program in ("docker", "podman"):
        if not words or words[0] != "compose":
            return AnchorResult(invocation.text, Verdict.INCONCLUSIVE, f"{program} without compose is not read", state="unread")
        words = words[1:]
    files: list[str] = []
    profiles: list[str] = []
    folder = invocation.cwd
    while words and words[0].startswith("-"):
        name, eq, value = words.pop(0).partition("=")
        if name in _GLOBAL_VALUE_OPTIONS and not eq:
            value = words.pop(0) if words else ""
        if name in ("-f", "--file"):
            files.append(value)
        elif name == "--profile":
            profiles.append(value)
        elif name == "--project-directory":
            folder = join(folder, value) or folder
    if not words:
        return unknown(invocation, "compose without a subcommand only prints its help")
    command, rest = words[0], words[1:]
    try:
        found = _files(context, invocation, folder, files)
        if isinstance(found, AnchorResult):
            return found
        compose = read_compose(context, tuple(found))
    except ConfigError as error:
        return unusable(invocation, error)
    evidence = [Evidence(f, None, "compose file") for f in found]
    if command not in _SERVICE_COMMANDS:
        return _profiled(verified(invocation, f"`compose {command}` works on {', '.join(found)}", evidence), compose, profiles)
    named, after_unknown = _services(command, rest)
    for service, doubtful in zip(named, after_unknown):
        if dynamic(service):
            return unknown(invocation, f"the service {service} is a placeholder or a shell expansion")
        if service in compose.services:
            path, key = compose.services[service]
            evidence.append(Evidence(path, yaml_key_line(compose.texts[path], key, "services:"), f"service {service}"))
            continue
        missing = f"no service {service} in {', '.join(found)} (services: {listed(compose.services)})"
        if doubtful or compose.open:
            return unknown(invocation, f"{missing}; " + (compose.open[0] if compose.open else "it may be the value of the option before it"))
        return refuted(invocation, missing, evidence)
    shown = ", ".join(named) if named else "every service"
    return _profiled(verified(invocation, f"`compose {command}` on {shown} of {', '.join(found)}", evidence), compose, profiles)


def _profiled(result: AnchorResult, compose: Compose, profiles: list[str]) -> AnchorResult:
    """`result`, saying which `--profile` names no service of the files is in (`details["undeclared"]`). Compose
    starts the other services all the same, so the call still holds; but where several compose files run it, the one
    that declares the profile is the one the text means (the core names it first: `verify.elsewhere`)."""
    undeclared = [p for p in profiles if p not in compose.profiles and not dynamic(p)]
    if undeclared:
        result.details["undeclared"] = undeclared
    return result


def _files(context: Context, invocation: Invocation, folder: str, written: list[str]) -> list[str] | AnchorResult:
    if written:
        paths = []
        for name in written:
            path = named_file(context, invocation, folder, name, "compose file")
            if isinstance(path, AnchorResult):
                return path
            paths.append(path)
        return paths
    for here in upward(folder):
        for name in DEFAULT_FILES:
            path = in_dir(here, name)
            if is_file(context, path):
                override = re.sub(r"\.(ya?ml)$", r".override.\1", path)
                return [path, override] if is_file(context, override) else [path]
    return no_config(invocation, f"no compose file ({', '.join(DEFAULT_FILES)}) in {searched(folder)}", folder, DEFAULT_FILES)


def _services(command: str, rest: list[str]) -> tuple[list[str], list[bool]]:
    """The services a subcommand names, each with whether it follows an option anchorcheck does not know."""
    takes_value = _SERVICE_COMMANDS[command]
    named: list[str] = []
    doubtful: list[bool] = []
    previous_unknown = False
    words = list(rest)
    while words:
        word = words.pop(0)
        if word == "--":
            continue
        if word.startswith("-"):
            name, eq, _ = word.partition("=")
            if name in takes_value and not eq and words:
                words.pop(0)
                previous_unknown = False
            else:
                previous_unknown = not eq and name.startswith("--") and name not in _FLAGS
            continue
        named.append(word)
        doubtful.append(previous_unknown)
        previous_unknown = False
        if command in _ONE_SERVICE:
            break
    return named, doubtful


_FLAGS = frozenset({"--detach", "--build", "--no-build", "--force-recreate", "--no-recreate", "--no-deps", "--remove-orphans",
                    "--wait", "--abort-on-container-exit", "--quiet-pull", "--no-start", "--rm", "--service-ports",
                    "--follow", "--timestamps", "--no-cache", "--pull", "--quiet", "--volumes", "--all", "--privileged",
                    "--no-TTY", "--interactive", "--tty", "--watch", "--menu", "--always-recreate-deps", "--renew-anon-volumes",
                    "--use-aliases", "--no-log-prefix", "--no-color", "--dry-run", "--force", "--stop", "--services"})


@hookimpl
def register_runners(register):  # noqa: ANN001, ANN201 - hook signature
    register(
        Runner(
            name="compose",
            programs=("docker", "docker-compose", "podman", "podman-compose"),
            verify=verify_compose,
            reads=reads_compose,
            configs=DEFAULT_FILES,
            summary="docker compose services (compose files and their includes)",
        )
    )
