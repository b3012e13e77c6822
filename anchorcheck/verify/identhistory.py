"""When a function, class or variable that nothing defines now was defined here: the commit that removed it.

A memory that says "call `parse_config()`" after the helper was renamed to
`load_config` names something no file defines; so does one that names a
function of another project, or an example. Only history tells them apart,
and only on evidence: the name must have been *defined* (a definition in the
facts a language plugin extracts, or a read of the environment), not merely
written somewhere, at the revision before the commit that removed it.

For all the names of a run that nothing defines now, one bounded walk finds
where they might have gone: `git log -G` with one alternation of the names
(`-G` takes a regex, so one walk answers every name; `-S` takes one string),
over windows of older and older commits (the last 250, then to 1,000, to 3,000,
while names are unanswered: a bound in commits, so the same checkout gets the
same answer on an idle or a loaded machine; the run's deadline stays the outer
bound), limited to the files the
registered languages parse, showing only the changed lines of the files that
matched. For each name, the newest commits whose removed lines write it
are candidates; each is confirmed by extracting the facts of that file at the
commit's parent (`git cat-file`, parsed by the language plugin, never
executed): defined there and nowhere now is gone. When the same commit adds
exactly one new definition in the same file, in the same class, that is its
new name. A name the walk never saw removed from a definition is not read at
all (silence): an example, another project's name, or older than the walk.
Answers are kept in the facts cache with the HEAD they were worked out at; a
later run at a descendant HEAD walks only the commits since.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

from anchorcheck.base.lazyregex import later
from anchorcheck.evidence.cache import open_cache
from anchorcheck.evidence.extraction import extract_or_broken
from anchorcheck.evidence.facts import Facts
from anchorcheck.evidence.history import Change, at_head
from anchorcheck.repo.context import BudgetExceeded, Context

# The walk reads windows of older and older commits (ending this many commits back), while names are unanswered.
# The bound is in commits, not seconds: a wall-time cut made the same check REFUTED on an idle machine and silent
# under load. -G diffs every changed source file of every commit: 2,000 commits of uv took 11 s and of
# sentry-javascript 5.5 s at a load of 20 (docs/benchmarks.md), so 3,000 stays within a run's time on repositories
# of that size; only the run's deadline (and any git run's timeout) cuts it earlier.
WINDOWS = (250, 1_000, 3_000)
MAX_NAMES = 200  # names one walk asks about; past it, the rest are not read
MAX_CANDIDATES = 12  # files (of the newest commits first) per name whose parent's facts are read: a rename
# across a package changes every file that uses the name, and the one that defined it may be any of them
MAX_CONFIRMS = 60  # files whose parent's facts are read per run; past them, names are not shown gone (silence)
MIN_SECONDS = 3.0  # left of the deadline below which no walk starts
_BLOBS_AT_ONCE = 2_000  # blob ids one `rev-list` is given (a command line stays far below the system's limit)
_CACHE_KEY = "ident-history-v3"  # v3: a removal's parent names the definition of exactly the name before a member sharing it
_FORMAT = "%x01%h%x00%cs%x00%s"
_WORD = later(r"[A-Za-z_][A-Za-z0-9_]*")


class Gone(NamedTuple):
    """A name defined at the parent of `change` in `path` (as `qualified`, at `line`) and by no file now;
    `to` is the one definition the same commit added beside it (a rename), when it is defined now."""

    name: str
    path: str
    qualified: str
    line: int
    change: Change
    to: str | None = None
    env: bool = False  # a read of the environment, not a definition

    def describe(self) -> str:
        what = "read" if self.env else "defined"
        said = f"`{self.name}` was {what} in {self.path}:{self.line} until {self.change}"
        return f"{said}; now `{self.to}`" if self.to else f"{said}, which removed it"

    def to_dict(self) -> dict[str, Any]:
        return {**self._asdict(), "change": list(self.change)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Gone:
        return cls(**{**data, "change": Change(*map(str, data["change"]))})


def defines(facts: Facts, name: str, env: bool) -> list[tuple[str, int, bool]]:
    """The (qualified name, line) of each definition of `name` in a file's facts: the name itself or a member
    of that name (`Config.parse_config` for `parse_config`); with `env`, each read of the variable too (marked).
    The name itself comes first, then members in the order declared: a bare name is the definition of exactly
    that name where there is one (rustfs's `enum AdminAction`, declared after `enum Action { AdminAction(..) }`,
    is what "`AdminAction`" names; the variant only shares it), and a member only where nothing else is."""
    found = sorted(((q, line, False) for q, line in facts.defs if q == name or q.endswith("." + name)), key=lambda d: d[0] != name)
    return found + [(key, line, True) for key, line in facts.env if key == name] if env else found


class IdentHistory:
    """The fates of the names of one run that nothing defines now, at one HEAD: `fates(names)` walks once."""

    def __init__(self, context: Context) -> None:
        self.context = context  # the deadline is the one of the context `fates` is given
        self.repo = context.repo
        self.defined_now: Callable[[str], bool] = lambda name: False  # whether a rename's target is defined now
        self.cache = open_cache(context.options, self.repo.root, context.time_left)
        self.known: dict[str, Gone | None] = {}  # at `head`
        self.head: str | None = None
        self.confirms = 0
        self.walks = 0
        self.beside: dict[tuple[str, str, int, str], str | None] = {}  # used_beside's answers

    def fates(
        self, names: Iterable[str], env: Callable[[str], bool], context: Context, defined_now: Callable[[str], bool]
    ) -> dict[str, Gone | None]:
        """For each name: how it went (Gone), or None when history shows no definition of it removed (or there
        is no history, or the name is past MAX_NAMES). `names` come in the order their look is worth: the
        first MAX_NAMES are walked, and confirmed (within MAX_CONFIRMS) in that order. A name left out was not looked up in time (the deadline
        is `context`'s: a Verifier may have made a new one since this history was).

        The cache keeps each name's answer with the HEAD it was worked out at: at that HEAD it is the answer;
        at a later HEAD only the commits since are walked (a hook's next commit costs a walk of one commit)."""
        with at_head(self.repo) as head:  # git runs below read HEAD's history alone: a report stays replayable
            return self._fates(head, names, env, context, defined_now)

    def _fates(
        self, head: str | None, names: Iterable[str], env: Callable[[str], bool], context: Context, defined_now: Callable[[str], bool]
    ) -> dict[str, Gone | None]:
        self.context, self.defined_now = context, defined_now
        names = list(dict.fromkeys(names))
        if head is None:
            return dict.fromkeys(names)  # no history: nothing is known to be gone
        if head != self.head:
            self.known, self.head = {}, head
        asked, names = names, [n for n in names if n not in self.known]
        clone = "shallow" if self.repo.shallow else "full"
        keys = {n: f"{_CACHE_KEY}:{clone}:{n}" for n in names}
        rows = self.cache.get_many(keys.values()) if self.cache is not None else {}
        since: dict[str, list[str]] = {}  # an earlier HEAD -> the names answered there
        for name in names:
            row = rows.get(keys[name])
            if row is not None and row["head"] == head:
                self.known[name] = Gone.from_dict(row["gone"]) if row["gone"] else None
            elif row is not None and self._ancestor(row["head"], head):
                since.setdefault(row["head"], []).append(name)
        todo = [n for n in names if n not in self.known and not any(n in group for group in since.values())]
        for name in todo[MAX_NAMES:]:  # a table of names: the rest are not read
            self.known[name] = None
        walks = [(base, group, {n: rows[keys[n]]["gone"] for n in group}) for base, group in since.items()]
        walks.append((None, todo[:MAX_NAMES], {}))
        for base, group, before in walks:
            if not group or not self._time():
                continue
            found = self._walk(head, group, env, base)
            if found is None:  # git failed: no history to show them gone
                self.known.update(dict.fromkeys(group))
                continue
            for name, fate in found.items():
                if fate is None and before.get(name):
                    fate = Gone.from_dict(before[name])  # removed before the earlier HEAD, not defined since
                self.known[name] = fate
                if self.cache is not None:
                    self.cache.put(keys[name], {"head": head, "gone": fate.to_dict() if fate else None})
        if self.cache is not None:
            self.cache.flush()
        return {n: self.known[n] for n in asked if n in self.known}

    def _walk(self, head: str, names: list[str], env: Callable[[str], bool], base: str | None = None) -> dict[str, Gone | None] | None:
        """`git log -G` over windows of older and older commits (WINDOWS), or only the commits since `base`, each
        window followed by its confirmations, until every name is answered, or the windows (or the deadline) are
        spent; None when git failed. A name the deadline stopped before it was answered is left out."""
        words = sorted({n.rsplit(".", 1)[-1] for n in names})
        sources = self._sources()
        answers: dict[str, Gone | None] = {}
        tried: dict[str, int] = {}
        top = head
        for depth in WINDOWS if base is None else (0,):
            if len(answers) == len(names) or not self._time():
                break
            self.walks += 1
            cut = base or (self.repo.git("rev-list", "--max-count=1", f"--skip={depth}", operands=[head]) or "").strip()
            out = self._log(words, [top, f"^{cut}"] if cut else [top], sources)
            if out is None:
                if top == head:
                    return None
                break
            candidates = _removals(out, [n for n in names if n not in answers])
            for name, found in candidates.items():
                try:
                    fate = self._confirm(name, found, max(0, MAX_CANDIDATES - tried.get(name, 0)), env(name))
                except _OutOfTime:
                    return answers  # the rest are not looked at: nothing is concluded of them
                tried[name] = tried.get(name, 0) + len(found)
                if fate is not None or tried[name] >= MAX_CANDIDATES:
                    answers[name] = fate
            if not cut:
                break  # the whole history was walked
            top = cut
        if self._time():  # walked as deep as the budget goes: what it did not show gone is not read
            answers.update((n, None) for n in names if n not in answers)
        return answers

    def used_beside(self, gone: Gone) -> str | None:
        """A line (`path:line` at the commit's parent) whose writing of the name the commit that removed the definition
        took away too, away from the definition (another file, or another hunk of its file: a comment above it goes
        with it and is no use): the code used the name and stopped with it, so no base class supplies it in its
        stead (an override removed alone leaves the base's member to its callers, who keep writing it). None when
        the definition went alone, or git failed. Its source files only, as the walk."""
        key = (gone.change.commit, gone.path, gone.line, gone.name)
        if key not in self.beside:  # a name written in several places is asked once
            self.beside[key] = self._used_beside(gone)
        return self.beside[key]

    def _used_beside(self, gone: Gone) -> str | None:
        word = gone.name.rsplit(".", 1)[-1]
        options = ("-1", "-p", "-U0", "--no-ext-diff", "--no-textconv", "--no-renames", "--no-color", "--format=")
        out = self.repo.git("log", *options, operands=[gone.change.commit], paths=self._sources()) or ""
        uses = [removed for removed in _removed_lines(out) if word in _WORD.findall(removed.text)]
        own = next((use.hunk for use in uses if (use.path, use.line) == (gone.path, gone.line)), None)
        return next((f"{use.path}:{use.line}" for use in uses if use.hunk != own), None)

    def _sources(self) -> list[str]:
        """Pathspecs of the files the registered languages parse."""
        return sorted({f"*{e}" for language in self.context.registry.languages.values() for e in language.extensions})

    def _log(self, words: list[str], revisions: list[str], sources: list[str]) -> str | None:
        """`git log -G` of the changed lines of `sources` in `revisions`; None when git failed.

        -G reads both sides of every changed file, so one unreadable blob fails the whole window: a partial
        clone made with `--filter=blob:limit=...` (or a mirror that leaves its largest files out) lacks the
        large ones, a vendored minified bundle most often. Then the window is walked again without the paths
        whose blobs are missing (as git lists them: no blob is read to find them), rather than not at all."""
        options = ("-p", "-U0", "--no-ext-diff", "--no-textconv", "--no-renames", "--no-color", "-E", f"-G({'|'.join(words)})", f"--format={_FORMAT}")

        def run(paths: list[str]) -> str | None:
            return self.repo.git("log", *options, operands=revisions, paths=paths)

        out = run(sources)
        if out is not None:
            return out
        missing = self._unreadable(revisions, sources)
        return run([*sources, *(f":(exclude,literal){path}" for path in missing)]) if missing else None

    def _unreadable(self, revisions: list[str], sources: list[str]) -> list[str]:
        """The paths of `sources` changed in `revisions` with a blob (either side) this repository does not hold:
        git lists the changes' blob ids (`--raw`, no blob read), and `rev-list --ignore-missing` echoes the ones
        it holds."""
        raw = self.repo.git("log", "--raw", "--no-abbrev", "--no-renames", "--format=", operands=revisions, paths=sources) or ""
        paths: dict[str, set[str]] = {}  # blob id -> the paths it was at
        for line in raw.splitlines():
            fields, _, path = line.partition("\t")
            if line.startswith(":") and path:
                for blob in fields.split()[2:4]:
                    if blob.strip("0"):
                        paths.setdefault(blob, set()).add(path)
        blobs = sorted(paths)
        held: set[str] = set()
        for at in range(0, len(blobs), _BLOBS_AT_ONCE):
            out = self.repo.git("rev-list", "--objects", "--no-walk", "--ignore-missing", operands=blobs[at : at + _BLOBS_AT_ONCE])
            if out is None:
                return []
            held.update(line.split(" ", 1)[0] for line in out.splitlines())
        return sorted({path for blob in blobs if blob not in held for path in paths[blob]})

    def _ancestor(self, old: str, head: str) -> bool:
        """Whether `old` is a commit HEAD descends from (git exits 0): then only the commits since are new."""
        return old != head and self.repo.git("merge-base", "--is-ancestor", operands=[old, head]) is not None

    def _confirm(self, name: str, candidates: list[tuple[Change, str]], budget: int, env: bool) -> Gone | None:
        """The newest candidate whose file defined the name at the commit's parent, reading `budget` files at most.

        A candidate that did not define it but imported it (`import { helper } from "./utils"`) says where it
        was defined: the file its module resolves to, when the same commit removed the name there too, is read
        next. A helper renamed across sixty test files is written most in the tests that call it, not in the
        file that defines it; the importers point at that file."""
        queue = list(candidates)
        while queue and budget > 0:
            change, path = queue.pop(0)
            budget -= 1
            if not self._time():
                raise _OutOfTime
            if self.confirms >= MAX_CONFIRMS:
                return None  # the run's confirmations are spent: not shown gone, so not read
            self.confirms += 1
            before = self._facts(f"{change.commit}^", path)
            found = defines(before, name, env) if before is not None else []
            if found:
                qualified, line, read = found[0]
                new = self._renamed(qualified, read, before, change.commit, path)
                to = new.rsplit(".", 1)[-1] if new is not None and "." not in name else new
                return Gone(name, path, qualified, line, change, to if to is not None and self.defined_now(to) else None, read)
            if before is not None:
                named = set(self._imported_from(before, name, path))
                queue.sort(key=lambda pair: not (pair[0] == change and pair[1] in named))  # stable: else in order
        return None

    def _imported_from(self, facts: Facts, name: str, path: str) -> list[str]:
        """The files the modules `path` binds `name` from may be (its language resolves the module as written)."""
        language = self.context.registry.language_for(path)
        if language is None or language.module_files is None:
            return []
        roots = ("", *(f"{root}/" for root in language.source_roots))
        modules = [module for local, module, imported, _ in facts.bound if module and name in (local, imported)]
        return [file for module in modules for file in language.module_files(module, path, self.repo, roots)]

    def _renamed(self, qualified: str, read: bool, before: Facts, commit: str, path: str) -> str | None:
        """The one definition (or variable read) `commit` added to `path` beside `qualified` (in the same
        class)."""
        after = self._facts(commit, path)
        if after is None:
            return None
        if read:
            added = {k for k, _ in after.env} - {k for k, _ in before.env}
        else:
            owner = qualified.rpartition(".")[0]
            had = {q for q, _ in before.defs}
            added = {q for q, _ in after.defs if q not in had and q.rpartition(".")[0] == owner}
        if len(added) != 1:
            return None
        [new] = added
        return new

    def _facts(self, revision: str, path: str) -> Facts | None:
        """The facts of `path` at `revision` (None: no such file, or no language plugin parses it)."""
        language = self.context.registry.language_for(path)
        if language is None or language.extract is None:
            return None
        blob = self.repo.git("cat-file", operands=["blob", f"{revision}:{path}"])
        if blob is None:
            return None
        try:
            return extract_or_broken(language, blob.encode("utf-8", "surrogateescape"), self.context.deadline)
        except BudgetExceeded:
            raise _OutOfTime from None

    def _time(self) -> bool:
        left = self.context.time_left()
        return left is None or left > MIN_SECONDS


class _OutOfTime(Exception):
    """The deadline stopped the look at one name."""


_DECLARED = 1_000  # what a removed line that may declare the name weighs against one that only uses it
# words after which a name is an expression's, not a declaration's (`assert helper(x)`, `return helper(x)`,
# `case OpStatus::OK:`, a label or a match pattern)
_EXPRESSION_WORDS = "(?:assert|await|return|yield|raise|throw|new|not|and|or|in|is|if|elif|else|print|echo|puts|expect|case)"


@functools.lru_cache(maxsize=1024)
def _declared(word: str) -> re.Pattern[str]:
    """The name written after another word and a space (`def name`, `pub fn name`, `class Name <`, `func (r) Name`
    is not, `x.name(` is not): how most languages declare; a call writes it after a dot, a bracket or an operator.
    Followed by `::` it is the scope of another name (`void Conn::Send()`, `class Foo::Bar`), not declared there.
    Only an order of the files to read: the definition is still found in the parsed facts of the revision. (A C++
    enum named in 70 files' `case OpStatus::OK:` lines ranked its own header 14th, past MAX_CANDIDATES.)"""
    return re.compile(rf"(?<![\w.])(?!{_EXPRESSION_WORDS}[ \t])[A-Za-z_]\w*[ \t]+{re.escape(word)}(?!\w|::)")


def _removals(out: str, names: list[str]) -> dict[str, list[tuple[Change, str]]]:
    """For each name, the (commit, file) pairs of `git log -p -U0` output whose removed lines write it as a
    word: newest commit first, and in a commit the file whose removed lines may declare it first (`_declared`),
    then the file that wrote it most (the file that defines a name renamed across a package is most often the
    one that names it most, but a helper's callers can outnumber it: held-out-8's defining file was 18th of 18,
    past MAX_CANDIDATES). The names come in the order
    their confirmation is worth, the run's MAX_CONFIRMS being spent in it: the newest removal first (the
    commit a hook checks, a rename the text has not caught up with yet), then as `names` ranks them."""
    by_word: dict[str, list[str]] = {}
    for name in names:
        by_word.setdefault(name.rsplit(".", 1)[-1], []).append(name)
    counts: dict[str, dict[tuple[Change, str], int]] = {}
    order: dict[Change, int] = {}
    for removed in _removed_lines(out):
        change, path, line = removed.change, removed.path, removed.text
        if change is None:
            continue
        order.setdefault(change, len(order))
        for word in set(_WORD.findall(line)) & by_word.keys():
            weight = 1 + _DECLARED * bool(_declared(word).search(line))
            for name in by_word[word]:
                pairs = counts.setdefault(name, {})
                pairs[change, path] = pairs.get((change, path), 0) + weight
    found = {name: sorted(pairs, key=lambda pair: (order[pair[0]], -pairs[pair])) for name, pairs in counts.items()}
    rank = {name: at for at, name in enumerate(names)}
    return dict(sorted(found.items(), key=lambda item: (order[item[1][0][0]], rank[item[0]])))


class _Removed(NamedTuple):
    """A removed line of `git log -p -U0` output: its commit (None where the output has no commit lines), file,
    hunk (numbered through the output) and line number at the parent."""

    change: Change | None
    path: str
    hunk: int
    line: int
    text: str


def _removed_lines(out: str) -> Iterator[_Removed]:
    """Each removed line of `git log -p -U0` output, commits introduced by `_FORMAT`'s lines. A quoted path or a new
    file is read as having removed nothing; a removed line that starts with `-- ` is no file header (the headers
    are only between a `diff --git` line and its first hunk)."""
    change: Change | None = None
    path: str | None = None
    header = False
    hunk = at = 0
    for line in out.split("\n"):
        if line.startswith("\x01"):
            parts = line[1:].split("\0", 2)
            change, path = (Change(*parts) if len(parts) == 3 else None), None
        elif line.startswith("diff --git "):
            header, path = True, None
        elif header and not line.startswith("@@"):
            path = line[6:] if line.startswith("--- a/") else path
        elif line.startswith("@@"):  # `@@ -12,3 +12,0 @@`: the hunk's first removed line is line 12 of the parent
            header, hunk, at = False, hunk + 1, int(line.split()[1][1:].split(",")[0])
        elif line.startswith("-") and path is not None:
            yield _Removed(change, path, hunk, at, line)
            at += 1
