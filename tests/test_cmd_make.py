"""The make runner: targets of the Makefile and its includes, pattern rules, computed targets, `-C` and `-f`."""

from __future__ import annotations

from anchorcheck import Verdict
from tests._cmd_support import check, verdicts

V, R, I = Verdict.VERIFIED, Verdict.REFUTED, Verdict.INCONCLUSIVE

MAKEFILE = """\
BIN := tracker
GO ?= go
.PHONY: all lint test

all: build

build: $(BIN)
\t$(GO) build ./...

lint test: deps
\t@echo $@

deploy:: ; echo deploy
CFLAGS: not-a-rule = 1
run: export PORT = 8080

$(BIN): main.go
\t$(GO) build -o $@

define RULES
hidden:
\techo hidden
endef

include mk/release.mk
-include local.mk
"""


def test_targets_includes_and_evidence(make_tree) -> None:
    root = make_tree({"Makefile": MAKEFILE, "mk/release.mk": "release: build\n\techo release\n", "local.mk": "# nothing here\n"})
    got = verdicts(root, "make", "make build", "make lint test", "make deploy", "make release", "make tracker", "make -j4 test", "make -j 4 test", "make GOFLAGS=-v test")
    assert set(got.values()) == {V}, got
    [release, missing, hidden] = check(root, "make release", "make nosuch", "make hidden")
    assert [(e.path, e.line) for e in release.evidence] == [("mk/release.mk", 1)]
    assert missing.verdict is R and "no target nosuch in Makefile" in missing.reason
    assert hidden.verdict is R  # inside define ... endef: only $(eval) would make it a rule


def test_folder_and_file_options(make_tree) -> None:
    root = make_tree({"docs/Makefile": "html:\n\tsphinx-build\n", "build.mk": "pack:\n\ttar\n", "GNUmakefile": "gnu:\n\techo\n"})
    got = verdicts(
        root, "make -C docs html", "make --directory=docs html", "make -Cdocs html", "cd docs && make html", "make -f build.mk pack",
        "make --file=build.mk pack", "make gnu", "make -C docs nosuch", "make -f nosuch.mk pack", "make -C nowhere html",
    )
    assert got == {
        "make -C docs html": V, "make --directory=docs html": V, "make -Cdocs html": V, "cd docs && make html": V,
        "make -f build.mk pack": V, "make --file=build.mk pack": V, "make gnu": V,  # GNUmakefile is read first
        "make -C docs nosuch": R, "make -f nosuch.mk pack": R, "make -C nowhere html": R,
    }


def test_no_makefile(make_tree) -> None:
    root = make_tree({"package.json": "{}"})
    [result] = check(root, "make test")
    assert result.verdict is R and "no Makefile in the repository root" in result.reason


def test_pattern_rules(make_tree) -> None:
    # prometheus's Makefile.common: `%: common-%` makes `make lint` run `common-lint`
    root = make_tree({"Makefile": "%: common-% ;\n\ncommon-lint:\n\tgolangci-lint run\n\n%.pdf: %.md\n\tpandoc $<\n", "guide.md": "# g"})
    got = verdicts(root, "make lint", "make nosuch", "make guide.pdf", "make other.pdf")
    assert got == {"make lint": V, "make nosuch": R, "make guide.pdf": V, "make other.pdf": R}
    root = make_tree({"Makefile": "%: %-stage ;\n%-stage: %-gen ;\n"})
    assert verdicts(root, "make x") == {"make x": R}
    root = make_tree({"Makefile": "%.o: %.c\n\tcc\n%: gen/%.tmpl\n\tcp\n", "gen/site.tmpl": ""})
    [result] = check(root, "make site")
    assert result.verdict is V and "pattern rule %: gen/%.tmpl" in result.reason
    # Logflare: `%: cloudbuild/%.enc` makes a target only from a file there; the same match-anything rule does not
    # make its own prerequisite (GNU make: not for an implicit rule's prerequisite), so `cloudbuild/start.enc` is not
    # made from `cloudbuild/cloudbuild/start.enc.enc`, there as it is, and `start` is absent
    root = make_tree({"Makefile": "%: cloudbuild/%.enc\n\tgcloud kms decrypt $<\nbuild:\n\techo\n", "cloudbuild/.dev.env.enc": "",
                      "cloudbuild/cloudbuild/start.enc.enc": ""})
    assert verdicts(root, "make start", "make .dev.env", "make build") == {"make start": R, "make .dev.env": V, "make build": V}


def test_what_makes_absence_unknown(make_tree) -> None:
    cases = {
        "computed": "$(shell ls targets):\n\techo\nall:\n\techo\n",
        "eval": "$(foreach t,a b,$(eval $(t): ; echo))\nall:\n\techo\n",
        "missing include": "include generated.mk\nall:\n\techo\n",
        # a developer's own local.mk (ignored, or just not written on this clone) may define the target
        "missing optional include": "-include local.mk\nall:\n\techo\n",
        "missing sinclude": "sinclude config.mk\nall:\n\techo\n",
        "computed include": "include $(wildcard *.mk)\nall:\n\techo\n",
        "default rule": ".DEFAULT:\n\techo\nall:\n\techo\n",
    }
    for name, text in cases.items():
        root = make_tree({"Makefile": text})
        [result] = check(root, "make nosuch")
        assert result.verdict is I, name
    # a computed target can only be what its static parts allow
    root = make_tree({"Makefile": "$(OUT)/bin/tool:\n\techo\nall:\n\techo\n"})
    assert verdicts(root, "make nosuch", "make build/bin/tool") == {"make nosuch": R, "make build/bin/tool": I}


def test_files_make_could_build_or_find(make_tree) -> None:
    root = make_tree({"Makefile": "all:\n\techo\n", "hello.c": "int main(){}", "README": "x"})
    assert verdicts(root, "make hello", "make README") == {"make hello": I, "make README": I}


def test_variables_in_targets_are_expanded(make_tree) -> None:
    root = make_tree({"Makefile": "ifeq ($(CI),1)\nOUT := ci-out\nelse\nOUT := out\nendif\n$(OUT):\n\tmkdir $@\n"})
    assert verdicts(root, "make out", "make ci-out", "make other") == {"make out": V, "make ci-out": V, "make other": R}


def test_unreadable_makefile(make_tree) -> None:
    root = make_tree({"Makefile": b"all:\n\t\xff\xfe\n"})
    [result] = check(root, "make all")
    assert result.verdict is I and "Makefile:2" in result.reason and "UTF-8" in result.reason


def test_targets_written_together_with_slashes_are_each_checked(make_tree) -> None:
    """`make format/lint/typecheck` in prose names three targets: VERIFIED when each is one (it was REFUTED as a
    single target), REFUTED naming the one that is gone; a slash path that names no target stays as it was."""
    root = make_tree({"Makefile": "format:\n\truff format\nlint:\n\truff check\ntypecheck:\n\tpyright\n"})
    [ok] = check(root, "make format/lint/typecheck")
    assert ok.verdict is V and "format, lint and typecheck" in ok.reason
    assert [(e.path, e.line) for e in ok.evidence] == [("Makefile", 1), ("Makefile", 3), ("Makefile", 5)]
    [gone] = check(root, "make format/lint/test")
    assert gone.verdict is R and gone.reason.startswith("no target test in Makefile")
    assert verdicts(root, "make build/app", "make lint/app.o") == {"make build/app": R, "make lint/app.o": R}


def test_eval_of_a_template_reads_its_rules(make_tree) -> None:
    # elixir's Makefile: `define APP_TEMPLATE` ... `test_$(1): ...` ... `endef`, then one `$(eval $(call APP_TEMPLATE,ex_unit,ExUnit))`
    # per application; `make test_ex_unit` is a rule the call writes, and a target no call writes is absent, not unknown
    template = (
        "define APP_TEMPLATE\n$(1): lib/$(1)/ebin/Elixir.$(2).beam\n\ntest_$(1): compile $(1)\n\tcd lib/$(1) && ../../bin/elixir -r $$(HELPER)\nendef\n\n"
        "compile:\n\techo\n\n$(eval $(call APP_TEMPLATE,ex_unit,ExUnit))\n$(eval $(call APP_TEMPLATE,mix,Mix))\n"
    )
    root = make_tree({"Makefile": template})
    got = verdicts(root, "make test_ex_unit", "make mix", "make test_stdlib")
    assert got == {"make test_ex_unit": V, "make mix": V, "make test_stdlib": R}, got
    [result] = check(root, "make test_mix")
    assert [(e.path, e.line) for e in result.evidence] == [("Makefile", 12)]  # the line of the call that writes it
    # a call with computed arguments, or of a template not defined, still makes absence unknown
    for text in (template.replace("APP_TEMPLATE,mix,", "APP_TEMPLATE,$(APP),"), template.replace("call APP_TEMPLATE,mix", "call OTHER,mix")):
        root = make_tree({"Makefile": text})
        assert verdicts(root, "make test_stdlib") == {"make test_stdlib": I}, text


def test_an_include_written_as_a_glob_reads_the_files_it_matches(make_tree) -> None:
    # alloy: `include build-tools/make/*.mk` — make expands the glob to the files there, so the targets those
    # files define are the whole world; a glob matching nothing under `-include` includes nothing
    files = {"Makefile": "include build-tools/make/*.mk\n-include local/*.mk\nall:\n\techo\n", "build-tools/make/a.mk": "lint:\n\techo\n",
             "build-tools/make/b.mk": "test:\n\techo\n", "build-tools/make/notes.txt": "nosuch:\n"}
    root = make_tree(files)
    assert verdicts(root, "make lint", "make test", "make nosuch") == {"make lint": V, "make test": V, "make nosuch": R}
    root = make_tree({"Makefile": "include mk/*.mk\nall:\n\techo\n"})  # matching nothing: make stops, the target unknown
    assert verdicts(root, "make nosuch") == {"make nosuch": I}
    # a glob into a folder the listing leaves out (ignored by .gitignore, vendored) reads a clone's own files there
    for ignoring in ({".gitignore": "local/\n"}, {"local/.gitkeep": ""}):
        makefile = "-include local/*.mk\nall:\n\techo\n" if ".gitignore" in ignoring else "include vendor/mk/*.mk\nall:\n\techo\n"
        root = make_tree({"Makefile": makefile, **ignoring, "vendor/mk/a.mk": "lint:\n\techo\n"})
        assert verdicts(root, "make nosuch", "make all") == {"make nosuch": I, "make all": V}, makefile
        assert "from a folder" in check(root, "make nosuch")[0].reason


def test_a_template_called_with_variables_makes_targets_of_its_shape_only(make_tree) -> None:
    # LocalAI: `$(eval $(call generate-docker-build-target,$(BACKEND_LLAMA_CPP)))` makes `docker-build-...` targets
    # only; a target outside that shape stays absent (the renamed test-coverage-check was INCONCLUSIVE)
    text = ("define gen\ndocker-build-$(word 1,$(subst |, ,$(1))):\n\techo $(1)\nendef\n"
            "$(eval $(call gen,$(BACKEND_A)))\n$(eval $(call gen,$(BACKEND_B)))\ntest:\n\techo\n")
    root = make_tree({"Makefile": text})
    assert verdicts(root, "make test", "make nosuch", "make docker-build-llama") == {"make test": V, "make nosuch": R, "make docker-build-llama": I}
    root = make_tree({"Makefile": "define gen\n$(1):\n\techo\nendef\n$(eval $(call gen,$(TARGETS)))\n"})  # a whole target computed
    assert verdicts(root, "make nosuch") == {"make nosuch": I}


def test_an_affix_function_keeps_its_literal_part_in_a_computed_target(make_tree) -> None:
    # jaeger: `$(TOOLS_BIN_NAMES):` where TOOLS_BIN_NAMES is `$(addprefix $(TOOLS_BIN_DIR)/, ...)` makes tool paths
    # under `.tools/` only, so a renamed `fmt` target is absent; a target of the affix's shape stays unknown
    text = ("TOOLS_BIN_DIR := $(SRC_ROOT)/.tools\nTOOLS_BIN_NAMES := $(addprefix $(TOOLS_BIN_DIR)/, $(notdir $(shell cat tools)))\n"
            "$(TOOLS_BIN_NAMES): go.mod\n\tgo build -o $@\nCHECKS := $(addsuffix -check,$(shell ls))\n$(CHECKS):\n\techo\nlint:\n\techo\n")
    root = make_tree({"Makefile": text, "go.mod": "module x\n"})
    assert verdicts(root, "make fmt", "make lint", "make /src/.tools/mockery", "make unit-check") == {
        "make fmt": R, "make lint": V, "make /src/.tools/mockery": I, "make unit-check": I}
    # an affix with a space in it makes words of its own; nested affixes thousands deep are anything, and no error
    root = make_tree({"Makefile": "T := $(addprefix pre ,fmt lint)\n$(T):\n\techo\n",
                      "deep.mk": "X := " + "$(addprefix " * 3000 + "x" + ",y)" * 3000 + "\n$(X):\n\techo\n"})
    assert verdicts(root, "make fmt", "make -f deep.mk nosuch") == {"make fmt": I, "make -f deep.mk nosuch": I}
    # any other function stands for anything, as before
    root = make_tree({"Makefile": "NAMES := $(patsubst %.go,%,$(wildcard *.go))\n$(NAMES):\n\techo\n"})
    assert verdicts(root, "make fmt") == {"make fmt": I}
