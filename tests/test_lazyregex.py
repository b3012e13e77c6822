"""`later(...)` patterns: compiled at their first use, then answering as the compiled pattern does."""

from __future__ import annotations

import copy
import pickle
import re

from anchorcheck.base.lazyregex import later
from tests.test_lazy_plugins import MIXED, _modules_after


def test_a_later_pattern_answers_as_the_compiled_one() -> None:
    lazy, eager = later(r"(\w+)=(\d+)", re.ASCII), re.compile(r"(\w+)=(\d+)", re.ASCII)
    text = "a=1 bé=2 c=x d=44"
    assert [m.groups() for m in lazy.finditer(text)] == [m.groups() for m in eager.finditer(text)]
    assert lazy.sub(r"\2", text) == eager.sub(r"\2", text) and lazy.fullmatch("x=1") is not None
    assert (lazy.pattern, lazy.flags, lazy.groups) == (eager.pattern, eager.flags, eager.groups)
    assert later(rb"\x00+").split(b"a\x00\x00b") == [b"a", b"b"]


def test_a_later_pattern_is_compiled_at_its_first_use_and_survives_copy_and_pickle() -> None:
    lazy = later(r"x+")
    assert set(vars(lazy)) == {"_source"}  # nothing compiled yet
    assert copy.deepcopy(lazy).match("xx") is not None and pickle.loads(pickle.dumps(lazy)).match("xx") is not None
    assert lazy.match("xxy").group() == "xx"
    assert "match" in vars(lazy)  # kept: found without __getattr__ from now on
    assert pickle.loads(pickle.dumps(lazy)).match("x") is not None


def test_a_check_that_reads_no_requirements_or_dotenv_file_compiles_none_of_their_patterns(make_repo) -> None:  # noqa: ANN001
    root = make_repo(MIXED)
    code = (
        "from anchorcheck.cli import main\nprint('EXIT', main(['check']))\n"
        "from anchorcheck_plugins.ecosystems import pypi_requirements as r\nfrom anchorcheck_plugins.kinds import env_config as e\n"
        "waiting = [n for m in (r, e) for n, v in vars(m).items() if type(v).__name__ == '_Later' and set(vars(v)) == {'_source'}]\n"
        "print('WAITING', ' '.join(sorted(waiting)))"
    )
    mods, out = _modules_after(root, code)
    assert "EXIT 1" in out and "anchorcheck_plugins.kinds.env_config" in mods
    waiting = set(out.split("WAITING ", 1)[1].split())
    assert {"_COMMENT", "_INCLUDE", "_EDITABLE", "_DOTENV_LINE", "_DOCKER_LINE", "_YAML_LINE"} <= waiting, out
