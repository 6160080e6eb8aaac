"""Middleware hooks that may rewrite a call before dispatch or a result after it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from types import CoroutineType
from typing import Any, Literal, TypeAlias, TypeVar, cast

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
            raise ValueError(
                f"MiddlewareRegistry.use.hook must be one of {_HOOKS}, got {hook!r:.200}"
            )
        if not callable(fn):
            raise TypeError(f"MiddlewareRegistry.use.fn must be callable, got {fn!r:.200}")
        self._hooks[hook] = (*self._hooks[hook], fn)

    def has(self, hook: MiddlewareHook) -> bool:
        """Whether any middleware is registered for ``hook``."""
        return bool(self._hooks[hook])

    async def run(self, hook: MiddlewareHook, value: T, expected: type[T]) -> T:
        """Pass ``value`` through every middleware of ``hook``; raises what a middleware raises.

        A middleware returning something other than ``None`` or an ``expected`` raises
        ``TypeError``.
        """
        out = self.apply(hook, value, expected)
        if isinstance(out, CoroutineType):  # an async middleware ran: the rest of the chain
            settled: T = await out
            return settled
        return cast(T, out)

    def apply(self, hook: MiddlewareHook, value: T, expected: type[T]) -> T | Awaitable[T]:
        """``run`` without a coroutine while the middleware are sync: the value, or an awaitable
        of it from the first middleware that returns one."""
        hooks = self._hooks[hook]
        for index in range(len(hooks)):  # no enumerate object: one hook is the common case
            fn = hooks[index]
            out = fn(value)
            if out is None:  # keeps the value
                pass
            elif type(out) is expected:  # the value types define no ``__await__``
                value = out
            elif hasattr(out, "__await__"):
                return self._resume(hook, hooks[index:], out, value, expected)
            else:
                value = _checked(hook, fn, out, value, expected)
        return value

    async def _resume(
        self,
        hook: MiddlewareHook,
        hooks: tuple[Callable[[Any], Any], ...],
        pending: Awaitable[object],
        value: T,
        expected: type[T],
    ) -> T:
        """The rest of ``apply`` once ``hooks[0]`` returned ``pending``."""
        value = _checked(hook, hooks[0], await pending, value, expected)
        for fn in hooks[1:]:
            out = fn(value)
            if hasattr(out, "__await__"):
                out = await out
            value = _checked(hook, fn, out, value, expected)
        return value


def _checked(hook: str, fn: object, out: object, value: T, expected: type[T]) -> T:
    """What a middleware's ``out`` makes of ``value``: kept for ``None``, else ``out`` if it is
    an ``expected``; anything else raises ``TypeError``."""
    if out is None:
        return value
    if not isinstance(out, expected):
        raise TypeError(
            f"{hook} middleware {getattr(fn, '__name__', fn)!r}: returned "
            f"{type(out).__name__}, expected {expected.__name__} or None"
        )
    return out
