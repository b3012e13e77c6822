"""`python -m anchorcheck` is the CLI."""

from anchorcheck.cli import main

raise SystemExit(main())
