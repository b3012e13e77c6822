"""Files of the repository that are not on disk: in a git submodule not checked out (a clone made
without `--recurse-submodules` has an empty folder there), or left out by a sparse checkout.

Neither is missing from the repository: `file:`, `sym:` and `span:` anchors and paths read from prose
about them are INCONCLUSIVE, saying why, never REFUTED. Once checked out, they answer as any other
file, and a stored report made before does not stand.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from anchorcheck import Memory, Verdict, Verifier, bank
from tests.conftest import git, init_repo, needs_git, write_tree

pytestmark = needs_git


def _with_submodule(tmp_path: Path) -> Path:
    library = init_repo(write_tree(tmp_path / "library", {"README.md": "# lib\n", "src/core.py": "X = 1\n"}))
    root = init_repo(write_tree(tmp_path / "app", {"CLAUDE.md": "- The library's notes: `third/lib/README.md`.\n"}))
    git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library), "third/lib")
    git(root, "commit", "-qm", "library")
    git(root, "submodule", "deinit", "-q", "-f", "third/lib")  # as a clone without --recurse-submodules has it
    assert os.listdir(root / "third" / "lib") == []
    return root


def _check(root: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "anchorcheck", "check", "--format", "json"], cwd=root, capture_output=True, text=True, timeout=120,
        env={**os.environ, "ANCHORCHECK_CACHE_DIR": str(root.parent / "cache")},
    )
    [result] = json.loads(done.stdout)["results"]
    return result


def test_what_a_submodule_not_checked_out_holds_is_not_known(tmp_path: Path) -> None:
    root = _with_submodule(tmp_path)
    verifier = Verifier(root)
    for path in ("third/lib/README.md", "third/lib/src/core.py", "third/lib/nothere.md"):
        result = verifier.check(f"file:{path}")
        assert result.verdict is Verdict.INCONCLUSIVE, (path, result.reason)
        assert result.reason == f"{path} is in the submodule third/lib/, which is not checked out here"
        assert result.state == "not-checked-out"  # for a store: not missing, not known
    assert verifier.check("file:third/lib").verdict is Verdict.VERIFIED  # the folder is there
    assert verifier.check("file:third/nothere.md").verdict is Verdict.REFUTED  # beside it: this repository's own


def test_prose_naming_a_file_of_a_submodule_waits_for_it_to_be_checked_out(tmp_path: Path) -> None:
    root = _with_submodule(tmp_path)
    before = _check(root)
    assert (before["verdict"], before["reason"]) == ("INCONCLUSIVE", "third/lib/README.md is in the submodule third/lib/, which is not checked out here")
    git(root, "-c", "protocol.file.allow=always", "submodule", "update", "-q", "--init")
    after = _check(root)  # the stored report of the first check names what it looked at: it does not stand now
    assert (after["verdict"], after["reason"]) == ("VERIFIED", "third/lib/README.md exists")
    assert Verifier(root).check("file:third/lib/nothere.md").verdict is Verdict.REFUTED  # checked out: its absence is known


def test_what_a_sparse_checkout_left_out_is_not_missing(tmp_path: Path) -> None:
    root = init_repo(write_tree(tmp_path / "mono", {"CLAUDE.md": "- Billing lives in `billing/api.py`.\n", "web/app.py": "X = 1\n", "billing/api.py": "def charge():\n    return 1\n"}))
    citation = bank(root, "billing/api.py", 1, 2)
    git(root, "sparse-checkout", "set", "--no-cone", "/CLAUDE.md", "/web/")
    assert not (root / "billing").exists()
    verifier = Verifier(root)
    why = "is tracked by git but not checked out here (a sparse checkout)"
    for anchor in ("file:billing/api.py", "file:billing", "sym:billing/api.py::charge", "sym:billing/api.py::refund", citation):
        result = verifier.check(anchor)
        assert result.verdict is Verdict.INCONCLUSIVE and result.reason.endswith(why), (anchor, result.reason)
    assert verifier.check("file:billing/refund.py").verdict is Verdict.REFUTED  # git tracks no such file
    assert _check(root)["reason"] == f"billing/api.py {why}"
    (root / "web" / "app.py").unlink()  # deleted by hand, not left out: git reports it, and it is missing
    assert Verifier(root).check("file:web/app.py").verdict is Verdict.REFUTED


def test_a_reader_that_stops_early_is_no_error(tmp_path: Path) -> None:
    """`anchorcheck check | head -1`: the output closed under the report ends the run as SIGPIPE would,
    without an "error: [Errno 32] Broken pipe" line."""
    root = _with_submodule(tmp_path)
    for args in (["anchor", *(f"file:third/{n}.md" for n in range(2000))], ["check", "-v"]):
        process = subprocess.Popen([sys.executable, "-m", "anchorcheck", *args], cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()  # before anything was written
        assert (process.wait(timeout=120), process.stderr.read()) == (141, b"")


def test_a_past_revision_holds_every_file_it_tracked_but_a_submodule_s(tmp_path: Path) -> None:
    """`as_of` reads the revision's tree: the work tree's sparse checkout does not bear on it, a submodule's
    files are still another repository's."""
    root = _with_submodule(tmp_path)
    git(root, "tag", "v1")
    git(root, "sparse-checkout", "set", "--no-cone", "/CLAUDE.md")

    def as_of_v1(anchor: str) -> tuple[Verdict, str]:
        [result] = Verifier(root).verify(Memory("then", [anchor], id="m", metadata={"as_of": "v1"})).results
        return result.verdict, result.reason

    assert as_of_v1("file:CLAUDE.md")[0] is Verdict.VERIFIED
    assert as_of_v1("file:gone.md")[0] is Verdict.REFUTED
    assert as_of_v1("file:third/lib/README.md") == (Verdict.INCONCLUSIVE, "third/lib/README.md is in the submodule third/lib/, whose files are another repository's")


def test_commands_run_in_or_naming_what_is_not_checked_out_are_not_refuted(tmp_path: Path) -> None:
    """A runner finds no Makefile, package.json or script there because the folder is empty here, not
    because the repository lacks it."""
    root = _with_submodule(tmp_path)
    write_tree(root, {"Makefile": "all:\n\techo\n", "tools/build.py": "", "tools/Makefile": "gen:\n\techo\n"})
    git(root, "add", "-A")
    git(root, "commit", "-qm", "tools")
    git(root, "sparse-checkout", "set", "--no-cone", "/*", "!/tools/")
    assert not (root / "tools").exists()
    verifier = Verifier(root)
    unknown = {
        "cmd:cd third/lib && make build": "third/lib is a submodule that is not checked out here",
        "cmd:make -C third/lib build": "third/lib is a submodule that is not checked out here",
        "cmd:python third/lib/setup.py": "third/lib/setup.py is in the submodule third/lib/, which is not checked out here",
        "cmd:make -C tools gen": "tools is tracked by git but not checked out here (a sparse checkout)",
        "cmd:python tools/build.py": "tools/build.py is tracked by git but not checked out here (a sparse checkout)",
    }
    for anchor, why in unknown.items():
        result = verifier.check(anchor)
        assert (result.verdict, result.reason) == (Verdict.INCONCLUSIVE, why), anchor
    assert verifier.check("cmd:cd tools && make gen").verdict is Verdict.INCONCLUSIVE  # `cd` into what is left out
    for anchor in ("cmd:make nosuch", "cmd:python tools/gone.py", "cmd:make -C third nosuch"):
        assert verifier.check(anchor).verdict is Verdict.REFUTED, anchor
