"""Span citations: banking, fingerprints and relocation."""
