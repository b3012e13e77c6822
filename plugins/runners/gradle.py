"""`./gradlew :module:task`, `gradle build`: the build exists, and so does every project a task path names.

A Gradle build is found as Gradle finds it: the nearest settings.gradle(.kts)
at or above the folder the call runs in (`-p DIR` moves it), else a lone
build.gradle(.kts) (a single-project build). A wrapper written as a path
(`./gradlew`) is a file of the checkout; missing, the core asks history.

Projects are what the settings file includes: `include(":a:b", "c")` (Kotlin)
or `include 'a', 'b'` (Groovy) defines `:a`, `:a:b` and `:c`. A task path
(`:a:b:jvmTest`) names project `:a:b`: one the settings do not include is not
in the build now, but only history makes it stale: the result is INCONCLUSIVE
with the state `not-in-config`, and the core checks the settings file's last
revisions with this runner, so a project an earlier revision included is
REFUTED with the commit that dropped it. Settings that compute what they
include (a loop, a variable), composite builds (`includeBuild`) and names that
Gradle's abbreviation matching may expand (`:core:t`, `:kotlin-sdk` for
`:kotlin-sdk-server`) are not REFUTED from the settings of now: the
settings are never asked about a computed build, and an abbreviation is
REFUTED only where history shows the project included as written and
dropped (else INCONCLUSIVE). Task names themselves are the
plugins' to define (`jvmTest`, `detekt`, `apiCheck` come from plugins a
build script applies), so a task is never judged from its absence.

A project's build script is where those plugins are applied. A project the
settings include but whose folder holds no build.gradle(.kts) is an implicit
parent (`include("core:certs")` makes `:core`), fine as long as it never had
one; when history shows the build file it had moved away (or deleted with the
whole folder), the tasks it applied went with it: `:core:japicmp` is REFUTED
with the commit and where the file went. A build file deleted while the folder
stays may have left its project to a build above that configures it
(`subprojects {}`): INCONCLUSIVE. Settings that place a project or name its
build file themselves (`projectDir`, `buildFileName`), and a build file renamed
in its folder, are not read so.
"""

from __future__ import annotations

import posixpath
import re

from anchorcheck import AnchorResult, Evidence, Invocation, Runner, hookimpl
from anchorcheck.plugin import NOT_IN_CONFIG, Context, history_of
from anchorcheck_plugins.runners._support import (
    ConfigError, arguments, dynamic, in_dir, is_dir, is_file, join, listed, missing_wrapper, nearest, no_config, no_folder,
    read_text, refuted, searched, unknown, unusable, upward, verified,
)

_SETTINGS = ("settings.gradle.kts", "settings.gradle")
_BUILDS = ("build.gradle.kts", "build.gradle")
# Options that take the next word as their value (`--tests X`, `-x task`); `-Pk=v` and `-Dk=v` are one word.
_VALUED = frozenset({
    "--tests", "-x", "--exclude-task", "-p", "--project-dir", "-b", "--build-file", "-c", "--settings-file", "-I",
    "--init-script", "--console", "--warning-mode", "-g", "--gradle-user-home", "--include-build", "--project-cache-dir",
    "--priority", "-M", "--write-verification-metadata", "--dependency-verification", "--update-locks", "-P", "-D",
    "--project-prop", "--system-prop", "--configuration-cache-problems", "-F", "--dependency-verification-mode",
})
_ELSEWHERE = frozenset({"-b", "--build-file", "-c", "--settings-file", "--include-build", "-I", "--init-script"})
_INCLUDE = re.compile(r"\binclude(?:Flat)?\b[ \t]*(?:\(([^()]*)\)|((?:[^\n]*,[ \t]*\n)*[^\n]*))")
_STRING = re.compile(r"""(["'])([^"'\n]*)\1""")
_INCLUDE_BUILD = re.compile(r"\bincludeBuild\b[ \t]*\(?([^)\n]*)")
_ROOT_NAME = re.compile(r"""\brootProject\.name\s*=\s*(["'])([^"'\n$]*)\1""")
_LEFT_OVER = re.compile(r"//[^\n]*|/\*.*?\*/|[\s,]", re.DOTALL)
_PART = re.compile(r"[A-Z]?[a-z0-9]*|[A-Z]+")


class Settings:
    """The projects a settings file includes, and whether it includes others no literal names (`open`)."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.root = posixpath.dirname(path) or "."
        self.projects = {":": 1}  # project path -> the line that includes it
        self.open = False
        # a composite build: `:other-build:task` names an included build (by its folder's name, or the name its own
        # settings give it), not a project; a build included by a computed path could be any
        self.builds: dict[str, str] = {}  # the folder of each build included by a literal path -> its name
        for call in _INCLUDE_BUILD.finditer(text):
            path = _STRING.fullmatch(call.group(1).strip())
            if path is None or "$" in path.group(2):
                self.open = True
            else:
                folder = posixpath.normpath(posixpath.join(self.root, path.group(2)))
                self.builds[folder] = posixpath.basename(folder)
        # a project's folder or build file named by the settings, not the path its name gives (`projectDir`, `buildFileName`)
        self.placed = "projectDir" in text or "buildFileName" in text
        for match in _INCLUDE.finditer(text):
            written = match.group(1) if match.group(1) is not None else match.group(2)
            names = [name for _, name in _STRING.findall(written)]
            if _LEFT_OVER.sub("", _STRING.sub("", written)) or any("$" in name for name in names):
                self.open = True  # `include(names)`, `include(":" + it.name)`, `include(":${it.name}")`: computed
            line = text.count("\n", 0, match.start()) + 1
            for name in names:
                parts = [p for p in name.split(":") if p]
                for end in range(1, len(parts) + 1):
                    self.projects.setdefault(":" + ":".join(parts[:end]), line)


def reads_gradle(program: str, args: tuple[str, ...]) -> bool:
    """A call that names a task is a claim about the build; `gradle --version`, `gradle init` need none."""
    return any(not word.startswith("-") for word in args) and "init" not in args


def verify_gradle(invocation: Invocation, context: Context) -> AnchorResult:
    cwd = invocation.cwd
    missing = missing_wrapper(invocation, context)  # `./gradlew`, `java/gradlew`: a file of the checkout
    if missing is not None:
        return missing
    tasks = []
    for name, value in arguments(invocation.args, _VALUED):
        if not name:
            tasks.append(value)
        elif name in _ELSEWHERE:
            return unknown(invocation, f"{name} points Gradle at another build or script: not read")
        elif name in ("-p", "--project-dir"):
            moved = join(cwd, value)
            if moved is None or dynamic(value):
                return unknown(invocation, f"{value} is outside the repository or a shell expansion")
            missing = no_folder(invocation, context, "gradle", moved)
            if missing is not None:
                return missing
            cwd = moved
    if any(dynamic(task) for task in tasks):
        return unknown(invocation, "a task is a placeholder or a shell expansion")
    try:
        return _projects(invocation, context, cwd, tasks)
    except ConfigError as error:
        return unusable(invocation, error)


def _projects(invocation: Invocation, context: Context, cwd: str, tasks: list[str]) -> AnchorResult:
    found = nearest(context, cwd, _SETTINGS)
    settings = Settings(found, read_text(context, found)) if found is not None else None
    if settings is None:
        build = nearest(context, cwd, _BUILDS)
        if build is None:
            return no_config(invocation, f"no settings.gradle(.kts) or build.gradle(.kts) in {searched(cwd)}: no Gradle build", cwd, (*_SETTINGS, *_BUILDS))
        return verified(invocation, f"a single-project Gradle build ({build}); {_OPEN_TASKS}", [Evidence(build, None, "build")])
    here = posixpath.relpath(cwd, settings.root) if cwd != settings.root else "."
    current = "" if here == "." else ":" + here.replace("/", ":")
    for task in tasks:
        if ":" not in task.strip(":"):
            continue  # `build`, `:build`: a task of the current or root project
        written = task.rsplit(":", 1)[0]
        if not written.startswith(":") and current and current not in settings.projects:
            return unknown(invocation, f"{task} is relative to the project of {cwd}/, which {settings.path} does not include")
        project = written if written.startswith(":") else f"{current}:{written}"
        if project in settings.projects:
            continue
        if settings.open:
            return unknown(invocation, f"{settings.path} does not include project {project}, but its settings compute what they include, or the builds they include")
        build = _included_build(context, settings, project)
        if build is not None:
            return unknown(invocation, f"{project.split(':')[1]} is the build {build}/ that {settings.path} includes: its tasks are not read")
        # An abbreviation Gradle may expand is no proof either way, but history still is: a revision of the settings
        # that included the project as written shows it was true and is gone (`not-in-config`, as for any absent one).
        why = (", but Gradle may expand it as an abbreviation of a project's name" if _abbreviates(project, settings.projects)
               else f" (projects: {listed(p for p in settings.projects if p != ':')})")
        absent = unknown(invocation, f"{settings.path} does not include project {project}{why}")
        absent.evidence, absent.state = [Evidence(settings.path, None, "include")], NOT_IN_CONFIG
        return absent
    named = [t.rsplit(":", 1)[0] for t in tasks if ":" in t.strip(":")]
    projects = [p if p.startswith(":") else f"{current}:{p}" for p in named]
    unbuilt = _unbuilt(invocation, context, settings, projects)
    if unbuilt is not None:
        return unbuilt
    lines = [Evidence(settings.path, settings.projects[p], "include") for p in projects]
    what = f"{settings.path} includes {', '.join(dict.fromkeys(named))}" if named else f"a Gradle build ({settings.path})"
    return verified(invocation, f"{what}; {_OPEN_TASKS}", lines or [Evidence(settings.path, None, "settings")])


_OPEN_TASKS = "task names are defined by the plugins a build applies and are not checked"


def _included_build(context: Context, settings: Settings, project: str) -> str | None:
    """The folder of the included build a task path's first name names: the build's folder name, or the
    `rootProject.name` its own settings set (any name, when they compute it)."""
    first = project.strip(":").split(":")[0]
    for folder, name in settings.builds.items():
        own = next((in_dir(folder, n) for n in _SETTINGS if is_file(context, in_dir(folder, n))), None)
        text = read_text(context, own) if own is not None else ""
        named = _ROOT_NAME.search(text)
        if first in (name, named.group(2) if named else name) or ("rootProject.name" in text and named is None):
            return folder
    return None


def _unbuilt(invocation: Invocation, context: Context, settings: Settings, projects: list[str]) -> AnchorResult | None:
    """REFUTED (state `gone`) for a project included with no build file in its folder now, whose build file history
    shows moved away or deleted with the folder: its tasks went with it. INCONCLUSIVE when the file was deleted and
    the folder kept. None for a project with a build file, one that never had one (an implicit parent), history
    not there or seen in part, or settings that place projects themselves."""
    if settings.placed:
        return None
    history = history_of(context)
    for project in dict.fromkeys(projects):
        folder = posixpath.normpath(posixpath.join(settings.root, *project.strip(":").split(":")))
        builds = [in_dir(folder, name) for name in _BUILDS]
        if project == ":" or any(is_file(context, build) for build in builds):
            continue
        history.want(builds)  # both asked in one walk
        fate = next((f for build in builds if (f := history.fate(build)) is not None and f.existed), None)
        if fate is None or fate.moved_to is not None and posixpath.dirname(fate.moved_to) == folder:
            continue  # (renamed in its folder: still the project's build, under a name the build sets)
        why = f"{settings.path} includes {project}, but {folder}/ holds no build file now: {fate.path} {fate.describe()}"
        above = _configured_above(context, settings.root, folder, project)
        if above is not None or fate.moved_to is None and is_dir(context, folder):
            kept = unknown(invocation, f"{why}; {above or 'a build above'} may configure the project (subprojects, allprojects)")
            kept.evidence = [Evidence(settings.path, settings.projects[project], "include")]
            return kept
        result = refuted(invocation, f"{why}, and the tasks it applied went with it", [Evidence(settings.path, settings.projects[project], "include")])
        result.state, result.details = "gone", {**result.details, "history": fate.to_dict()}
        return result
    return None


def _configured_above(context: Context, root: str, folder: str, project: str) -> str | None:
    """The build file above a project's folder that may give it tasks although it has no build file of its own:
    one that configures its subprojects (`subprojects {}`, `allprojects {}`) or this project by name."""
    by_name = re.compile(rf"""\b(?:subprojects|allprojects)\b|\bproject\s*\(\s*["']{re.escape(project)}["']\s*\)\s*\{{""")
    for here in upward(posixpath.dirname(folder) or "."):
        for build in (in_dir(here, name) for name in _BUILDS):
            if is_file(context, build) and by_name.search(read_text(context, build)):
                return build
        if here == root:
            return None
    return None


def _abbreviates(project: str, projects: dict[str, int]) -> bool:
    """Whether Gradle's name matching may take `project` for another (`:sdk-srv` for `:sdk-server`): each part
    of each segment (camelCase humps, `-`/`_` pieces) a prefix of the same part of a project's segment."""
    written = project.strip(":").split(":")
    for other in projects:
        segments = other.strip(":").split(":")
        if len(segments) == len(written) and all(_prefix(w, s) for w, s in zip(written, segments)):
            return True
    return False


def _prefix(written: str, name: str) -> bool:
    mine, theirs = _parts(written), _parts(name)
    return len(mine) <= len(theirs) and all(t.lower().startswith(m.lower()) for m, t in zip(mine, theirs))


def _parts(name: str) -> list[str]:
    return [p for piece in re.split(r"[-_.]", name) for p in _PART.findall(piece) if p]


@hookimpl
def register_runners(register):  # noqa: ANN001, ANN201 - hook signature
    register(Runner(
        name="gradle", programs=("gradle", "gradlew"), verify=verify_gradle, reads=reads_gradle, configs=_SETTINGS,
        summary="the Gradle build and the projects its settings include (task names are the plugins')",
    ))
