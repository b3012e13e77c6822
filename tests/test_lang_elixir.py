"""Elixir: modules (nested ones by their full names), functions, imports and environment reads, on real git
repositories; and nerves_hub_web's shape end to end: an instruction file naming a function of a module is VERIFIED,
and REFUTED with the commit once a commit renames it."""

from __future__ import annotations

from pathlib import Path

import pytest

from anchorcheck import Verdict
from tests._source_support import check, lines, write
from tests.conftest import init_repo, needs_git, write_tree
from tests.test_history import by_anchor, commit
from tests.test_history import check as check_cli

pytestmark = needs_git

EXTENSIONS = """defmodule NervesHub.Extensions do
  alias NervesHub.Devices
  import Ecto.Query

  @supported_extensions [:health, :geo]

  def network_identity(device), do: Devices.identity(device)

  defp enabled?(ext) when is_atom(ext) do
    System.get_env("NERVES_HUB_EXTENSIONS") || System.fetch_env!("NERVES_HUB_DEFAULT")
  end

  defmodule Health do
    def report(device), do: device
  end
end
"""

SCHEMA = """defmodule NervesHub.Devices.Device do
  use Ecto.Schema
  schema "devices" do
    field :identifier, :string
  end
end
"""

E, S = "lib/nerves_hub/extensions.ex", "lib/nerves_hub/devices/device.ex"


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    return init_repo(write(tmp_path, {E: EXTENSIONS, S: SCHEMA, "mix.exs": "defmodule NervesHub.MixProject do\nend\n"}))


@pytest.mark.parametrize(
    ("anchor", "where"),
    [
        (f"sym:{E}::NervesHub.Extensions", (E, 1)),
        (f"sym:{E}::NervesHub.Extensions.network_identity", (E, 7)),
        (f"sym:{E}::NervesHub.Extensions.enabled?", (E, 9)),
        (f"sym:{E}::NervesHub.Extensions.Health.report", (E, 14)),
        ("env:NERVES_HUB_EXTENSIONS", (E, 10)),
        ("env:NERVES_HUB_DEFAULT", (E, 10)),
        ("import:Ecto", (E, 3)),
        ("import:NervesHub.Devices", (E, 2)),
    ],
)
def test_definitions_env_and_imports(tree: Path, anchor: str, where: tuple[str, int]) -> None:
    result = check(tree, anchor)
    assert result.verdict is Verdict.VERIFIED, result.reason
    assert where in lines(result), lines(result)


def test_what_is_not_defined_is_refuted_unless_a_use_may_define_it(tree: Path) -> None:
    assert check(tree, f"sym:{E}::NervesHub.Extensions.missing").verdict is Verdict.REFUTED
    assert check(tree, "env:NEVER_READ").verdict is Verdict.REFUTED
    # `use Ecto.Schema` runs a macro that defines functions the file does not spell
    assert check(tree, f"sym:{S}::NervesHub.Devices.Device.changeset").verdict is Verdict.INCONCLUSIVE


def test_a_computed_key_or_the_whole_environment_makes_absence_unsure(tmp_path: Path) -> None:
    for read in ("System.get_env(name)", "System.get_env()"):
        root = init_repo(write(tmp_path / read[-3:], {"lib/env.ex": f"defmodule Env do\n  def f(name), do: {read}\nend\n"}))
        assert check(root, "env:NEVER_READ").verdict is Verdict.INCONCLUSIVE, read


def test_a_renamed_elixir_function_named_in_prose_is_refuted_with_the_commit(tmp_path: Path) -> None:
    """nerves_hub_web `AGENTS.md:71`: an extension's function, renamed in every source file, went unread."""
    write_tree(tmp_path, {E: EXTENSIONS, "AGENTS.md": "Extensions answer `network_identity` for each device.\n"})
    init_repo(tmp_path)
    code, results = check_cli(tmp_path)
    anchor = f"sym:{E}::NervesHub.Extensions.network_identity"
    assert code == 0 and by_anchor(results)[anchor]["verdict"] == "VERIFIED", results
    write_tree(tmp_path, {E: EXTENSIONS.replace("network_identity", "net_identity")})
    commit(tmp_path, "rename network_identity")
    code, results = check_cli(tmp_path)
    refuted = by_anchor(results)[anchor]
    assert code == 1 and refuted["verdict"] == "REFUTED" and "'rename network_identity'" in refuted["reason"], refuted


WEB = """alias MyApp.{Accounts, Repo}
defmodule MyApp.Web do
  defmacro __using__(_) do
    quote do
      def injected, do: 1
    end
  end
  for n <- [:alpha, :beta] do
    def unquote(n)(), do: n
  end
  def encode(x) when is_map(x), do: Jason.encode!(x)
  defmodule __MODULE__.Sub do
    def inner, do: 1
  end
end
defimpl Proto, for: MyApp.T do
  def f(x), do: x
end
"""


def test_the_review_s_shapes_of_names_modules_and_imports(tmp_path: Path) -> None:
    # review: a computed function name opens its module; a quoted `def` is the user's, not this module's; a
    # `__MODULE__.Sub` and a `defimpl` are named as Elixir names them; a module called without `alias` is used
    root = init_repo(write(tmp_path, {"lib/web.ex": WEB}))
    assert check(root, "sym:lib/web.ex::MyApp.Web.alpha").verdict is Verdict.INCONCLUSIVE
    assert check(root, "sym:lib/web.ex::MyApp.Web.injected").verdict is not Verdict.VERIFIED
    for anchor in ("sym:lib/web.ex::MyApp.Web.Sub.inner", "sym:lib/web.ex::Proto.MyApp.T.f", "sym:lib/web.ex::MyApp.Web.encode",
                   "import:Jason", "import:MyApp.Accounts", "import:MyApp.Repo"):
        assert check(root, anchor).verdict is Verdict.VERIFIED, anchor
