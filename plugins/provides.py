"""What each built-in plugin registers, read before any plugin module is imported.

One dict per entry point of the `anchorcheck` group, named under the
`anchorcheck.provides` group with the same entry-point name (see
`anchorcheck.verify.loading`): the registry knows these names from the start and
imports a plugin module only when one of them is used. This module imports
nothing; a test checks that every plugin registers exactly what it declares.
"""

FILE = {"kinds": ["file"]}
SPAN = {"kinds": ["span"]}
WATCH = {"kinds": ["watch"]}
PKG = {"kinds": ["pkg"]}
IMPORT = {"kinds": ["import"]}
ENV = {"kinds": ["env"]}
SYM = {"kinds": ["sym"]}
CMD = {"kinds": ["cmd"]}

PYPI = {"ecosystems": {"pypi": {"languages": ["python"]}}}
NPM = {"ecosystems": {"npm": {"languages": ["javascript", "typescript"]}}}
CARGO = {"ecosystems": {"cargo": {"languages": ["rust"]}}}
GOLANG = {"ecosystems": {"golang": {"languages": ["go"]}}}

MARKDOWN = {"formats": ["markdown"]}
MCP_MEMORY = {"formats": ["mcp-memory"]}
NATIVE = {"formats": ["native"]}

LANG_PYTHON = {"languages": {"python": {"extensions": [".py", ".pyi"], "source_roots": ["src", "lib", "python"]}}}
LANG_JAVASCRIPT = {"languages": {"javascript": {"extensions": [".js", ".mjs", ".cjs", ".jsx"]}}}
LANG_TYPESCRIPT = {"languages": {"typescript": {"extensions": [".ts", ".mts", ".cts"]}, "tsx": {"extensions": [".tsx"]}}}
LANG_GO = {"languages": {"go": {"extensions": [".go"]}}}
LANG_RUST = {"languages": {"rust": {"extensions": [".rs"]}}}
LANG_JAVA = {"languages": {"java": {"extensions": [".java"]}}}
LANG_RUBY = {"languages": {"ruby": {"extensions": [".rb", ".rake", ".gemspec"], "filenames": ["Rakefile", "Gemfile"]}}}
LANG_KOTLIN = {"languages": {"kotlin": {"extensions": [".kt", ".kts"]}}}
LANG_PHP = {"languages": {"php": {"extensions": [".php"]}}}
LANG_CSHARP = {"languages": {"csharp": {"extensions": [".cs"]}}}
LANG_C = {
    "languages": {
        "c": {"extensions": [".c"]},
        "cpp": {"extensions": [".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".h", ".ipp", ".tpp", ".inl"]},
    }
}
LANG_SWIFT = {"languages": {"swift": {"extensions": [".swift"]}}}
LANG_ELIXIR = {"languages": {"elixir": {"extensions": [".ex", ".exs"]}}}
LANG_DART = {"languages": {"dart": {"extensions": [".dart"]}}}
LANG_SHELL = {"languages": {"shell": {"extensions": [".sh", ".bash"]}}}
LANG_PRISMA = {"languages": {"prisma": {"extensions": [".prisma"]}}}

RUNNER_NPM = {"runners": {"npm": ["npm", "pnpm", "yarn", "bun", "npx", "pnpx", "bunx"]}}
RUNNER_MAKE = {"runners": {"make": ["make", "gmake"]}}
RUNNER_JUST = {"runners": {"just": ["just"]}}
RUNNER_CARGO = {"runners": {"cargo": ["cargo"]}}
RUNNER_PYTHON = {
    "runners": {"python": ["uv", "uvx", "poetry", "pdm", "hatch", "rye", "poe", "python", "python3", *(f"python3.{n}" for n in range(8, 16))]}
}
RUNNER_TOX = {"runners": {"tox": ["tox"]}}
RUNNER_NOX = {"runners": {"nox": ["nox"]}}
RUNNER_TASK = {"runners": {"task": ["task", "go-task"]}}
RUNNER_GO = {"runners": {"go": ["go"]}}
RUNNER_COMPOSE = {"runners": {"compose": ["docker", "docker-compose", "podman", "podman-compose"]}}
RUNNER_TURBO = {"runners": {"turbo": ["turbo"]}}
RUNNER_GRADLE = {"runners": {"gradle": ["gradle", "gradlew"]}}
RUNNER_MAVEN = {"runners": {"maven": ["mvn", "mvnw", "mvnd"]}}
RUNNER_DENO = {"runners": {"deno": ["deno"]}}
