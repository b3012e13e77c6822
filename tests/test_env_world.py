"""`env:` absence is REFUTED only over a closed world: writes do not open it, whole-environment reads do,
and a key kept in a constant of the same file is followed (issue 15), in every language."""

from __future__ import annotations

import pytest
from tests._source_support import check, lines, write

from anchorcheck import Verdict

WRITES = {
    "python": ("w.py", "import os\ndef f(k, v):\n    os.environ[k] = v\n    del os.environ[k]\n    os.environ['SET_ONLY'] = '1'\n"),
    "javascript": ("w.js", "function f(k, v) {\n  process.env[k] = v;\n  process.env.SET_ONLY = '1';\n  delete process.env[k];\n}\n"),
    "typescript": ("w.ts", "export function f(k: string, v: string) {\n  process.env[k] = v;\n  process.env.SET_ONLY = '1';\n}\n"),
    "go": ("w.go", 'package w\n\nimport "os"\n\nfunc F(k, v string) {\n\tos.Setenv(k, v)\n\tos.Setenv("SET_ONLY", "1")\n}\n'),
    "rust": ("w.rs", 'use std::env;\nfn f(k: &str) {\n    env::set_var(k, "1");\n    env::set_var("SET_ONLY", "1");\n}\n'),
    "ruby": ("w.rb", 'def f(k, v)\n  ENV[k] = v\n  ENV["SET_ONLY"] = "1"\nend\n'),
}


@pytest.mark.parametrize("language", sorted(WRITES))
def test_a_write_is_not_a_read(tmp_path, language):
    """`os.environ[k] = v` wrote a key: absence elsewhere stays REFUTED, and a written key is not 'read'."""
    name, text = WRITES[language]
    tree = write(tmp_path, {name: text})
    for key in ("NEVER_READ", "SET_ONLY"):
        result = check(tree, f"env:{key}")
        assert result.verdict is Verdict.REFUTED, (key, result.reason)


WHOLE = {
    "python dict()": ("a.py", "import os\nimport subprocess\nenv = dict(os.environ)\n", 3),
    "python copy()": ("a.py", "import os\n\nchild = os.environ.copy()\n", 3),
    "python items()": ("a.py", "import os\nfor k, v in os.environ.items():\n    print(k)\n", 2),
    "python spread": ("a.py", "import os\nx = {**os.environ, 'A': '1'}\n", 2),
    "python env=": ("a.py", "import os, subprocess\n\nsubprocess.run(['ls'], env=os.environ)\n", 3),
    "python alias handed on": ("a.py", "import os, subprocess\nenv = os.environ\nsubprocess.run(['ls'], env=env)\n", 3),
    "python from-import": ("a.py", "from os import environ\nprint(environ)\n", 2),
    "javascript spread": ("a.js", "const cp = require('child_process');\nconst env = { ...process.env, A: '1' };\n", 2),
    "javascript Object.assign": ("a.js", "const x = 1;\nObject.assign({}, process.env);\n", 2),
    "javascript spawn": ("a.js", "const cp = require('child_process');\ncp.spawn('ls', [], { env: process.env });\n", 2),
    "javascript keys": ("a.js", "for (const k of Object.keys(process.env)) {}\n", 1),
    "typescript optional chain through globalThis": ("a.ts", "export const all = globalThis?.process?.env as Record<string, string>\n", 1),
    "javascript Deno.env.toObject": ("a.js", "const x = 1;\nexport const all = Deno.env.toObject();\n", 2),
    "typescript spread": ("a.ts", "export const all: Record<string, string | undefined> = { ...process.env };\n", 1),
    "go os.Environ": ("a.go", 'package a\n\nimport "os"\n\nvar All = os.Environ()\n', 5),
    "rust vars": ("a.rs", "fn f() {\n    for (k, v) in std::env::vars() {}\n}\n", 2),
    "rust vars_os": ("a.rs", "use std::env;\nfn f() -> usize {\n    env::vars_os().count()\n}\n", 3),
    "java getenv()": ("A.java", "class A {\n  void f(ProcessBuilder pb) {\n    pb.environment().putAll(System.getenv());\n  }\n}\n", 3),
    "java kept map": ("A.java", "import java.util.Map;\nclass A {\n  Map<String, String> env = System.getenv();\n  void f() { for (String k : env.keySet()) {} }\n}\n", 4),
    "ruby to_h": ("a.rb", "h = ENV.to_h\n", 1),
    "ruby each": ("a.rb", "x = 1\nENV.each { |k, v| puts k }\n", 2),
    "ruby handed on": ("a.rb", "system(ENV, 'ls')\n", 1),
    # Configuration libraries that read variables named after fields or keys: any key may be one.
    "python pydantic-settings": ("a.py", "from pydantic_settings import BaseSettings\n\nclass Settings(BaseSettings):\n    database_url: str\n", 3),
    "python pydantic-settings by module": ("a.py", "import pydantic_settings as ps\nclass S(ps.BaseSettings):\n    region: str = 'eu'\n", 2),
    "python django-environ": ("a.py", "import environ\n\nenv = environ.Env()\nDATABASES = {'default': env.db()}\n", 1),
    "python environs": ("a.py", "import os\nfrom environs import Env\n\nenv = Env()\n", 2),
    "python decouple": ("a.py", "from decouple import config\nSECRET_KEY = config('SECRET_KEY')\n", 1),
    "go viper AutomaticEnv": ("a.go", 'package a\n\nimport "github.com/spf13/viper"\n\nfunc F() { viper.AutomaticEnv() }\n', 5),
}


@pytest.mark.parametrize("case", sorted(WHOLE))
def test_a_whole_environment_read_opens_the_world(tmp_path, case):
    """Code that copies, iterates or hands on the whole environment may read any key."""
    name, text, line = WHOLE[case]
    tree = write(tmp_path, {name: text, "other.py": "import os\nos.getenv('OTHER')\n"})
    result = check(tree, "env:NEVER_NAMED")
    assert result.verdict is Verdict.INCONCLUSIVE, result.reason
    assert result.state == "whole-environment"
    assert f"{name}:{line}" in result.reason


def test_lookups_by_key_do_not_open_the_world(tmp_path):
    """Keyed reads and the test helper that only sets keys leave the world closed."""
    tree = write(tmp_path, {
        "a.py": """
            import os
            from unittest import mock
            url = os.environ.get("A") or os.environ["B"]
            if "C" in os.environ:
                pass
            with mock.patch.dict(os.environ, {"D": "1"}):
                pass
            def app(environ, start_response):  # WSGI's environ is the request, not os.environ
                return [environ]
            """,
        "b.js": "const env = process.env;\nconst { A, B } = process.env;\nconst c = env.C;\n",
        "c.rb": 'a = ENV.fetch("A")\nb = ENV["B"]\n',
        "D.java": 'class D { String a = System.getenv("A"); String b = System.getenv().get("B"); }\n',
    })
    assert check(tree, "env:NEVER_NAMED").verdict is Verdict.REFUTED


CONSTANTS = {
    "python": ("k.py", 'import os\nKEY = "HELD_KEY"\nvalue = os.environ[KEY]\n', 3),
    "javascript": ("k.js", 'const KEY = "HELD_KEY";\nconst value = process.env[KEY];\n', 2),
    "typescript": ("k.ts", 'const KEY = "HELD_KEY";\nexport const value = process.env[KEY];\n', 2),
    "go": ("k.go", 'package k\n\nimport "os"\n\nconst keyName = "HELD_KEY"\n\nvar Value = os.Getenv(keyName)\n', 7),
    "rust const": ("k.rs", 'const KEY: &str = "HELD_KEY";\nfn f() { let _ = std::env::var(KEY); }\n', 2),
    "rust let": ("k.rs", 'fn f() {\n    let name = "HELD_KEY";\n    let _ = std::env::var_os(&name);\n}\n', 3),
    "java": ("K.java", 'class K {\n  static final String KEY = "HELD_KEY";\n  String v = System.getenv(KEY);\n}\n', 3),
    "ruby": ("k.rb", 'KEY = "HELD_KEY"\nvalue = ENV[KEY]\n', 2),
}


THROUGH_LIBRARIES = {
    # crush reads TERM with `env.Getenv("TERM")` on a bubbletea environment (uv.Environ): it was REFUTED.
    "go wrapper Getenv": ("w.go", 'package w\n\nfunc F(env Environ) bool {\n\treturn env.Getenv("HELD_KEY") != ""\n}\n', 4),
    "go wrapper LookupEnv on a field": ("w.go", 'package w\n\nfunc F(c Caps) bool {\n\t_, ok := c.Env.LookupEnv("HELD_KEY")\n\treturn ok\n}\n', 4),
    "go viper BindEnv": ("w.go", 'package w\n\nimport "github.com/spf13/viper"\n\nfunc F() {\n\tviper.BindEnv("db.url", "HELD_KEY")\n}\n', 6),
    # Deno and Bun have environment objects of their own; hono reads `global?.process?.env`.
    "javascript Deno.env.get": ("w.js", 'const x = 1;\nconst v = Deno.env.get("HELD_KEY");\n', 2),
    "javascript Bun.env": ("w.js", "const v = Bun.env.HELD_KEY;\n", 1),
    "typescript optional chain": ("w.ts", "export const v = globalThis.process?.env?.HELD_KEY\n", 1),
    "typescript key in env": ("w.ts", "const { process } = globalThis as any\nexport const off = 'HELD_KEY' in process?.env\n", 2),
    # uv and most Rust CLIs read variables through clap: `#[arg(long, env = "K")]`.
    "rust clap env": ("w.rs", '#[derive(Parser)]\nstruct Cli {\n    #[arg(long, env = "HELD_KEY")]\n    token: String,\n}\n', 3),
}


@pytest.mark.parametrize("language", sorted({**CONSTANTS, **THROUGH_LIBRARIES}))
def test_a_key_held_in_a_constant_or_read_through_a_library_is_followed(tmp_path, language):
    """A key kept in a constant of the file is read; so is one an environment wrapper's `Getenv("K")`
    or a configuration library given the variable's name reads."""
    name, text, line = {**CONSTANTS, **THROUGH_LIBRARIES}[language]
    tree = write(tmp_path, {name: text})
    result = check(tree, "env:HELD_KEY")
    assert result.verdict is Verdict.VERIFIED, result.reason
    assert lines(result) == [(name, line)]
    assert check(tree, "env:OTHER_KEY").verdict is Verdict.REFUTED


KEPT_ELSEWHERE = {
    "rust field": ("f.rs", 'struct S { name: String }\nimpl S {\n    fn get(&self) -> Option<std::ffi::OsString> { std::env::var_os(&self.name) }\n}\n'),
    "rust rebound": ("f.rs", 'fn f(x: bool) {\n    let mut name = "A";\n    let name = "B";\n    let _ = std::env::var(name);\n}\n'),
    "python parameter": ("f.py", "import os\ndef get(name):\n    return os.environ[name]\n"),
    "go local": ("f.go", 'package f\n\nimport "os"\n\nfunc F(name string) string { return os.Getenv(name) }\n'),
    "javascript rebound": ("f.js", 'let KEY = "A";\nKEY = "B";\nconst v = process.env[KEY + ""];\n'),
    "rust clap bare env": ("f.rs", "#[derive(Parser)]\nstruct Cli {\n    /// The key.\n    #[clap(long, env)]\n    some_key: String,\n}\n"),
    "rust clap env from a constant": ("f.rs", "#[derive(Parser)]\nstruct Cli {\n    #[arg(long, env = EnvVars::UV_CACHE_DIR)]\n    dir: String,\n}\n"),
    "go viper BindEnv of a key": ("f.go", 'package f\n\nimport "github.com/spf13/viper"\n\nfunc F() { viper.BindEnv("port") }\n'),
    "go wrapper with a computed key": ("f.go", 'package f\n\nfunc F(env Environ, k string) string { return env.Getenv(k) }\n'),
}


@pytest.mark.parametrize("case", sorted(KEPT_ELSEWHERE))
def test_a_key_that_cannot_be_followed_is_inconclusive(tmp_path, case):
    """`var_os(&self.name)`: the key is somewhere else; absence is never REFUTED there."""
    name, text = KEPT_ELSEWHERE[case]
    tree = write(tmp_path, {name: text})
    result = check(tree, "env:SOME_KEY")
    assert result.verdict is Verdict.INCONCLUSIVE, result.reason
    assert result.state == "computed-key"


BARE_ENVIRON = {
    "WSGI app, a parameter": ("def app(environ, start_response):\n    return [environ['PATH_INFO'], environ.get('QUERY_STRING')]\n", False),
    "a local dict": ("environ = {'PATH_INFO': '/'}\nprint(environ['PATH_INFO'])\n", False),
    "from os import environ": ("from os import environ\nprint(environ['PATH_INFO'])\n", True),
    "from os import *": ("from os import *\nprint(environ.get('PATH_INFO'))\n", True),
    "bound to os.environ": ("import os\nenviron = os.environ\nprint(environ['PATH_INFO'])\n", True),
    "imported from a module that may pass os's on": ("from .compat import environ\nprint(environ['PATH_INFO'])\n", True),
}


@pytest.mark.parametrize("case", sorted(BARE_ENVIRON))
def test_a_bare_environ_reads_the_environment_only_where_it_may_be_os_environ(tmp_path, case):
    """A WSGI `environ` (the request) reads no environment variable: `env:PATH_INFO` is not VERIFIED by it.
    Where `environ` may be os's (imported by that name from anywhere, all of os imported, bound to it),
    the lookup counts: never a REFUTED where the code may read the key."""
    source, reads = BARE_ENVIRON[case]
    tree = write(tmp_path, {"app.py": source})
    result = check(tree, "env:PATH_INFO")
    assert result.verdict is (Verdict.VERIFIED if reads else Verdict.REFUTED), result.reason

