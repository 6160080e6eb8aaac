"""``parse_tool_call``: a model's raw JSON arguments into a ``ToolCall``, never raising.

Providers that hand over arguments as text (OpenAI-style APIs, agent SDKs) use it so that
unparsable, oversized or non-object arguments become a marked call that dispatch blocks as
``invalid_arguments``, instead of an exception in the host.
"""

from __future__ import annotations

import json

from ._types import ErrorInfo, ToolCall

__all__ = ["parse_tool_call"]


def _refuse_constant(name: str) -> object:
    raise ValueError(f"constant {name}: not valid JSON")


def _invalid(call_id: str, name: str, message: str) -> ToolCall:
    error = ErrorInfo(code="invalid_arguments", message=message)
    return ToolCall(id=call_id, name=name, arguments={}, arguments_error=error)


def parse_tool_call(
    call_id: str, name: str, arguments: str | bytes | None, *, max_bytes: int = 1_048_576
) -> ToolCall:
    """The call with its arguments decoded; bad arguments are marked in ``arguments_error``.

    Empty or missing text means no arguments (``{}``). Text over ``max_bytes``, invalid JSON,
    ``NaN``/``Infinity`` and anything but a JSON object are marked, with what was wrong.
    """
    if arguments is None or arguments == "" or arguments == b"":
        return ToolCall(id=call_id, name=name, arguments={})
    size = (
        len(arguments)
        if isinstance(arguments, bytes)
        else len(arguments.encode("utf-8", "replace"))
    )
    if size > max_bytes:
        return _invalid(
            call_id, name, f"arguments are {size} bytes, over the {max_bytes}-byte limit"
        )
    try:
        value = json.loads(arguments, parse_constant=_refuse_constant)
    except (ValueError, RecursionError) as exc:
        return _invalid(
            call_id, name, f"arguments are not valid JSON ({type(exc).__name__}: {exc})"
        )
    if not isinstance(value, dict):
        return _invalid(
            call_id, name, f"arguments must be a JSON object, got {type(value).__name__}"
        )
    return ToolCall(id=call_id, name=name, arguments=value)
