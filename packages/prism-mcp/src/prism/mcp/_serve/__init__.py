"""The serving side of prism-mcp: a Prism pipeline exposed as an MCP server."""
