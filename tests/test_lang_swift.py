"""Swift: definitions (types, enum cases, protocols, actors, extension members, properties, typealiases), bases,
imports and environment reads, on real git repositories; and CodexBar's shape end to end: a CLAUDE.md line naming
a Swift type the repository defines is VERIFIED, REFUTED with the commit once a commit renames it everywhere, and a
name never defined is not read."""

from __future__ import annotations

from pathlib import Path

import pytest

from anchorcheck import Verdict
from tests._source_support import check, lines, write
from tests.conftest import init_repo, needs_git, write_tree
from tests.test_history import by_anchor, commit
from tests.test_history import check as check_cli

pytestmark = needs_git

APP = """
import Foundation
@testable import CodexBarCore
import struct os.OSAllocatedUnfairLock

@MainActor
final class UsageStore: NSObject {
    static let shared = UsageStore()
    var total, limit: Int
    init(total: Int) { self.total = total; self.limit = 0 }
    func refresh() -> String? {
        let home = ProcessInfo.processInfo.environment["CODEXBAR_HOME"]
        let label = "total \\(total)"
        _ = label
        return home ?? String(cString: getenv("CODEXBAR_DEBUG"))
    }
    struct Snapshot { var used = 0 }
}

struct MenuDescriptor {
    let title: String
}

enum ProviderKind: Int {
    case codex, claude = 2
    case custom
}

protocol UsageFetching: AnyObject {
    func fetch() async throws
    var interval: Double { get }
}

actor Poller { func tick() {} }
typealias Fetcher = UsageFetching
let defaultInterval = 60.0
func makeStore() -> UsageStore { UsageStore(total: 0) }
"""

EXTENSION = """
extension MenuDescriptor: Equatable {
    func render() -> String { title }
}
"""

PLAIN = """
struct Point {
    var x = 0
}
enum Side {
    case left, right
}
"""

A, E, P = "Sources/CodexBar/UsageStore.swift", "Sources/CodexBar/MenuDescriptor+Render.swift", "Sources/CodexBarCore/Point.swift"


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    return init_repo(write(tmp_path, {A: APP, E: EXTENSION, P: PLAIN}))


@pytest.mark.parametrize(
    ("anchor", "where"),
    [
        (f"sym:{A}::UsageStore", (A, 5)),  # the line of its attribute
        (f"sym:{A}::UsageStore.shared", (A, 7)),
        (f"sym:{A}::UsageStore.limit", (A, 8)),
        (f"sym:{A}::UsageStore.init", (A, 9)),
        (f"sym:{A}::UsageStore.refresh", (A, 10)),
        (f"sym:{A}::UsageStore.Snapshot.used", (A, 16)),
        (f"sym:{A}::MenuDescriptor.title", (A, 20)),
        (f"sym:{A}::MenuDescriptor.render", (E, 2)),  # an extension in another file
        (f"sym:{E}::MenuDescriptor.render", (E, 2)),
        (f"sym:{A}::ProviderKind.claude", (A, 24)),
        (f"sym:{A}::ProviderKind.custom", (A, 25)),
        (f"sym:{A}::UsageFetching.fetch", (A, 29)),
        (f"sym:{A}::UsageFetching.interval", (A, 30)),
        (f"sym:{A}::Poller.tick", (A, 33)),
        (f"sym:{A}::Fetcher", (A, 34)),
        (f"sym:{A}::defaultInterval", (A, 35)),
        (f"sym:{A}::makeStore", (A, 36)),
        (f"sym:{P}::Side.right", (P, 5)),
        ("env:CODEXBAR_HOME", (A, 11)),
        ("env:CODEXBAR_DEBUG", (A, 14)),
        ("import:Foundation", (A, 1)),
        ("import:CodexBarCore", (A, 2)),  # @testable
        ("import:os", (A, 3)),  # `import struct os.OSAllocatedUnfairLock`
    ],
)
def test_definitions_env_and_imports(tree: Path, anchor: str, where: tuple[str, int]) -> None:
    result = check(tree, anchor)
    assert result.verdict is Verdict.VERIFIED, result.reason
    assert lines(result)[0] == where


@pytest.mark.parametrize(
    "anchor",
    ["import:UIKit", "env:NEVER_READ", f"sym:{A}::Renamed", f"sym:{E}::MenuDescriptor", f"sym:{P}::Point.y", f"sym:{P}::Side.up"],
)
def test_what_is_not_defined_is_refuted(tree: Path, anchor: str) -> None:
    """An extension defines no type; a struct or enum with no base is closed, its extensions in any file looked at."""
    assert check(tree, anchor).verdict is Verdict.REFUTED


@pytest.mark.parametrize("anchor", [f"sym:{A}::UsageStore.inherited", f"sym:{A}::ProviderKind.rawValue"])
def test_a_member_a_superclass_or_protocol_may_give_is_not_refuted(tree: Path, anchor: str) -> None:
    """UsageStore derives from NSObject and ProviderKind has the raw type Int, neither defined here."""
    assert check(tree, anchor).verdict is Verdict.INCONCLUSIVE


@pytest.mark.parametrize("read", ['environment["CODEXBAR_\\(n)"]', "environment[key]", "environment.keys"])
def test_a_computed_key_or_the_whole_environment_makes_absence_unsure(tmp_path: Path, read: str) -> None:
    source = f"import Foundation\nlet key = name()\nlet n = 1\nlet v = ProcessInfo.processInfo.{read}\n"
    root = init_repo(write(tmp_path, {"Sources/App/Env.swift": source}))
    assert check(root, "env:CODEXBAR_OTHER").verdict is Verdict.INCONCLUSIVE


def test_a_member_of_a_protocol_in_another_file_is_found(tmp_path: Path) -> None:
    root = init_repo(write(tmp_path, {
        "Sources/App/Runner.swift": "protocol Runner {\n    func run()\n}\n",
        "Sources/App/Job.swift": "struct Job: Runner {\n}\n",
    }))
    result = check(root, "sym:Sources/App/Job.swift::Job.run")
    assert result.verdict is Verdict.VERIFIED and ("Sources/App/Runner.swift", 2) in lines(result), result.reason


_PANE = "import SwiftUI\n\nstruct ProvidersPane: View {\n    var body: some View { Text(\"x\") }\n}\n"
_USE = "import SwiftUI\n\nstruct SettingsView: View {\n    var body: some View { ProvidersPane() }\n}\n"


def test_a_renamed_swift_type_named_in_prose_is_refuted_with_the_commit(tmp_path: Path) -> None:
    """CodexBar's dev-4 drift: "covering menu behavior through (`ProvidersPane`, ...)" after a commit renamed the
    struct in every file."""
    layout = {"Sources/CodexBar/PreferencesProvidersPane.swift": _PANE, "Sources/CodexBar/SettingsView.swift": _USE}
    write_tree(tmp_path, {**layout, "CLAUDE.md": "Prefer covering menu behavior through `ProvidersPane`; see `NeverDefinedHere`.\n"})
    init_repo(tmp_path)
    code, results = check_cli(tmp_path)
    found = by_anchor(results)
    pane = "sym:Sources/CodexBar/PreferencesProvidersPane.swift::ProvidersPane"
    assert code == 0 and found[pane]["verdict"] == "VERIFIED", found
    assert not [a for a in found if "NeverDefinedHere" in a]  # never defined here: not read
    write_tree(tmp_path, {path: text.replace("ProvidersPane", "ProviderSettingsPane") for path, text in layout.items()})
    commit(tmp_path, "rename ProvidersPane")
    code, results = check_cli(tmp_path)
    refuted = [r for r in results if r["anchor"].endswith("::ProvidersPane")]
    assert code == 1 and refuted and refuted[0]["verdict"] == "REFUTED", results
    assert "'rename ProvidersPane'" in refuted[0]["reason"] and "now `ProviderSettingsPane`" in refuted[0]["reason"], refuted


def test_a_default_a_protocol_extension_gives_is_found(tmp_path: Path) -> None:
    """`extension Runner { func describe() }` in a third file of the module gives every conforming type `describe`."""
    root = init_repo(write(tmp_path, {
        "Sources/App/Runner.swift": "protocol Runner {\n    func run()\n}\n",
        "Sources/App/Runner+Describe.swift": "extension Runner {\n    func describe() -> String { \"\" }\n}\n",
        "Sources/App/Job.swift": "struct Job: Runner {\n    func run() {}\n}\n",
    }))
    result = check(root, "sym:Sources/App/Job.swift::Job.describe")
    assert result.verdict is Verdict.VERIFIED and ("Sources/App/Runner+Describe.swift", 2) in lines(result), result.reason
    assert check(root, "sym:Sources/App/Job.swift::Job.missing").verdict is Verdict.REFUTED
