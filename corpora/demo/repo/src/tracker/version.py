"""Release version of the incident tracker, kept in step with pyproject.toml."""

__version__ = "0.4.2"
VERSION_INFO = tuple(int(part) for part in __version__.split("."))
