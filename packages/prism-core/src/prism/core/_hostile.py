"""Reading a ToolCall built in Python without trusting it: text of exceptions, stand-in calls."""

from __future__ import annotations

from ._types import ToolCall

__all__ = ["exception_text", "safe_call"]


def exception_text(exc: BaseException) -> str:
    """``str(exc)``, or the class name when that is empty or raises (hostile ``__str__``)."""
    try:
        text = str(exc)
    except Exception:
        return type(exc).__name__
    return text or type(exc).__name__


def safe_call(call: ToolCall) -> ToolCall:
    """A stand-in for a call that could not be processed: plain-string id and name, no
    arguments, so that reporting it (events, ledger, redaction) cannot fail again."""
    return ToolCall(id=_plain_text(call.id), name=_plain_text(call.name), arguments={})


def _plain_text(value: object) -> str:
    if type(value) is str:
        return value
    if isinstance(value, str):
        return str.__str__(value)
    return ""
