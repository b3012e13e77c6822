"""Go: cobra's go.mod and go.sum; go.work, replace, tool and // indirect fixtures."""

from __future__ import annotations

from pathlib import Path

from anchorcheck.evidence.packages import DIRECT, INDIRECT, LOCKED, PROJECT, REPLACEMENT, TOOL
from tests._pkg_support import corpus, index, names, needs_corpus, verdict, verifier, write


@needs_corpus
def test_cobra_go_mod_and_go_sum() -> None:
    root = corpus("cobra")
    idx = index(root, "golang")
    assert names(idx, PROJECT) == {"github.com/spf13/cobra"}
    assert names(idx, DIRECT) == {
        "github.com/cpuguy83/go-md2man/v2", "github.com/inconshreveable/mousetrap", "github.com/spf13/pflag", "go.yaml.in/yaml/v3",
    }
    sums = {line.split()[0] for line in (root / "go.sum").read_text().splitlines() if line.strip()}
    assert names(idx, LOCKED) == sums
    # go.sum declares nothing and its versions are never compared.
    only_in_sum = sorted(sums - names(idx, DIRECT))[0]
    assert verdict(root, f"pkg:golang/{only_in_sum}") == "VERIFIED"
    assert verdict(root, f"pkg:golang/{only_in_sum}@v0.0.1") == "INCONCLUSIVE"
    assert verdict(root, "pkg:golang/github.com/spf13/pflag@v1.0.9") == "VERIFIED"
    assert verdict(root, "pkg:golang/github.com/spf13/pflag@>=v1.0.0,<v1.0.9") == "REFUTED"
    assert verdict(root, "pkg:golang/net/http") == "INCONCLUSIVE"
    assert verdict(root, "pkg:golang/github.com/urfave/cli") == "REFUTED"


def test_go_work_replace_tool_indirect(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "go.work": "go 1.23\n\nuse (\n\t./svc\n\t./lib\n)\n",
            "svc/go.mod": "module example.com/svc\n\ngo 1.23\n\nrequire (\n\tgithub.com/a/b v1.2.3\n"
            "\tgithub.com/c/d v0.1.0 // indirect\n)\n\nreplace github.com/a/b => github.com/fork/b v1.2.4\n"
            "replace github.com/x/y => ../y\nexclude github.com/a/b v1.0.0\ntool golang.org/x/tools/cmd/stringer\n",
            "lib/go.mod": 'module example.com/lib\n\ngo 1.23\n\nrequire "github.com/e/f" v2.0.0+incompatible\n',
            "other/go.mod": "module example.com/other\n\nrequire github.com/g/h v1.0.0\n",
        },
    )
    idx = index(tmp_path, "golang")
    assert names(idx, DIRECT) == {"github.com/a/b", "github.com/e/f"}
    assert names(idx, INDIRECT) == {"github.com/c/d"}
    assert names(idx, REPLACEMENT) == {"github.com/fork/b"}
    assert names(idx, TOOL) == {"golang.org/x/tools/cmd/stringer"}
    assert verdict(tmp_path, "pkg:golang/github.com/g/h") == "REFUTED"  # other/ is not a go.work member
    assert verdict(tmp_path, "pkg:golang/github.com/e/f@>=v2") == "VERIFIED"
    result = verifier(tmp_path).check("pkg:golang/github.com/c/d")
    assert result.verdict.value == "VERIFIED" and "indirect" in result.reason and "workspace member svc" in result.reason


def test_broken_go_mod_names_the_line(tmp_path: Path) -> None:
    write(tmp_path, {"go.mod": "module x\n\nrequire (\n\tgithub.com/a/b\n)\n"})
    result = verifier(tmp_path).check("pkg:golang/github.com/z/z")
    assert result.verdict.value == "INCONCLUSIVE" and "go.mod:4" in result.reason
