"""A name from prose whose class inherits from a base with no source here (a gem's `ActiveSupport::Concern`): the
doubt that the base defines it gives way to history only where the code stopped using the name with its definition.
Real git repositories, checked through the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import init_repo, needs_git, write_tree
from tests.test_history import by_anchor, check, commit

pytestmark = needs_git

CONCERN = """module Shop
  module HasNumber
    extend ActiveSupport::Concern

    # generate_number gives the order its number
    def generate_number(options = {})
      self.number ||= "R#{rand(1000)}"
    end
  end
end
"""
ORDER = """module Shop
  class Order < Shop::Base
    include Shop::HasNumber

    def prepare
      generate_number
    end
  end
end
"""
ANCHOR = "sym:app/models/concerns/shop/has_number.rb::Shop.HasNumber.generate_number"
TEXT = "Creating an order requires calling `generate_number` first.\n"


@pytest.fixture
def concern(tmp_path: Path) -> Path:
    """A concern's method and its caller, committed; the test makes the change."""
    write_tree(tmp_path, {"app/models/concerns/shop/has_number.rb": CONCERN, "app/models/shop/order.rb": ORDER})
    return init_repo(tmp_path)


def _rename(root: Path, *paths: str) -> None:
    for path in paths:
        write_tree(root, {path: (root / path).read_text().replace("generate_number", "assign_number")})
    commit(root, "rename generate_number")


def test_a_concern_method_renamed_with_its_callers_is_refuted_with_the_commit(concern: Path) -> None:
    _rename(concern, "app/models/concerns/shop/has_number.rb", "app/models/shop/order.rb")
    write_tree(concern, {"CLAUDE.md": TEXT})
    code, results = check(concern)
    found = by_anchor(results)[ANCHOR]
    assert code == 1 and found["verdict"] == "REFUTED" and found["state"] == "gone" and found["severity"] == "error"
    assert "'rename generate_number'" in found["reason"] and "now `assign_number`" in found["reason"], found["reason"]
    assert "app/models/shop/order.rb:6 too" in found["reason"]
    assert found["details"]["fix"] == {"from": "generate_number", "to": "assign_number", "name": True}


def test_a_concern_method_still_called_elsewhere_stays_inconclusive(concern: Path) -> None:
    write_tree(concern, {"lib/tasks/numbers.rb": "Shop::Order.new.generate_number\n"})
    commit(concern, "a task that numbers orders")
    _rename(concern, "app/models/concerns/shop/has_number.rb", "app/models/shop/order.rb")
    write_tree(concern, {"CLAUDE.md": TEXT})
    code, results = check(concern)
    found = by_anchor(results)[ANCHOR]
    assert code == 0 and found["verdict"] == "INCONCLUSIVE", found["reason"]
    assert "lib/tasks/numbers.rb still writes `generate_number`" in found["reason"]


def test_a_definition_removed_alone_may_leave_the_bases_member(concern: Path) -> None:
    """An override deleted with no caller of the repository's going with it looks just like this: the base's
    member may still be there, so history alone does not make the text false (the comment above it is no use)."""
    write_tree(concern, {"app/models/shop/order.rb": ORDER.replace("      generate_number\n", "      true\n")})
    commit(concern, "prepare without a number")
    write_tree(concern, {"app/models/concerns/shop/has_number.rb": CONCERN.replace(
        '    # generate_number gives the order its number\n    def generate_number(options = {})\n      self.number ||= "R#{rand(1000)}"\n    end\n',
        "")})
    commit(concern, "drop generate_number")
    write_tree(concern, {"CLAUDE.md": TEXT})
    code, results = check(concern)
    found = by_anchor(results)[ANCHOR]
    assert code == 0 and found["verdict"] == "INCONCLUSIVE" and found["state"] == "unfollowed", found["reason"]
    assert "'drop generate_number'" in found["reason"] and "the base may still supply it" in found["reason"]


def test_a_typed_anchor_keeps_the_doubt_of_the_base(concern: Path) -> None:
    _rename(concern, "app/models/concerns/shop/has_number.rb", "app/models/shop/order.rb")
    write_tree(concern, {"CLAUDE.md": f"Numbers: `{ANCHOR}`.\n"})
    code, results = check(concern)
    found = by_anchor(results)[ANCHOR]
    assert code == 0 and found["verdict"] == "INCONCLUSIVE" and found["state"] == "unfollowed"
    assert "cannot be followed" in found["reason"] and "until" not in found["reason"]
