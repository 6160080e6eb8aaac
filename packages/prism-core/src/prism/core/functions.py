"""Function tools: ``@tool`` turns a typed Python function into a ``ToolDefinition``.

Also the strict JSON Schema compiler the decorator uses, for hosts that build schemas themselves.
"""

from __future__ import annotations

from ._function_tools import ToolArgumentsError, to_strict_json_schema, tool

__all__ = ["ToolArgumentsError", "to_strict_json_schema", "tool"]
