"""Order intake service."""

__version__ = "1.0.0"
