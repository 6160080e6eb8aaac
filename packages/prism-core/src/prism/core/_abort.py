"""Abort signals: a thread-safe, backend-neutral way to ask running work to stop."""

from __future__ import annotations

import itertools
from _thread import allocate_lock
from collections.abc import Callable
from typing import final

from ._errors import PrismError

__all__ = ["AbortController", "AbortError", "AbortSignal"]

_keys = itertools.count()


@final
class AbortError(PrismError):
    """Raised by ``AbortSignal.throw_if_aborted``; carries the abort reason."""

    def __init__(self, reason: object | None = None) -> None:
        self.reason = reason
        super().__init__("aborted" if reason is None else f"aborted: {reason}")

    code = "aborted"


class AbortSignal:
    """Read side of an abort: observe ``aborted``, register callbacks, or ``await wait()``."""

    __slots__ = ("_aborted", "_callbacks", "_lock", "_reason")

    def __init__(self) -> None:
        self._lock = allocate_lock()  # threading.Lock, without importing threading
        self._aborted = False
        self._reason: object | None = None
        self._callbacks: dict[int, Callable[[], None]] = {}

    @property
    def aborted(self) -> bool:
        """Whether the signal has been aborted."""
        return self._aborted

    @property
    def reason(self) -> object | None:
        """The reason given to ``abort``, or ``None``."""
        return self._reason

    def throw_if_aborted(self) -> None:
        """Raise ``AbortError(reason)`` if the signal is aborted."""
        if self._aborted:
            raise AbortError(self._reason)

    def add_callback(self, fn: Callable[[], None]) -> Callable[[], None]:
        """Call ``fn`` once on abort (at once if already aborted); returns a remover."""
        with self._lock:
            if not self._aborted:
                key = next(_keys)
                self._callbacks[key] = fn

                def remove() -> None:
                    with self._lock:
                        self._callbacks.pop(key, None)

                return remove
        fn()
        return _noop

    async def wait(self) -> None:
        """Return once the signal is aborted."""
        if self._aborted:
            return
        from . import _backend  # the event loop's waker: loaded by the first wait

        waker = _backend.new_waker()
        remove = self.add_callback(waker.fire)
        try:
            await waker.wait()
        finally:
            remove()

    def _abort(self, reason: object | None) -> None:
        with self._lock:
            if self._aborted:
                return
            self._reason = reason
            self._aborted = True
            callbacks = list(self._callbacks.values())
            self._callbacks.clear()
        for fn in callbacks:
            try:
                fn()
            except Exception:  # a broken callback must not stop the others
                import logging

                logging.getLogger("prism.core").exception("abort callback raised")

    @staticmethod
    def any(*signals: AbortSignal) -> AbortSignal:
        """A signal that aborts as soon as any of ``signals`` does, with its reason."""
        combined = AbortSignal()
        for signal in signals:
            if signal.aborted:
                combined._abort(signal.reason)
                return combined
        for signal in signals:
            signal.add_callback(_forward(signal, combined))
        return combined

    def __repr__(self) -> str:
        return f"AbortSignal(aborted={self._aborted}, reason={self._reason!r})"


def _forward(source: AbortSignal, target: AbortSignal) -> Callable[[], None]:
    return lambda: target._abort(source.reason)


def _noop() -> None:
    return None


class AbortController:
    """Write side of an abort: owns a signal and aborts it (from any thread)."""

    __slots__ = ("signal",)

    def __init__(self) -> None:
        self.signal = AbortSignal()

    def abort(self, reason: object | None = None) -> None:
        """Abort the signal; later calls do nothing."""
        self.signal._abort(reason)


NEVER_ABORTED = AbortSignal()
"""A shared signal nobody can abort (its controller does not exist)."""
