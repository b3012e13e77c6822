"""The npm runner: npm, pnpm, yarn and bun scripts, workspaces and filters, built-ins, and npx-style launchers."""

from __future__ import annotations

from anchorcheck import Verdict
from tests._cmd_support import check, package, verdicts

V, R, I = Verdict.VERIFIED, Verdict.REFUTED, Verdict.INCONCLUSIVE


def test_scripts_and_shorthands(make_tree) -> None:
    root = make_tree(
        {"package.json": package("app", {"build": "tsc", "test": "vitest", "test:unit": "vitest unit", "start": "node ."}), "seed.ts": ""}
    )
    got = verdicts(
        root,
        "npm run build", "npm run-script build", "npm test", "npm t", "npm start", "npm run test:unit -- --watch",
        "pnpm build", "pnpm test:unit", "yarn build", "yarn run build", "bun run build", "bun build ./src/index.ts", "bun seed.ts", "bun run seed.ts", "bun gone.ts",
        "npm run nosuch", "npm stop", "pnpm run nosuch", "pnpm test:e2e", "yarn run nosuch", "bun run test:e2e",
    )
    assert got == {
        "npm run build": V, "npm run-script build": V, "npm test": V, "npm t": V, "npm start": V,
        "npm run test:unit -- --watch": V, "pnpm build": V, "pnpm test:unit": V, "yarn build": V, "yarn run build": V,
        "bun run build": V,
        "bun build ./src/index.ts": V,  # `bun build` is bun's bundler: no script needed, and package.json makes this a bun project
        "bun seed.ts": V, "bun run seed.ts": V, "bun gone.ts": R,  # bun runs a file of that name
        "npm run nosuch": R, "npm stop": R, "pnpm run nosuch": R, "pnpm test:e2e": R, "yarn run nosuch": R,
        "bun run test:e2e": R,
    }


def test_evidence_names_the_script_line(make_tree) -> None:
    root = make_tree({"package.json": package("app", {"lint": "eslint .", "build": "tsc"})})
    [result] = check(root, "npm run build")
    assert [(e.path, e.line) for e in result.evidence] == [("package.json", 5)]
    [missing] = check(root, "npm run deploy")
    assert missing.verdict is R and "no script deploy in package.json (scripts: build, lint)" in missing.reason


def test_no_package_json_at_all(make_tree) -> None:
    root = make_tree({"pyproject.toml": "[project]\nname = 'x'\n"})
    got = verdicts(root, "npm run build", "pnpm install", "yarn", "npm install -g pnpm@10", "npm init -y", "npx cowsay hi")
    assert got == {
        "npm run build": R, "pnpm install": R, "yarn": R,
        "npm install -g pnpm@10": I, "npm init -y": I,  # need no repository configuration
        "npx cowsay hi": I,  # may download
    }


def test_a_package_json_elsewhere_is_named(make_tree) -> None:
    root = make_tree({"web/package.json": package("web", {"build": "vite build"})})
    [result] = check(root, "npm run build")
    assert result.verdict is R
    assert result.reason == "no package.json in the repository root, so there is no script build; there is one in web/"


def test_builtins_with_a_package_json(make_tree) -> None:
    root = make_tree({"package.json": package("app", {})})
    got = verdicts(root, "npm install", "npm ci", "pnpm i", "pnpm add -D vitest", "yarn install", "yarn", "bun install", "npm lint")
    assert got == {
        "npm install": V, "npm ci": V, "pnpm i": V, "pnpm add -D vitest": V, "yarn install": V, "yarn": V, "bun install": V,
        "npm lint": I,  # npm has no lint command: the memory is wrong, but not about the repository
    }


def test_the_nearest_package_and_folder_options(make_tree) -> None:
    root = make_tree(
        {
            "package.json": package("root", {"build": "x"}),
            "web/package.json": package("web", {"dev": "vite"}),
            "web/src/main.ts": "",
        }
    )
    got = verdicts(
        root,
        "cmd:pnpm dev in:web/src/",  # the nearest package.json above the folder
        "npm --prefix web run dev", "npm run dev --prefix=web", "pnpm -C web dev", "pnpm --dir web run dev",
        "yarn --cwd web dev", "bun --cwd web run dev", "npm run dev",
    )
    assert got == {
        "cmd:pnpm dev in:web/src/": V, "npm --prefix web run dev": V, "npm run dev --prefix=web": V, "pnpm -C web dev": V,
        "pnpm --dir web run dev": V, "yarn --cwd web dev": V, "bun --cwd web run dev": V, "npm run dev": R,
    }


def _workspace(make_tree, pnpm: bool):
    files = {
        "packages/core/package.json": package("@acme/core", {"build": "tsc", "test": "vitest"}),
        "packages/cli/package.json": package("acme-cli", {"build": "tsc"}),
        "apps/web/package.json": package("web", {"dev": "next dev"}),
        "examples/demo/package.json": package("demo", {"demo": "x"}),  # not a member
    }
    if pnpm:
        files["package.json"] = package("root", {"lint": "eslint ."}, devDependencies={"turbo": "^2"})
        files["pnpm-workspace.yaml"] = "packages:\n  - 'packages/*'\n  - apps/**\n  - '!apps/legacy'\n"
    else:
        files["package.json"] = package("root", {"lint": "eslint ."}, workspaces=["packages/*", "apps/*"])
    return make_tree(files)


def test_npm_and_yarn_workspaces(make_tree) -> None:
    root = _workspace(make_tree, pnpm=False)
    got = verdicts(
        root,
        "npm test -w @acme/core", "npm run build --workspace=acme-cli", "npm run build -w packages/cli",
        "npm run build -w packages", "npm run build --workspaces", "npm run dev -w web", "npm run lint",
        "npm test -w acme-cli", "npm test -w nosuch", "npm run demo -w demo",
        "yarn workspace @acme/core build", "yarn workspace web run dev", "yarn workspace web build",
        "yarn workspaces foreach run build",
    )
    assert got == {
        "npm test -w @acme/core": V, "npm run build --workspace=acme-cli": V, "npm run build -w packages/cli": V,
        "npm run build -w packages": V, "npm run build --workspaces": V, "npm run dev -w web": V, "npm run lint": V,
        "npm test -w acme-cli": R, "npm test -w nosuch": R, "npm run demo -w demo": R,
        "yarn workspace @acme/core build": V, "yarn workspace web run dev": V, "yarn workspace web build": R,
        "yarn workspaces foreach run build": I,
    }


def test_pnpm_filters_and_the_workspace_root(make_tree) -> None:
    root = _workspace(make_tree, pnpm=True)
    got = verdicts(
        root,
        "pnpm --filter @acme/core test", "pnpm -F web dev", "pnpm --filter=web run dev", "pnpm --filter ./packages/cli build",
        "pnpm --filter '{apps/web}' dev", "pnpm --filter '@acme/*' build", "pnpm -F '...@acme/core' build",
        "pnpm -r run build", "pnpm -w lint", "cd apps/web && pnpm -w run lint", "pnpm --filter web run build",
        "pnpm --filter nosuch build", "pnpm --filter '[origin/main]' build", "pnpm -r run nosuch",
        "bun --filter web run dev", "pnpm dev --filter web", "pnpm -F core test", "pnpm --filter=core build", "pnpm --filter=core run nosuch",
        "npm test -w core",
    )
    assert got == {
        "pnpm --filter @acme/core test": V, "pnpm -F web dev": V, "pnpm --filter=web run dev": V,
        "pnpm --filter ./packages/cli build": V, "pnpm --filter '{apps/web}' dev": V, "pnpm --filter '@acme/*' build": V,
        "pnpm -F '...@acme/core' build": V, "pnpm -r run build": V, "pnpm -w lint": V, "cd apps/web && pnpm -w run lint": V,
        "pnpm --filter web run build": R, "pnpm --filter nosuch build": R,
        "pnpm --filter '[origin/main]' build": I,  # changed since a git revision: picked at run time
        "pnpm -r run nosuch": R,
        "bun --filter web run dev": V,
        "pnpm dev --filter web": R,  # after the script name, --filter is the script's argument: root has no dev
        "pnpm -F core test": V, "pnpm --filter=core build": V, "pnpm --filter=core run nosuch": R,  # pnpm finds @acme/core by its unscoped name
        "npm test -w core": R,  # npm does not
    }


def test_binaries_of_dependencies(make_tree) -> None:
    root = make_tree(
        {
            "package.json": package(
                "app", {"build": "x"}, devDependencies={"typescript": "^5", "vitest": "^2", "@changesets/cli": "^2", "@acme/gen-cli": "1"}
            ),
        }
    )
    got = verdicts(
        root,
        "pnpm vitest run", "pnpm tsc --noEmit", "yarn changeset", "pnpm gen", "pnpm exec vitest", "npx tsc",
        "npx -y vitest@2 run", "bunx vitest", "pnpm dlx create-vite", "npx --package=typescript tsc", "pnpm exec eslint .",
        "pnpm eslint .", "yarn lint:fix",
    )
    assert got == {
        "pnpm vitest run": V, "pnpm tsc --noEmit": V, "yarn changeset": V, "pnpm gen": V, "pnpm exec vitest": V,
        "npx tsc": V, "npx -y vitest@2 run": V, "bunx vitest": V, "npx --package=typescript tsc": V,
        "pnpm dlx create-vite": I,  # downloads
        "pnpm exec eslint .": I,  # not declared: it may still be a hoisted binary
        "pnpm eslint .": R,  # neither a script nor a dependency's binary
        "yarn lint:fix": R,
    }


def test_launchers_hand_a_runner_program_to_its_runner(make_tree) -> None:
    root = make_tree({"package.json": package("app", {}), "Makefile": "all:\n\techo\n"})
    assert verdicts(root, "npx make all", "npx make nosuch") == {"npx make all": V, "npx make nosuch": R}


def test_unreadable_package_json_is_inconclusive_with_the_line(make_tree) -> None:
    root = make_tree({"package.json": '{\n  "scripts": {\n    "build": "x",\n  }\n}\n'})
    [result] = check(root, "npm run build")
    assert result.verdict is I and "package.json:4" in result.reason and "invalid JSON" in result.reason
    root = make_tree({"package.json": "[1, 2]"})
    [result] = check(root, "npm run build")
    assert result.verdict is I and "should be a JSON object" in result.reason


def test_dynamic_script_names(make_tree) -> None:
    root = make_tree({"package.json": package("app", {"build": "x"})})
    assert verdicts(root, "npm run $TASK", "pnpm run 'build:*'") == {"npm run $TASK": I, "pnpm run 'build:*'": I}


def test_bun_tools_are_verified_in_a_bun_project_and_inconclusive_elsewhere(make_tree) -> None:
    root = make_tree(
        {
            "web/package.json": package("web", {"test": "vitest", "build": "vite build"}),
            "api/bun.lock": "{}\n",
            "api/src/server.ts": "",
            "docs/bunfig.toml": "[test]\n",
            "tools/gen.ts": "",
            "rust/Cargo.toml": '[package]\nname = "r"\n',
        }
    )
    commands = [
        "cd web && bun test", "cd web && bun test src/x.test.ts", "cd web && bun build ./src/index.ts --outdir dist",
        "cd api && bun test", "cd docs && bun test", "cd rust && bun test", "cd rust && bun build ./main.ts",
        "cd web && bun run test", "cd api && bun run src/server.ts", "cd api && bun src/server.ts", "cd api && bun run src/gone.ts",
        "bun tools/gen.ts", "cd api && bun run dist/server.js", "cd api && bun run dev", "cd api && bun pm ls", "cd rust && bun install",
    ]
    got = verdicts(root, *commands)
    assert got == {
        "cd web && bun test": V,  # bun's own test runner, whatever the test script says
        "cd web && bun test src/x.test.ts": V,
        "cd web && bun build ./src/index.ts --outdir dist": V,
        "cd api && bun test": V,  # bun.lock: a bun project
        "cd docs && bun test": V,  # bunfig.toml: a bun project
        "cd rust && bun test": I,  # nothing says this is a bun project, and bun test needs no configuration
        "cd rust && bun build ./main.ts": I,
        "cd web && bun run test": V,  # the script
        "cd api && bun run src/server.ts": V, "cd api && bun src/server.ts": V,  # bun runs the file, with or without a package.json
        "cd api && bun run src/gone.ts": R,  # no script and no file of that name: stale
        "bun tools/gen.ts": V,
        "cd api && bun run dist/server.js": I,  # under dist/: may be a build output
        "cd api && bun run dev": R,  # no package.json, so no script dev
        "cd api && bun pm ls": R, "cd rust && bun install": R,  # project built-ins need a package.json
    }
    [test] = check(root, "cd web && bun test")
    assert "bun's own test runner" in test.reason and test.evidence[0].path == "web/package.json"
