"""Incident tracker: open, triage and resolve production incidents."""

from tracker.version import __version__

__all__ = ["__version__"]
