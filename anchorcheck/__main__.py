"""`python -m anchorcheck` is the CLI."""

from anchorcheck.cli import console

raise SystemExit(console())
