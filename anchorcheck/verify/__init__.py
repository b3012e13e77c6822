"""Verification: the Verifier, fleets, executors, plugin loading, suggestions and citation stores."""
