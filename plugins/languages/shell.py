"""Shell scripts (`.sh`, `.bash`, read with tree-sitter's bash grammar): the functions they define
(`function installRequirements() {`, `ensure_venv() {`, wherever the script defines them) and the variables they
read from the environment.

Instruction files name the helpers of a project's scripts ("the backends' `install.sh` runs `installRequirements`")
as they name its Python or Go functions, so a renamed shell helper is as stale as a renamed Python one.

A shell reads its environment through any variable it expands: every variable it was started with is a shell
variable, so `$REDIS_URL`, `${REDIS_URL:-localhost}` and `printenv REDIS_URL` read it by name. A script's own
variables are expanded the same way and counted as reads too: the answer errs towards "read", never towards a
false "nothing reads it". `${!name}` (indirect expansion) and `eval` read a key computed at run time; `env`,
`printenv` without an argument print the whole environment (which may read any key).
"""

from __future__ import annotations

from anchorcheck import Language, hookimpl
from anchorcheck.plugin import Facts, Parsed

QUERIES = {
    "functions": "(function_definition name: (word) @name)",
    "expansions": "[(simple_expansion (variable_name) @key) (expansion (variable_name) @key)] @read",
    "commands": "(command name: (command_name (word) @program)) @command",
}
_ENV_MARKERS = (b"$", b"env", b"eval")  # `printenv` holds `env`
_WHOLE = frozenset({"env", "printenv"})


def extract(parsed: Parsed) -> Facts:
    facts = Facts(defs=definitions_of(parsed))
    if parsed.mentions(_ENV_MARKERS):
        _expansions(parsed, facts)
        _commands(parsed, facts)
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
        if program == "eval":
            facts.env_computed.append(Parsed.line(command))
        elif program == "printenv" and words and words[0].isidentifier():
            facts.env.append((words[0], Parsed.line(command)))
        elif program in _WHOLE and not words:
            facts.add_env_whole(command)


LANGUAGE = Language("shell", (".sh", ".bash"), "bash", QUERIES, extract, env_markers=_ENV_MARKERS, definitions=definitions_of)


@hookimpl
def register_languages(register):  # noqa: ANN001, ANN201 - hook signature
    register(LANGUAGE)
