"""`mvn -pl core -am test`, `./mvnw verify`: the build exists where the call runs, and so does every project `-pl` selects.

Maven reads the pom.xml of the folder it runs in (`-f DIR` names another folder,
`-f FILE` the file itself) and does not look for one above it. A call that names
a lifecycle phase (`test`, `verify`, `install`, ...) needs that POM: none there is
REFUTED by the runners' `no_config` step, so the core asks history whether one was
there (stale) or never was (another folder's command, an example); a `pom.*` of
another language there (pom.yaml) or a `.mvn/extensions.xml` at or above it may
hold the build for Polyglot Maven: INCONCLUSIVE. A call whose words are plugin
goals alone (`archetype:generate`, `help:effective-pom`) may need no project, and
one with options alone (`mvn -v`) needs none: not read.

`-pl`/`--projects` selects projects of the reactor: a folder (or its POM) written
from the build's root, or `[groupId]:artifactId`; `!` and `-` exclude one, which
Maven 3 refuses as firmly when it is not there, and `?` (Maven 4) makes it
optional (not judged). A folder with no pom.xml is REFUTED by `no_folder` when the
folder is gone (history asked) and INCONCLUSIVE when it is there without one (a
module may name its POM otherwise). An artifactId no POM of the checkout declares
is REFUTED, the POMs' history handed to the core (`details["defined_by"]`), which
tells one renamed or dropped (stale, with the commit) from one never declared (an
example: INCONCLUSIVE in prose); where a POM computes its artifactId (`${...}`,
an archetype's template) or more POMs are there than are read, a name none
declares is unknown. Profiles (`-P`,
which a settings.xml outside the checkout may define), plugin goals (their
prefixes resolve through the user's settings too) and `-Dtest=` patterns are not
judged.
"""

from __future__ import annotations

import posixpath
import re

from anchorcheck import AnchorResult, Evidence, Invocation, Runner, hookimpl
from anchorcheck.plugin import Context
from anchorcheck_plugins.runners._support import (
    ConfigError,
    arguments,
    dynamic,
    elsewhere,
    in_dir,
    is_dir,
    is_file,
    join,
    missing_wrapper,
    no_config,
    no_folder,
    not_there,
    read_text,
    refuted,
    unknown,
    unusable,
    upward,
    verified,
)

_POM = "pom.xml"
# Options that take the next word as their value; `-Dk=v` is one word, `-D k=v` two.
_VALUED = frozenset({
    "-f", "--file", "-pl", "--projects", "-P", "--activate-profiles", "-D", "--define", "-s", "--settings", "-gs",
    "--global-settings", "-t", "--toolchains", "-gt", "--global-toolchains", "-rf", "--resume-from", "-T", "--threads",
    "-l", "--log-file", "-b", "--builder", "-emp", "--encrypt-master-password", "-ep", "--encrypt-password",
})
_PROJECT_SELECTORS = frozenset({"-pl", "--projects", "-rf", "--resume-from"})
MAX_POMS = 2_000  # POMs read for the artifactIds a reactor declares: more is no build a person runs by name
_TAG = re.compile(r"<(/?)([A-Za-z_][\w.:-]*)[^<>]*?(/?)>")
MAX_DEPTH = 64  # elements open at once: deeper is no POM a person wrote


def reads_maven(program: str, args: tuple[str, ...]) -> bool:
    """A call that names a phase or goal, or selects projects, is a claim about the build; `mvn -v` is none."""
    return any(not name or name in _PROJECT_SELECTORS for name, _ in arguments(args, _VALUED))


def verify_maven(invocation: Invocation, context: Context) -> AnchorResult:
    missing = missing_wrapper(invocation, context)  # `./mvnw`: a file of the checkout
    if missing is not None:
        return missing
    goals, selected, pom = [], [], None
    for name, value in arguments(invocation.args, _VALUED):
        if not name:
            goals.append(value)
        elif name in ("-f", "--file"):
            pom = value
        elif name in _PROJECT_SELECTORS:
            selected += [item for item in value.split(",") if item]
    if any(dynamic(word) for word in [*goals, *selected, pom or ""]):
        return unknown(invocation, "a goal, a project or the POM is a placeholder or a shell expansion")
    try:
        return _build(invocation, context, pom, goals, selected)
    except ConfigError as error:
        return unusable(invocation, error)


def _build(invocation: Invocation, context: Context, written: str | None, goals: list[str], selected: list[str]) -> AnchorResult:
    cwd = invocation.cwd
    if written is None:
        pom = in_dir(cwd, _POM)
    else:
        path = join(cwd, written)
        if path is None:
            return unknown(invocation, f"the POM {written} is outside the repository")
        pom = in_dir(path, _POM) if is_dir(context, path) else path  # Maven's `-f`: a folder's pom.xml, else the file
    if not is_file(context, pom):
        if written is not None:
            return not_there(invocation, f"the POM {pom} does not exist", pom)
        where = "the repository root" if cwd in (".", "") else f"{cwd}/"
        if goals and all(":" in goal for goal in goals) and not selected:
            return unknown(invocation, f"no {_POM} in {where}, but a plugin goal may need no project")
        polyglot = _polyglot(context, cwd)
        if polyglot is not None:
            return unknown(invocation, f"no {_POM} in {where}, but {polyglot}: a build Maven's extensions may read (Polyglot Maven)")
        return no_config(invocation, f"Maven needs a {_POM} where it runs; there is none in {where}{elsewhere(context, [_POM])}",
                         cwd, [_POM], above=False)
    root = posixpath.dirname(pom) or "."
    evidence = [Evidence(pom, None, "POM")]
    for item in selected:
        if item.startswith("?"):
            continue  # optional (Maven 4): absent, it is skipped
        found = _project(invocation, context, root, item.lstrip("!-"), pom)
        if isinstance(found, AnchorResult):
            return found
        evidence.append(found)
    what = f"the projects {', '.join(selected)} of the build of {pom}" if selected else f"the build of {pom}"
    return verified(invocation, f"{what}; profiles, plugin goals and test patterns are not checked", evidence)


def _polyglot(context: Context, cwd: str) -> str | None:
    """What may hold the build where no pom.xml is: a `pom.*` of another language in the folder (pom.yaml, pom.kts), or
    the extensions a `.mvn/extensions.xml` at or above it loads (Polyglot Maven reads them). None when neither is."""
    other = next((p for p in context.repo.paths(None if cwd in (".", "") else cwd)
                  if posixpath.dirname(p) == ("" if cwd in (".", "") else cwd) and posixpath.basename(p).startswith("pom.")), None)
    if other is not None:
        return f"{other} is there"
    return next((f"{e} is there" for e in (in_dir(f, ".mvn/extensions.xml") for f in upward(cwd)) if is_file(context, e)), None)


def _project(invocation: Invocation, context: Context, root: str, item: str, pom: str) -> Evidence | AnchorResult:
    """A project `-pl` selects: a folder (or POM) written from the build's root, or `[groupId]:artifactId`."""
    if ":" in item:
        return _artifact(invocation, context, item.rsplit(":", 1)[1], pom)
    path = join(root, item)
    if path is None:
        return unknown(invocation, f"the project {item} is outside the repository")
    folder = posixpath.dirname(path) or "." if path.endswith(".xml") else path
    gone = no_folder(invocation, context, "mvn -pl", folder)
    if gone is not None:
        return gone
    project = path if path.endswith(".xml") else in_dir(path, _POM)
    if not is_file(context, project):
        return unknown(invocation, f"{folder}/ holds no {_POM}; a module may name its POM otherwise")
    return Evidence(project, None, "project")


def _artifact(invocation: Invocation, context: Context, name: str, pom: str) -> Evidence | AnchorResult:
    """The POM that declares artifactId `name`; INCONCLUSIVE `not-in-config` when none does (history decides)."""
    declaring, poms, open_ = context.memo(("anchorcheck_plugins.maven.artifacts",), lambda: _artifacts(context))
    if name in declaring:
        return Evidence(declaring[name], None, f"artifactId {name}")
    if open_:  # (an archetype's template POM, a computed name: any of them may be it)
        return unknown(invocation, f"no {_POM} declares the artifactId {name} as written, but {open_[0]}: it may be {name}")
    # The reactor is the checkout's POMs, a closed world: their history tells an artifactId renamed or dropped (stale)
    # from one never declared (another project's, a placeholder), as cargo's `-p NAME` is told.
    absent = refuted(invocation, f"no {_POM} of the repository declares the artifactId {name}", [Evidence(pom, None, "modules")])
    absent.details["defined_by"] = {"name": name, "configs": list(dict.fromkeys([pom, *poms])), "paths": []}
    return absent


def _artifacts(context: Context) -> tuple[dict[str, str], list[str], list[str]]:
    """Each literal artifactId the checkout's POMs declare, with the first POM (in path order) that does; the POMs
    read; and why a name none declares may still be one (a computed artifactId, more POMs than are read). Read once
    for every `-pl :x` of a run (ozone's instruction file names one module on three lines), again after a POM changes."""
    found = sorted(context.repo.files(named=[_POM]))
    poms, open_ = found[:MAX_POMS], [] if len(found) <= MAX_POMS else [f"{len(found)} POMs, past the {MAX_POMS} read"]
    declaring: dict[str, str] = {}
    for path in poms:
        try:
            declared = own_artifact(read_text(context, path))
        except ConfigError:
            declared = None
        if declared is None or "${" in declared:
            open_.append(f"{path} declares no literal artifactId")
        else:
            declaring.setdefault(declared, path)
    return declaring, poms, open_


def own_artifact(text: str) -> str | None:
    """The artifactId a POM gives its project: the `<artifactId>` child of `<project>` itself, not its parent's, a
    dependency's or a plugin's (one pass over the tags, comments left out). None when there is none, or the
    elements nest past MAX_DEPTH."""
    open_: list[str] = []
    plain = _uncommented(text)
    for match in _TAG.finditer(plain):
        closing, tag, empty = match.groups()
        if closing:
            if open_ and open_[-1] == tag:
                open_.pop()
        elif not empty:
            if tag == "artifactId" and open_ == ["project"]:
                end = plain.find("<", match.end())
                return plain[match.end() : end if end != -1 else len(plain)].strip()
            open_.append(tag)
            if len(open_) > MAX_DEPTH:
                return None
    return None


def _uncommented(text: str) -> str:
    """The text without its `<!-- -->` comments (an unclosed one runs to the end), in one pass."""
    parts, at = [], 0
    while (start := text.find("<!--", at)) != -1:
        parts.append(text[at:start])
        end = text.find("-->", start + 4)
        at = len(text) if end == -1 else end + 3
    parts.append(text[at:])
    return "".join(parts)


@hookimpl
def register_runners(register):  # noqa: ANN001, ANN201 - hook signature
    register(Runner(
        name="maven", programs=("mvn", "mvnw", "mvnd"), verify=verify_maven, reads=reads_maven, configs=(_POM,),
        summary="the POM where Maven runs and the projects -pl selects (profiles and plugin goals are the user's settings')",
    ))
