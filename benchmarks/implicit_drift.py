"""Drift mode of benchmarks/implicit.py: REFUTED precision at HEAD and recall of injected drifts, on real repositories.

For each repository of corpora/drift/repos.json (name, commit, set: dev =
repositories earlier rules were tuned on, held-out = ones nobody looked at when
they were added, held-out-2 = a fresh set of session 31, after earlier sessions
had looked at held-out, held-out-3 = a fresh set of session 32, after misses of
held-out-2 had been fixed, held-out-4 = a fresh set of session 33, after fixes
found on held-out-3, held-out-5 = a second fresh set of session 33, measured
on main before and after the session's merges and never tuned on, held-out-6 = a fresh set of session 34,
never tuned on; `--set NAME` measures one set alone) a
checkout is made in a temporary folder from its fetched mirror
(/work/.mirror/OWNER+NAME/repo, or $ANCHORCHECK_MIRRORS), then:

- precision at HEAD: `anchorcheck check --format json` on the repository's
  known memory files; every REFUTED is looked up in corpora/drift/labels.json,
  where a person labelled it `stale` (right) or `false`, with a reason
  category; unlabelled ones are listed for labelling;
- recall: the references the instruction files make that hold at HEAD
  (benchmarks/implicit_drift_refs.py, read without anchorcheck) are drifted one per
  trial, as a commit made by a fixed rule (a file or folder renamed or moved, a
  script/target/recipe/alias/task/feature renamed in its configuration, a
  dependency removed (one no other manifest names: the project stops depending on it), a function renamed in every source file), sampled with a
  fixed seed; a trial is caught when `check` then reports REFUTED on a line
  that writes the reference. A missed trial shows what `check` said instead.

Each `check` runs as its own process with --no-cache, so no state carries over
from one trial to the next.
"""

from __future__ import annotations

import json
import os
import posixpath
import random
import re
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from implicit_drift_refs import Reference, Tree, references, valid_after_edit

PROJECT = Path(__file__).resolve().parents[1]
CORPUS = PROJECT / "corpora" / "drift"
MIRRORS = Path(os.environ.get("ANCHORCHECK_MIRRORS", "/work/.mirror"))
TRIALS_PER_KIND = 4
GIT_ENV = {
    "GIT_AUTHOR_NAME": "drift", "GIT_AUTHOR_EMAIL": "drift@example.invalid", "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_NAME": "drift", "GIT_COMMITTER_EMAIL": "drift@example.invalid",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z", "GIT_CONFIG_NOSYSTEM": "1",
}
# The drift kinds each kind of reference gets, in the order they are reported.
DRIFTS = {
    "path-file": ("file renamed", "file moved"),
    "path-folder": ("folder renamed", "folder moved"),
    "gradle-project": ("project renamed",),
    "script": ("script renamed",),
    "target": ("target renamed",),
    "recipe": ("recipe renamed",),
    "hatch-script": ("hatch script renamed",),
    "cargo-alias": ("cargo alias renamed",),
    "task": ("task renamed",),
    "deno-task": ("deno task renamed",),
    "feature": ("feature renamed",),
    "dependency": ("dependency removed",),
    "function": ("function or class renamed",),
}


def git(root: Path, *args: str, data: bytes | None = None) -> str:
    """Run git in `root` with a fixed identity and dates; its stdout."""
    env = {**os.environ, **GIT_ENV}
    done = subprocess.run(["git", *args], cwd=root, input=data, capture_output=True, env=env)
    if done.returncode:  # git's own words, which a bare CalledProcessError leaves out
        raise RuntimeError(f"git {' '.join(args[:4])} failed in {root}: {done.stderr.decode('utf-8', 'replace').strip()[-400:]}")
    return done.stdout.decode("utf-8", "replace")


def checkout(source: Path, commit: str, root: Path) -> None:
    """Clone `source` at `commit` into `root` (full history: the drift is judged against it); blobs the mirror lacks become empty files, committed on top.

    A mirror may list its largest files without holding them; an empty file keeps the path,
    which is all a reference to it needs.
    """
    # Objects hard-linked (a local clone), not borrowed through alternates: anchorcheck runs no git on
    # another repository's objects, so a `--shared` clone would be refused.
    subprocess.run(["git", "clone", "-q", "--local", "--no-checkout", str(source), str(root)], check=True)
    git(root, "update-ref", "--no-deref", "HEAD", commit)
    git(root, "read-tree", commit)
    entries = [e for e in git(root, "ls-tree", "-r", "-z", "--full-tree", commit).split("\0") if e]
    blobs = {}
    for entry in entries:
        meta, path = entry.split("\t", 1)
        _, kind, sha = meta.split()
        if kind == "blob":
            blobs[path] = sha
    shas = "".join(f"{sha}\n" for sha in dict.fromkeys(blobs.values())).encode()
    missing = {line.split()[0] for line in git(root, "cat-file", "--batch-check", data=shas).splitlines() if line.endswith("missing")}
    present = [p for p, sha in blobs.items() if sha not in missing]
    git(root, "checkout-index", "-f", "-z", "--stdin", data="".join(f"{p}\0" for p in present).encode())
    absent = [p for p, sha in blobs.items() if sha in missing]
    for rel in absent:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(b"")
    if absent:
        git(root, "update-index", "-z", "--stdin", data="".join(f"{p}\0" for p in absent).encode())
        git(root, "commit", "-q", "--no-verify", "-m", f"drift benchmark: {len(absent)} blobs absent from the mirror, left empty")


def run_report(root: Path) -> dict:
    """The JSON report of `anchorcheck check --format json -v --no-cache` on the checkout's known memory files."""
    done = subprocess.run(
        [sys.executable, "-m", "anchorcheck", "check", "--no-cache", "--format", "json", "-v"],
        cwd=root, capture_output=True, text=True,
    )
    if done.returncode not in (0, 1):
        raise RuntimeError(f"check failed in {root}: {done.stderr.strip()[-400:]}")
    return json.loads(done.stdout)


def run_check(root: Path) -> list[dict]:
    """The results (one per anchor checked) of `check` on the checkout."""
    return run_report(root)["results"]


def finding_key(result: dict) -> str:
    """How labels.json names a REFUTED finding: file:line and the anchor checked."""
    return f"{result.get('memory_file')}:{result.get('line')} {result['anchor']}"


# --- drifts ------------------------------------------------------------------------------------------------

def renamed(name: str) -> str:
    """The new name a rename gives: in the name's own style."""
    if re.search(r"[a-z][A-Z]", name) or name[:1].isupper():
        return name + "Renamed"
    return name + ("_renamed" if "_" in name else "-renamed")


def _new_path(ref: Reference, drift: str) -> str:
    folder, base = posixpath.split(ref.name)
    if drift in ("file moved", "folder moved"):
        return posixpath.join("moved", ref.name)  # like src/ moving into packages/core/src/: the old path is a suffix of the new
    stem, dot, ext = base.partition(".") if drift == "file renamed" and not base.startswith(".") else (base, "", "")
    return posixpath.join(folder, renamed(stem) + dot + ext)


def _edit(root: Path, rel: str, change) -> bool:
    path = root / rel
    before = path.read_text("utf-8")
    after = change(before)
    if after == before or not valid_after_edit(rel, after):
        return False
    path.write_text(after, "utf-8")
    return True


def _rename_at_line(text: str, line: int, name: str, new: str | None = None) -> str:
    lines = text.splitlines(keepends=True)
    lines[line - 1] = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", new or renamed(name), lines[line - 1], count=1)
    return "".join(lines)


def _drop_line(text: str, line: int) -> str:
    """The text without that line; in JSON, the comma it leaves dangling before a closing brace goes too."""
    lines = text.splitlines(keepends=True)
    del lines[line - 1]
    after = lines[line - 1].strip() if line - 1 < len(lines) else ""
    if after.startswith(("}", "]")) and line >= 2 and lines[line - 2].rstrip().endswith(","):
        lines[line - 2] = re.sub(r",(\s*)$", r"\1", lines[line - 2])
    return "".join(lines)


def inject(root: Path, ref: Reference, drift: str) -> str | None:
    """Make the drift as a commit; the new name or path (None when the rule cannot apply here)."""
    if ref.kind.startswith("path"):
        target = _new_path(ref, drift)
        (root / target).parent.mkdir(parents=True, exist_ok=True)
        git(root, "mv", "-k", ref.name, target)
        new = target
    elif ref.kind == "gradle-project":  # the include line and the project's folder; a prefix, as Gradle expands a
        new = f"renamed-{ref.name}"  # name to any it abbreviates (`:server` still runs `:server-renamed`)
        if not _edit(root, ref.config, lambda t: _rename_at_line(t, ref.line, ref.name, new)):
            return None
        line = (root / ref.config).read_text("utf-8").splitlines()[ref.line - 1]
        written = re.search(rf"""["']:?([\w.:-]*{re.escape(new)})["']""", line)
        folder = posixpath.join(posixpath.dirname(ref.config), written.group(1).replace(":", "/")) if written else ""
        old_folder = posixpath.join(posixpath.dirname(folder), ref.name) if folder else ""
        if old_folder and (root / old_folder).is_dir():
            git(root, "mv", "-k", old_folder, folder)
    elif ref.kind == "dependency":
        if not _edit(root, ref.config, lambda t: _drop_line(t, ref.line)):
            return None
        new = ""
    elif ref.kind == "function":
        users = [u for u in git(root, "grep", "-lwF", ref.name, "--", ":!*.md", ":!*.mdc").splitlines() if u]
        if len(users) > 60:
            return None
        for rel in users:
            _edit(root, rel, lambda t: re.sub(rf"\b{re.escape(ref.name)}\b", renamed(ref.name), t))
        new = renamed(ref.name)
    else:
        def change(text: str) -> str:
            text = _rename_at_line(text, ref.line, ref.name)
            if ref.kind == "feature":  # the features that enable it follow the rename
                text = re.sub(rf'"{re.escape(ref.name)}"', f'"{renamed(ref.name)}"', text)
            return text
        if not _edit(root, ref.config, change):
            return None
        new = renamed(ref.name)
    git(root, "add", "-A")
    git(root, "commit", "-q", "--no-verify", "-m", f"drift: {drift} {ref.name}")
    return new


def reset(root: Path, base: str) -> None:
    """Back to the checkout's base commit, nothing left over."""
    git(root, "reset", "-q", "--hard", base)
    git(root, "clean", "-qfdx")


# --- scoring -----------------------------------------------------------------------------------------------

@dataclass
class Trial:
    repo: str
    drift: str
    ref: Reference
    caught: bool = False
    said: str = ""  # what check said on the reference's lines when it missed


def _spoken(results: list[dict], ref: Reference) -> list[dict]:
    """The results on the lines that write the reference and that are about it."""
    key = posixpath.basename(ref.name) if ref.kind.startswith("path") else ref.name
    word = re.compile(rf"(?<![\w-]){re.escape(key)}(?![\w-])")
    lines = set(ref.sites)
    return [
        r for r in results
        if (r.get("memory_file"), r.get("line")) in lines
        and (word.search(r["anchor"]) or word.search(str((r.get("details") or {}).get("written", ""))))
    ]


def score(trial: Trial, results: list[dict]) -> None:
    """Caught when a result about the reference on one of its lines is REFUTED; else what was said instead."""
    about = _spoken(results, trial.ref)
    trial.caught = any(r["verdict"] == "REFUTED" for r in about)
    if not trial.caught:
        trial.said = f"{about[0]['verdict']}: {about[0]['reason']}" if about else "silent: not read"


def sample(repo: str, refs: list[Reference], per_kind: int) -> list[tuple[str, Reference]]:
    """Up to `per_kind` trials of each drift kind, drawn with a seed made of the repository and the kind."""
    pools: dict[str, list[Reference]] = defaultdict(list)
    for ref in refs:
        for drift in DRIFTS[ref.kind]:
            pools[drift].append(ref)
    trials = []
    for drift in [d for kinds in DRIFTS.values() for d in kinds]:
        pool = sorted(pools.get(drift, []), key=lambda r: (r.name, r.config))
        random.Random(f"{repo}:{drift}").shuffle(pool)
        trials.extend((drift, ref) for ref in pool[:per_kind])
    return trials


@dataclass
class RepoRun:
    repo: str
    refuted: list[dict] = field(default_factory=list)
    trials: list[Trial] = field(default_factory=list)
    excluded: int = 0  # references already REFUTED at HEAD: a drift there proves nothing


def measure(repo: str, root: Path, per_kind: int = TRIALS_PER_KIND, drifts: frozenset[str] = frozenset()) -> RepoRun:
    """REFUTED at HEAD and the drift trials of one checkout (of the drift kinds `drifts` only, when given)."""
    run = RepoRun(repo)
    base = git(root, "rev-parse", "HEAD").strip()
    head = run_report(root)
    results = head["results"]
    run.refuted = [r for r in results if r["verdict"] == "REFUTED"]
    # The instruction files check found, whether or not it read an anchor in them: a file it reads nothing
    # from at HEAD still has references to drift (missing them is what recall measures).
    memories = sorted({r["memory_file"] for r in (*results, *head.get("memories", [])) if r.get("memory_file")})
    for drift, ref in sample(repo, references(Tree(root), memories), per_kind):
        if drifts and drift not in drifts:
            continue
        if any(r["verdict"] == "REFUTED" for r in _spoken(results, ref)):
            run.excluded += 1
            continue
        trial = Trial(repo, drift, ref)
        try:
            if inject(root, ref, drift) is None:
                continue
            score(trial, run_check(root))
        finally:
            reset(root, base)
        run.trials.append(trial)
    return run


# --- the report --------------------------------------------------------------------------------------------

def load_repos() -> dict[str, list[dict]]:
    """The repositories of each set, with the commit each is measured at."""
    return json.loads((CORPUS / "repos.json").read_text("utf-8"))


def load_labels() -> dict[str, dict[str, dict]]:
    """Per repository, each labelled REFUTED finding: {"label": "stale" | "false", "why": category}."""
    path = CORPUS / "labels.json"
    return json.loads(path.read_text("utf-8")) if path.is_file() else {}


def report(name: str, runs: list[RepoRun], labels: dict[str, dict[str, dict]]) -> None:
    """Print the set's precision table, recall by drift kind, and the false REFUTED, misses and unlabelled findings."""
    print(f"\n== {name} ==")
    print(f"{'repository':<34} {'REFUTED':>7} {'stale':>5} {'false':>5} {'unlab':>5} {'precision':>9} {'caught':>6} {'trials':>6} {'recall':>6}")
    total: Counter[str] = Counter()
    falses, unlabelled = [], []
    for run in runs:
        known = labels.get(run.repo, {})
        counts = Counter(known.get(finding_key(r), {}).get("label", "unlabelled") for r in run.refuted)
        falses += [(run.repo, finding_key(r), known[finding_key(r)].get("why", "")) for r in run.refuted if known.get(finding_key(r), {}).get("label") == "false"]
        unlabelled += [(run.repo, finding_key(r), r["reason"]) for r in run.refuted if finding_key(r) not in known]
        caught = sum(t.caught for t in run.trials)
        labelled = counts["stale"] + counts["false"]
        print(
            f"{run.repo:<34} {len(run.refuted):>7} {counts['stale']:>5} {counts['false']:>5} {counts['unlabelled']:>5} "
            f"{_ratio(counts['stale'], labelled):>9} {caught:>6} {len(run.trials):>6} {_ratio(caught, len(run.trials)):>6}"
        )
        total.update(refuted=len(run.refuted), caught=caught, trials=len(run.trials), **counts)
    labelled = total["stale"] + total["false"]
    print(
        f"{'total':<34} {total['refuted']:>7} {total['stale']:>5} {total['false']:>5} {total['unlabelled']:>5} "
        f"{_ratio(total['stale'], labelled):>9} {total['caught']:>6} {total['trials']:>6} {_ratio(total['caught'], total['trials']):>6}"
    )
    # One moved script named on 17 lines is 17 alarms above; counted once per memory file and anchor as well, so that
    # one repository's repetitions do not carry the figure alone.
    distinct: dict[tuple[str, str, str], str] = {}
    for run in runs:
        known = labels.get(run.repo, {})
        for r in run.refuted:
            label = known.get(finding_key(r), {}).get("label", "unlabelled")
            key = (run.repo, str(r.get("memory_file")), r["anchor"])
            seen = {label, distinct.get(key)}  # a finding is false if any of its lines is, else stale if any is
            distinct[key] = "false" if "false" in seen else "stale" if "stale" in seen else "unlabelled"
    once = Counter(distinct.values())
    print(f"{'distinct (file, anchor)':<34} {len(distinct):>7} {once['stale']:>5} {once['false']:>5} {once['unlabelled']:>5} "
          f"{_ratio(once['stale'], once['stale'] + once['false']):>9}")
    by_kind: dict[str, Counter[str]] = defaultdict(Counter)
    for trial in (t for run in runs for t in run.trials):
        by_kind[trial.drift].update(trials=1, caught=int(trial.caught))
    print(f"\n{'drift kind':<22} {'caught':>6} {'trials':>6} {'recall':>6}")
    for drift in [d for kinds in DRIFTS.values() for d in kinds if d in by_kind]:
        print(f"{drift:<22} {by_kind[drift]['caught']:>6} {by_kind[drift]['trials']:>6} {_ratio(by_kind[drift]['caught'], by_kind[drift]['trials']):>6}")
    if falses:
        print("\nfalse REFUTED at HEAD (label: why)")
        for repo, key, why in falses:
            print(f"  {repo}  {key}  -- {why}")
    missed = [t for run in runs for t in run.trials if not t.caught]
    print(f"\n{'missed, by cause':<60} {'trials':>6}")
    for why, count in Counter(cause(t.said) for t in missed).most_common():
        print(f"{why:<60} {count:>6}")
    print("\nmissed drifts (what check said on the reference's lines)")
    for trial in (t for run in runs for t in run.trials if not t.caught):
        file, line = trial.ref.sites[0]
        print(f"  {trial.repo}  {trial.drift}: {trial.ref.name}  @{file}:{line}  -- {trial.said[:400]}")
    if unlabelled:
        print("\nunlabelled REFUTED (add to corpora/drift/labels.json)")
        for repo, key, reason in unlabelled:
            print(f"  {repo}  {key}  -- {reason[:160]}")


def cause(said: str) -> str:
    """A missed trial's cause in a few words, for the tally: what check answered and on what ground."""
    verdict, _, reason = said.partition(": ")
    for marker, why in (
        ("the one path ending so", "suffix match"), ("paths end with it", "several paths end with it"),
        ("generated", "generated/output wording"), ("not built in or an alias", "external command assumed"),
        ("no target", "missing target, a file of that name may be built"), ("transitive", "transitive binary assumed"),
    ):
        if marker in reason:
            return f"{verdict}: {why}"
    return said if verdict == "silent" else f"{verdict}: {reason[:50]}"


def _ratio(part: int, whole: int) -> str:
    return f"{part / whole:.3f}" if whole else "-"


def mirror(repo: str) -> Path:
    """Where the fetched mirror of owner/name is."""
    return MIRRORS / repo.replace("/", "+") / "repo"


def chosen_set(argv: list[str], names: list[str]) -> str:
    """The set to measure: `--set NAME`, else a bare set name (`dev`, `held-out`, `held-out-2`, ...), else `all`."""
    if "--set" in argv:
        wanted = argv[argv.index("--set") + 1]
        if wanted not in (*names, "all"):
            raise SystemExit(f"no set {wanted!r} in corpora/drift/repos.json (sets: {', '.join(names)})")
        return wanted
    return next((a for a in argv if a in names), "all")


def main(argv: list[str]) -> int:
    """`--drift [--set NAME | NAME | all] [--only OWNER/NAME] [--per-kind N] [--drifts KIND,KIND]`: measure the sets
    (the drift kinds named, e.g. "dependency removed,folder moved", or all) and print their tables."""
    sets = load_repos()
    wanted = chosen_set(argv, list(sets))
    only = argv[argv.index("--only") + 1] if "--only" in argv else None
    per_kind = int(argv[argv.index("--per-kind") + 1]) if "--per-kind" in argv else TRIALS_PER_KIND
    drifts = frozenset(argv[argv.index("--drifts") + 1].split(",")) if "--drifts" in argv else frozenset()
    labels = load_labels()
    for name, entries in sets.items():
        if wanted not in ("all", name):
            continue
        runs = []
        for entry in entries:
            if only and entry["repo"] != only:
                continue
            source = mirror(entry["repo"])
            if not source.is_dir():
                print(f"{entry['repo']}: no mirror at {source} (fetch it first)", file=sys.stderr)
                continue
            with tempfile.TemporaryDirectory(prefix="drift-") as tmp:
                root = Path(tmp) / "repo"
                checkout(source, entry["commit"], root)
                runs.append(measure(entry["repo"], root, per_kind, drifts))
        report(name, runs, labels)
    return 0
