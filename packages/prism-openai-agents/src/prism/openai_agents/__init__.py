"""Prism's tool pipeline inside the OpenAI Agents SDK.

``prism_function_tools`` turns a Prism registry into ``FunctionTool``s; ``gate_function_tool``
puts Prism's gates around a tool the user already has. See docs/openai-agents.md.
"""

from ._gated import gate_function_tool
from ._tools import prism_function_tools

__all__ = ["gate_function_tool", "prism_function_tools"]
