"""`go run|build|test|vet|install|generate|list PACKAGES`: the module exists and so do the package folders named.

Every package command needs a go.mod (or go.work) in the folder the call
runs from or above: none is REFUTED. A relative package (`.`, `./cmd/x`,
`./pkg/...`) must be a folder of the repository, holding .go files unless
it ends in `/...`; a package under the module's own path
(`github.com/acme/app/cmd/x`) is mapped to its folder the same way; a
`.go` file named must exist. Other import paths are other modules:
INCONCLUSIVE. `go mod tidy` and the other module commands need only the
go.mod; `go version`, `go env` and `go install pkg@version` need nothing,
so a reader of prose does not read them (`reads_go`).
"""

from __future__ import annotations

import posixpath
import re

from anchorcheck import AnchorResult, Evidence, Invocation, Runner, hookimpl
from anchorcheck.plugin import Context
from anchorcheck_plugins.runners._support import (
    ConfigError,
    dynamic,
    elsewhere,
    in_dir,
    is_dir,
    is_file,
    join,
    no_config,
    no_folder,
    not_there,
    read_text,
    refuted,
    searched,
    unknown,
    unusable,
    upward,
    verified,
)

_PACKAGE_COMMANDS = frozenset({"run", "build", "test", "vet", "install", "generate", "list", "fmt", "doc", "fix", "clean"})
_MODULE_COMMANDS = frozenset({"mod", "get", "work", "tool"})
_VALUE_FLAGS = frozenset({"-run", "-bench", "-count", "-timeout", "-o", "-tags", "-ldflags", "-gcflags", "-p", "-C", "-cpu",
                          "-coverprofile", "-covermode", "-coverpkg", "-benchtime", "-parallel", "-exec", "-mod", "-modfile",
                          "-skip", "-shuffle", "-fuzz", "-fuzztime", "-memprofile", "-cpuprofile", "-blockprofile",
                          "-trace", "-outputdir", "-asmflags", "-buildmode", "-compiler", "-gccgoflags", "-installsuffix",
                          "-pkgdir", "-toolexec", "-pgo", "-overlay", "-f", "-vet", "-list"})

def _module(context: Context, cwd: str) -> tuple[str, str | None] | None:
    """The nearest go.mod (or go.work) above `cwd`, with the module path go.mod declares."""
    for folder in upward(cwd):
        for name in ("go.mod", "go.work"):
            path = in_dir(folder, name)
            if is_file(context, path):
                if name == "go.work":
                    return path, None
                found = re.search(r"^[ \t]*module[ \t]+\"?([^\s\"]+)", read_text(context, path), re.MULTILINE)
                return path, found.group(1) if found else None
    return None


def reads_go(program: str, args: tuple[str, ...]) -> bool:
    """Whether a call is a claim about the repository: `go install golang.org/x/tools/gopls@latest`
    installs a tool for the user and `go version` needs nothing of it, so they are not."""
    words = list(args[2:] if args[:1] == ("-C",) else args)
    return bool(words) and words[0] in _PACKAGE_COMMANDS | _MODULE_COMMANDS and not _remote(words[0], words[1:])


def _remote(command: str, rest: list[str]) -> bool:
    """`go install x@latest` installs a tool for the user; `go list -m -versions MOD` (or `MOD@v1`) asks the
    module proxy: neither needs anything of the repository."""
    if command == "install":
        return any("@" in w for w in rest)
    return command == "list" and "-m" in rest and any(w in ("-versions", "-retracted") or "@" in w for w in rest)


def verify_go(invocation: Invocation, context: Context) -> AnchorResult:
    words = list(invocation.args)
    cwd = invocation.cwd
    if words[:1] == ["-C"] and len(words) > 1:
        cwd = join(cwd, words[1]) or cwd
        words = words[2:]
        gone = no_folder(invocation, context, "go", cwd)  # not answered from a go.mod above it
        if gone is not None:
            return gone
    if not words:
        return unknown(invocation, "go without a command only prints its help")
    command, rest = words[0], words[1:]
    if command not in _PACKAGE_COMMANDS | _MODULE_COMMANDS:
        return unknown(invocation, f"`go {command}` needs no repository configuration")
    try:
        found = _module(context, cwd)
    except ConfigError as error:
        return unusable(invocation, error)
    if _remote(command, rest):
        return unknown(invocation, f"`go {command}` of a module version asks the module proxy, not the repository")
    if found is None:
        return no_config(invocation, f"`go {command}` needs a go.mod; there is none in {searched(cwd)}{elsewhere(context, ['go.mod', 'go.work'])}",
                         cwd, ["go.mod", "go.work"])
    gomod, module = found
    if command in _MODULE_COMMANDS:
        return verified(invocation, f"`go {command}` works on {gomod}", [Evidence(gomod, None, "go.mod")])
    packages = _packages(rest, command)
    if not packages and any(dynamic(w) for w in rest):
        return unknown(invocation, "a placeholder or a shell expansion may stand for the packages")
    evidence = [Evidence(gomod, None, "go.mod")]
    reasons = []
    for package in packages or ["."]:
        result = _package(invocation, context, cwd, module, gomod, package)
        if isinstance(result, AnchorResult):
            return result
        evidence.append(result)
        reasons.append(f"{package} is {result.path}")
    return verified(invocation, f"`go {command}`: " + "; ".join(reasons), evidence)


def _packages(rest: list[str], command: str) -> list[str]:
    """The package (or file) arguments: the words before the first one that is not a flag, or after
    flags; for `go run` only the first package, the rest are the program's arguments."""
    found: list[str] = []
    words = list(rest)
    while words:
        word = words.pop(0)
        if word == "--":
            break
        if word.startswith("-"):
            name = word.split("=", 1)[0]
            if "=" not in word and name in _VALUE_FLAGS and words:
                words.pop(0)
            continue
        found.append(word)
        if command == "run" and not word.endswith(".go"):
            break
    return found


def _package(invocation: Invocation, context: Context, cwd: str, module: str | None, gomod: str, package: str) -> Evidence | AnchorResult:
    if dynamic(package.replace("...", "")):
        return unknown(invocation, f"{package} is a placeholder or a shell expansion")
    root = posixpath.dirname(gomod) or "."
    if module and (package == module or package.startswith(module + "/")):
        written, base = "./" + package[len(module):].lstrip("/"), root
    elif package.startswith(".") or package.endswith(".go"):
        written, base = package, cwd
    else:
        return unknown(invocation, f"{package} is an import path outside the module (another module or the standard library)")
    recursive = written.endswith("/...") or written == "..."
    folder = join(base, written.removesuffix("...").rstrip("/") or ".")
    if folder is None:
        return unknown(invocation, f"{package} is outside the repository")
    if written.endswith(".go"):
        return Evidence(folder, None, "Go file") if is_file(context, folder) else not_there(invocation, f"{folder} does not exist", folder)
    if not is_dir(context, folder):
        return not_there(invocation, f"the package folder {folder}/ does not exist", folder + "/")
    if not recursive and not any(p.endswith(".go") and posixpath.dirname(p) == (folder if folder != "." else "") for p in context.repo.paths(None if folder == "." else folder)):
        result = refuted(invocation, f"{'the repository root' if folder == '.' else folder + '/'} holds no .go files")
        result.details["emptied"] = [folder, ".go"]  # for prose, history says whether it ever held any
        return result
    return Evidence(folder, None, "package folder")


@hookimpl
def register_runners(register):  # noqa: ANN001, ANN201 - hook signature
    register(Runner(name="go", programs=("go",), verify=verify_go, reads=reads_go, configs=("go.mod",), summary="go.mod and the package folders a go command names"))
