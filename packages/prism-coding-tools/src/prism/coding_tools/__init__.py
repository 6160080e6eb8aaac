"""Shell, read, write and edit tools for coding agents, with hard output bounds."""

__all__: list[str] = []
