"""Bounded, cached, injection-proof JSON Schema argument validation for Prism."""

__all__: list[str] = []
