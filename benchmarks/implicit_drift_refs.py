"""The references an instruction file makes that hold at HEAD, found without anchorcheck: the drift benchmark's trials.

Recall has to be measured against references that anchorcheck did not pick
itself, or a reference it drops silently could never count as missed. So this
reader is deliberately plain and independent of the product: inline code spans,
link targets and the lines of fenced blocks, kept only when the repository at
HEAD backs them up exactly as written (a tracked path, a script in the
package.json beside the file or at the root, a Makefile target, a justfile
recipe, a hatch script, a cargo alias, a Taskfile task, a deno.json task, a cargo feature, a
direct dependency, a function or class defined exactly once). Each reference
records where the repository defines it, which is what a drift changes.
"""

from __future__ import annotations

import json
import posixpath
import re
import shlex
import subprocess
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

Site = tuple[str, int]  # (instruction file, 1-based line) where the reference is written

GRADLE_SETTINGS = ("settings.gradle.kts", "settings.gradle")
# Configuration files are drifted by renaming what they define, never moved themselves.
CONFIG_NAMES = frozenset({
    "package.json", "pnpm-workspace.yaml", "Cargo.toml", "pyproject.toml", "go.mod", "go.work", "Makefile",
    "makefile", "GNUmakefile", "justfile", "Justfile", ".justfile", "hatch.toml", "Taskfile.yml", "Taskfile.yaml",
    "tox.ini", "noxfile.py", "turbo.json", "setup.py", "setup.cfg", "tsconfig.json", "pnpm-lock.yaml", "uv.lock",
    "Cargo.lock", "package-lock.json", "yarn.lock", "go.sum", "riotfile.py", *GRADLE_SETTINGS,
})
INSTRUCTION_NAMES = frozenset({"AGENTS.md", "CLAUDE.md", "GEMINI.md", "SKILL.md", "copilot-instructions.md", ".cursorrules"})
INLINE = re.compile(r"`([^`\n]+)`")
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*(```|~~~)")
IDENTIFIER = re.compile(r"([A-Za-z_][A-Za-z0-9_]{4,})(?:\(\))?")
PM_BUILTINS = frozenset({
    "install", "i", "add", "remove", "rm", "exec", "dlx", "x", "run", "test", "create", "init", "publish", "link",
    "update", "up", "outdated", "why", "list", "ls", "info", "view", "ci", "audit", "config", "store", "import",
    "patch", "rebuild", "prune", "pack", "start", "workspace", "workspaces", "set", "dedupe", "version", "node",
})


@dataclass(frozen=True)
class Reference:
    """One thing the instruction files name that the repository defines at HEAD."""

    kind: str  # path-file, path-folder, gradle-project, script, target, recipe, hatch-script, cargo-alias, task, feature, dependency, function (or type)
    name: str  # the repo-relative path, or the name as the configuration spells it
    config: str = ""  # the file that defines it (for names)
    line: int = 0  # the 1-based line of that file that defines it
    sites: tuple[Site, ...] = field(default=(), compare=False)


@dataclass
class Snippets:
    """What an instruction file writes that could be a reference: code spans and links, and command lines."""

    words: list[tuple[int, str]] = field(default_factory=list)
    commands: list[tuple[int, str]] = field(default_factory=list)


def snippets(text: str) -> Snippets:
    """Inline code and link targets (as words and as commands) and fenced block lines (as commands), with their lines."""
    found, fenced, entered = Snippets(), False, ""
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced, entered = not fenced, ""
            continue
        if fenced:
            command = line.strip().removeprefix("$ ")
            found.commands.append((number, entered + command))
            if re.fullmatch(r"cd\s+[\w./-]+", command):  # the block's later lines run in that folder, from the last one
                inside = posixpath.normpath(posixpath.join(entered[3:-4] or ".", command.split()[1]))
                entered = "" if inside == "." else f"cd {inside} && "  # (`cd cli` … `cd ..` then `cd assets`: assets/)
            continue
        for span in INLINE.findall(line):
            found.words.append((number, span.strip()))
            found.commands.append((number, span.strip()))
        found.words.extend((number, target) for target in LINK.findall(line))
    return found


class Tree:
    """The tracked paths of a checkout at HEAD, and the text of its files, read once."""

    def __init__(self, root: Path) -> None:
        self.root = root
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True).stdout
        self.files = {p for p in listed.decode("utf-8", "replace").split("\0") if p}
        self.folders = {posixpath.dirname(p) for p in self.files}
        for folder in list(self.folders):
            while folder:
                folder = posixpath.dirname(folder)
                self.folders.add(folder)
        self.folders.discard("")

    def text(self, rel: str) -> str:
        """The file's text ('' when it is not a readable file)."""
        try:
            return (self.root / rel).read_text("utf-8")
        except (OSError, UnicodeDecodeError):
            return ""

    def nearest(self, folder: str, names: tuple[str, ...]) -> str | None:
        """The first of `names` in `folder`, else at the root: where a command written there is configured."""
        for base in dict.fromkeys((folder, "")):
            for name in names:
                rel = posixpath.join(base, name) if base else name
                if rel in self.files:
                    return rel
        return None


def path_reference(tree: Tree, memory: str, written: str) -> Reference | None:
    """A tracked file or folder the word names as written (from the root or the file's folder), else None."""
    token = written.split("#", 1)[0].split("?", 1)[0]
    token = re.sub(r":\d+(-\d+)?$", "", token)
    if not token or any(c in token for c in " *<>{}$[]|,;'\"\\") or "://" in token or token.startswith(("~", "@", "-", "//")):
        return None
    if token.startswith("/"):  # `/api`: read as the repository's own top folder only when the repository has one
        token = token[1:]
        if token.split("/", 1)[0] not in tree.folders | tree.files:
            return None
    folder_form = token.endswith("/")
    token = token.rstrip("/")
    if "/" not in token and "." not in token and not folder_form:
        return None  # a bare word is not read as a path
    for base in dict.fromkeys(("", posixpath.dirname(memory))):
        rel = posixpath.normpath(posixpath.join(base, token))
        if rel.startswith("..") or rel == ".":
            continue
        if rel in tree.files and not folder_form:
            return Reference("path-file", rel)
        if rel in tree.folders:
            return Reference("path-folder", rel)
    return None


def _line_of(text: str, pattern: str, section: str | None = None) -> int:
    """The 1-based line matching `pattern` (inside a TOML/INI `[section...` header whose name matches, if given), else 0."""
    current = ""
    for number, line in enumerate(text.splitlines(), 1):
        header = re.match(r"^\s*\[+([^\]]+)\]+\s*$", line)
        if header:
            current = header.group(1).strip()
            continue
        if (section is None or re.search(section, current)) and re.match(pattern, line):
            return number
    return 0


def _script_line(text: str, name: str, table: str = "scripts") -> int:
    """The line of `"name":` inside package.json's "scripts" object, or deno.json's "tasks" (0 when not found). A
    deno.jsonc that JSON cannot read (comments) is read by its lines alone."""
    try:
        if name not in (json.loads(text).get(table) or {}):
            return 0
    except ValueError:
        pass
    except AttributeError:
        return 0
    inside = False
    for number, line in enumerate(text.splitlines(), 1):
        if re.match(rf'^\s*"{table}"\s*:', line):
            inside = True
        elif inside and re.match(rf'^\s*"{re.escape(name)}"\s*:', line):
            return number
        elif inside and re.match(r"^\s*}", line):
            inside = False
    return 0


def _words(command: str) -> list[str]:
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        words = command.split()
    while words and re.match(r"^[A-Z_][A-Z0-9_]*=", words[0]):
        words = words[1:]  # VAR=value prefixes
    return words


def command_references(tree: Tree, memory: str, command: str) -> list[Reference]:
    """The runner entries a command line calls that the configuration beside the file (or at the root) defines."""
    found: list[Reference] = []
    folder = posixpath.dirname(memory)
    for segment in re.split(r"&&|\|\||;|\|", command):
        words = _words(segment)
        if len(words) == 2 and words[0] == "cd":  # `cd docs`: the folder, and where the next segments run
            folder = posixpath.normpath(posixpath.join(folder, words[1]))
            if folder in tree.folders:
                found.append(Reference("path-folder", folder))
            continue
        program = _program(tree, folder, words[0]) if words else None
        if program:
            found.append(program)
        if words and posixpath.basename(words[0]) in ("gradle", "gradlew"):
            found.extend(_gradle_projects(tree, folder, words[1:]))
            continue
        if len(words) < 2:
            continue
        tool, rest = words[0], words[1:]
        ref = None
        if tool in ("npm", "pnpm", "yarn", "bun"):
            if rest[0] == "run" and len(rest) > 1:
                name = rest[1]
            elif tool in ("pnpm", "yarn") and rest[0] not in PM_BUILTINS:
                name = rest[0]
            else:
                name = ""
            config = tree.nearest(folder, ("package.json",))
            line = _script_line(tree.text(config), name) if config and name and not name.startswith("-") else 0
            ref = Reference("script", name, config, line) if line else None
        elif tool == "make" and not rest[0].startswith("-"):
            config = tree.nearest(folder, ("GNUmakefile", "makefile", "Makefile"))
            # the rule, not a target-specific variable (`test: GOFLAGS = -v` names the target too and renames nothing)
            line = _line_of(tree.text(config), rf"^{re.escape(rest[0])}\s*::?(?!=)(?!\s*(?:export\s+|override\s+)?[\w.-]+\s*[:?+!]?=)") if config else 0
            ref = Reference("target", rest[0], config, line) if line else None
        elif tool == "just" and not rest[0].startswith("-"):
            config = tree.nearest(folder, ("justfile", "Justfile", ".justfile"))
            line = _line_of(tree.text(config), rf"^@?{re.escape(rest[0])}(\s[^:=\n]*)?:(?!=)") if config else 0
            ref = Reference("recipe", rest[0], config, line) if line else None
        elif tool == "hatch" and rest[0] == "run" and len(rest) > 1:
            name = rest[1].rpartition(":")[2]
            config = tree.nearest(folder, ("hatch.toml",)) or tree.nearest(folder, ("pyproject.toml",))
            line = _line_of(tree.text(config), rf'^\s*"?{re.escape(name)}"?\s*=', r"scripts$") if config else 0
            ref = Reference("hatch-script", name, config, line) if line else None
        elif tool == "task" and not rest[0].startswith("-"):
            config = tree.nearest(folder, ("Taskfile.yml", "Taskfile.yaml"))
            line = _line_of(tree.text(config), rf"^  {re.escape(rest[0])}:\s*$") if config else 0
            ref = Reference("task", rest[0], config, line) if line else None
        elif tool == "deno" and rest[0] == "task" and len(rest) > 1 and not rest[1].startswith("-"):
            config = tree.nearest(folder, ("deno.json", "deno.jsonc"))
            line = _script_line(tree.text(config), rest[1], "tasks") if config else 0
            ref = Reference("deno-task", rest[1], config, line) if line else None
        elif tool == "cargo":
            ref = _cargo_reference(tree, rest)
        if ref:
            found.append(ref)
        if tool == "cargo":
            found.extend(_feature_references(tree, rest))
    return found


def _program(tree: Tree, folder: str, word: str) -> Reference | None:
    """A program written as a path (`./scripts/gen.sh`, `bin/dev`): the tracked file it runs, from the folder."""
    if "/" not in word or word.startswith(("/", "~")):
        return None
    rel = posixpath.normpath(posixpath.join(folder, word))
    return Reference("path-file", rel) if rel in tree.files else None


def _gradle_projects(tree: Tree, folder: str, args: list[str]) -> list[Reference]:
    """The projects task paths name (`:server:jvmTest` is project `:server`) that the nearest settings file includes
    as written, on one line: the line a rename changes."""
    settings = next((s for base in _upward(folder) for name in GRADLE_SETTINGS if (s := posixpath.join(base, name)) in tree.files), None)
    found = []
    for task in args:
        project = task.rsplit(":", 1)[0].strip(":") if not task.startswith("-") and ":" in task.strip(":") else ""
        line = _line_of(tree.text(settings), rf"""^.*["']:?{re.escape(project)}["']""") if settings and project else 0
        if line:
            found.append(Reference("gradle-project", project.rsplit(":", 1)[-1], settings, line))
    return found


def _upward(folder: str) -> list[str]:
    found = [folder]
    while folder:
        folder = posixpath.dirname(folder)
        found.append(folder)
    return found


def _cargo_reference(tree: Tree, rest: list[str]) -> Reference | None:
    config = ".cargo/config.toml" if ".cargo/config.toml" in tree.files else None
    line = _line_of(tree.text(config), rf"^{re.escape(rest[0])}\s*=", r"^alias$") if config else 0
    return Reference("cargo-alias", rest[0], config, line) if line else None


def _feature_references(tree: Tree, rest: list[str]) -> list[Reference]:
    """The cargo features a `--features a,b` / `-F a` names that exactly one Cargo.toml defines."""
    names: list[str] = []
    for flag, value in zip(rest, rest[1:]):
        if flag in ("--features", "-F"):
            names.extend(n for n in re.split(r"[ ,]", value) if n and "/" not in n)
    found = []
    for name in names:
        defining = [
            (rel, line) for rel in sorted(tree.files) if rel.endswith("Cargo.toml")
            for line in [_line_of(tree.text(rel), rf'^"?{re.escape(name)}"?\s*=', r"^features$")] if line
        ]
        if len(defining) == 1:
            found.append(Reference("feature", name, *defining[0]))
    return found


def dependency_reference(tree: Tree, memory: str, word: str) -> Reference | None:
    """A direct dependency the manifest beside the file (or at the root) declares under exactly this name."""
    if not re.fullmatch(r"@?[A-Za-z0-9][\w.\-/]*", word) or len(word) < 3:
        return None
    folder = posixpath.dirname(memory)
    quoted = re.escape(word)
    checks = (
        ("package.json", rf'^\s*"{quoted}"\s*:', None, r"[dD]ependencies"),
        ("pyproject.toml", rf'^\s*"{quoted}\s*([<>=!~;\[ ].*)?",?\s*$', r"^(project|project\.optional-dependencies|dependency-groups)$", None),
        ("Cargo.toml", rf"^{quoted}\s*=", r"dependencies$", None),
        ("go.mod", rf"^\s*(require\s+)?{quoted}\s+v", None, None),
    )
    for name, pattern, section, json_key in checks:
        config = tree.nearest(folder, (name,))
        if not config:
            continue
        text = tree.text(config)
        if name == "pyproject.toml" and word not in _pyproject_requirements(text):
            continue  # a quoted word in `keywords` or `[tool.ruff...] known-first-party` is no dependency
        if json_key:
            try:
                data = json.loads(text)
            except ValueError:
                continue
            if not any(word in (data.get(k) or {}) for k in data if re.search(json_key, k) and isinstance(data.get(k), dict)):
                continue
        line = _line_of(text, pattern, section)
        if line and not _still_held(tree, word, config):
            return Reference("dependency", word, config, line)
    return None


def _pyproject_requirements(text: str) -> set[str]:
    """The names pyproject.toml's `[project]` dependencies, optional dependencies and dependency groups require."""
    try:
        data = tomllib.loads(text)
    except ValueError:
        return set()
    project = data.get("project") or {}
    lists = [project.get("dependencies") or [], *(project.get("optional-dependencies") or {}).values(), *(data.get("dependency-groups") or {}).values()]
    return {m.group(0) for entries in lists if isinstance(entries, list) for entry in entries
            if isinstance(entry, str) and (m := re.match(r"[A-Za-z0-9][\w.\-]*", entry.strip()))}


MANIFEST_NAMES = frozenset({"package.json", "pyproject.toml", "Cargo.toml", "go.mod"})


def _still_held(tree: Tree, word: str, config: str) -> bool:
    """Whether dropping the line would leave the project depending on it: another manifest names it (declares it,
    or it is a workspace package's own name). Such a drift leaves "we use X" true, so it is not sampled."""
    token = re.compile(rf"(?<![\w@/.-]){re.escape(word)}(?![\w/-])")
    return any(
        token.search(tree.text(rel)) for rel in tree.files
        if posixpath.basename(rel) in MANIFEST_NAMES and rel != config
    )


def identifier(word: str) -> str | None:
    """The name a word writes when it looks like code (`snake_case`, `camelCase`, `Pascal`+`Case`, optionally `()`), else None."""
    match = IDENTIFIER.fullmatch(word)
    if not match or not ("_" in match.group(1).strip("_") or re.search(r"[a-z][A-Z]", match.group(1))):
        return None
    return match.group(1)


def function_references(tree: Tree, names: set[str]) -> dict[str, Reference]:
    """The functions and types the source defines exactly once (def, function, fn, func, class, struct, trait, type), by one grep."""
    lines: dict[str, list[str]] = {}
    ordered = sorted(names)
    for start in range(0, len(ordered), 200):
        alternation = "|".join(re.escape(n) for n in ordered[start:start + 200])
        pattern = rf"(def|function|fn|func|class|interface|struct|trait|enum|type)\s+(\([^)]*\)\s*)?({alternation})\b"
        out = subprocess.run(
            ["git", "grep", "-InE", pattern, "--", ":!*.md", ":!*.mdc", ":!*.txt", ":!*.json", ":!*.lock"],
            cwd=tree.root, capture_output=True, text=True, errors="replace",
        ).stdout
        for hit in out.splitlines():
            rel, number, text = hit.split(":", 2)
            for match in re.finditer(pattern, text):
                lines.setdefault(match.group(3), []).append(f"{rel}:{number}")
    found = {}
    for name, where in lines.items():
        if len(set(where)) == 1:
            rel, _, number = where[0].rpartition(":")
            found[name] = Reference("function", name, rel, int(number))
    return found


def references(tree: Tree, memories: list[str]) -> list[Reference]:
    """Every reference the instruction files make that holds at HEAD, each with all the places it is written."""
    sites: dict[Reference, list[Site]] = {}
    named: dict[str, list[Site]] = {}
    instruction = set(memories)
    for memory in memories:
        found = snippets(tree.text(memory))
        for number, word in found.words:
            ref = path_reference(tree, memory, word) or dependency_reference(tree, memory, word)
            if ref and ref.kind.startswith("path") and _unmovable(ref.name, instruction):
                continue
            if ref:
                sites.setdefault(ref, []).append((memory, number))
            elif identifier(word):
                named.setdefault(identifier(word), []).append((memory, number))
        for number, command in found.commands:
            for ref in command_references(tree, memory, command):
                if not (ref.kind.startswith("path") and _unmovable(ref.name, instruction)):
                    sites.setdefault(ref, []).append((memory, number))
    for name, ref in function_references(tree, set(named)).items():
        sites.setdefault(ref, []).extend(named[name])
    return sorted(
        (Reference(ref.kind, ref.name, ref.config, ref.line, tuple(dict.fromkeys(where))) for ref, where in sites.items()),
        key=lambda r: (r.kind, r.name, r.config),
    )


def _unmovable(path: str, instruction: set[str]) -> bool:
    """Paths a drift must not move: configuration files, instruction files and folders holding one."""
    if posixpath.basename(path) in CONFIG_NAMES | INSTRUCTION_NAMES or path in instruction:
        return True
    return any(memory.startswith(path + "/") for memory in instruction)


def valid_after_edit(rel: str, text: str) -> bool:
    """Whether an edited configuration still parses (a drift must not turn into a broken file)."""
    try:
        if rel.endswith(".json"):
            json.loads(text)
        elif rel.endswith(".toml"):
            tomllib.loads(text)
    except ValueError:
        return False
    return True
