"""JavaScript, TypeScript and TSX: imports, `process.env` reads and definitions, with evidence lines."""

from __future__ import annotations

import pytest
from tests._source_support import check, lines, write

from anchorcheck import Verdict

JS = '''
import a from "lodash/fp";
import {x} from '@scope/pkg/sub';
export {y} from "./local";
export * from "re-exported";
const r = require("redis");
const m = await import("dynamic-mod");
import fs from "node:fs/promises";
const k = process.env.KEY_A + process.env["KEY_B"] + import.meta.env.VITE_KEY;
const {KEY_C, KEY_D: renamed} = process.env;
export function handler() {}
export const LIMIT = 1, OTHER = 2;
class Store { load() {} static size = 1 }
export default class Main {}
'''

TS = '''
import type {T} from "only-types";
import x = require("old-style");
interface Shape { a: string }
type Alias = number;
enum Color { Red }
export abstract class Base { run(): void {} }
const v = process.env.TS_KEY;
namespace Geo { export function area() {} }
'''


@pytest.fixture()
def tree(tmp_path):
    return write(tmp_path, {"web/app.js": JS, "web/types.ts": TS, "web/view.tsx": TS + "const el = <div/>;\n"})


@pytest.mark.parametrize(
    ("anchor", "line"),
    [
        ("import:lodash", 1),
        ("import:lodash/fp", 1),
        ("import:@scope/pkg", 2),
        ("import:re-exported", 4),
        ("import:redis", 5),
        ("import:dynamic-mod", 6),
        ("import:fs", 7),
    ],
)
def test_js_imports(tree, anchor, line):
    result = check(tree, anchor + " in:web/app.js")
    assert result.verdict is Verdict.VERIFIED, result.reason
    assert lines(result) == [("web/app.js", line)]


def test_scope_segment_is_whole(tree):
    assert check(tree, "import:@scope").verdict is Verdict.REFUTED
    assert check(tree, "import:lodash.fp").verdict is Verdict.REFUTED


@pytest.mark.parametrize(("key", "line"), [("KEY_A", 8), ("KEY_B", 8), ("VITE_KEY", 8), ("KEY_C", 9), ("KEY_D", 9)])
def test_js_env(tree, key, line):
    assert lines(check(tree, f"env:{key}")) == [("web/app.js", line)]


@pytest.mark.parametrize(
    ("name", "line"), [("handler", 10), ("LIMIT", 11), ("OTHER", 11), ("Store", 12), ("Store.load", 12), ("Store.size", 12), ("Main", 13)]
)
def test_js_definitions(tree, name, line):
    assert lines(check(tree, f"sym:web/app.js::{name}")) == [("web/app.js", line)]


@pytest.mark.parametrize("path", ["web/types.ts", "web/view.tsx"])
def test_typescript(tree, path):
    typed = check(tree, f"import:only-types in:{path}")
    assert lines(typed) == [(path, 1)] and "type-checking" in typed.evidence[0].detail
    assert lines(check(tree, f"import:old-style in:{path}")) == [(path, 2)]
    assert lines(check(tree, f"env:TS_KEY in:{path}")) == [(path, 7)]
    for name, line in [("Shape", 3), ("Alias", 4), ("Color", 5), ("Base", 6), ("Base.run", 6), ("Geo", 8), ("Geo.area", 8)]:
        assert lines(check(tree, f"sym:{path}::{name}")) == [(path, line)]


def test_destructured_env_with_defaults_and_literal_keys(tmp_path):
    # `const {PORT = 3000} = process.env` is how most Node code reads a setting with a default.
    source = "const {\n  // settings\n  PORT = 3000,\n  'QUOTED_KEY': q,\n  HOST: host = 'localhost',\n} = process.env;\n"
    root = write(tmp_path, {"server.js": source})
    for key, line in [("PORT", 3), ("QUOTED_KEY", 4), ("HOST", 5)]:
        assert lines(check(root, f"env:{key}")) == [("server.js", line)]
    assert check(root, "env:UNREAD").verdict is Verdict.REFUTED, "no key here is computed"


def test_destructured_env_with_a_computed_key_breaks_the_closed_world(tmp_path):
    root = write(tmp_path, {"server.js": "const {[name]: value} = process.env;\n"})
    result = check(root, "env:ANY")
    assert result.verdict is Verdict.INCONCLUSIVE and "server.js:1" in result.reason


@pytest.mark.parametrize("path", ["types/index.d.ts", "types/shim.ts"])
def test_ambient_declarations_define_names(tmp_path, path):
    # A declaration file is made of `declare`/`export declare` statements: each defines its name.
    source = (
        "declare function connect(url: string): Client;\n"
        "export declare const VERSION: string;\n"
        "export declare class Client {\n  close(): void;\n}\n"
        "export function overload(a: string): void;\n"
    )
    root = write(tmp_path, {path: source})
    for name, line in [("connect", 1), ("VERSION", 2), ("Client", 3), ("Client.close", 4), ("overload", 6)]:
        result = check(root, f"sym:{path}::{name}")
        assert result.verdict is Verdict.VERIFIED, result.reason
        assert lines(result) == [(path, line)]


def test_environment_kept_in_a_local_name(tmp_path):
    # `const env = process.env; env.X` reads X: a REFUTED here would contradict the code.
    root = write(tmp_path, {"config.js": "const env = process.env;\nconst url = env.DATABASE_URL;\nconst port = env['PORT'];\n"})
    assert lines(check(root, "env:DATABASE_URL")) == [("config.js", 2)]
    assert lines(check(root, "env:PORT")) == [("config.js", 3)]


@pytest.mark.parametrize("path", ["src/db.ts", "src/db.js"])
def test_a_default_import_named_type_something_is_not_type_only(tmp_path, path):
    # `import typeorm from "typeorm"` and `import typeDefs from "./schema"` run; only `import type` is erased.
    root = write(tmp_path, {path: 'import typeorm from "typeorm";\nimport typeDefs from "./schema";\n'})
    result = check(root, "import:typeorm")
    assert lines(result) == [(path, 1)]
    assert "type-checking" not in result.evidence[0].detail
    assert "TYPE_CHECKING-only" not in result.reason


def test_commonjs_exports_define_names(tmp_path):
    root = write(
        tmp_path,
        {
            "lib/api.js": "exports.alpha = function () {};\nmodule.exports.beta = 2;\n"
            "module.exports = {\n  gamma,\n  delta: 1,\n  epsilon() {},\n};\nother.zeta = 1;\n"
        },
    )
    for name, line in [("alpha", 1), ("beta", 2), ("gamma", 4), ("delta", 5), ("epsilon", 6)]:
        assert lines(check(root, f"sym:lib/api.js::{name}")) == [("lib/api.js", line)], name
    assert check(root, "sym:lib/api.js::zeta").verdict is Verdict.REFUTED  # not an export


def test_a_member_chain_thousands_deep_is_read_not_a_recursion_error(tmp_path):
    # The fuzzing campaign's TypeScript inputs: `_static` used to recurse once per `.` of the chain.
    chain = ".".join(["a"] * 5000)
    write(tmp_path, {"deep.ts": f"const a: any = {{}};\nObject.assign({chain}, {{ extra() {{}} }});\n"})
    result = check(tmp_path, f"sym:deep.ts::{chain}.extra")
    assert result.verdict is Verdict.VERIFIED, result.reason
