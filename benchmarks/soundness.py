"""Soundness benchmark: no confident wrong answer on real trees.

Downloads real source trees at run time (PyPI sdists with `pip download
--no-deps --no-binary :all:`, npm tarballs with `npm pack`), derives claims
from them *without anchorcheck* (Python's `ast` for Python, a plain line
scan for JavaScript), and checks every claim through one Verifier per tree:

- a true claim must never be REFUTED (target 0): that is the verdict a
  memory store acts on by dropping the memory;
- a false claim, made by mutating a true one's name, must never be VERIFIED
  (target 0).

INCONCLUSIVE is allowed either way and counted, so a gain in precision that
costs recall shows up too. Each anchor kind derives its claims in its own
section below and registers the function in `KINDS`.

    python benchmarks/soundness.py [--work DIR] [--kind sym] [--show 10]
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from anchorcheck import Verdict, Verifier
from anchorcheck.repo.config import Config

PYPI = ("flask==3.1.0", "click==8.1.8", "werkzeug==3.1.3", "attrs==24.3.0")
NPM = ("express@4.21.2", "commander@12.1.0")


@dataclass(frozen=True)
class Tree:
    """One unpacked project: where it is, and which registry it came from."""

    name: str
    root: Path
    ecosystem: str


@dataclass
class Claims:
    """Anchors derived from a tree, each with a label saying where the claim comes from."""

    true: list[tuple[str, str]] = field(default_factory=list)
    false: list[tuple[str, str]] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------
# Downloading


def _unpack(archive: Path, into: Path) -> Path:
    """The single top directory of an sdist or npm tarball, unpacked (with the `data` filter: no escapes)."""
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    tops = [p for p in into.iterdir() if p.is_dir()]
    if len(tops) != 1:
        sys.exit(f"{archive.name}: expected one top directory, found {len(tops)}")
    return tops[0]


def _fetch(work: Path, ecosystem: str, name: str, command: list[str]) -> Tree:
    """Run `command` in the archive folder (it saves one archive and prints nothing else) and unpack
    what it saved, once: a tree already in `work` is reused."""
    target = work / ecosystem / name
    if not target.exists():
        archives = work / "archives" / ecosystem / name
        archives.mkdir(parents=True, exist_ok=True)
        subprocess.run(command, cwd=archives, check=True, capture_output=True)
        target.mkdir(parents=True)
        _unpack(next(archives.iterdir()), target)
    return Tree(name, next(p for p in target.iterdir() if p.is_dir()), ecosystem)


def download(work: Path) -> list[Tree]:
    """Fetch every tree once into `work` (kept between runs when `--work` is given)."""
    pip = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:", "-d", "."]
    trees = [_fetch(work, "pypi", spec.split("==")[0], [*pip, spec]) for spec in PYPI]
    return trees + [_fetch(work, "npm", spec.split("@")[0], ["npm", "pack", "--silent", spec]) for spec in NPM]


# ---------------------------------------------------------------------------------------------
# sym: definitions, derived with Python's own `ast` and a line scan of JavaScript


def _python_files(tree: Tree) -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(tree.root.rglob("*.py")):
        try:
            module = ast.parse(path.read_bytes())
        except (SyntaxError, ValueError):
            continue
        yield path.relative_to(tree.root).as_posix(), module


def _assigned(target: ast.expr) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for item in target.elts:
            yield from _assigned(item)


_BLOCKS = (ast.If, ast.Try, ast.With)


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """A body's statements, looking into `if`/`try`/`with` blocks, which define at the same level."""
    for stmt in body:
        if isinstance(stmt, _BLOCKS) or stmt.__class__.__name__ == "TryStar":
            for part in ("body", "orelse", "finalbody"):
                yield from _statements(getattr(stmt, part, []))
            for handler in getattr(stmt, "handlers", []):
                yield from _statements(handler.body)
        else:
            yield stmt


def _python_defs(body: list[ast.stmt], prefix: str = "") -> Iterator[tuple[str, str]]:
    """(qualified name, what it is) of module- and class-level definitions, and `self.x` attributes."""
    for stmt in _statements(body):
        if isinstance(stmt, ast.ClassDef):
            yield prefix + stmt.name, "class"
            yield from _python_defs(stmt.body, f"{prefix}{stmt.name}.")
            yield from ((f"{prefix}{stmt.name}.{a}", "attribute") for a in _self_attributes(stmt))
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield prefix + stmt.name, "method" if prefix else "function"
        elif isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                yield from ((prefix + n, "assignment") for n in _assigned(target))
        elif isinstance(stmt, ast.AnnAssign):
            yield from ((prefix + n, "assignment") for n in _assigned(stmt.target))


def _self_attributes(cls: ast.ClassDef) -> set[str]:
    """`self.x = ...` (or `self.x: T = ...`) in the class's own methods, `self` being the first parameter."""
    found = set()
    for method in _statements(cls.body):
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or not method.args.args:
            continue
        this = method.args.args[0].arg
        for node in _own_nodes(method):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
            for target in targets:
                for item in target.elts if isinstance(target, ast.Tuple) else [target]:
                    if isinstance(item, ast.Attribute) and isinstance(item.value, ast.Name) and item.value.id == this:
                        found.add(item.attr)
    return found


def _own_nodes(function: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function's body, not those of functions, lambdas or classes nested in it."""
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))


def _inherited(tree: Tree, modules: dict[str, tuple[str, ast.Module]]) -> Iterator[tuple[str, str]]:
    """`sym:sub.py::Sub.m` for methods a class inherits from a base class in another module of the tree.

    Bases are followed through `from X import Base` (absolute or relative), as a reader would.
    """
    by_module = {name: path for name, (path, _) in modules.items()}

    def module_of(path: str) -> str:
        parts = path.removesuffix(".py").split("/")
        parts = parts[1:] if parts[0] == "src" else parts
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)

    def imported(path: str, module: ast.Module) -> dict[str, tuple[str, str]]:
        names = {}
        package = module_of(path).split(".")
        if not path.endswith("__init__.py"):
            package = package[:-1]
        for stmt in module.body:
            if isinstance(stmt, ast.ImportFrom):
                base = package[: len(package) - stmt.level + 1] if stmt.level else []
                source = ".".join([*base, *([stmt.module] if stmt.module else [])])
                for alias in stmt.names:
                    names[alias.asname or alias.name] = (source, alias.name)
        return names

    def classes(module: ast.Module) -> dict[str, ast.ClassDef]:
        return {s.name: s for s in _statements(module.body) if isinstance(s, ast.ClassDef)}

    def members(module_name: str, cls_name: str, depth: int = 0) -> set[str]:
        entry = modules.get(module_name)
        if entry is None or depth > 8:
            return set()
        path, module = entry
        cls = classes(module).get(cls_name)
        if cls is None:
            return set()
        own = {s.name for s in _statements(cls.body) if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
        names = imported(path, module)
        for base in cls.bases:
            if isinstance(base, ast.Name):
                if base.id in classes(module):
                    own |= members(module_name, base.id, depth + 1)
                elif base.id in names:
                    own |= members(*names[base.id], depth + 1)
        return own

    for name, (path, module) in modules.items():
        names = imported(path, module)
        for cls in classes(module).values():
            own = {s.name for s in _statements(cls.body) if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
            for base in cls.bases:
                if isinstance(base, ast.Name) and base.id in names and names[base.id][0] in by_module:
                    for method in sorted(members(*names[base.id]) - own):
                        yield f"sym:{path}::{cls.name}.{method}", "inherited"


def _python_module_names(tree: Tree) -> dict[str, tuple[str, ast.Module]]:
    """Module name -> (path, parsed module), for the packages at the top of the tree or under src/."""
    found = {}
    for path, module in _python_files(tree):
        parts = path.removesuffix(".py").split("/")
        if parts[0] == "src":
            parts = parts[1:]
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts:
            found[".".join(parts)] = (path, module)
    return found


_JS_CLASS = re.compile(r"^(?:export\s+)?class\s+(\w+)")
_JS_FUNCTION = re.compile(r"^(?:export\s+)?(?:async\s+)?function\*?\s+(\w+)")
_JS_METHOD = re.compile(r"^  (?:static\s+|async\s+|get\s+|set\s+)*(#?\w+)\s*\([^)]*\)\s*\{")
_JS_MEMBER = re.compile(r"^((?:\w+)(?:\.\w+)+)\s*=[^=]")
_JS_BINDING = re.compile(r"^(?:var|let|const)\s+(\w+)\s*=(?!\s*require\()")  # a require() binds, it defines nothing
_JS_KEYWORDS = frozenset({"if", "for", "while", "switch", "catch", "function", "return", "constructor"})


def _javascript_defs(text: str) -> Iterator[tuple[str, str]]:
    """Names a line scan of a JavaScript file finds at the start of lines: enough for real npm code's style."""
    owner = None
    for line in text.splitlines():
        if line.startswith("}"):
            owner = None
        if (match := _JS_CLASS.match(line)) is not None:
            owner = match.group(1)
            yield owner, "class"
        elif owner is not None and (match := _JS_METHOD.match(line)) and match.group(1) not in _JS_KEYWORDS:
            yield f"{owner}.{match.group(1)}", "method"
        elif (match := _JS_FUNCTION.match(line)) is not None:
            yield match.group(1), "function"
        elif (match := _JS_MEMBER.match(line)) is not None:
            name = match.group(1)
            for prefix in ("module.exports.", "exports."):
                if name.startswith(prefix):
                    name = name[len(prefix) :]
            if name != "module.exports":
                yield name, "member assignment"
        elif (match := _JS_BINDING.match(line)) is not None:
            yield match.group(1), "binding"


def _mutated(name: str) -> str:
    head, dot, last = name.rpartition(".")
    return f"{head}{dot}{last}Gone"


def sym_claims(tree: Tree) -> Claims:
    """True: what each file defines (ast or the line scan), and Python methods inherited from a base
    in another module; false: each true claim with its last name mutated."""
    claims = Claims()
    if tree.ecosystem == "pypi":
        modules = _python_module_names(tree)
        for path, module in modules.values():
            defined = dict(_python_defs(module.body))
            claims.true += [(f"sym:{path}::{name}", what) for name, what in defined.items()]
            claims.false += [(f"sym:{path}::{_mutated(name)}", defined[name]) for name in defined if _mutated(name) not in defined]
        claims.true += list(_inherited(tree, modules))
    else:
        for path in sorted(tree.root.rglob("*.js")):
            if "node_modules" in path.parts:
                continue
            relative = path.relative_to(tree.root).as_posix()
            defined = dict(_javascript_defs(path.read_text(encoding="utf-8", errors="replace")))
            claims.true += [(f"sym:{relative}::{name}", what) for name, what in defined.items()]
            claims.false += [(f"sym:{relative}::{_mutated(name)}", defined[name]) for name in defined if _mutated(name) not in defined]
    return claims


# ---------------------------------------------------------------------------------------------
# env: and import:, read with Python's `ast` and a plain scan of JavaScript; pkg: from the
# archive's own metadata (PKG-INFO, package.json), never from anchorcheck's readers


def _is_environ(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "environ" and isinstance(node.value, ast.Name) and node.value.id == "os"


def _literal(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _python_env_reads(module: ast.Module) -> Iterator[str]:
    """Keys read by name: `os.environ["K"]` (not assigned or deleted), `os.environ.get("K")`,
    `os.getenv("K")`, `"K" in os.environ`."""
    written = {
        id(target)
        for node in ast.walk(module)
        for target in (node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [])
    }
    for node in ast.walk(module):
        if isinstance(node, ast.Subscript) and _is_environ(node.value) and id(node) not in written:
            key = _literal(node.slice)
        elif isinstance(node, ast.Call) and node.args and isinstance(node.func, ast.Attribute):
            func = node.func
            getenv = func.attr == "getenv" and isinstance(func.value, ast.Name) and func.value.id == "os"
            key = _literal(node.args[0]) if getenv or (func.attr in ("get", "setdefault", "pop") and _is_environ(func.value)) else None
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)):
            key = _literal(node.left) if _is_environ(node.comparators[0]) else None
        else:
            key = None
        if key:
            yield key


def _python_imports(module: ast.Module) -> Iterator[str]:
    """Absolute imports: `import a.b` gives a.b, `from a.b import c` gives a.b."""
    for node in ast.walk(module):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module


_JS_ENV = re.compile(r"process\.env\.([A-Za-z_]\w*)|process\.env\[\s*['\"]([^'\"]+)['\"]\s*\]")
_JS_IMPORT = re.compile(r"""require\(\s*['"]([^'"]+)['"]\s*\)|\bfrom\s+['"]([^'"]+)['"]|^import\s+['"]([^'"]+)['"]""", re.MULTILINE)


_JS_COMMENT = re.compile(r"/\*.*?\*/|(?<![:'\"\\])//[^\n]*", re.DOTALL)


def _javascript_files(tree: Tree) -> Iterator[str]:
    """Each file's code with comments blanked (a `require('x')` in a doc comment imports nothing)."""
    for path in sorted(tree.root.rglob("*.js")):
        if "node_modules" not in path.parts:
            yield _JS_COMMENT.sub(" ", path.read_text(encoding="utf-8", errors="replace"))


def _source_names(tree: Tree, python: Callable[[ast.Module], Iterator[str]], javascript: re.Pattern[str]) -> set[str]:
    if tree.ecosystem == "pypi":
        return {name for _, module in _python_files(tree) for name in python(module)}
    return {next(g for g in match.groups() if g) for text in _javascript_files(tree) for match in javascript.finditer(text)}


def _absent(name: str) -> str:
    """A mutation of `name` that no real tree names."""
    return f"{name}_GONE_ZZ" if name.isupper() else f"{name}_gone_zz"


def env_claims(tree: Tree) -> Claims:
    """True: every key read by name; false: each key mutated (no file names it)."""
    keys = sorted(_source_names(tree, _python_env_reads, _JS_ENV))
    return Claims([(f"env:{k}", "read by name") for k in keys], [(f"env:{_absent(k)}", "mutated key") for k in keys])


def import_claims(tree: Tree) -> Claims:
    """True: every module imported (absolute; JavaScript packages, not relative paths or `node:`
    modules); false: each top-level name mutated."""
    modules = sorted(m for m in _source_names(tree, _python_imports, _JS_IMPORT) if not m.startswith((".", "/")) and ":" not in m)
    tops = sorted({m.split(".")[0] if tree.ecosystem == "pypi" else m.split("/")[0] for m in modules})
    return Claims([(f"import:{m}", "imported") for m in modules], [(f"import:{_absent(t)}", "mutated module") for t in tops])


def _pkg_info(tree: Tree) -> list[tuple[str, str]]:
    """(distribution, specifier) of the sdist's own PKG-INFO `Requires-Dist`, markers dropped."""
    found = []
    for line in (tree.root / "PKG-INFO").read_text(encoding="utf-8").splitlines():
        if line.startswith("Requires-Dist:"):
            requirement = line.split(":", 1)[1].split(";", 1)[0].strip()
            match = re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*\(?([^)]*)\)?", requirement)
            if match:
                found.append((match.group(1), match.group(2).strip()))
    return found


_LOWER_BOUND = re.compile(r"^(?:>=|\^|~|~=)?\s*(\d+(?:\.\d+)*)")


def pkg_claims(tree: Tree) -> Claims:
    """True: every requirement of the archive's own metadata, by name and with its own range; false:
    each name mutated, and a range below the declared lower bound (`<LOWER`: disjoint)."""
    claims = Claims()
    if tree.ecosystem == "pypi":
        requirements = _pkg_info(tree)
    else:
        manifest = json.loads((tree.root / "package.json").read_text(encoding="utf-8"))
        requirements = [(n, spec) for section in ("dependencies", "devDependencies") for n, spec in (manifest.get(section) or {}).items()]
    for name, spec in requirements:
        purl = f"pkg:{tree.ecosystem}/{name.lower()}"
        claims.true.append((purl, "declared"))
        claims.false.append((f"pkg:{tree.ecosystem}/{_absent(name.lower())}", "mutated name"))
        encoded = spec.replace(" ", "").replace(">", "%3E").replace("<", "%3C").replace("=", "%3D")
        if spec and "," not in spec and "|" not in spec:
            claims.true.append((f"{purl}@{encoded}", "its declared range"))
        lower = _LOWER_BOUND.match(spec.replace(" ", ""))
        if lower and not spec.startswith(("<", "!", "=")):
            claims.false.append((f"{purl}@%3C{lower.group(1)}", "below the declared range"))
    return claims


# ---------------------------------------------------------------------------------------------
# The run

KINDS: dict[str, Callable[[Tree], Claims]] = {"sym": sym_claims, "env": env_claims, "import": import_claims, "pkg": pkg_claims}


@dataclass
class Tally:
    """Verdicts of one kind's claims on one tree."""

    true: dict[Verdict, list[tuple[str, str, str]]] = field(default_factory=lambda: {v: [] for v in Verdict})
    false: dict[Verdict, list[tuple[str, str, str]]] = field(default_factory=lambda: {v: [] for v in Verdict})


def run(tree: Tree, claims: Claims) -> Tally:
    verifier = Verifier(tree.root, config=Config(), options={"cache": False})
    tally = Tally()
    for side, listed in ((tally.true, claims.true), (tally.false, claims.false)):
        for anchor, label in listed:
            result = verifier.check(anchor)
            side[result.verdict].append((anchor, label, result.reason))
    return tally


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, help="keep downloads here between runs (default: a temporary directory)")
    parser.add_argument("--kind", action="append", choices=sorted(KINDS), help="only these kinds (default: all)")
    parser.add_argument("--show", type=int, default=10, help="wrong answers listed per kind and tree")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="soundness-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        trees = download(work)
        wrong = 0
        for kind in args.kind or sorted(KINDS):
            print(f"\n## {kind}\n")
            print(f"{'tree':<10} {'true':>6} {'REFUTED':>8} {'INCONCL':>8} {'false':>6} {'VERIFIED':>9} {'INCONCL':>8}")
            labels: dict[str, Counter[Verdict]] = {}
            for tree in trees:
                tally = run(tree, KINDS[kind](tree))
                for verdict, listed in tally.true.items():
                    for _, label, _ in listed:
                        labels.setdefault(label, Counter())[verdict] += 1
                true_n, false_n = sum(map(len, tally.true.values())), sum(map(len, tally.false.values()))
                bad_true, bad_false = tally.true[Verdict.REFUTED], tally.false[Verdict.VERIFIED]
                wrong += len(bad_true) + len(bad_false)
                print(
                    f"{tree.name:<10} {true_n:>6} {len(bad_true):>8} {len(tally.true[Verdict.INCONCLUSIVE]):>8} "
                    f"{false_n:>6} {len(bad_false):>9} {len(tally.false[Verdict.INCONCLUSIVE]):>8}"
                )
                for anchor, label, reason in (bad_true + bad_false)[: args.show]:
                    print(f"    WRONG {anchor} ({label}): {reason}")
            print("\ntrue claims by what they name: VERIFIED / INCONCLUSIVE / REFUTED")
            for label, counts in sorted(labels.items()):
                print(f"    {label:<18} {counts[Verdict.VERIFIED]:>5} / {counts[Verdict.INCONCLUSIVE]:>4} / {counts[Verdict.REFUTED]:>3}")
        print(f"\nconfident wrong answers: {wrong} (target 0)")
        return 1 if wrong else 0
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
