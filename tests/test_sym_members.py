"""`sym:` soundness: fields, assigned and inherited members are definitions; an open world is INCONCLUSIVE.

Each case was a confident wrong answer (REFUTED) before: a struct field, an
express method assigned to `app`, a method Flask inherits from a base class
in another file. Where members come from something that cannot be followed
(a third-party base, a loop over names), absence must not be REFUTED.
"""

from __future__ import annotations

import pytest

from anchorcheck import Verdict
from tests._source_support import check, lines, write


def verdicts(root, anchors: dict[str, Verdict]) -> None:
    for anchor, expected in anchors.items():
        result = check(root, anchor)
        assert result.verdict is expected, (anchor, result.reason)


# Python ------------------------------------------------------------------------------------------


@pytest.fixture
def flask_like(tmp_path):
    return write(
        tmp_path,
        {
            "src/flask/__init__.py": "from .app import Flask as Flask\n",
            "src/flask/app.py": """
                from . import sansio
                from .sansio.app import App
                from werkzeug.wrappers import Response as _Response

                class Flask(App):
                    def __init__(self, name):
                        super().__init__(name)
                        self.cli = object()
                        self.json_provider, self._ready = None, False

                class Response(_Response):
                    default_mimetype = "text/html"
            """,
            "src/flask/sansio/__init__.py": "",
            "src/flask/sansio/app.py": """
                from .scaffold import Scaffold

                class App(Scaffold):
                    def __init__(self, name):
                        self.name: str = name
            """,
            "src/flask/sansio/scaffold.py": """
                class Scaffold:
                    def before_request(self, f):
                        return f

                    @staticmethod
                    def helper(other):
                        other.not_mine = 1
            """,
        },
    )


def test_python_self_attributes_are_definitions(flask_like):
    result = check(flask_like, "sym:src/flask/app.py::Flask.cli")
    assert result.verdict is Verdict.VERIFIED and lines(result) == [("src/flask/app.py", 8)], result.reason
    verdicts(
        flask_like,
        {
            "sym:src/flask/app.py::Flask.json_provider": Verdict.VERIFIED,
            "sym:src/flask/app.py::Flask._ready": Verdict.VERIFIED,
            "sym:src/flask/sansio/app.py::App.name": Verdict.VERIFIED,
            # A static method's first parameter is not the instance.
            "sym:src/flask/sansio/scaffold.py::Scaffold.not_mine": Verdict.REFUTED,
        },
    )


def test_python_inherited_method_is_verified_at_the_base(flask_like):
    result = check(flask_like, "sym:src/flask/app.py::Flask.before_request")
    assert result.verdict is Verdict.VERIFIED, result.reason
    assert lines(result) == [("src/flask/sansio/scaffold.py", 2), ("src/flask/sansio/app.py", 3), ("src/flask/app.py", 5)]
    assert "inherited from Scaffold" in result.reason and "inherited from App" in result.reason
    # Through the module form and a re-export too; an attribute the base sets in __init__ as well.
    assert check(flask_like, "sym:py:flask.Flask.before_request").verdict is Verdict.VERIFIED
    assert check(flask_like, "sym:src/flask/app.py::Flask.name").verdict is Verdict.VERIFIED
    # The whole chain is in the repository: a name none of them defines is REFUTED.
    assert check(flask_like, "sym:src/flask/app.py::Flask.after_lunch").verdict is Verdict.REFUTED


def test_python_third_party_base_makes_absence_inconclusive(flask_like):
    result = check(flask_like, "sym:src/flask/app.py::Response.get_data")
    assert result.verdict is Verdict.INCONCLUSIVE
    assert "src/flask/app.py:11 inherits from _Response, from werkzeug.wrappers, which has no source here" in result.reason


def test_python_standard_library_bases_are_known(tmp_path):
    write(
        tmp_path,
        {
            "errors.py": """
                import enum

                class Failure(Exception):
                    pass

                class Color(enum.Enum):
                    RED = 1

                class Made(make_base()):
                    pass
            """
        },
    )
    verdicts(
        tmp_path,
        {
            "sym:errors.py::Failure.with_traceback": Verdict.VERIFIED,
            "sym:errors.py::Failure.retry": Verdict.REFUTED,
            "sym:errors.py::Color.RED": Verdict.VERIFIED,
            "sym:errors.py::Made.anything": Verdict.INCONCLUSIVE,
        },
    )
    assert "errors.py:9 Made inherits from make_base(), computed at run time" in check(tmp_path, "sym:errors.py::Made.anything").reason
    assert check(tmp_path, "sym:errors.py::Color.value").verdict is Verdict.VERIFIED  # enum.Enum's own member


def test_python_members_added_at_run_time_open_the_class(tmp_path):
    write(
        tmp_path,
        {
            "config.py": """
                class Settings:
                    def __init__(self, **values):
                        for key, value in values.items():
                            setattr(self, key, value)

                class Fixed:
                    pass

                setattr(Fixed, "debug", False)

                class Proxy:
                    def __getattr__(self, name):
                        return 1
            """
        },
    )
    settings = check(tmp_path, "sym:config.py::Settings.timeout")
    assert settings.verdict is Verdict.INCONCLUSIVE and "config.py:4 sets attributes of Settings by a computed name" in settings.reason
    assert check(tmp_path, "sym:config.py::Fixed.debug").verdict is Verdict.VERIFIED
    assert check(tmp_path, "sym:config.py::Fixed.verbose").verdict is Verdict.REFUTED
    assert check(tmp_path, "sym:config.py::Proxy.anything").verdict is Verdict.INCONCLUSIVE


# JavaScript and TypeScript -----------------------------------------------------------------------


def test_javascript_member_assigned_definitions(tmp_path):
    write(
        tmp_path,
        {
            "lib/application.js": """
                var methods = require('methods');
                var app = exports = module.exports = {};

                app.listen = function listen() {};
                app.set = function set(setting, val) {};

                methods.forEach(function (method) {
                  app[method] = function (path) {};
                });
            """,
            "lib/response.js": """
                var send = require('send');
                var res = Object.create(http.ServerResponse.prototype);
                module.exports = res;

                res.send = function send(body) {};
            """,
            "lib/view.js": """
                function View(name) {
                  this.name = name;
                }
                View.prototype.lookup = function lookup(name) {};
                Object.assign(View.prototype, { render() {}, resolve: function () {} });
                Object.defineProperty(View, "cache", { value: {} });
                const api = { get() {}, post: function () {} };
            """,
        },
    )
    listen = check(tmp_path, "sym:lib/application.js::app.listen")
    assert listen.verdict is Verdict.VERIFIED and lines(listen) == [("lib/application.js", 4)], listen.reason
    verdicts(
        tmp_path,
        {
            "sym:lib/response.js::res.send": Verdict.VERIFIED,
            "sym:lib/view.js::View.prototype.lookup": Verdict.VERIFIED,
            "sym:lib/view.js::View.lookup": Verdict.VERIFIED,
            "sym:lib/view.js::View.render": Verdict.VERIFIED,
            "sym:lib/view.js::View.prototype.resolve": Verdict.VERIFIED,
            "sym:lib/view.js::View.cache": Verdict.VERIFIED,
            "sym:lib/view.js::View.name": Verdict.VERIFIED,
            "sym:lib/view.js::View.compile": Verdict.REFUTED,
            "sym:lib/view.js::api.get": Verdict.VERIFIED,
            "sym:lib/view.js::api.post": Verdict.VERIFIED,
            "sym:lib/view.js::api.put": Verdict.REFUTED,
        },
    )
    # `res` is made by a call (its prototype is http.ServerResponse's): its other members are not listed here.
    made = check(tmp_path, "sym:lib/response.js::res.writeHead")
    assert made.verdict is Verdict.INCONCLUSIVE and "lib/response.js:2 res is Object.create(" in made.reason, made.reason
    # `app.get` comes from a loop over names: absence there proves nothing, and the reason says where.
    loop = check(tmp_path, "sym:lib/application.js::app.get")
    assert loop.verdict is Verdict.INCONCLUSIVE
    assert "lib/application.js:8 adds members to app under a computed key" in loop.reason


def test_javascript_import_binding_is_no_definition_nor_hint(tmp_path):
    write(tmp_path, {"lib/response.js": "var send = require('send');\nvar res = {};\nres.json = function json() {};\n"})
    assert check(tmp_path, "sym:lib/response.js::send").verdict is Verdict.REFUTED
    result = check(tmp_path, "sym:lib/response.js::res.send")
    assert result.verdict is Verdict.REFUTED and "it defines" not in result.reason, result.reason


def test_javascript_inherited_methods_follow_imports(tmp_path):
    write(
        tmp_path,
        {
            "lib/base.js": "class Base {\n  start() {}\n}\nmodule.exports = Base;\n",
            "lib/server.js": """
                const Base = require('./base');
                const { EventEmitter } = require('events');
                class Server extends Base {
                  listen() {}
                }
                class Emitter extends EventEmitter {}
                module.exports = { Server, Emitter };
            """,
            "src/shape.ts": "export class Shape {\n  area(): number { return 0 }\n}\n",
            "src/square.ts": """
                import { Shape } from './shape';
                export interface Named { name: string; rename(to: string): void }
                export enum Kind { Square, Round = 2 }
                export class Square extends Shape {
                  constructor(private readonly side: number) { super() }
                }
            """,
        },
    )
    start = check(tmp_path, "sym:lib/server.js::Server.start")
    assert start.verdict is Verdict.VERIFIED and lines(start)[0] == ("lib/base.js", 2), start.reason
    assert "inherited from Base" in start.reason
    verdicts(
        tmp_path,
        {
            "sym:lib/server.js::Server.stop": Verdict.REFUTED,
            "sym:lib/server.js::Emitter.on": Verdict.INCONCLUSIVE,
            "sym:src/square.ts::Square.area": Verdict.VERIFIED,
            "sym:src/square.ts::Square.side": Verdict.VERIFIED,
            "sym:src/square.ts::Square.volume": Verdict.REFUTED,
            "sym:src/square.ts::Named.name": Verdict.VERIFIED,
            "sym:src/square.ts::Named.rename": Verdict.VERIFIED,
            "sym:src/square.ts::Kind.Round": Verdict.VERIFIED,
            "sym:src/square.ts::Kind.Oval": Verdict.REFUTED,
        },
    )


def test_javascript_exports_are_followed(tmp_path):
    """`export { Impl as Base }` gives Base Impl's members, for the file and for a class extending the
    alias elsewhere (hono's core class is exported as HonoBase: its methods were REFUTED); `export { X }
    from` and `export * from` lead a base to its definition. An index that imports Hono and exports it
    (`export { Hono }`) has Hono's members (`sym:src/index.ts::Hono.get` was REFUTED), and a name exported
    from another module (`export { Context } from './context'`) is the index's as much; after `export *
    from './hono'` any name may be the file's, so absence is not proven."""
    write(
        tmp_path,
        {
            "src/base.ts": """
                class Impl<E = {}> {
                  get!: string
                  mount(): void {}
                }
                export { Impl as Base }
            """,
            "src/app.ts": "import { Base } from './base'\nexport class App<E = {}> extends Base<E> {}\n",
            "src/shapes/circle.ts": "export class Circle {\n  radius(): number { return 1 }\n}\n",
            "src/shapes/index.ts": "export { Circle as Round } from './circle'\nexport * from './circle'\nexport { Circle as default } from './circle'\n",
            "src/wheel.ts": "import { Round, Circle } from './shapes'\nexport class Wheel extends Round {}\nexport class Disc extends Circle {}\n",
            "src/context.ts": "export class Context {\n  req = 1\n}\n",
            "src/index.ts": "import { App } from './app'\nexport { Context } from './context'\nexport { App }\n",
            "src/helper.ts": "import { App } from './app'\nexport function make(): App { return new App() }\n",
            "src/all.ts": "export * from './app'\nexport const local = 1\n",
        },
    )
    mount = check(tmp_path, "sym:src/app.ts::App.mount")
    assert mount.verdict is Verdict.VERIFIED and lines(mount)[0] == ("src/base.ts", 3), mount.reason
    star = check(tmp_path, "sym:src/all.ts::App")
    assert star.verdict is Verdict.INCONCLUSIVE and "src/all.ts:1 re-exports every name of ./app" in star.reason, star.reason
    verdicts(
        tmp_path,
        {
            "sym:src/app.ts::App.get": Verdict.VERIFIED,
            "sym:src/base.ts::Base.mount": Verdict.VERIFIED,
            "sym:src/app.ts::App.unmount": Verdict.REFUTED,
            "sym:src/wheel.ts::Wheel.radius": Verdict.VERIFIED,
            "sym:src/wheel.ts::Disc.radius": Verdict.VERIFIED,
            "sym:src/wheel.ts::Wheel.spin": Verdict.REFUTED,
            "sym:src/index.ts::App.mount": Verdict.VERIFIED,
            "sym:src/index.ts::Context": Verdict.VERIFIED,
            "sym:src/index.ts::Context.req": Verdict.VERIFIED,
            "sym:src/index.ts::App.put": Verdict.REFUTED,
            "sym:src/helper.ts::App": Verdict.REFUTED,  # imported, not exported: defined elsewhere
            "sym:src/helper.ts::App.mount": Verdict.REFUTED,
            "sym:src/all.ts::local": Verdict.VERIFIED,
        },
    )


def test_javascript_bases_from_a_workspace_package_are_followed(tmp_path):
    """openai-agents-js: `class RealtimeAgent extends Agent`, Agent imported from '@openai/agents-core',
    which is packages/agents-core of the same repository: "from @openai/agents-core, which has no
    source here" was wrong. The package's source entry (`src/index.ts`) is followed; a package of no
    folder here (node_modules) is still unknown."""
    write(
        tmp_path,
        {
            "package.json": '{"name": "root", "private": true, "workspaces": ["packages/*"]}',
            "packages/core/package.json": '{"name": "@acme/core", "main": "dist/index.js"}',
            "packages/core/src/index.ts": "export * from './agent'\nexport { Tool } from './tool'\n",
            "packages/core/src/agent.ts": "export class Agent {\n  clone(): Agent { return this }\n}\n",
            "packages/core/src/tool.ts": "export class Tool {\n  invoke(): void {}\n}\n",
            "packages/core/src/utils/index.ts": "export class Logger {\n  log(): void {}\n}\n",
            "packages/rt/package.json": '{"name": "@acme/rt", "dependencies": {"@acme/core": "workspace:*"}}',
            "packages/rt/src/agent.ts": """
                import { Agent, Tool } from '@acme/core'
                import { Logger } from '@acme/core/utils'
                import { EventEmitter } from 'events'
                export class RealtimeAgent extends Agent {}
                export class RealtimeTool extends Tool {}
                export class RealtimeLogger extends Logger {}
                export class Emitter extends EventEmitter {}
            """,
        },
    )
    verdicts(
        tmp_path,
        {
            "sym:packages/rt/src/agent.ts::RealtimeAgent.clone": Verdict.VERIFIED,
            "sym:packages/rt/src/agent.ts::RealtimeTool.invoke": Verdict.VERIFIED,
            "sym:packages/rt/src/agent.ts::RealtimeLogger.log": Verdict.VERIFIED,
            "sym:packages/rt/src/agent.ts::RealtimeTool.zzz": Verdict.REFUTED,
            "sym:packages/rt/src/agent.ts::Emitter.on": Verdict.INCONCLUSIVE,
        },
    )
    assert lines(check(tmp_path, "sym:packages/rt/src/agent.ts::RealtimeAgent.clone"))[0] == ("packages/core/src/agent.ts", 2)


def test_javascript_members_a_constructor_adds_through_this(tmp_path):
    """`this[m] = ...` in a loop over names and `Object.assign(this, options)` in a constructor add
    members no definition lists (absence was REFUTED); `this.x = ...` in an arrow function there
    defines x, since an arrow function's `this` is the constructor's."""
    write(
        tmp_path,
        {
            "lib/router.js": """
                const METHODS = ['get', 'post']
                class Router {
                  constructor() {
                    METHODS.forEach((m) => {
                      this[m] = (path) => path
                    })
                    const reset = () => { this.count = 0 }
                    this['name'] = 'router'
                  }
                }
                class Holder {
                  constructor(options) {
                    Object.assign(this, options)
                  }
                }
                class Plain {
                  constructor() {
                    this.size = 1
                  }
                }
                module.exports = { Router, Holder, Plain }
            """,
        },
    )
    opened = check(tmp_path, "sym:lib/router.js::Router.get")
    assert opened.verdict is Verdict.INCONCLUSIVE and "lib/router.js:5" in opened.reason, opened.reason
    verdicts(
        tmp_path,
        {
            "sym:lib/router.js::Router.count": Verdict.VERIFIED,
            "sym:lib/router.js::Router.name": Verdict.VERIFIED,
            "sym:lib/router.js::Holder.strict": Verdict.INCONCLUSIVE,
            "sym:lib/router.js::Plain.size": Verdict.VERIFIED,
            "sym:lib/router.js::Plain.color": Verdict.REFUTED,
        },
    )


# Go ----------------------------------------------------------------------------------------------


def test_go_struct_fields_embedded_types_and_sibling_files(tmp_path):
    write(
        tmp_path,
        {
            "command.go": """
                package cobra

                type Base struct {
                	Name string
                }

                func (b *Base) Hello() {}

                type Command struct {
                	Use         string
                	Short, Long string
                	Base
                }

                type Flagged struct {
                	*pflag.FlagSet
                }

                type ReadCloser interface {
                	io.Reader
                	Close() error
                }
            """,
            "command_run.go": "package cobra\n\nfunc (c *Command) Execute() error { return nil }\n",
        },
    )
    use = check(tmp_path, "sym:command.go::Command.Use")
    assert use.verdict is Verdict.VERIFIED and lines(use) == [("command.go", 10)], use.reason
    verdicts(
        tmp_path,
        {
            "sym:command.go::Command.Long": Verdict.VERIFIED,
            "sym:command.go::Command.Base": Verdict.VERIFIED,
            "sym:command.go::Command.Hello": Verdict.VERIFIED,
            "sym:command.go::Command.Name": Verdict.VERIFIED,
            "sym:command.go::Command.Execute": Verdict.VERIFIED,
            "sym:command.go::Command.Run": Verdict.REFUTED,
            "sym:command.go::Flagged.Parse": Verdict.INCONCLUSIVE,
            "sym:command.go::ReadCloser.Close": Verdict.VERIFIED,
            "sym:command.go::ReadCloser.Read": Verdict.INCONCLUSIVE,
        },
    )
    assert "command_run.go:3" in check(tmp_path, "sym:command.go::Command.Execute").reason


def test_go_embedded_types_of_the_module_s_own_packages_are_followed(tmp_path):
    """A type embedded from another package of the same module (go.mod's `module` path) has its fields
    and methods promoted: they were INCONCLUSIVE "cannot be followed"; a package of another module
    still is, and absence behind a followed embedding is REFUTED."""
    write(
        tmp_path,
        {
            "go.mod": "module example.com/m\n\ngo 1.22\n",
            "internal/base/base.go": "package base\n\ntype Base struct{ ID string }\n",
            "internal/base/hello.go": "package base\n\nfunc (b *Base) Hello() string { return b.ID }\n",
            "internal/app/app.go": """
                package app

                import (
                	"example.com/m/internal/base"
                	other "example.com/m/internal/base"
                	"github.com/spf13/pflag"
                )

                type App struct {
                	*base.Base
                	name string
                }

                type Renamed struct{ other.Base }

                type Flags struct{ *pflag.FlagSet }

                type Runner interface{ base.Starter }
            """,
        },
    )
    hello = check(tmp_path, "sym:internal/app/app.go::App.Hello")
    assert hello.verdict is Verdict.VERIFIED and lines(hello)[0] == ("internal/base/hello.go", 3), hello.reason
    verdicts(
        tmp_path,
        {
            "sym:internal/app/app.go::App.ID": Verdict.VERIFIED,
            "sym:internal/app/app.go::Renamed.Hello": Verdict.VERIFIED,
            "sym:internal/app/app.go::App.Goodbye": Verdict.REFUTED,
            "sym:internal/app/app.go::Flags.Parse": Verdict.INCONCLUSIVE,
        },
    )
    # The package has no Starter: the reason cites the line that names it, in app.go (it named base.go).
    assert "internal/app/app.go:18 inherits from Starter" in check(tmp_path, "sym:internal/app/app.go::Runner.Start").reason


# Rust --------------------------------------------------------------------------------------------


def test_rust_fields_variants_derives_and_trait_methods(tmp_path):
    write(
        tmp_path,
        {
            "src/lib.rs": """
                #[derive(Debug, Clone)]
                pub struct Config { pub name: String, retries: u8 }

                pub enum Mode { Fast, Slow(u8), Custom { level: u8 } }

                pub trait Greet {
                    fn greet(&self) {}
                    fn name(&self) -> String;
                }

                impl Greet for Config {
                    fn name(&self) -> String { self.name.clone() }
                }

                #[derive(serde::Serialize)]
                pub struct Wire { id: u64 }
            """
        },
    )
    verdicts(
        tmp_path,
        {
            "sym:src/lib.rs::Config.name": Verdict.VERIFIED,
            "sym:src/lib.rs::Config.retries": Verdict.VERIFIED,
            "sym:src/lib.rs::Mode.Slow": Verdict.VERIFIED,
            "sym:src/lib.rs::Mode.Custom": Verdict.VERIFIED,
            "sym:src/lib.rs::Config.clone": Verdict.VERIFIED,
            "sym:src/lib.rs::Config.greet": Verdict.VERIFIED,
            "sym:src/lib.rs::Config.timeout": Verdict.REFUTED,
            "sym:src/lib.rs::Mode.Medium": Verdict.REFUTED,
            "sym:src/lib.rs::Wire.id": Verdict.VERIFIED,
            "sym:src/lib.rs::Wire.serialize": Verdict.INCONCLUSIVE,
        },
    )


def test_rust_impl_blocks_in_other_files_of_the_crate(tmp_path):
    """An inherent or trait impl may sit in any module of the type's crate: uv's `Cache` is declared in
    crates/uv-cache/src/lib.rs and `impl Cache { pub fn from_settings(...) }` is in cli.rs, so
    `sym:crates/uv-cache/src/lib.rs::Cache.from_settings` was REFUTED. Other crates' files do not count."""
    write(
        tmp_path,
        {
            "crates/cache/Cargo.toml": '[package]\nname = "cache"\n',
            "crates/cache/src/lib.rs": "mod cli;\n\npub struct Cache {\n    root: String,\n}\n\nimpl Cache {\n    pub fn root(&self) {}\n}\n",
            "crates/cache/src/cli.rs": "use crate::Cache;\n\nimpl Cache {\n    pub fn from_settings() -> Self { todo!() }\n}\n\nimpl From<u8> for Cache {\n    fn from(_: u8) -> Self { todo!() }\n}\n",
            "crates/cache/tests/it.rs": "use cache::Cache;\ntrait Probe { fn probe(&self) {} }\nimpl Probe for Cache {}\n",
            "crates/other/Cargo.toml": '[package]\nname = "other"\n',
            "crates/other/src/lib.rs": "pub struct Cache;\nimpl Cache {\n    pub fn elsewhere(&self) {}\n}\n",
        },
    )
    verdicts(
        tmp_path,
        {
            "sym:crates/cache/src/lib.rs::Cache.from_settings": Verdict.VERIFIED,
            "sym:crates/cache/src/lib.rs::Cache.from": Verdict.VERIFIED,
            "sym:crates/cache/src/lib.rs::Cache.root": Verdict.VERIFIED,
            "sym:crates/cache/src/lib.rs::Cache.elsewhere": Verdict.REFUTED,
            "sym:crates/cache/src/lib.rs::Cache.probe": Verdict.REFUTED,
        },
    )
    assert lines(check(tmp_path, "sym:crates/cache/src/lib.rs::Cache.from_settings"))[0] == ("crates/cache/src/cli.rs", 4)


# Java --------------------------------------------------------------------------------------------


def test_java_bases_through_imports_and_packages(tmp_path):
    write(
        tmp_path,
        {
            "src/main/java/com/acme/base/Base.java": "package com.acme.base;\npublic class Base { public void hello() {} protected int count; }\n",
            "src/main/java/com/acme/app/Sibling.java": "package com.acme.app;\nclass Sibling { void near() {} }\n",
            "src/main/java/com/acme/app/App.java": """
                package com.acme.app;
                import com.acme.base.Base;
                public class App extends Base { int port; }
                class Near extends Sibling {}
                class Task implements Runnable { public void run() {} }
                @interface Route { String value(); }
            """,
        },
    )
    path = "src/main/java/com/acme/app/App.java"
    hello = check(tmp_path, f"sym:{path}::App.hello")
    assert hello.verdict is Verdict.VERIFIED and lines(hello)[0] == ("src/main/java/com/acme/base/Base.java", 2), hello.reason
    verdicts(
        tmp_path,
        {
            f"sym:{path}::App.count": Verdict.VERIFIED,
            f"sym:{path}::App.port": Verdict.VERIFIED,
            f"sym:{path}::App.stop": Verdict.REFUTED,
            f"sym:{path}::Near.near": Verdict.VERIFIED,
            f"sym:{path}::Near.far": Verdict.REFUTED,
            f"sym:{path}::Task.cancel": Verdict.INCONCLUSIVE,
            f"sym:{path}::Route.value": Verdict.VERIFIED,
        },
    )


def test_java_members_every_enum_and_object_has(tmp_path):
    """An enum has `values()`, `valueOf`, `name()`, `ordinal()`... without writing them, and every type has
    Object's final methods (`getClass`, `wait`): javapoet's `TypeSpec.Kind.valueOf` was REFUTED. What a
    class may override (`toString`) still counts only where written, so a removed override is caught."""
    write(
        tmp_path,
        {
            "src/main/java/com/acme/Spec.java": """
                package com.acme;

                public final class Spec {
                  public enum Kind { CLASS, INTERFACE }

                  public static final class Builder {}
                }
            """,
        },
    )
    path = "src/main/java/com/acme/Spec.java"
    values = check(tmp_path, f"sym:{path}::Spec.Kind.valueOf")
    assert values.verdict is Verdict.VERIFIED and "inherits valueOf from java.lang.Enum" in values.reason, values.reason
    verdicts(
        tmp_path,
        {
            f"sym:{path}::Spec.Kind.values": Verdict.VERIFIED,
            f"sym:{path}::Spec.Kind.ordinal": Verdict.VERIFIED,
            f"sym:{path}::Spec.Kind.getClass": Verdict.VERIFIED,
            f"sym:{path}::Spec.Builder.wait": Verdict.VERIFIED,
            f"sym:{path}::Spec.Kind.zzz": Verdict.REFUTED,
            f"sym:{path}::Spec.toString": Verdict.REFUTED,
        },
    )


# Ruby --------------------------------------------------------------------------------------------


def test_ruby_superclasses_mixins_and_dynamic_methods(tmp_path):
    write(
        tmp_path,
        {
            "app/models.rb": """
                module Shop
                  class Base
                    def save; end
                  end

                  class Order < Base
                    def total; end
                  end

                  class User < ApplicationRecord
                  end

                  class Report
                    include Exportable
                  end

                  class Flags
                    %i[red green].each { |name| define_method("#{name}?") { true } }
                    define_method(:blue?) { false }
                  end

                  Point = Struct.new(:x, :y)
                end
            """
        },
    )
    verdicts(
        tmp_path,
        {
            "sym:app/models.rb::Shop.Order.save": Verdict.VERIFIED,
            "sym:app/models.rb::Shop.Order.refund": Verdict.REFUTED,
            "sym:app/models.rb::Shop.User.email": Verdict.INCONCLUSIVE,
            "sym:app/models.rb::Shop.Report.to_csv": Verdict.INCONCLUSIVE,
            "sym:app/models.rb::Shop.Flags.blue?": Verdict.VERIFIED,
            "sym:app/models.rb::Shop.Flags.red?": Verdict.INCONCLUSIVE,
            "sym:app/models.rb::Shop.Point.x": Verdict.INCONCLUSIVE,
        },
    )


def test_python_decorators_aliases_and_made_values(tmp_path):
    write(
        tmp_path,
        {
            "models.py": """
                from collections import namedtuple
                from dataclasses import dataclass

                @dataclass(frozen=True)
                class Point:
                    x: int
                    __slots__ = ("x", "label")

                @register
                class Plugin:
                    pass

                class Meta(metaclass=PluginMeta):
                    pass

                Alias = Point
                Pair = namedtuple("Pair", "left right")
                LIMIT = 10
            """
        },
    )
    verdicts(
        tmp_path,
        {
            "sym:models.py::Point.__init__": Verdict.VERIFIED,
            "sym:models.py::Point.label": Verdict.VERIFIED,
            "sym:models.py::Point.y": Verdict.REFUTED,
            "sym:models.py::Plugin.name": Verdict.INCONCLUSIVE,
            "sym:models.py::Meta.registry": Verdict.INCONCLUSIVE,
            "sym:models.py::Alias.x": Verdict.VERIFIED,
            "sym:models.py::Alias.z": Verdict.REFUTED,
            "sym:models.py::Pair.left": Verdict.INCONCLUSIVE,
            "sym:models.py::LIMIT.real": Verdict.REFUTED,
        },
    )
    assert "models.py:9 the class decorator @register may add members to Plugin" in check(tmp_path, "sym:models.py::Plugin.name").reason
