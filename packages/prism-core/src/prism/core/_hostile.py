"""Reading a ToolCall built in Python without trusting it: text of exceptions, stand-in calls."""

from __future__ import annotations

from ._types import ToolCall

__all__ = ["exception_text", "read_call", "safe_call"]


def exception_text(exc: BaseException) -> str:
    """``str(exc)``, or the class name when that is empty or raises (hostile ``__str__``)."""
    try:
        text = str(exc)
    except Exception:
        return type(exc).__name__
    return text or type(exc).__name__


def safe_call(call: ToolCall) -> ToolCall:
    """A stand-in for a call that could not be processed: plain-string id and name, no
    arguments, so that reporting it (events, ledger, redaction) cannot fail again (an
    attribute that raises reads as ``""``)."""
    return ToolCall(id=_read_text(call, "id"), name=_read_text(call, "name"), arguments={})


def read_call(call: ToolCall) -> ToolCall:
    """``call`` as an exact ``ToolCall``, each attribute read once (a subclass's properties
    run here, and only here); raises what reading raised."""
    if type(call) is ToolCall:
        return call
    return ToolCall(
        id=call.id, name=call.name, arguments=call.arguments, arguments_error=call.arguments_error
    )


def _read_text(call: ToolCall, attribute: str) -> str:
    try:
        value = getattr(call, attribute)
    except Exception:
        return ""
    return _plain_text(value)


def _plain_text(value: object) -> str:
    if type(value) is str:
        return value
    if isinstance(value, str):
        return str.__str__(value)
    return ""
