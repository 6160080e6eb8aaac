"""Durable Prism tool execution on DBOS."""
