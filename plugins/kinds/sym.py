"""`sym:PATH::Qualified.Name` and `sym:py:package.module.Name` — the file defines that name.

Names are qualified with dots in every language (`RedisCache.get`,
`Type.Method` in Go, `S.method` for a Rust impl). The module form
(`PREFIX:package.module.Name`) belongs to the language that registers the
prefix (`py` for Python) and resolves through its source roots (Python: the
top level, `src/`, `lib/`, `python/`), plus the plugin setting
`source-roots`, so an src layout works unconfigured.

A member counts where the class gets it: its own definition, a base class,
trait or mixin that resolves to a file of the repository (followed through
the language's imports and module files: "inherited from Scaffold"), a class
of the language's standard library it knows, or, in a language where a
type's methods may be written in any file of its package (Go), a sibling
file. Absence is REFUTED only when that world is closed: a base that cannot
be followed, or members added by a loop, a computed key or an embedded type
(`Facts.open`), make it INCONCLUSIVE, naming the line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from anchorcheck import AnchorKind, AnchorResult, Evidence, Verdict, hookimpl
from anchorcheck.plugin import Anchor, AnchorSyntaxError, decode_path, Context, Facts, Goal, SourceIndex, Language

_PLUGIN = "sym"
_MODULE_FORM = re.compile(r"([a-z][a-z0-9]*):")
_MAX_DEPTH = 32  # bases and re-exports followed in a row: real hierarchies are far shallower
_MAX_DEFINERS = 64  # files that write a base no import leads to, past which which one defines it is not looked for


@dataclass(frozen=True)
class Symbol:
    """A parsed `sym:` value: either a file and a name in it, or a dotted module path of a language."""

    path: str | None
    name: str
    module_path: str | None = None
    prefix: str = ""


def parse_sym(value: str) -> Symbol:
    form = _MODULE_FORM.match(value)
    if form is not None and "::" not in value:
        dotted = value[form.end() :]
        parts = dotted.split(".")
        if len(parts) < 2 or not all(p.isidentifier() for p in parts):
            raise AnchorSyntaxError(f"expected {form.group(1)}:package.module.Name", column=form.end() + 1)
        return Symbol(None, "", dotted, form.group(1))
    path, sep, name = value.partition("::")
    if not sep or not path:
        raise AnchorSyntaxError("expected PATH::Qualified.Name or py:package.module.Name", column=1)
    if not name or any(not part for part in name.split(".")):
        raise AnchorSyntaxError("expected a qualified name after '::'", column=len(path) + 3)
    return Symbol(decode_path(path), name)

_LISTED = Goal(lambda path, facts: False, files=0)  # met before any file is parsed: the candidates, listed


def verify_sym(anchor: Anchor, context: Context) -> AnchorResult:
    symbol: Symbol = anchor.detail or parse_sym(anchor.value)
    shown = str(anchor)
    if symbol.module_path is not None:
        language = next((lang for lang in context.registry.languages.values() if lang.module_prefix == symbol.prefix), None)
        if language is None or language.module_files is None:
            return AnchorResult(shown, Verdict.INCONCLUSIVE, f"no language plugin reads the module form '{symbol.prefix}:'", state="unsupported")
        resolved = _resolve_module(language, symbol.module_path, context)
        if resolved is None:
            top = symbol.module_path.split(".")[0]
            if _first_party(language, top, context):
                return AnchorResult(shown, Verdict.REFUTED, f"no module of {symbol.module_path} exists under the source roots", state="missing")
            return AnchorResult(shown, Verdict.INCONCLUSIVE, f"{top} is not a first-party package under the source roots", state="not-first-party")
        path, name = resolved
    else:
        path, name = symbol.path, symbol.name
    assert path is not None
    if not context.repo.is_file(path):
        elsewhere = context.repo.not_checked_out(path)
        if elsewhere is not None:
            return AnchorResult(shown, Verdict.INCONCLUSIVE, f"{path} is {elsewhere}", state="not-checked-out")
        # the path is asked of history, as a `file:` anchor's is: moved → the move, and a fix for the anchor
        return AnchorResult(shown, Verdict.REFUTED, f"{path} does not exist", state="missing", details={"missing_path": path})
    index = SourceIndex.of(context)
    if index.language(path) is None:
        return AnchorResult(shown, Verdict.INCONCLUSIVE, f"no language plugin parses {path}", state="unsupported")
    try:
        # A file just edited: its definitions alone (a parse and a walk) answer a name defined there.
        line = _first(index.definitions(path) or [], name)
        facts = index.facts(path) if line is None else None
    except OSError as exc:
        return AnchorResult(shown, Verdict.INCONCLUSIVE, f"cannot read {path}: {exc}", state="unreadable")
    search = _Search(context, index, reexports=symbol.module_path is not None)
    found = [Evidence(path, line, f"defines {name}")] if line is not None else search.find(path, name)
    if found:
        first, rest = found[0], found[1:]
        reason = f"{first.location()} {first.detail}" + "".join(f", {e.detail} at {e.location()}" for e in rest)
        return AnchorResult(shown, Verdict.VERIFIED, reason, found, state="defined")
    assert facts is not None
    if facts.error is not None and not _surely_absent(facts, name, index.read(path), index):
        return AnchorResult(shown, Verdict.INCONCLUSIVE, f"{name} not found, but {path} does not parse cleanly (line {facts.error})", state="unparsed")
    if search.unsure:
        return AnchorResult(shown, Verdict.INCONCLUSIVE, f"{path} does not define {name}, but {search.unsure[0]}", state="unfollowed")
    last = name.rsplit(".", 1)[-1]
    similar = [f"{q} (line {n})" for q, n in facts.defs if q.rsplit(".", 1)[-1] == last][:3]
    reason = f"{path} does not define {name}"
    if similar:
        reason += f"; it defines {', '.join(similar)}"
    return AnchorResult(shown, Verdict.REFUTED, reason, state="undefined")


def _surely_absent(facts: Facts, name: str, data: bytes, index: SourceIndex) -> bool:
    """Whether a file that does not parse cleanly still cannot define `name`: it never writes the name's last part
    as a word (so no definition hides behind the parse error; text that is not ASCII-compatible is not read so), and the name is top-level, or a member of a class
    the file defines that inherits nothing, or whose bases (some maybe hidden by the error) no source file
    could give it: none writes that word."""
    owner, _, last = name.rpartition(".")
    word = last.encode()
    whole = re.compile(rb"(?<![\w$])" + re.escape(word) + rb"(?![\w$])")
    if b"\0" in data or whole.search(data):  # (a NUL: text in another encoding, UTF-16, whose words are not these bytes)
        return False
    if not owner:
        return True
    if _defined(facts, owner) is None:
        return False
    inherits = any(c == owner for c, _, _ in facts.bases) or any(o == owner for o, _, _ in facts.open)
    return not inherits or not any(_may_write(index, p, whole) for p in index.search(None, lambda language: [word], goal=_LISTED).candidates)


def _may_write(index: SourceIndex, path: str, whole: re.Pattern[bytes]) -> bool:
    try:
        return whole.search(index.read(path)) is not None
    except OSError:  # unreadable: it may
        return True


def _exported_binding(facts: Facts, name: str) -> bool:
    """Whether a member's owner is a name the file both defines and binds from a module: an export of
    an imported name (JS `import { Hono } from "./hono"; export { Hono }`, `export { C } from "./c"`)
    has the members of what it names, which the path form follows as the module form does."""
    head, dot, _ = name.partition(".")
    return bool(dot) and _defined(facts, head) is not None and any(local == head and module for local, module, _, _ in facts.bound)


def _defined(facts: Facts, name: str) -> int | None:
    return _first(facts.defs, name)


def _first(defs: list[tuple[str, int]], name: str) -> int | None:
    return next((line for qualified, line in defs if qualified == name), None)


class _Search:
    """Where a file's name is defined: in the file, inherited, in its package, or re-exported.

    Each (file, name) is looked at once: imports and bases may be circular.
    `unsure` collects why absence cannot be proved (a base that cannot be
    followed, members added at run time), each naming a line.
    """

    def __init__(self, context: Context, index: SourceIndex, reexports: bool) -> None:
        self.context = context
        self.index = index
        self.reexports = reexports
        self.seen: set[tuple[str, str]] = set()
        self.unsure: list[str] = []

    def _parsed(self, path: str) -> tuple[Language, Facts] | None:
        language = self.index.language(path)
        if language is None:
            return None
        try:
            facts = self.index.facts(path)
        except OSError:
            self.unsure.append(f"cannot read {path}")
            return None
        return (language, facts) if facts is not None else None

    def find(self, path: str, name: str, depth: int = 0) -> list[Evidence] | None:
        if (path, name) in self.seen or depth > _MAX_DEPTH:
            return None
        self.seen.add((path, name))
        self.context.check_deadline()
        parsed = self._parsed(path)
        if parsed is None:
            return None
        language, facts = parsed
        line = _defined(facts, name)
        if line is not None:
            return [Evidence(path, line, f"defines {name}")]
        head = name.partition(".")[0]
        for owner, at, why in facts.open:
            # What opens the whole file (a module __getattr__) cannot add members to a class it defines.
            if (not owner and _defined(facts, head) is None) or name.startswith(f"{owner}."):
                self.unsure.append(f"{path}:{at} {why}")
        return (
            self._inherited(path, name, language, facts, depth)
            or self._in_package(path, name, language, facts)
            or (self._reexported(path, name, language, facts, depth) if self.reexports or _exported_binding(facts, name) else None)
        )

    def _inherited(self, path: str, name: str, language: Language, facts: Facts, depth: int) -> list[Evidence] | None:
        """The member through the class's bases, nearest first, as the language looks members up."""
        owner, _, member = name.rpartition(".")
        if not owner or (language.inheritable is not None and not language.inheritable(member)):
            return None
        for cls, base, line in facts.bases:
            if cls != owner:
                continue
            target = self._resolve(path, _lexical(facts, owner, base), line, language, facts, depth)
            if target is None:
                continue
            file, qualified, module = target
            via = Evidence(path, line, f"inherited from {base}")
            if file is None:  # a class of the language's own library that it knows the members of
                if member in (language.external_members(module, qualified) or ()) if language.external_members else False:
                    return [Evidence(path, line, f"{owner} inherits {member} from {'.'.join(p for p in (module, qualified) if p)}")]
                continue
            found = self.find(file, f"{qualified}.{member}", depth + 1)
            if found:
                return [*found, via]
        return None

    def _resolve(
        self, path: str, base: str, line: int, language: Language, facts: Facts, depth: int, at: str = ""
    ) -> tuple[str | None, str, str] | None:
        """(file, qualified name there, "") of a base as written in `path`, or (None, name, module) for a
        class outside the repository that the language knows; None, with the reason noted, otherwise.
        A name the module it comes from only imports or aliases in turn is followed there; `at` is
        where the class names it, which a reason cites (`line` is of that file)."""
        at = at or f"{path}:{line}"
        if _defined(facts, base) is not None:
            return path, base, ""
        if depth > _MAX_DEPTH:
            self.unsure.append(f"{at} inherits from {base} through more than {_MAX_DEPTH} imports")
            return None
        head, _, rest = base.partition(".")
        for local, module, imported, _ in facts.bound:
            if local != head:
                continue
            if not module:  # another name of this file (`module.exports = Foo`)
                return self._resolve(path, ".".join(p for p in (imported, rest) if p), line, language, facts, depth + 1, at)
            target = self._in_module(path, at, base, module, imported, rest, language)
            if target is None or target[0] is None or self._defines(target[0], target[1]):
                return target
            parsed = self._parsed(target[0])
            if parsed is None:
                return None
            return self._resolve(target[0], target[1], line, parsed[0], parsed[1], depth + 1, at)
        for local, module, _, _ in facts.bound:
            if local != "*":
                continue
            # The name is in the module (Python), or is a module of the package (Java's `import a.b.*`).
            for file in (*_module_files(language, module, path, self.context), *_module_files(language, _submodule(module, head), path, self.context)):
                if self._defines(file, head):
                    return file, base, ""
        for other in language.package_files(path, self.context.repo) if language.package_files else ():
            if self._defines(other, head):
                return other, base, ""
        if language.external_members is not None and language.external_members("", base) is not None:
            return None, base, ""
        only = self._sole_definer(base, language)
        if only is not None:
            return only, base, ""
        self.unsure.append(f"{at} inherits from {base}, which cannot be followed to its definition")
        return None

    def _sole_definer(self, base: str, language: Language) -> str | None:
        """The one source file of the language that defines a type named `base` at its top level, when a base
        no import leads to (C#'s `using` of a namespace, Ruby's autoloaded `include Concern`) is this
        repository's own; None when no file, or more than one, defines it (an outside base, or not one to
        pick): then whether it gives the member stays in doubt."""
        if "." in base:
            return None
        word = re.compile(rb"(?<![\w$])" + re.escape(base.encode()) + rb"(?![\w$])")
        candidates = self.index.search(None, lambda _: [base.encode()], goal=_LISTED).candidates
        if len(candidates) > _MAX_DEFINERS:  # a word too many files write to parse them all: not looked at
            return None
        found: list[str] = []
        for path in candidates:
            self.context.check_deadline()
            if getattr(self.index.language(path), "name", None) == language.name and _may_write(self.index, path, word) and self._defines(path, base):
                found.append(path)
        return found[0] if len(found) == 1 else None

    def _in_module(
        self, path: str, at: str, base: str, module: str, imported: str, rest: str, language: Language, quiet: bool = False
    ) -> tuple[str | None, str, str] | None:
        qualified = ".".join(p for p in (imported, rest) if p) or "default"
        files = _module_files(language, module, path, self.context)
        if files and imported and rest and not self._defines(files[0], imported):
            sub = _module_files(language, _submodule(module, imported), path, self.context)  # `from pkg import sub`; `sub.Base`
            if sub:
                return sub[0], rest, ""
        if files:
            return files[0], qualified, ""
        if language.external_members is not None and language.external_members(module, qualified) is not None:
            return None, qualified, module
        if not quiet:
            shown = _absolute(language, module, path, self.context)
            self.unsure.append(f"{at} inherits from {base}, from {shown}, which has no source here")
        return None

    def _defines(self, path: str, name: str) -> bool:
        parsed = self._parsed(path)
        return parsed is not None and _defined(parsed[1], name) is not None

    def _in_package(self, path: str, name: str, language: Language, facts: Facts) -> list[Evidence] | None:
        """A member of a type of this file, written in another file of its package (a Go method in a sibling file)."""
        owner = name.rpartition(".")[0]
        if not owner or language.package_files is None or _defined(facts, owner) is None:
            return None
        for other in language.package_files(path, self.context.repo):
            parsed = self._parsed(other)
            line = _defined(parsed[1], name) if parsed is not None else None
            if line is not None:
                return [Evidence(other, line, f"defines {name} (of {owner} in {path}, same package)")]
        return None

    def _reexported(self, path: str, name: str, language: Language, facts: Facts, depth: int) -> list[Evidence] | None:
        """Evidence that a module binds `name` by a module-level import (`from m import n [as name]`
        or `from m import *`), as a package's `__init__.py` re-exports its API: the definition it
        leads to, then each re-export on the way. An explicit import of code with no source here
        binds the name too (a compiled extension); a star import of such code makes absence unprovable."""
        head, _, rest = name.partition(".")
        for local, module, imported, line in facts.bound:
            if local not in (head, "*") or not module:
                continue
            files = _module_files(language, module, path, self.context)
            wanted = name if local == "*" else ".".join(p for p in (imported, rest) if p)
            if not files:
                shown = _absolute(language, module, path, self.context)
                if local != "*" and not rest:
                    return [Evidence(path, line, f"imports {head} from {shown} (not followed: no source for it here)")]
                self.unsure.append(f"{path}:{line} imports {'*' if local == '*' else head} from {shown}, which has no source here")
                continue
            found = self.find(files[0], wanted, depth + 1)
            if found is None and local != "*" and rest:
                sub = _module_files(language, _submodule(module, imported), path, self.context)
                found = self.find(sub[0], rest, depth + 1) if sub else None
            if found:
                return [*found, Evidence(path, line, f"re-exported as {head}")]
        return None


def _lexical(facts: Facts, owner: str, base: str) -> str:
    """The class a base names from inside `owner`'s scope: `Base` written in `Outer.A` is
    `Outer.Base` when the file defines that, as nested scopes resolve names."""
    scope = owner.split(".")[:-1]
    while scope:
        nested = ".".join([*scope, base])
        if _defined(facts, nested) is not None:
            return nested
        scope.pop()
    return base


def _absolute(language: Language, module: str, path: str, context: Context) -> str:
    """A relative module as the absolute name it stands for, where the language resolves it."""
    if language.resolve_import is None:
        return module
    return language.resolve_import(module, path, context.repo) or module


def _submodule(module: str, name: str) -> str:
    """`pkg` + `sub` → `pkg.sub`; a relative `.` + `sub` → `.sub`."""
    return f"{module}{'' if module.endswith('.') else '.'}{name}"


def _roots(language: Language, context: Context) -> tuple[str, ...]:
    configured = context.settings(_PLUGIN).get("source-roots", [])
    roots = ["", *(f"{r}/" for r in language.source_roots)]
    roots += [f"{str(r).strip('/')}/" for r in configured if isinstance(r, str) and str(r).strip("/")]
    return tuple(dict.fromkeys(roots))


def _module_files(language: Language, module: str, path: str, context: Context) -> tuple[str, ...]:
    if language.module_files is None:
        return ()
    return language.module_files(module, path, context.repo, _roots(language, context))


def _first_party(language: Language, top: str, context: Context) -> bool:
    """Whether the top-level package of a dotted name lives under one of the source roots."""
    return any(context.repo.exists(f"{root}{top}") for root in _roots(language, context)) or bool(
        _module_files(language, top, "", context)
    )


def _resolve_module(language: Language, dotted: str, context: Context) -> tuple[str, str] | None:
    """The longest module prefix that is a file under a source root, and the name left in it."""
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        files = _module_files(language, ".".join(parts[:cut]), "", context)
        if files:
            return files[0], ".".join(parts[cut:])
    return None


@hookimpl
def register_anchor_kinds(register):  # noqa: ANN001, ANN201 - hook signature
    register(
        AnchorKind(
            prefix="sym",
            verify=verify_sym,
            parse=parse_sym,
            summary="the file defines that qualified name (classes, functions, methods, fields, inherited members)",
            example="sym:src/cache.py::RedisCache.get",
        )
    )
