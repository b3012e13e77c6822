"""`import:` as a closed-world claim: scopes (the present trap), negation, bad files, unsupported languages."""

from __future__ import annotations

from tests._source_support import check, lines, verifier, write

from anchorcheck import Verdict
from anchorcheck.evidence.index import SourceIndex


def test_present_trap_scope_excludes_unrelated_use(tmp_path):
    write(tmp_path, {"src/incidents/store.py": "import json\n", "scripts/backfill.py": "import sqlite3\n"})
    assert check(tmp_path, "import:sqlite3").verdict is Verdict.VERIFIED
    scoped = check(tmp_path, "import:sqlite3 in:src/incidents/")
    assert scoped.verdict is Verdict.REFUTED
    assert "searched 1 source file" in scoped.reason
    assert check(tmp_path, "import:sqlite3 in:scripts/*.py").verdict is Verdict.VERIFIED


def test_negated_anchor(tmp_path):
    write(tmp_path, {"app.py": "import redis\n"})
    assert check(tmp_path, "!import:celery").verdict is Verdict.VERIFIED
    assert check(tmp_path, "!import:redis").verdict is Verdict.REFUTED


def test_evidence_classifies_code(tmp_path):
    write(
        tmp_path,
        {
            "src/a.py": "import redis\n",
            "tests/test_a.py": "import redis\n",
            "examples/demo.py": "import redis\n",
            "third_party/lib.py": "import redis\n",
        },
    )
    result = check(tmp_path, "import:redis")
    kinds = {e.path: e.detail for e in result.evidence}
    assert "production" in kinds["src/a.py"] and "test" in kinds["tests/test_a.py"]
    # Production and test code said enough: examples and vendored code are left unparsed.
    assert set(kinds) == {"src/a.py", "tests/test_a.py"} and "at least 1 other place" in result.reason
    (tmp_path / "src/a.py").unlink()
    (tmp_path / "tests/test_a.py").unlink()
    result = check(tmp_path, "import:redis")
    # No production code imports it: that takes the whole search, which says so (issue 15).
    assert [e.path for e in result.evidence] == ["examples/demo.py", "third_party/lib.py"]
    assert result.details["only_in"] == "example or vendored" and "only in example or vendored code" in result.reason
    (tmp_path / "examples/demo.py").unlink()
    evidence = check(tmp_path, "import:redis").evidence
    assert [e.path for e in evidence] == ["third_party/lib.py"] and "vendored" in evidence[0].detail


def test_syntax_error_in_a_candidate_is_inconclusive(tmp_path):
    write(tmp_path, {"ok.py": "import json\n", "broken.py": "import redis_like\ndef (:\n"})
    result = check(tmp_path, "import:redis")
    assert result.verdict is Verdict.INCONCLUSIVE
    assert "broken.py:2" in result.reason
    # a file that cannot mention the module does not matter, even when broken
    assert check(tmp_path, "import:yaml").verdict is Verdict.REFUTED


def test_binary_and_unsupported_files(tmp_path):
    write(tmp_path, {"blob.py": b"import redis\x00\x01", "Main.scala": "import redis\n"})
    result = check(tmp_path, "import:redis")
    assert result.verdict is Verdict.INCONCLUSIVE
    assert "no source file" in result.reason
    write(tmp_path, {"real.py": "import os\n"})
    assert check(tmp_path, "import:redis").verdict is Verdict.REFUTED


def test_malformed_anchor(tmp_path):
    assert check(tmp_path, "import:.relative").state == "malformed"


def test_scope_outside_repo_is_refused(tmp_path):
    write(tmp_path, {"a.py": "import os\n"})
    assert check(tmp_path, "import:os in:../").verdict is Verdict.INCONCLUSIVE


def test_a_hit_in_an_unparseable_file_still_counts(tmp_path):
    write(tmp_path, {"a.py": "import redis\ndef (:\n"})
    assert lines(check(tmp_path, "import:redis")) == [("a.py", 1)]


def test_evidence_names_the_distribution(tmp_path):
    write(tmp_path, {"src/app/__init__.py": "", "src/app/main.py": "import yaml\nfrom sklearn.linear_model import X\nfrom app import helpers\n"})
    yaml = check(tmp_path, "import:yaml")
    assert yaml.details["distributions"] == ["pyyaml"] and "pyyaml" in yaml.reason
    assert check(tmp_path, "import:sklearn").details["distributions"] == ["scikit-learn"]
    own = check(tmp_path, "import:app")
    assert own.details.get("first_party") is True and "distributions" not in own.details


def test_the_distribution_is_named_when_other_languages_answer_first(tmp_path):
    """A search may stop at three JavaScript `require("yaml")`s, the smallest files, before any
    Python file: the PyPI distribution still needs a Python import, which is looked for."""
    js = {f"web/w{i}.js": 'const y = require("yaml");\n' for i in range(4)}
    python = "import yaml\n" + "".join(f"def f{i}():\n    return {i}\n" for i in range(50))
    write(tmp_path, {**js, "app/load.py": python})
    result = check(tmp_path, "import:yaml")
    assert result.details["distributions"] == ["pyyaml"] and "pyyaml" in result.reason
    # The evidence cites the three smallest importers, however many the search saw (issue 15).
    assert [e.path for e in result.evidence] == ["web/w0.js", "web/w1.js", "web/w2.js"]
    assert result.details["imports"] == 3 and result.details["complete"] is False


def test_a_broken_file_parsed_for_another_anchor_does_not_block_absence(tmp_path):
    write(tmp_path, {"a.py": "import redis\n", "broken.py": "import redis\ndef (:\n"})
    v = verifier(tmp_path)
    assert v.check("import:redis").verdict is Verdict.VERIFIED  # parses broken.py too
    assert v.check("import:celery").verdict is Verdict.REFUTED


def test_pkg_evidence_says_whether_a_declared_package_is_imported(tmp_path):
    write(
        tmp_path,
        {
            "pyproject.toml": '[project]\nname = "app"\nversion = "1"\ndependencies = ["PyYAML>=6", "black"]\n',
            "src/app/__init__.py": "",
            "src/app/conf.py": "import os\nimport yaml\n",
        },
    )
    used = check(tmp_path, "pkg:pypi/pyyaml")
    assert used.verdict is Verdict.VERIFIED
    assert used.details["imported"] is True and used.details["imported_at"] == "src/app/conf.py:2"
    unused = check(tmp_path, "pkg:pypi/black")
    assert unused.verdict is Verdict.VERIFIED
    assert unused.details["imported"] is False and "no source file imports it" in unused.reason


def test_a_scoped_pkg_says_whether_its_project_imports_it(tmp_path):
    """`pkg:npm/zod in:packages/core/` said "imported as zod at integration-tests/bun/zod.ts:3" in
    openai-agents-js: an import outside the project named in the anchor. The project's own code counts."""
    write(
        tmp_path,
        {
            "package.json": '{"name": "root", "private": true, "workspaces": ["packages/*"]}',
            "packages/core/package.json": '{"name": "core", "dependencies": {"zod": "^3", "chalk": "^5"}}',
            "packages/core/src/index.ts": "import chalk from 'chalk'\n",
            "packages/web/package.json": '{"name": "web", "dependencies": {"zod": "^3"}}',
            "packages/web/src/form.ts": "import { z } from 'zod'\n",
        },
    )
    unused = check(tmp_path, "pkg:npm/zod in:packages/core/")
    assert unused.verdict is Verdict.VERIFIED and unused.details["imported"] is False, unused.reason
    assert "no source file in packages/core/ imports it (zod)" in unused.reason
    used = check(tmp_path, "pkg:npm/zod in:packages/web/package.json")
    assert used.details["imported_at"] == "packages/web/src/form.ts:1", used.reason
    assert check(tmp_path, "pkg:npm/zod").details["imported_at"] == "packages/web/src/form.ts:1"


def test_scope_matching_nothing_says_so(tmp_path):
    root = write(tmp_path, {"src/app.py": "import redis\n"})
    for anchor in ("import:redis in:src/cache/", "env:REDIS_URL in:src/cache/"):
        result = check(root, anchor)
        assert result.verdict is Verdict.INCONCLUSIVE
        assert result.reason == "no file of the repository matches the scope 'src/cache/'"


def test_dotted_module_parses_only_files_that_spell_each_segment(tmp_path):
    """An import of a.b.c spells each of a, b and c, or (a relative import) takes it from a directory
    the file lies below: other files of the package are ruled out unparsed, however many name `a`
    or `c`, and a relative import inside b/ or c/ is still found."""
    files = {f"pkg/mod{i}.py": "import pkg.other\nfrom pkg import util\n" for i in range(40)}
    files.update({f"app/t{i}.py": "import time\nfrom pkg.filters import date\n" for i in range(20)})
    files.update({"pkg/__init__.py": "", "pkg/sub/__init__.py": "", "pkg/sub/inner.py": "from . import deep\n"})
    files.update({"pkg/filters/__init__.py": "", "pkg/filters/use.py": "from . import time\n"})
    write(tmp_path, files)
    v = verifier(tmp_path)
    result = v.check("import:pkg.sub")
    assert result.verdict is Verdict.VERIFIED
    assert [e.path for e in result.evidence] == ["pkg/sub/inner.py"]  # `from . import deep` inside pkg/sub/
    assert SourceIndex.of(v.context).parsed == 2  # the files under pkg/sub/, not the 60 others
    result = v.check("import:pkg.filters.time")
    assert result.verdict is Verdict.VERIFIED
    assert [e.location() for e in result.evidence] == ["pkg/filters/use.py:1"]
    assert SourceIndex.of(v.context).parsed == 3  # not the 20 that spell `time` and `pkg` but not `filters`
    for absent in ("import:pkg.absent", "import:pkg.other.time"):
        refuted = v.check(absent)
        assert refuted.verdict is Verdict.REFUTED and f"{len(files)} never mention it" in refuted.reason


def test_broken_file_that_cannot_spell_the_module_does_not_matter(tmp_path):
    write(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": "from pkg import b\n", "broken.py": "import pkg\ndef (:\n"})
    assert check(tmp_path, "import:pkg.gone").verdict is Verdict.REFUTED
    shaky = check(tmp_path, "import:pkg")
    assert shaky.verdict is Verdict.VERIFIED  # pkg/a.py imports it; the broken file only adds doubt to absence
    write(tmp_path, {"broken.py": "print('pkg', 'gone')\ndef (:\n"})  # it names both: it could
    assert check(tmp_path, "import:pkg.gone").verdict is Verdict.INCONCLUSIVE


def test_dotted_module_likely_importers_are_the_statements_that_name_it(tmp_path):
    """`from a.b.c import X` imports a.b.c.X; `from a.b.c.base import X` does not, though it names
    every segment: the files with the latter are not taken for likely importers, so they are parsed
    only if nothing better answers."""
    files = {f"pkg/m{i:02}.py": "from pkg.models.base import Model\n" for i in range(30)}
    files.update({"pkg/z_user.py": "from pkg.models import Model\n", "pkg/z_other.py": "import pkg.models.Model.x\n"})
    write(tmp_path, files)
    v = verifier(tmp_path)
    result = v.check("import:pkg.models.Model")
    assert result.verdict is Verdict.VERIFIED
    assert [e.location() for e in result.evidence] == ["pkg/z_other.py:1", "pkg/z_user.py:1"]
    assert SourceIndex.of(v.context).parsed == 2  # the search and the evidence parse only the two


def test_evidence_in_tests_is_cited_without_parsing_every_test(tmp_path):
    """Once production code answered and tests are next, one production import is enough: the
    evidence cites the first test importers, the others stay unparsed."""
    files = {"src/app.py": "import redis\n"}
    files.update({f"tests/test_{i:02}.py": "import redis\n" for i in range(20)})
    write(tmp_path, files)
    v = verifier(tmp_path)
    result = v.check("import:redis")
    assert result.verdict is Verdict.VERIFIED
    assert [e.path for e in result.evidence] == ["src/app.py", "tests/test_00.py", "tests/test_01.py"]
    assert SourceIndex.of(v.context).parsed == 3
