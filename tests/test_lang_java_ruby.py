"""Java and Ruby: imports, environment reads and definitions, with evidence lines."""

from __future__ import annotations

import pytest

from anchorcheck import Verdict
from tests._source_support import check, lines, write

JAVA = '''
package com.x;
import java.util.List;
import static org.junit.Assert.assertEquals;
import com.google.common.collect.*;
public class Store<T> extends Base {
  static final int LIMIT = 1;
  private String name, other;
  public void save() { String v = System.getenv("J_KEY"); }
  class Inner { void m() {} }
  enum Mode { FAST }
}
enum Level {
  LOW, HIGH;
  private final int weight = 1;
  int weight() { return weight; }
}
'''

RUBY = '''
require "json"
require_relative "lib/local"
require 'active_support/core_ext'
module Outer
  class Store < Base
    LIMIT = 1
    def save; ENV["R_KEY"]; ENV.fetch("R_OTHER"); end
    def self.build; end
  end
end
'''


@pytest.fixture()
def tree(tmp_path):
    return write(tmp_path, {"src/Store.java": JAVA, "lib/store.rb": RUBY})


@pytest.mark.parametrize(
    ("anchor", "where"),
    [
        ("import:java.util", ("src/Store.java", 2)),
        ("import:org.junit.Assert", ("src/Store.java", 3)),
        ("import:com.google.common", ("src/Store.java", 4)),
        ("import:json", ("lib/store.rb", 1)),
        ("import:active_support", ("lib/store.rb", 3)),
        ("env:J_KEY", ("src/Store.java", 8)),
        ("env:R_KEY", ("lib/store.rb", 7)),
        ("env:R_OTHER", ("lib/store.rb", 7)),
    ],
)
def test_imports_and_env(tree, anchor, where):
    result = check(tree, anchor)
    assert result.verdict is Verdict.VERIFIED, result.reason
    assert lines(result) == [where]


def test_require_relative_is_not_an_import(tree):
    assert check(tree, "import:lib").verdict is Verdict.REFUTED
    assert check(tree, "import:com.google.commonx").verdict is Verdict.REFUTED


@pytest.mark.parametrize(
    ("anchor", "line"),
    [
        ("sym:src/Store.java::Store", 5),
        ("sym:src/Store.java::Store.LIMIT", 6),
        ("sym:src/Store.java::Store.other", 7),
        ("sym:src/Store.java::Store.save", 8),
        ("sym:src/Store.java::Store.Inner.m", 9),
        ("sym:src/Store.java::Store.Mode.FAST", 10),
        ("sym:src/Store.java::Level.HIGH", 13),
        ("sym:src/Store.java::Level.weight", 14),  # the field and the method share a name: the first line
        ("sym:lib/store.rb::Outer.Store", 5),
        ("sym:lib/store.rb::Outer.Store.LIMIT", 6),
        ("sym:lib/store.rb::Outer.Store.save", 7),
        ("sym:lib/store.rb::Outer.Store.build", 8),
    ],
)
def test_definitions(tree, anchor, line):
    result = check(tree, anchor)
    assert result.verdict is Verdict.VERIFIED, result.reason
    assert lines(result)[0][1] == line


def test_java_lookup_in_the_environment_map(tmp_path):
    """`System.getenv()` without a key is the whole environment; `.get("K")` on it reads K."""
    tree = write(tmp_path, {"App.java": '''
        class App {
          String url = System.getenv().get("J_MAP");
          String mode = System.getenv().getOrDefault("J_DEFAULT", "dev");
          int size = System.getenv().size();
        }
        '''})
    assert lines(check(tree, "env:J_MAP")) == [("App.java", 2)]
    assert lines(check(tree, "env:J_DEFAULT")) == [("App.java", 3)]
    assert check(tree, "env:size").verdict is Verdict.REFUTED


def test_ruby_methods_of_class_self(tmp_path):
    """`class << self` defines singleton methods, named like `def self.m`."""
    tree = write(tmp_path, {"lib/store.rb": '''
        class Store
          class << self
            def create; end
            attr_reader :pool
          end
          def save; end
        end
        '''})
    assert lines(check(tree, "sym:lib/store.rb::Store.create")) == [("lib/store.rb", 3)]
    assert lines(check(tree, "sym:lib/store.rb::Store.save")) == [("lib/store.rb", 6)]


def test_java_fully_qualified_getenv(tmp_path):
    """`java.lang.System.getenv("K")` is `System.getenv("K")` written out; another class's `System` is not."""
    tree = write(tmp_path, {"App.java": '''
        class App {
          String url = java.lang.System.getenv("J_QUALIFIED");
          String map = java.lang.System.getenv().get("J_QUALIFIED_MAP");
          String other = com.example.System.getenv("J_OTHER");
        }
        '''})
    assert lines(check(tree, "env:J_QUALIFIED")) == [("App.java", 2)]
    assert lines(check(tree, "env:J_QUALIFIED_MAP")) == [("App.java", 3)]
    assert check(tree, "env:J_OTHER").verdict is Verdict.REFUTED


def test_ruby_rooted_env(tmp_path):
    """`::ENV` is the top-level ENV, written from inside a namespace; `Config::ENV` is another constant."""
    tree = write(tmp_path, {"lib/config.rb": '''
        module App
          URL = ::ENV["R_ROOTED"]
          MODE = ::ENV.fetch("R_ROOTED_FETCH", "dev")
          OTHER = Config::ENV["R_OTHER"]
        end
        '''})
    assert lines(check(tree, "env:R_ROOTED")) == [("lib/config.rb", 2)]
    assert lines(check(tree, "env:R_ROOTED_FETCH")) == [("lib/config.rb", 3)]
    assert check(tree, "env:R_OTHER").verdict is Verdict.REFUTED


def test_java_record_components(tmp_path):
    """A record's components are its fields (`Point.x`), at the component's line: the record's
    line when they are written on it."""
    tree = write(tmp_path, {"src/Point.java": '''
        record Point(int x, int y) {
          static Point origin() { return new Point(0, 0); }
        }
        record Range(
            @Deprecated int low,
            int... rest) {}
        '''})
    assert lines(check(tree, "sym:src/Point.java::Point.x")) == [("src/Point.java", 1)]
    assert lines(check(tree, "sym:src/Point.java::Point.y")) == [("src/Point.java", 1)]
    assert lines(check(tree, "sym:src/Point.java::Point.origin")) == [("src/Point.java", 2)]
    assert lines(check(tree, "sym:src/Point.java::Range.low")) == [("src/Point.java", 5)]
    assert lines(check(tree, "sym:src/Point.java::Range.rest")) == [("src/Point.java", 6)]
    assert check(tree, "sym:src/Point.java::Point.z").verdict is Verdict.REFUTED


def test_ruby_attribute_methods(tmp_path):
    """`attr_accessor :name` (and `attr_reader`, `attr_writer`) defines the method `name`, at that line."""
    tree = write(tmp_path, {"lib/user.rb": '''
        class User
          attr_accessor :name, :email
          attr_reader(:id)
          attr_writer :password
          validates :name
          def save; end
        end
        '''})
    for name, line in [("name", 2), ("email", 2), ("id", 3), ("password", 4), ("save", 6)]:
        assert lines(check(tree, f"sym:lib/user.rb::User.{name}")) == [("lib/user.rb", line)], name
    assert check(tree, "sym:lib/user.rb::User.validates").verdict is Verdict.REFUTED


def test_ruby_autoload_requires_its_feature(tmp_path):
    """`autoload :Foo, "foo/bar"` requires "foo/bar" when Foo is first used: an import like `require`."""
    tree = write(tmp_path, {"lib/app.rb": '''
        module App
          autoload :Client, "faraday/client"
          Object.autoload(:Parser, "nokogiri")
        end
        '''})
    assert lines(check(tree, "import:faraday")) == [("lib/app.rb", 2)]
    assert lines(check(tree, "import:faraday/client")) == [("lib/app.rb", 2)]
    assert lines(check(tree, "import:nokogiri")) == [("lib/app.rb", 3)]
    assert check(tree, "import:Client").verdict is Verdict.REFUTED


def test_java_getenv_imported_statically(tmp_path):
    """`import static java.lang.System.getenv;` (or `System.*`) makes a bare `getenv("K")` a read of K;
    without it, a `getenv` of the class's own is not the environment."""
    tree = write(tmp_path, {
        "a/App.java": 'import static java.lang.System.getenv;\nclass App {\n  String url = getenv("J_STATIC");\n}\n',
        "b/Star.java": 'import static java.lang.System.*;\nclass Star {\n  String url = getenv("J_STAR");\n}\n',
        "c/Own.java": 'import java.lang.System;\nclass Own {\n  String getenv(String k) { return k; }\n  String url = getenv("J_OWN");\n}\n',
    })
    assert lines(check(tree, "env:J_STATIC")) == [("a/App.java", 3)]
    assert lines(check(tree, "env:J_STAR")) == [("b/Star.java", 3)]
    assert check(tree, "env:J_OWN").verdict is Verdict.REFUTED


def test_java_environment_kept_in_a_map(tmp_path):
    tree = write(tmp_path, {"App.java": (
        "import java.util.Map;\nclass App {\n  static final Map<String, String> ENV = System.getenv();\n"
        "  void run() {\n    Map<String, String> env = System.getenv();\n    String a = env.get(\"J_LOCAL\");\n"
        "    String b = ENV.getOrDefault(\"J_FIELD\", \"x\");\n    String c = other.get(\"J_OTHER\");\n  }\n}\n"
    )})
    assert lines(check(tree, "env:J_LOCAL")) == [("App.java", 6)]
    assert lines(check(tree, "env:J_FIELD")) == [("App.java", 7)]
    assert check(tree, "env:J_OTHER").verdict is Verdict.REFUTED
