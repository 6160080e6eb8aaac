"""Execution policy for coding agents: shell parsing, path containment, approval, bubblewrap sandbox."""

__all__: list[str] = []
