"""Command runners for `cmd:` anchors: one module per runner family, registered through entry points."""
