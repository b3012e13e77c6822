"""Identifiers named in prose, beyond a Python helper: PHP types, Prisma models, a name a "no longer"
sentence is said of, and a history whose large blobs a partial clone left out. VERIFIED while defined,
REFUTED with the commit once renamed in every source file. Real git repositories, checked through the CLI."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import git, init_repo, needs_git, write_tree
from tests.test_history import by_anchor, check, commit

pytestmark = needs_git


def rename(root: Path, old: str, new: str, moves: dict[str, str] | None = None) -> None:
    """`old` renamed to `new` in every tracked file but the instruction files (and the files in `moves` moved),
    in one commit, as a refactoring tool does it."""
    for source, target in (moves or {}).items():
        git(root, "mv", source, target)
    for path in git(root, "ls-files").split():
        if path.endswith(".md"):
            continue
        file = root / path
        text = file.read_text()
        changed = re.sub(rf"\b{old}\b", new, text)
        if changed != text:
            file.write_text(changed)
    commit(root, f"rename {old}")


def result_for(results: list[dict], name: str) -> dict:
    [found] = [r for r in results if r["anchor"].startswith("sym:") and r["anchor"].endswith(f"::{name}")]
    return found


PHP_TYPES = {
    "class": "<?php\nnamespace App\\Jobs;\n\nclass DeployJob implements ShouldQueue\n{\n    public function handle(): void {}\n}\n",
    "trait": "<?php\nnamespace App\\Jobs;\n\ntrait DeployJob\n{\n    public function metrics(): array { return []; }\n}\n",
    "interface": "<?php\nnamespace App\\Jobs;\n\ninterface DeployJob\n{\n    public function handle(): void;\n}\n",
    "enum": "<?php\nnamespace App\\Jobs;\n\nenum DeployJob: string\n{\n    case Queued = 'queued';\n}\n",
}


@pytest.mark.parametrize("kind", list(PHP_TYPES))
def test_a_php_type_in_prose_is_verified_then_refuted_once_renamed(tmp_path: Path, kind: str) -> None:
    """coolify's `ApplicationDeploymentJob`, `HasMetrics` (a trait), `ApiAbility`: a Laravel app's types,
    built on the framework's (outside the repository), used by other files through `use`."""
    write_tree(tmp_path, {
        "app/Jobs/DeployJob.php": PHP_TYPES[kind],
        "app/Models/Server.php": "<?php\nnamespace App\\Models;\n\nuse App\\Jobs\\DeployJob;\n\nclass Server\n{\n    public function job(): ?DeployJob { return null; }\n}\n",
        "AGENTS.md": "- **Jobs/** — queue jobs for deployments (`DeployJob`), backups.\n",
    })
    init_repo(tmp_path)
    found = result_for(check(tmp_path)[1], "DeployJob")
    assert found["verdict"] == "VERIFIED" and found["anchor"] == "sym:app/Jobs/DeployJob.php::DeployJob"
    rename(tmp_path, "DeployJob", "ApplicationDeployJob", {"app/Jobs/DeployJob.php": "app/Jobs/ApplicationDeployJob.php"})
    code, results = check(tmp_path)
    found = result_for(results, "DeployJob")
    assert code == 1 and found["verdict"] == "REFUTED" and found["state"] == "gone", found["reason"]
    assert "'rename DeployJob'" in found["reason"]


SCHEMA = """datasource db {
  provider = "postgresql"
  url      = env("DATABASE_URL")
}

model Organisation {
  id    String             @id
  claim OrganisationClaim?
}

model OrganisationClaim {
  id             String       @id
  teamCount      Int
  organisationId String       @unique
  organisation   Organisation @relation(fields: [organisationId], references: [id])
}

enum OrganisationRole {
  ADMIN
  MEMBER
}
"""


def test_a_prisma_model_in_prose_is_verified_then_refuted_with_its_new_name(tmp_path: Path) -> None:
    """documenso's `OrganisationClaim`: defined by the schema alone (the TypeScript client is generated, not
    committed); the code imports it from `@prisma/client`."""
    write_tree(tmp_path, {
        "packages/prisma/schema.prisma": SCHEMA,
        "packages/lib/claims.ts": 'import type { OrganisationClaim } from "@prisma/client";\n\nexport const teams = (c: OrganisationClaim) => c.teamCount;\n',
        "AGENTS.md": "`Organisation` has a 1:1 `OrganisationClaim` that tracks entitlements; roles are `OrganisationRole`.\n",
    })
    init_repo(tmp_path)
    results = check(tmp_path)[1]
    assert result_for(results, "OrganisationClaim")["anchor"] == "sym:packages/prisma/schema.prisma::OrganisationClaim"
    assert result_for(results, "OrganisationRole")["verdict"] == "VERIFIED"
    rename(tmp_path, "OrganisationClaim", "OrganisationEntitlements")
    code, results = check(tmp_path)
    found = result_for(results, "OrganisationClaim")
    assert code == 1 and found["verdict"] == "REFUTED" and "now `OrganisationEntitlements`" in found["reason"], found["reason"]


PROCESSUTILS = 'import sys\n\n\ndef get_sys_executable() -> str:\n    return sys.executable\n'


def test_a_function_a_no_longer_sentence_is_said_of_is_read(tmp_path: Path) -> None:
    """prefect's "**`get_sys_executable()` no longer quotes the Python path.** It previously ...": the name is the
    sentence's subject, here and doing otherwise, and the bold sentence ends at its stop (the next one's
    "previously" is not its); what follows "no longer" ("no longer calls `x`") stays unread."""
    write_tree(tmp_path, {
        "src/utils.py": PROCESSUTILS,
        "AGENTS.md": "- **`get_sys_executable()` no longer quotes the Python path on Windows.** It previously returned it quoted.\n"
                     "- The runner no longer calls `spawn_legacy_worker()`.\n",
    })
    init_repo(tmp_path)
    results = check(tmp_path)[1]
    assert result_for(results, "get_sys_executable")["verdict"] == "VERIFIED"
    assert not [r for r in results if "spawn_legacy_worker" in r["anchor"]]
    rename(tmp_path, "get_sys_executable", "python_executable")
    code, results = check(tmp_path)
    found = result_for(results, "get_sys_executable")
    assert code == 1 and found["verdict"] == "REFUTED" and "now `python_executable`" in found["reason"], found["reason"]


def test_a_history_missing_large_blobs_is_walked_without_them(tmp_path: Path) -> None:
    """A partial clone (`--filter=blob:limit=...`), or a mirror that leaves its largest files out, lacks the
    blobs of a vendored bundle: `git log -G` fails on any commit that changed it. The walk goes on without
    that file, and the helper renamed later in the same history is still shown gone."""
    write_tree(tmp_path, {"public/vendor/bundle.min.js": "var a=1;\n" * 50, "src/utils.py": PROCESSUTILS})
    init_repo(tmp_path)
    old_blob = git(tmp_path, "rev-parse", "HEAD:public/vendor/bundle.min.js").strip()
    write_tree(tmp_path, {"public/vendor/bundle.min.js": "var b=2;\n" * 50})
    commit(tmp_path, "update the bundle")
    rename(tmp_path, "get_sys_executable", "python_executable")
    (tmp_path / ".git/objects" / old_blob[:2] / old_blob[2:]).unlink()  # the bundle's first version: not in this clone
    write_tree(tmp_path, {"AGENTS.md": "Use `get_sys_executable()` to find Python.\n"})
    code, results = check(tmp_path)
    found = result_for(results, "get_sys_executable")
    assert code == 1 and found["verdict"] == "REFUTED" and "'rename get_sys_executable'" in found["reason"], found["reason"]


def test_a_helper_its_callers_name_more_often_than_its_file_is_found_where_it_was_declared(tmp_path: Path) -> None:
    """held-out-8's gitbutler: a test helper renamed across the crate, its defining file 18th of the 18 the commit
    changed by how often each names it (the callers, several times each, with no import that points at it: one
    package), past the files read per name. The file whose removed lines declare it is read first."""
    tree = {"ui/render.go": "package ui\n\nfunc renderSvgEq(a, b int) bool {\n\treturn a == b\n}\n",
            "AGENTS.md": "Compare snapshots with `renderSvgEq()`.\n"}
    for at in range(16):
        calls = "".join(f"\tif !renderSvgEq({n}, {n}) {{\n\t\tt.Fail()\n\t}}\n" for n in range(3))
        tree[f"ui/case{at:02}_test.go"] = f"package ui\n\nimport \"testing\"\n\nfunc TestCase{at}(t *testing.T) {{\n{calls}}}\n"
    write_tree(tmp_path, tree)
    init_repo(tmp_path)
    assert result_for(check(tmp_path)[1], "renderSvgEq")["verdict"] == "VERIFIED"
    rename(tmp_path, "renderSvgEq", "assertSvgEq")
    code, results = check(tmp_path, "--no-cache")
    found = result_for(results, "renderSvgEq")
    assert code == 1 and found["verdict"] == "REFUTED" and "now `assertSvgEq`" in found["reason"], found["reason"]


def test_a_name_written_with_its_scope_is_read_as_the_definition_it_qualifies(tmp_path: Path) -> None:
    # dragonfly writes `facade::OpStatus` (a C++ namespace, which qualifies no definition), a Rust crate
    # `Config::load()`, a Ruby module `Billing::InvoiceMailer`: each is the dotted name of a definition here
    write_tree(tmp_path, {
        "src/facade/op_status.h": "namespace facade {\nenum class OpStatus { OK, SKIPPED };\n}\n",
        "src/config.rs": "pub struct Config;\nimpl Config {\n    pub fn load() -> Self { Config }\n}\n",
        "app/mailers/billing/invoice_mailer.rb": "module Billing\n  class InvoiceMailer\n  end\nend\n",
        "AGENTS.md": "Return a `facade::OpStatus`. Call `Config::load()` first. Mail with `Billing::InvoiceMailer`. "
                     "`std::env::var` reads the environment.\n",
    })
    init_repo(tmp_path)
    found = by_anchor(check(tmp_path)[1])
    status, load, mailer = (next(r for a, r in found.items() if a.endswith(n)) for n in ("::OpStatus", "::Config.load", "::Billing.InvoiceMailer"))
    assert status["verdict"] == load["verdict"] == mailer["verdict"] == "VERIFIED", found
    assert not [a for a in found if "var" in a or "env" in a]  # a standard library path names no definition here
    rename(tmp_path, "OpStatus", "OpResult")
    rename(tmp_path, "load", "from_env")
    found = by_anchor(check(tmp_path)[1])
    status, load = (next(r for a, r in found.items() if a.endswith(n)) for n in ("::OpStatus", "::Config.load"))
    assert status["verdict"] == load["verdict"] == "REFUTED", found
    assert "now `OpResult`" in status["reason"] and "now `Config.from_env`" in load["reason"], found
    check(tmp_path, "--fix")  # written back as written, with its scope
    assert (tmp_path / "AGENTS.md").read_text().startswith("Return a `facade::OpResult`. Call `Config::from_env()` first.")


def test_a_name_said_to_be_deprecated_beside_it_is_no_claim_that_it_stays(tmp_path: Path) -> None:
    # element-x-ios (held-out-12): "`ServiceLocator` **deprecated** — never use services directly." stays right once
    # the class is deleted; the name the same text recommends is still claimed
    write_tree(tmp_path, {
        "Sources/ServiceLocator.swift": "final class ServiceLocator {\n    static let shared = ServiceLocator()\n}\n",
        "Sources/UserSession.swift": "final class UserSession {\n}\n",
        "AGENTS.md": "- `ServiceLocator` **deprecated** — never use services directly; inject a `UserSession`.\n",
    })
    init_repo(tmp_path)
    git(tmp_path, "rm", "-q", "Sources/ServiceLocator.swift")
    commit(tmp_path, "drop the service locator")
    rename(tmp_path, "UserSession", "ClientSession")
    found = by_anchor(check(tmp_path)[1])
    assert not [a for a in found if "ServiceLocator" in a], found
    session = next(r for a, r in found.items() if a.endswith("::UserSession"))
    assert session["verdict"] == "REFUTED" and "now `ClientSession`" in session["reason"], session
