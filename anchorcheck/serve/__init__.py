"""Serving: the check server and its client, replayed reports, the MCP server."""
