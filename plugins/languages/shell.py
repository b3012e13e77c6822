"""Shell scripts (`.sh`, `.bash`, read with tree-sitter's bash grammar): the functions they define
(`function installRequirements() {`, `ensure_venv() {`, wherever the script defines them) and the variables they
read from the environment.

Instruction files name the helpers of a project's scripts ("the backends' `install.sh` runs `installRequirements`")
as they name its Python or Go functions, so a renamed shell helper is as stale as a renamed Python one.

A shell reads its environment through any variable it expands: every variable it was started with is a shell
variable, so `$REDIS_URL`, `${REDIS_URL:-localhost}`, `[[ -v REDIS_URL ]]` and `printenv REDIS_URL` read it by
name, and `export NODE_OPTIONS=…` or `RUST_LOG=debug cargo run` sets it for what runs next. A script's own
variables are expanded and assigned the same way and counted too: the answer errs towards "read", never towards a
false "nothing reads it". `${!name}`, a name reference (`declare -n ref=NAME`) and `eval` read a key computed at
run time (and `eval` may define any function); `env` or `printenv` with no name print the whole environment.
"""

from __future__ import annotations

from anchorcheck import Language, hookimpl
from anchorcheck.plugin import Facts, Parsed

QUERIES = {
    "functions": "(function_definition name: (word) @name)",
    "expansions": "[(simple_expansion (variable_name) @key) (expansion (variable_name) @key)] @read",
    "commands": "(command name: (command_name (word) @program)) @command",
    "assignments": "(variable_assignment name: (variable_name) @key) @read",
    "set_tests": '(unary_expression (test_operator) @operator (word) @key (#eq? @operator "-v")) @read',
    "references": '(declaration_command (word) @flag (#match? @flag "^-[a-zA-Z]*n")) @read',
}
# Every read or definition holds one of these: an expansion, an assignment, `-v NAME`, `env`/`printenv`, `eval`.
_ENV_MARKERS = (b"$", b"=", b"-v", b"env", b"eval")
_WHOLE = frozenset({"env", "printenv"})


def extract(parsed: Parsed) -> Facts:
    facts = Facts(defs=definitions_of(parsed))
    if parsed.mentions(_ENV_MARKERS):
        _expansions(parsed, facts)
        _commands(parsed, facts)
        for query in ("assignments", "set_tests"):  # `export NODE_OPTIONS=…`, `RUST_LOG=debug cargo run`, `[[ -v TOKEN ]]`
            for _, found in parsed.matches(query):
                facts.env.append((Parsed.text(found["key"][0]), Parsed.line(found["read"][0])))
        for _, found in parsed.matches("references"):  # `declare -n ref=NAME`: a name reference reads what NAME holds
            facts.env_computed.append(Parsed.line(found["read"][0]))
    return facts


def definitions_of(parsed: Parsed) -> list[tuple[str, int]]:
    """Every function the script defines, in document order: inside an `if` (a fallback definition) as well."""
    return [(Parsed.text(name), Parsed.line(name)) for name in parsed.captures("functions").get("name", [])]


def _expansions(parsed: Parsed, facts: Facts) -> None:
    for _, found in parsed.matches("expansions"):
        read, key = found["read"][0], found["key"][0]
        if any(child.type == "!" for child in read.children):  # `${!name}`: the variable named by name's value
            facts.env_computed.append(Parsed.line(read))
        elif Parsed.text(key).isidentifier():  # not `$1`, `$@`, `$?`
            facts.env.append((Parsed.text(key), Parsed.line(read)))


def _commands(parsed: Parsed, facts: Facts) -> None:
    """`printenv KEY` reads KEY; `env` or `printenv` with no argument prints every variable; `eval` runs text
    computed at run time."""
    for _, found in parsed.matches("commands"):
        command, program = found["command"][0], Parsed.text(found["program"][0])
        words = [Parsed.text(a) for a in command.children_by_field_name("argument")]
        names = [w for w in words if not w.startswith("-")]
        if program == "eval":  # code made at run time: it may read any variable and define any function
            facts.env_computed.append(Parsed.line(command))
            facts.open.append(("", Parsed.line(command), "eval runs code made at run time"))
        elif program == "printenv" and names and names[0].isidentifier():
            facts.env.append((names[0], Parsed.line(command)))
        elif program in _WHOLE and not names:  # (`printenv -0`, `env | sort`: options alone print it all)
            facts.add_env_whole(command)


LANGUAGE = Language("shell", (".sh", ".bash"), "bash", QUERIES, extract, env_markers=_ENV_MARKERS, definitions=definitions_of, imports=False)


@hookimpl
def register_languages(register):  # noqa: ANN001, ANN201 - hook signature
    register(LANGUAGE)
