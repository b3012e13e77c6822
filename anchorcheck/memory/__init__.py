"""Memory files: reading, implicit references, write-back, lifecycle rules, receipts, the lock file."""
