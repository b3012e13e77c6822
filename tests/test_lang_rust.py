"""Rust: use trees, extern crate, crate paths in code, env reads and items."""

from __future__ import annotations

import pytest
from tests._source_support import check, lines, write

from anchorcheck import Verdict

RS = '''
use serde::{Serialize, de::{self, Visitor}};
use std::env as e;
use crate::local::*;
extern crate rand_core;

fn main() {
    let v = std::env::var("RS_KEY");
    let w = env!("RS_BUILD");
    let z = option_env!("RS_OPT");
    let s = serde_json::to_string(&v);
}

struct Store;
enum Mode { A }
trait Backend { fn fetch(&self); }
impl<T> Store<T> { fn open(&self) {} }
impl Backend for Store { fn fetch(&self) {} }
mod inner { pub fn helper() {} }
const LIMIT: i32 = 1;
'''


@pytest.fixture()
def tree(tmp_path):
    return write(tmp_path, {"src/main.rs": RS})


@pytest.mark.parametrize(
    ("anchor", "line"),
    [("import:serde", 1), ("import:serde::de", 1), ("import:serde::de::Visitor", 1), ("import:rand_core", 4), ("import:rand-core", 4), ("import:serde_json", 10), ("import:serde-json", 10)],
)
def test_imports(tree, anchor, line):
    result = check(tree, anchor)
    assert result.verdict is Verdict.VERIFIED, result.reason
    assert lines(result)[0] == ("src/main.rs", line)


def test_local_paths_are_not_imports(tree):
    assert check(tree, "import:local").verdict is Verdict.REFUTED
    assert check(tree, "import:ser").verdict is Verdict.REFUTED


@pytest.mark.parametrize(("key", "line"), [("RS_KEY", 7), ("RS_BUILD", 8), ("RS_OPT", 9)])
def test_env(tree, key, line):
    assert lines(check(tree, f"env:{key}")) == [("src/main.rs", line)]


@pytest.mark.parametrize(
    ("name", "line"),
    [("main", 6), ("Store", 13), ("Mode", 14), ("Backend", 15), ("Backend.fetch", 15), ("Store.open", 16), ("Store.fetch", 17), ("inner.helper", 18), ("LIMIT", 19)],
)
def test_items(tree, name, line):
    assert lines(check(tree, f"sym:src/main.rs::{name}")) == [("src/main.rs", line)]


# Macro arguments and attributes are token trees, which tree-sitter leaves unparsed.
MACROS = '''
#[derive(serde::Serialize, Debug)]
struct Row;

const GENERATED: &str = include_str!(concat!(env!("OUT_DIR"), "/gen.rs"));

fn main() {
    println!("{}", std::env::var("RS_IN_MACRO").unwrap());
    let raw = ::std::env::var(r"RS_RAW");
    let hashed = std::env::var(r#"RS_HASHED"#);
    let errors = vec![::anyhow::anyhow!("x")];
    assert!(self::local::check($crate::inner::f()));
}
'''


@pytest.fixture()
def macros(tmp_path):
    return write(tmp_path, {"src/lib.rs": MACROS, "src/re.rs": "use ::regex::Regex;\n"})


@pytest.mark.parametrize(
    ("anchor", "where"),
    [
        ("import:serde", ("src/lib.rs", 1)),
        ("import:serde::Serialize", ("src/lib.rs", 1)),
        ("import:anyhow", ("src/lib.rs", 10)),
        ("import:regex", ("src/re.rs", 1)),
        ("env:OUT_DIR", ("src/lib.rs", 4)),
        ("env:RS_IN_MACRO", ("src/lib.rs", 7)),
        ("env:RS_RAW", ("src/lib.rs", 8)),
        ("env:RS_HASHED", ("src/lib.rs", 9)),
    ],
)
def test_paths_and_reads_in_macros_and_attributes(macros, anchor, where):
    result = check(macros, anchor)
    assert result.verdict is Verdict.VERIFIED, result.reason
    assert lines(result) == [where]


@pytest.mark.parametrize("module", ["local", "inner"])
def test_local_paths_in_macros_are_not_imports(macros, module):
    assert check(macros, f"import:{module}").verdict is Verdict.REFUTED


def test_code_a_macro_only_quotes_is_not_imported(tmp_path):
    # A proc-macro crate generates `::serde::Serialize` for its users' crates; it does not import serde.
    tree = write(tmp_path, {"src/lib.rs": "fn expand() -> TokenStream {\n    quote! { impl ::serde::Serialize for #name { } }\n}\n"})
    assert check(tree, "import:serde").verdict is Verdict.REFUTED
