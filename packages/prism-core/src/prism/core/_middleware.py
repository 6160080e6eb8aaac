"""Middleware hooks that may rewrite a call before dispatch or a result after it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Literal, TypeAlias, TypeVar

__all__ = ["MiddlewareHook", "MiddlewareRegistry"]

MiddlewareHook: TypeAlias = Literal["tool_call", "tool_result"]
T = TypeVar("T")

_HOOKS = ("tool_call", "tool_result")


class MiddlewareRegistry:
    """Ordered middleware per hook. A middleware returning ``None`` keeps the value."""

    __slots__ = ("_hooks",)

    def __init__(self) -> None:
        self._hooks: dict[str, tuple[Callable[[Any], Any], ...]] = dict.fromkeys(_HOOKS, ())

    def use(self, hook: MiddlewareHook, fn: Callable[[T], T | Awaitable[T | None] | None]) -> None:
        """Append ``fn`` to ``hook``; hooks run in registration order."""
        if hook not in self._hooks:
            raise ValueError(f"unknown middleware hook {hook!r}; expected one of {_HOOKS}")
        if not callable(fn):
            raise TypeError(f"middleware must be callable, got {type(fn).__name__}")
        self._hooks[hook] = (*self._hooks[hook], fn)

    def has(self, hook: MiddlewareHook) -> bool:
        """Whether any middleware is registered for ``hook``."""
        return bool(self._hooks[hook])

    async def run(self, hook: MiddlewareHook, value: T, expected: type[T]) -> T:
        """Pass ``value`` through every middleware of ``hook``; raises what a middleware raises.

        A middleware returning something other than ``None`` or an ``expected`` raises
        ``TypeError``.
        """
        for fn in self._hooks[hook]:
            out = fn(value)
            if hasattr(out, "__await__"):
                out = await out
            if out is None:
                continue
            if not isinstance(out, expected):
                raise TypeError(
                    f"{hook} middleware {getattr(fn, '__name__', fn)!r} returned "
                    f"{type(out).__name__}, expected {expected.__name__} or None"
                )
            value = out
        return value
