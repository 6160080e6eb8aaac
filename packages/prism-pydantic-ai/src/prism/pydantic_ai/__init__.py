"""Prism's tool pipeline inside pydantic-ai.

``PrismToolset`` offers a Prism registry to a pydantic-ai agent; ``PrismGatedToolset`` puts
Prism's gates around a toolset the user already has. See docs/pydantic-ai.md.
"""

from ._gated import PrismGatedToolset
from ._toolset import PrismToolset

__all__ = ["PrismGatedToolset", "PrismToolset"]
