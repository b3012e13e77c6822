"""Go: import paths, `os.Getenv`/`os.LookupEnv`, funcs, types, methods, consts and vars."""

from __future__ import annotations

import pytest
from tests._source_support import check, lines, write

from anchorcheck import Verdict

GO = '''
package main

import (
	"os"
	flag "github.com/spf13/pflag/v2"
)

const Version = "1"
var Debug, Trace = false, false

type Server struct{}
type Box[T any] struct{}

func (s *Server) Start() {}
func (b Box[T]) Open() {}

func Main(name string) {
	os.Getenv("GO_KEY")
	os.LookupEnv("GO_OTHER")
}

var (
	Grouped = 1
	Typed int
)
'''


@pytest.fixture()
def tree(tmp_path):
    return write(tmp_path, {"cmd/main.go": GO})


@pytest.mark.parametrize("anchor", ["import:github.com/spf13/pflag", "import:github.com/spf13/pflag/v2", "import:os"])
def test_imports(tree, anchor):
    result = check(tree, anchor)
    assert result.verdict is Verdict.VERIFIED
    assert lines(result)[0][0] == "cmd/main.go"


def test_import_lines_and_segments(tree):
    assert lines(check(tree, "import:github.com/spf13/pflag")) == [("cmd/main.go", 5)]
    assert check(tree, "import:github.com/spf13/pfl").verdict is Verdict.REFUTED


@pytest.mark.parametrize(("key", "line"), [("GO_KEY", 18), ("GO_OTHER", 19)])
def test_env(tree, key, line):
    assert lines(check(tree, f"env:{key}")) == [("cmd/main.go", line)]


@pytest.mark.parametrize(
    ("name", "line"),
    [("Version", 8), ("Debug", 9), ("Trace", 9), ("Server", 11), ("Box", 12), ("Server.Start", 14), ("Box.Open", 15), ("Main", 17), ("Grouped", 23), ("Typed", 24)],
)
def test_definitions(tree, name, line):
    assert lines(check(tree, f"sym:cmd/main.go::{name}")) == [("cmd/main.go", line)]


def test_missing_method(tree):
    result = check(tree, "sym:cmd/main.go::Server.Stop")
    assert result.verdict is Verdict.REFUTED


def test_env_through_a_renamed_or_dot_imported_os(tmp_path):
    """`import o "os"` reads with `o.Getenv`; `import . "os"` with a bare `Getenv`. Another value's
    `Getenv` reads an environment kept there (bubbletea's `env.Getenv("TERM")` in crush was REFUTED);
    a bare call without the dot import is some local function, not a read."""
    tree = write(tmp_path, {"cmd/main.go": '''
        package main

        import (
        	o "os"
        	. "os"
        	cfg "example.com/config"
        )

        func Main() {
        	o.Getenv("GO_ALIAS")
        	o.LookupEnv("GO_ALIAS_LOOKUP")
        	Getenv("GO_DOT")
        	cfg.Getenv("GO_CONFIG")
        }
        ''', "cmd/plain.go": '''
        package main

        func Plain() { Getenv("GO_PLAIN") }
        '''})
    assert lines(check(tree, "env:GO_ALIAS")) == [("cmd/main.go", 10)]
    assert lines(check(tree, "env:GO_ALIAS_LOOKUP")) == [("cmd/main.go", 11)]
    assert lines(check(tree, "env:GO_DOT")) == [("cmd/main.go", 12)]
    assert lines(check(tree, "env:GO_CONFIG")) == [("cmd/main.go", 13)]
    assert check(tree, "env:GO_PLAIN").verdict is Verdict.REFUTED


def test_interface_methods(tmp_path):
    """An interface's methods are `Interface.Method`, at the method's line; its type constraints are not names."""
    tree = write(tmp_path, {"store.go": '''
        package store

        type Store interface {
        	Get(k string) string
        	Put(k, v string)
        }

        type Number interface{ ~int | ~float64 }
        '''})
    assert lines(check(tree, "sym:store.go::Store.Get")) == [("store.go", 4)]
    assert lines(check(tree, "sym:store.go::Store.Put")) == [("store.go", 5)]
    assert lines(check(tree, "sym:store.go::Number")) == [("store.go", 8)]
    assert check(tree, "sym:store.go::Store.Delete").verdict is Verdict.REFUTED
