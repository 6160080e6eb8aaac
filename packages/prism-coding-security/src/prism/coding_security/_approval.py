"""Asking a host for approval: bounded, abortable, only ``True`` approves; an LRU of approvals."""

from __future__ import annotations

import inspect
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import Literal, TypeAlias

import anyio

from prism.core import AbortController, AbortSignal, ExecutionAction

from ._paths import show
from ._printable import visible
from ._script_digest import script_digests

__all__ = [
    "ApprovalCache",
    "ApprovalCallback",
    "ApprovalOutcome",
    "ApprovalRequest",
    "ask_approval",
]

MAX_CACHED_APPROVALS = 1_000


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """What the host is asked to approve; ``signal`` aborts with the call or when the wait ends."""

    action: ExecutionAction
    signal: AbortSignal
    reason: str = ""
    """Why approval is needed (the command analysis verdict, or the action kind)."""

    def describe(self) -> str:
        """One line for a prompt or log: control, bidi and other invisible characters (newlines
        too) are escaped visibly, so a terminal shows what runs; ``action.command`` runs as is."""
        action = self.action
        parts = [f"{visible(action.kind)} {visible(action.operation)}"]
        if action.command is not None:
            parts.append(f"command {show(action.command)}")
        if action.cwd is not None:
            parts.append(f"in {show(action.cwd)}")
        if action.paths and action.kind != "shell":
            parts.append("paths " + ", ".join(show(p) for p in action.paths))
        if self.reason:
            parts.append(f"({visible(self.reason)})")
        return " ".join(parts)


ApprovalCallback: TypeAlias = Callable[[ApprovalRequest], "bool | Awaitable[bool]"]


@dataclass(frozen=True, slots=True)
class ApprovalOutcome:
    """``approved`` only for a literal ``True`` answer given in time; ``reason`` when not."""

    approved: bool
    reason: str | None = None


_NO_ANSWER = object()


def _is_async(approve: object) -> bool:
    call = getattr(approve, "__call__", None)  # noqa: B004 - an object with async __call__
    return inspect.iscoroutinefunction(approve) or inspect.iscoroutinefunction(call)


async def _call(approve: ApprovalCallback, request: ApprovalRequest) -> object:
    """Async callbacks run on the loop; sync ones in a worker thread so the wait stays bounded."""
    if _is_async(approve):
        result: object = approve(request)
    else:
        # Boxed: trio refuses a worker function that hands back a coroutine object.
        boxed = await anyio.to_thread.run_sync(lambda: (approve(request),), abandon_on_cancel=True)
        result = boxed[0]
    if inspect.isawaitable(result):
        result = await result
    return result


async def _cancel_on_abort(signal: AbortSignal, scope: anyio.CancelScope) -> None:
    await signal.wait()
    scope.cancel()


async def ask_approval(
    approve: ApprovalCallback, action: ExecutionAction, *, reason: str, timeout_seconds: float
) -> ApprovalOutcome:
    """Ask ``approve`` about ``action``; timeouts, aborts, errors and non-``True`` answers deny."""
    controller = AbortController()
    outer = action.signal
    remove = outer.add_callback(lambda: controller.abort("call aborted")) if outer else None
    request = ApprovalRequest(action=action, signal=controller.signal, reason=reason)
    answer: object = _NO_ANSWER
    error: BaseException | None = None
    try:
        with anyio.move_on_after(timeout_seconds):
            async with anyio.create_task_group() as group:
                group.start_soon(_cancel_on_abort, controller.signal, group.cancel_scope)
                try:
                    answer = await _call(approve, request)
                except Exception as exc:
                    error = exc
                group.cancel_scope.cancel()
    finally:
        if remove is not None:
            remove()
    if outer is not None and outer.aborted:
        return ApprovalOutcome(False, "approval aborted: the call was aborted while waiting")
    if answer is _NO_ANSWER and error is None:
        controller.abort("approval timed out")
        return ApprovalOutcome(
            False, f"approval timed out after {timeout_seconds:g} s; the action was not run"
        )
    if error is not None:
        return ApprovalOutcome(
            False, f"approval callback raised {type(error).__name__}: {error}; denied"
        )
    if answer is True:
        return ApprovalOutcome(True)
    if answer is False or answer is None:
        return ApprovalOutcome(False, "approval denied by the user; do not retry the same action")
    return ApprovalOutcome(
        False, f"approval callback returned {answer!r}, not True; only True approves, so denied"
    )


CacheScope: TypeAlias = Literal["run", "session"]


class ApprovalCache:
    """LRU of granted approvals keyed by scope id + kind + operation + paths + directory + exact
    command + the content of the files the command names (a rewritten script is asked again).

    Only approvals are stored; an action without a scope id in its metadata is never cached,
    nor a command whose files cannot be known statically (``script_digests``).
    """

    def __init__(self, scope: CacheScope, *, max_entries: int = MAX_CACHED_APPROVALS) -> None:
        self._field = "run_id" if scope == "run" else "session_id"
        self._max = max_entries
        self._entries: OrderedDict[Hashable, None] = OrderedDict()
        self._lock = threading.Lock()

    def key(self, action: ExecutionAction) -> Hashable | None:
        """The cache key, or ``None`` when the action carries no usable scope id."""
        scope_id = action.metadata.get(self._field)
        if not isinstance(scope_id, str) or not scope_id:
            return None
        digests: tuple[tuple[str, str], ...] = ()
        if action.command is not None:
            found = script_digests(action.command, action.cwd)
            if found is None:
                return None
            digests = found
        paths = tuple(action.paths)
        return (scope_id, action.kind, action.operation, paths, action.cwd, action.command, digests)

    def contains(self, key: Hashable) -> bool:
        """Whether ``key`` was approved before (refreshing its recency)."""
        with self._lock:
            if key not in self._entries:
                return False
            self._entries.move_to_end(key)
            return True

    def add(self, key: Hashable) -> None:
        """Remember an approval, evicting the least recently used beyond the bound."""
        with self._lock:
            self._entries[key] = None
            self._entries.move_to_end(key)
            while len(self._entries) > self._max:
                self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)
