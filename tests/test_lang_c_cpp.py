"""C and C++: definitions (prototypes, out-of-line methods, enums, typedefs, macros), bases and `getenv`, on real
git repositories; and dragonfly's shape end to end: a CLAUDE.md line naming a C++ enum the repository defines is
VERIFIED, REFUTED with the commit once a commit renames it everywhere, and a name never defined is not read."""

from __future__ import annotations

from pathlib import Path

import pytest

from anchorcheck import Verdict
from tests._source_support import check, lines, write
from tests.conftest import init_repo, needs_git, write_tree
from tests.test_history import by_anchor, commit
from tests.test_history import check as check_cli

pytestmark = needs_git

HEADER = """
#ifndef FACADE_CONN_H
#define FACADE_CONN_H
#include <string>
#define MAX_ARGS 16
#define SQUARE(x) ((x) * (x))
namespace facade {
enum class OpStatus : uint16_t { OK, KEY_NOTFOUND };
class Conn : public Base {
 public:
  Conn();
  void Send(int x) const;
  static int count_;
  int Inline() { return 1; }
  enum Mode { FAST, SLOW };
  using Ptr = Conn*;
};
typedef struct node { int v; } node_t;
using Status = OpStatus;
int free_fn(int a);
}  // namespace facade
#endif
"""

SOURCE = """
#include "facade/conn.h"
#if USE_SSL
#include <openssl/ssl.h>
#endif
namespace facade {
Conn::Conn() {}
int Conn::count_ = 0;
}  // namespace facade
void facade::Conn::Send(int x) const { const char* v = std::getenv("DF_SEND"); }
"""

C_SOURCE = """
#include <zlib.h>
typedef void (*callback_t)(int);
struct point { int x, y; };
static int counter = 0;
int add(int a, int b);
int add(int a, int b) { return a + b + (getenv("C_HOME") != NULL); }
int scale(void) { return qEnvironmentVariableIntValue("QT_SCALE"); }
"""

H, CC, C = "src/facade/conn.h", "src/facade/conn.cc", "lib/point.c"


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    return init_repo(write(tmp_path, {H: HEADER, CC: SOURCE, C: C_SOURCE}))


@pytest.mark.parametrize(
    ("anchor", "where"),
    [
        (f"sym:{H}::MAX_ARGS", (H, 4)),
        (f"sym:{H}::SQUARE", (H, 5)),
        (f"sym:{H}::OpStatus", (H, 7)),
        (f"sym:{H}::OpStatus.KEY_NOTFOUND", (H, 7)),
        (f"sym:{H}::Conn", (H, 8)),
        (f"sym:{H}::Conn.Send", (H, 11)),  # declared in the class
        (f"sym:{H}::Conn.count_", (H, 12)),
        (f"sym:{H}::Conn.Inline", (H, 13)),
        (f"sym:{H}::Conn.Mode.SLOW", (H, 14)),
        (f"sym:{H}::Conn.Ptr", (H, 15)),
        (f"sym:{H}::node_t.v", (H, 17)),
        (f"sym:{H}::node", (H, 17)),
        (f"sym:{H}::Status", (H, 18)),
        (f"sym:{H}::free_fn", (H, 19)),  # a prototype
        (f"sym:{CC}::Conn.Conn", (CC, 6)),  # out of line, inside the namespace
        (f"sym:{CC}::Conn.count_", (CC, 7)),
        (f"sym:{CC}::Conn.Send", (CC, 9)),  # out of line, the namespace written in the name
        (f"sym:{C}::callback_t", (C, 2)),
        (f"sym:{C}::point.y", (C, 3)),
        (f"sym:{C}::counter", (C, 4)),
        (f"sym:{C}::add", (C, 5)),  # the prototype first, then the definition
        ("env:DF_SEND", (CC, 9)),
        ("env:C_HOME", (C, 6)),
        ("env:QT_SCALE", (C, 7)),
        ("import:zlib", (C, 1)),  # <zlib.h>
        ("import:openssl", (CC, 3)),  # <openssl/ssl.h>, inside an `#if`
        ("import:facade/conn", (CC, 1)),
    ],
)
def test_definitions_and_env(tree: Path, anchor: str, where: tuple[str, int]) -> None:
    result = check(tree, anchor)
    assert result.verdict is Verdict.VERIFIED, result.reason
    assert lines(result)[0] == where


@pytest.mark.parametrize("anchor", ["import:ssl", "env:NEVER_READ", f"sym:{H}::Renamed", f"sym:{H}::OpStatus.MISSING", f"sym:{C}::point.z", f"sym:{CC}::facade.Conn.Send"])
def test_what_is_not_defined_is_refuted(tree: Path, anchor: str) -> None:
    """An include is its path's segments (`openssl/ssl`: not `ssl`); namespaces do not qualify names; an enum's
    enumerators and a struct with no base are closed."""
    assert check(tree, anchor).verdict is Verdict.REFUTED


def test_a_member_a_base_may_give_is_not_refuted(tree: Path) -> None:
    """Conn derives from `Base`, which no file here defines: what it lacks may come from there."""
    assert check(tree, f"sym:{H}::Conn.inherited").verdict is Verdict.INCONCLUSIVE


@pytest.mark.parametrize("source", ["lib/cmds.c", "lib/cmds.cc"])
def test_a_name_a_top_level_macro_call_may_define_is_not_refuted(tmp_path: Path, source: str) -> None:
    """`DEFINE_CMD(get)` pastes `getCommand` together (`name##Command`) in a header, `LIST_HEAD(waiters);` defines
    `waiters`: no declaration of the file writes them, so a file that calls a macro at its top level proves no name
    absent; a member of a struct it defines still is."""
    root = init_repo(write(tmp_path, {
        "lib/cmds.h": "#define DEFINE_CMD(name) void name##Command(int c) { (void)c; }\n",
        source: '#include "cmds.h"\nDEFINE_CMD(get);\nLIST_HEAD(waiters);\nstruct point { int x; };\nint plain(void) { return 0; }\n',
    }))
    for name in ("getCommand", "waiters"):
        result = check(root, f"sym:{source}::{name}")
        assert result.verdict is Verdict.INCONCLUSIVE and f"{source}:2 DEFINE_CMD(...)" in result.reason, result.reason
    assert check(root, f"sym:{source}::plain").verdict is Verdict.VERIFIED
    assert check(root, f"sym:{source}::point.z").verdict is Verdict.REFUTED


def test_template_arguments_nested_deep_are_taken_off_a_name(tmp_path: Path) -> None:
    """An out-of-line method of a class template is the class's (`Conn<Map<K, V>>::Send` is `Conn.Send`), however deep
    its arguments nest."""
    deep = "template<> void Box" + "<Box" * 2_000 + ">" * 2_000 + "::Open() {}\n"
    source = "template<> void Conn<Map<K, V>>::Send() {}\n" + deep
    root = init_repo(write(tmp_path, {"conn.cc": source}))
    for anchor in ("sym:conn.cc::Conn.Send", "sym:conn.cc::Box.Open"):
        assert check(root, anchor).verdict is Verdict.VERIFIED, anchor


def test_a_member_of_a_base_in_another_header_is_found(tmp_path: Path) -> None:
    root = init_repo(write(tmp_path, {
        "base.h": "class Base {\n public:\n  void Hello();\n};\n",
        "derived.hpp": '#include "base.h"\nstruct Derived : public Base {};\n',
    }))
    result = check(root, "sym:derived.hpp::Derived.Hello")
    assert result.verdict is Verdict.VERIFIED and ("base.h", 3) in lines(result), result.reason


def test_a_renamed_cpp_enum_named_in_prose_is_refuted_with_the_commit(tmp_path: Path) -> None:
    """dragonfly's held-out-8 drift: "should return `OpStatus` from `facade/op_status.h`" after a commit renamed
    the enum in every file. Fourteen command files switch on it (`case OpStatus::OK:`) more often than its header
    names it: a `case` label and a name before `::` do not declare it, so the header is read among the first."""
    header = "src/facade/op_status.h"
    families = {f"src/server/family_{n:02}.cc": _SWITCH for n in range(14)}
    write_tree(tmp_path, {
        header: "#pragma once\nnamespace facade {\nenum class OpStatus : uint16_t { OK, KEY_NOTFOUND };\n}\n",
        **families,
        "CLAUDE.md": "Commands should return `OpStatus` from `facade/op_status.h`; see `NeverDefinedHere`.\n",
    })
    init_repo(tmp_path)
    code, results = check_cli(tmp_path)
    found = by_anchor(results)
    assert found[f"sym:{header}::OpStatus"]["verdict"] == "VERIFIED", found
    assert not [a for a in found if "NeverDefinedHere" in a]  # never defined here: not read
    write_tree(tmp_path, {path: text.replace("OpStatus", "OpResult") for path, text in {header: (tmp_path / header).read_text(), **families}.items()})
    commit(tmp_path, "rename OpStatus to OpResult")
    code, results = check_cli(tmp_path)
    found = by_anchor(results)[f"sym:{header}::OpStatus"]
    assert code == 1 and found["verdict"] == "REFUTED" and found["state"] == "gone", found
    assert "'rename OpStatus to OpResult'" in found["reason"] and "now `OpResult`" in found["reason"]


_SWITCH = """#include "facade/op_status.h"
namespace dfly {
using facade::OpStatus;
const char* Name(OpStatus s) {
  switch (s) {
    case OpStatus::OK: return "ok";
    case OpStatus::KEY_NOTFOUND: return "missing";
  }
  return OpStatus::OK == s ? "ok" : "?";
}
}  // namespace dfly
"""


def test_a_c_function_declared_in_a_header_and_renamed_is_refuted_in_prose(tmp_path: Path) -> None:
    """tmux's shape: a function declared in tmux.h and defined in a .c file is one name; a commit renames both."""
    layout = {"tmux.h": "int\tserver_start(int);\n", "server.c": '#include "tmux.h"\n\nint\nserver_start(int fd)\n{\n\treturn fd;\n}\n'}
    write_tree(tmp_path, {**layout, "CLAUDE.md": "The server starts in `server_start()`.\n"})
    init_repo(tmp_path)
    write_tree(tmp_path, {k: v.replace("server_start", "server_run") for k, v in layout.items()})
    commit(tmp_path, "rename server_start")
    code, results = check_cli(tmp_path)
    refuted = [r for r in results if r["anchor"].endswith("::server_start")]
    assert code == 1 and refuted and refuted[0]["verdict"] == "REFUTED", results
    assert "'rename server_start'" in refuted[0]["reason"] and "now `server_run`" in refuted[0]["reason"]


def test_a_prototype_alone_is_a_definition_in_prose(tmp_path: Path) -> None:
    """A function a header declares and a library implements (no .c file here defines it) is defined here."""
    write_tree(tmp_path, {"include/api.h": "#ifndef API_H\n#define API_H\nint ext_api(void);\n#endif\n", "CLAUDE.md": "Call `ext_api()` first.\n"})
    init_repo(tmp_path)
    code, results = check_cli(tmp_path)
    found = by_anchor(results)["sym:include/api.h::ext_api"]
    assert code == 0 and found["verdict"] == "VERIFIED", found


def test_a_typed_sym_anchor_on_a_header_that_moved_is_refuted_with_its_new_place(tmp_path: Path) -> None:
    write_tree(tmp_path, {"src/conn.hpp": "class Conn {\n public:\n  void Send();\n};\n", "CLAUDE.md": "Sending: `sym:src/conn.hpp::Conn.Send`.\n"})
    init_repo(tmp_path)
    code, results = check_cli(tmp_path)
    assert code == 0 and by_anchor(results)["sym:src/conn.hpp::Conn.Send"]["verdict"] == "VERIFIED"
    (tmp_path / "include").mkdir()
    (tmp_path / "src/conn.hpp").rename(tmp_path / "include/conn.hpp")
    commit(tmp_path, "move headers to include/")
    code, results = check_cli(tmp_path)
    found = by_anchor(results)["sym:src/conn.hpp::Conn.Send"]
    assert code == 1 and found["verdict"] == "REFUTED" and "include/conn.hpp" in found["reason"], found
