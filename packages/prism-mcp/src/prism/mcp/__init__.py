"""MCP client bridge for Prism: stdio and Streamable HTTP, bounded and fault-tolerant."""

__all__: list[str] = []
