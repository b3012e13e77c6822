"""Regular expressions compiled at their first use, for modules that hold many a run may never use.

A check of a small repository compiled 81 module-level expressions of anchorcheck's own when
its modules were imported, and used 44 of them: the rest read requirements files, dotenv and
compose files, locks, package names in install commands. Compiling those cost about 3.5 ms,
a tenth of what `python -c pass` costs; a `later(...)` pattern costs nothing until then.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # not `typing`'s: importing it costs a replayed `check` 4-7 ms (anchorcheck.serve.replay)
if TYPE_CHECKING:
    from typing import Any, AnyStr


class _Later:
    """Stands for the compiled pattern: the first attribute asked compiles it (through `re`'s own
    cache), and each attribute is then kept on the instance, so that `pattern.match` is found
    there directly from the second use on, as fast as on a compiled pattern."""

    def __init__(self, pattern: str | bytes, flags: int) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # copy and pickle probes: not the pattern's to answer
            raise AttributeError(name)
        value = getattr(re.compile(*self._source), name)
        setattr(self, name, value)
        return value


def later(pattern: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:
    """`re.compile(pattern, flags)`, done at the first use of the result's methods or attributes.
    For patterns used through their methods only: `re.sub(later(...), ...)` is not supported."""
    return _Later(pattern, flags)  # type: ignore[return-value]  # it answers as the pattern does
