"""The version, as a constant: reading it from installed metadata costs every start-up ~10 ms.

pyproject.toml reads it from here (`[tool.setuptools.dynamic]`), so it is written once.
"""

__version__ = "0.1.0"
