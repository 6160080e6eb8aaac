"""Inspectors rows share: transcript validity and a deep search for leaked secrets."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["assert_transcript_valid", "find_secret"]

_MAX_DEPTH = 64


def _describe(message: object) -> str:
    return type(message).__name__


def assert_transcript_valid(messages: Sequence[object]) -> None:
    """Every assistant tool call is answered by exactly one tool message, in call order.

    Duck-typed on ``tool_calls`` (assistant) and ``result`` (tool message) so hosts may use
    their own message classes. Raises ``AssertionError`` naming the first violation.
    """
    i = 0
    while i < len(messages):
        message = messages[i]
        if hasattr(message, "result") and not hasattr(message, "tool_calls"):
            result_id = getattr(message.result, "tool_call_id", None)
            raise AssertionError(
                f"transcript[{i}] is a tool message for {result_id!r} with no assistant "
                "tool call right before it"
            )
        calls = tuple(getattr(message, "tool_calls", ()) or ())
        i += 1
        for position, call in enumerate(calls):
            if i >= len(messages) or not hasattr(messages[i], "result"):
                got = "the end" if i >= len(messages) else _describe(messages[i])
                raise AssertionError(
                    f"assistant tool call #{position} ({call.id!r}, {call.name!r}) has no "
                    f"tool result: found {got} at transcript[{i}]"
                )
            result_id = getattr(messages[i].result, "tool_call_id", None)  # type: ignore[attr-defined]
            if result_id != call.id:
                raise AssertionError(
                    f"transcript[{i}] answers {result_id!r} but the assistant's call "
                    f"#{position} is {call.id!r}: tool results are out of call order"
                )
            i += 1


def find_secret(value: object, secret: str, path: str = "value") -> list[str]:
    """Paths in ``value`` (strings, mapping keys, dataclasses, containers) holding ``secret``."""
    found: list[str] = []
    _walk(value, secret, path, found, set(), 0)
    return found


def _walk(value: Any, secret: str, path: str, found: list[str], seen: set[int], depth: int) -> None:
    if isinstance(value, str):
        if secret in value:
            found.append(path)
        return
    if isinstance(value, bytes | bytearray):
        if secret.encode() in value:
            found.append(path)
        return
    if value is None or isinstance(value, bool | int | float) or depth > _MAX_DEPTH:
        return
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, BaseException):
        _walk(str(value), secret, f"{path}<str>", found, seen, depth + 1)
        _walk(value.args, secret, f"{path}.args", found, seen, depth + 1)
        return
    if isinstance(value, Mapping):
        for key, item in list(value.items()):
            if isinstance(key, str) and secret in key:
                found.append(f"{path} key {key!r}")
            _walk(item, secret, f"{path}[{key!r}]", found, seen, depth + 1)
        return
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            _walk(
                getattr(value, field.name, None),
                secret,
                f"{path}.{field.name}",
                found,
                seen,
                depth + 1,
            )
        return
    if isinstance(value, list | tuple | set | frozenset):
        for index, item in enumerate(value):
            _walk(item, secret, f"{path}[{index}]", found, seen, depth + 1)
        return
    text = repr(value)
    if secret in text:
        found.append(f"{path} (repr)")
