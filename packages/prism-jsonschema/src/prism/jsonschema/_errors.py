"""Engine errors → ``ToolArgumentValidationIssue(path=<JSON Pointer>, message)``."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import islice
from typing import Any, Final

from prism.core import ToolArgumentValidationIssue

from ._pointer import join_pointer

__all__ = ["MESSAGE_LIMIT", "MORE", "clip", "fastjsonschema_errors", "rs_errors", "rs_first_error"]

MESSAGE_LIMIT: Final = 300
"""Longest message kept per error (engines quote instance values, which may be huge)."""

_PARSE_STEPS: Final = 10_000


def clip(message: str, limit: int = MESSAGE_LIMIT) -> str:
    """``message`` cut to ``limit`` characters, marked when cut."""
    return message if len(message) <= limit else message[: limit - 3] + "..."


def rs_errors(errors: Iterable[Any], max_errors: int) -> tuple[ToolArgumentValidationIssue, ...]:
    """Convert ``jsonschema_rs.ValidationError`` objects."""
    return tuple(
        [  # a list, then a tuple: faster than a generator for the usual handful of errors
            ToolArgumentValidationIssue(path=join_pointer(e.instance_path), message=clip(e.message))
            for e in islice(errors, max_errors)
        ]
    )


def rs_first_error(validator: Any, instance: object) -> tuple[ToolArgumentValidationIssue, ...]:
    """The first error only (``validate`` stops there), then a marker for the rest: what
    ``iter_errors`` would collect, all at once, is not bounded."""
    try:
        validator.validate(instance)
    except Exception as exc:
        first = ToolArgumentValidationIssue(
            path=join_pointer(getattr(exc, "instance_path", ())),
            message=clip(str(getattr(exc, "message", None) or exc)),
        )
        return (first, ToolArgumentValidationIssue(path=None, message=MORE))
    return (ToolArgumentValidationIssue(path=None, message="value is invalid"),)


MORE: Final = "and possibly more errors (not collected for a value this large)"


def fastjsonschema_errors(
    exc: Exception, instance: object, max_errors: int
) -> tuple[ToolArgumentValidationIssue, ...]:
    """Convert a fastjsonschema exception; its dotted ``name`` is mapped back onto the instance."""
    found = getattr(exc, "errors", None) or [exc]
    return tuple(_one(e, instance) for e in islice(found, max_errors))


def _one(error: Any, instance: object) -> ToolArgumentValidationIssue:
    name = getattr(error, "name", None)
    message = str(getattr(error, "message", None) or error)
    if not isinstance(name, str):
        return ToolArgumentValidationIssue(path=None, message=clip(message))
    segments = _segments(name, instance)
    if segments is None:
        return ToolArgumentValidationIssue(path=None, message=clip(message))
    if message.startswith(name + " "):
        message = message[len(name) + 1 :]
    return ToolArgumentValidationIssue(path=join_pointer(segments), message=clip(message))


def _segments(name: str, instance: object) -> list[str] | None:
    """Parse ``data.key[3].other`` against the instance (keys may contain ``.`` or ``[``)."""
    if not name.startswith("data"):
        return None
    steps = [0]
    return _parse(name, 4, instance, steps)


def _parse(name: str, at: int, node: object, steps: list[int]) -> list[str] | None:
    if at == len(name):
        return []
    steps[0] += 1
    if steps[0] > _PARSE_STEPS:
        return None
    if name[at] == "[" and isinstance(node, list | tuple):
        end = name.find("]", at)
        index = name[at + 1 : end]
        if end > 0 and index.isdigit() and int(index) < len(node):
            tail = _parse(name, end + 1, node[int(index)], steps)
            if tail is not None:
                return [index, *tail]
    if name[at] == "." and isinstance(node, dict):
        keys = [k for k in node if isinstance(k, str) and name.startswith(k, at + 1)]
        for key in sorted(keys, key=len, reverse=True):
            tail = _parse(name, at + 1 + len(key), node[key], steps)
            if tail is not None:
                return [key, *tail]
    return None
