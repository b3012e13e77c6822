"""A member's absence doubted only for a base that could give it: a Go standard library type whose methods are
known (`context.Context`), or a C# base the repository defines in one file, no longer makes a renamed name
INCONCLUSIVE; a base with no source here still does. Real git repositories, checked through the CLI (the
shapes of dagu's `QueueStore` and efcore's `RelationalAnnotationProvider`, held-out-8)."""

from __future__ import annotations

from pathlib import Path

import pytest

from anchorcheck import Verdict
from tests._source_support import check as check_anchor
from tests.conftest import init_repo, needs_git, write_tree
from tests.test_history import by_anchor, check, commit

pytestmark = needs_git

GO_CONTEXT = """package cmd

import (
\t"context"

\t"example.com/app/internal/exec"
)

type Context struct {
\tcontext.Context

\tQueueStore exec.QueueStore
}
"""
GO_QUEUE = """package exec

type QueueStore interface {
\tEnqueue(name string) error
}
"""


def _go(tmp_path: Path, context: str = GO_CONTEXT) -> Path:
    write_tree(tmp_path, {"go.mod": "module example.com/app\n\ngo 1.22\n", "internal/cmd/context.go": context, "internal/exec/queue.go": GO_QUEUE})
    return init_repo(tmp_path)


def _rename(root: Path, old: str, new: str, message: str) -> None:
    for path in root.rglob("*.*"):
        if ".git" not in path.parts and path.suffix in (".go", ".cs"):
            path.write_text(path.read_text().replace(old, new))
    commit(root, message)


def test_a_method_an_embedded_go_context_gives_is_verified_through_it(tmp_path: Path) -> None:
    root = _go(tmp_path)
    result = check_anchor(root, "sym:internal/cmd/context.go::Context.Done")
    assert result.verdict is Verdict.VERIFIED, result.reason
    assert "inherits Done from context.Context" in str(result.evidence)


def test_a_go_member_beside_an_embedded_type_with_no_source_here_stays_in_doubt(tmp_path: Path) -> None:
    root = _go(tmp_path, GO_CONTEXT.replace('"context"', '"github.com/spf13/pflag"').replace("context.Context", "pflag.FlagSet"))
    result = check_anchor(root, "sym:internal/cmd/context.go::Context.ProcStore")
    assert result.verdict is Verdict.INCONCLUSIVE, result.reason
    assert "inherits from pflag.FlagSet" in result.reason


CS_BASE = "namespace App.Diff;\n\npublic interface IModelDiffer\n{\n    bool HasDifferences();\n}\n"
CS_DIFFER = """using App.Meta;

namespace App.Diff;

public class ModelDiffer : IModelDiffer
{
    protected virtual IAnnotationProvider AnnotationProvider { get; }

    public bool HasDifferences() => false;
}
"""
CS_PROVIDER = "namespace App.Meta;\n\npublic interface IAnnotationProvider\n{\n}\n\npublic class AnnotationProvider : IAnnotationProvider\n{\n}\n"


def _cs(tmp_path: Path, extra: dict[str, str] | None = None) -> Path:
    files = {"src/Diff/IModelDiffer.cs": CS_BASE, "src/Diff/ModelDiffer.cs": CS_DIFFER, "src/Meta/AnnotationProvider.cs": CS_PROVIDER}
    write_tree(tmp_path, {**files, **(extra or {})})
    return init_repo(tmp_path)


def test_a_csharp_base_defined_in_two_files_or_nowhere_here_keeps_the_doubt(tmp_path: Path) -> None:
    twice = {"src/Other/IModelDiffer.cs": CS_BASE.replace("App.Diff", "App.Other")}
    root = _cs(tmp_path, twice)
    result = check_anchor(root, "sym:src/Diff/ModelDiffer.cs::ModelDiffer.Gone")
    assert result.verdict is Verdict.INCONCLUSIVE, result.reason
    assert "inherits from IModelDiffer, which cannot be followed" in result.reason
    write_tree(root, {"src/Diff/ModelDiffer.cs": CS_DIFFER.replace(": IModelDiffer", ": DbContext")})
    result = check_anchor(root, "sym:src/Diff/ModelDiffer.cs::ModelDiffer.Gone")
    assert result.verdict is Verdict.INCONCLUSIVE and "inherits from DbContext" in result.reason, result.reason


def test_a_member_of_a_csharp_base_the_repository_defines_once_is_verified_through_it(tmp_path: Path) -> None:
    root = _cs(tmp_path)
    result = check_anchor(root, "sym:src/Diff/ModelDiffer.cs::ModelDiffer.HasDifferences")
    assert result.verdict is Verdict.VERIFIED, result.reason
    base = CS_BASE.replace("bool HasDifferences();", "bool HasDifferences();\n\n    int Count { get; }")
    write_tree(root, {"src/Diff/IModelDiffer.cs": base})
    result = check_anchor(root, "sym:src/Diff/ModelDiffer.cs::ModelDiffer.Count")
    assert result.verdict is Verdict.VERIFIED, result.reason
    assert "src/Diff/IModelDiffer.cs" in str(result.evidence)


@pytest.mark.parametrize(
    ("make", "old", "new", "text", "anchor"),
    [
        (_go, "QueueStore", "JobStore", "The stores (`QueueStore`) live in `internal/exec`.", "sym:internal/exec/queue.go::QueueStore"),
        (_cs, "AnnotationProvider", "AnnotationSource", "Propagate annotations in `AnnotationProvider`.", "sym:src/Diff/ModelDiffer.cs::ModelDiffer.AnnotationProvider"),
    ],
)
def test_a_name_renamed_beside_a_base_that_cannot_give_it_is_refuted_with_the_commit(tmp_path: Path, make, old: str, new: str, text: str, anchor: str) -> None:  # noqa: ANN001
    """Go: the struct embeds `context.Context` (the type's own declaration is read first: the type, not the field
    named after it); C#: the class implements an interface of this repository that no `using` leads to. Renamed in
    every file after the text named it: stale, with the commit."""
    root = make(tmp_path)
    _rename(root, old, new, "rename it")
    write_tree(root, {"AGENTS.md": text + "\n"})
    code, results = check(root)
    found = by_anchor(results)[anchor]
    assert code == 1 and found["verdict"] == "REFUTED" and found["state"] == "gone", found["reason"]
    assert "'rename it'" in found["reason"] and f"now `{new}`" in found["reason"]
