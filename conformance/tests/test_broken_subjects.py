"""Each core row fails, with a precise message, against a deliberately broken subject."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import anyio
import pytest
import sniffio

from prism.conformance import ConformanceSubjects, run_row
from prism.core import (
    AbortController,
    AbortSignal,
    ErrorInfo,
    PermissionRequest,
    SecretRedactor,
    ToolCall,
    ToolExecutionContext,
    ToolResult,
    dispatch_tool_call,
    dispatch_tool_calls_in_order,
)
from prism.core.agent import Agent, ToolMessage
from prism.core.extensions import ExtensionKernel

BACKENDS = ["asyncio", "trio"]


def expect_failure(row: str, subjects: ConformanceSubjects, backend: str, *phrases: str) -> str:
    result = run_row(row, subjects, backend=backend, timeout_seconds=30)
    assert result.status == "failed", f"row {row} should fail, got {result.status}"
    assert result.message is not None
    for phrase in phrases:
        assert phrase in result.message, f"{phrase!r} not in {result.message!r}"
    return result.message


# --- row 4 -----------------------------------------------------------------------------


def _strip_pollution(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: _strip_pollution(v)
            for k, v in value.items()
            if k != "__proto__" and not (k == "constructor" and isinstance(v, dict))
        }
    if isinstance(value, list):
        return [_strip_pollution(v) for v in value]
    return value


async def sanitizing_dispatch(call: ToolCall, **options: Any) -> ToolResult:
    """Cleans polluted arguments instead of refusing them."""
    clean = dataclasses.replace(call, arguments=_strip_pollution(call.arguments))
    return await dispatch_tool_call(clean, **options)


def _without(options: dict[str, Any], gate: str) -> dict[str, Any]:
    """``options`` with one gate of their ``gates`` left out (what a broken subject drops)."""
    gates = options.get("gates")
    if gates is None:
        return options
    return {**options, "gates": dataclasses.replace(gates, **{gate: None})}


async def permission_first_dispatch(call: ToolCall, **options: Any) -> ToolResult:
    """Asks the permission policy before checking the arguments."""
    gates = options.get("gates")
    policy = gates.permission if gates is not None else None
    if policy is not None:
        outcome = policy.check(PermissionRequest(kind="tool", target=call.name, action="execute"))
        if hasattr(outcome, "__await__"):
            await outcome
    return await dispatch_tool_call(call, **options)


async def overblocking_dispatch(call: ToolCall, **options: Any) -> ToolResult:
    """Refuses every call as invalid (a "secure" dispatcher that is useless)."""
    spoiled = dataclasses.replace(call, arguments={**call.arguments, "__proto__": {}})
    return await dispatch_tool_call(spoiled, **options)


# --- row 5 -----------------------------------------------------------------------------


def forced_concurrency(n: int) -> Callable[..., Any]:
    async def batch(calls: Sequence[ToolCall], **options: Any) -> tuple[ToolResult, ...]:
        options["tool_concurrency"] = n
        return await dispatch_tool_calls_in_order(calls, **options)

    return batch


async def reversed_batch(calls: Sequence[ToolCall], **options: Any) -> tuple[ToolResult, ...]:
    """Returns results in reverse (e.g. completion) order."""
    return tuple(reversed(await dispatch_tool_calls_in_order(calls, **options)))


def naive_batch(*, exclusive: str = "ignore", grace: bool = False) -> Callable[..., Any]:
    """A semaphore batch that starts calls in order but ignores exclusivity (or judges it
    before middleware), and keeps starting calls after an abort (with a fresh signal).

    With ``grace`` it cancels what still runs ``abort_grace_seconds`` after the abort (giving it
    an 'aborted' result), so its only fault is starting new calls: the row fails at once instead
    of waiting for a signal-ignoring handler to finish on its own."""

    async def batch(
        calls: Sequence[ToolCall],
        *,
        tool_concurrency: int = 1,
        signal: AbortSignal | None = None,
        abort_grace_seconds: float = 5.0,
        **options: Any,
    ) -> tuple[ToolResult, ...]:
        registry = options["registry"]
        limit = tool_concurrency
        if exclusive == "before_middleware" and any(
            getattr(registry.get(c.name), "exclusive", False) for c in calls
        ):
            limit = 1
        semaphore = anyio.Semaphore(limit)
        results: list[ToolResult | None] = [None] * len(calls)
        batch_signal = signal or AbortController().signal

        running: set[anyio.CancelScope] = set()

        async def one(index: int, call: ToolCall, sig: AbortSignal) -> None:
            try:
                ctx = ToolExecutionContext(
                    session_id="", run_id="", tool_call_id=call.id, signal=sig
                )
                with anyio.CancelScope() as scope:
                    running.add(scope)
                    results[index] = await dispatch_tool_call(call, context=ctx, **options)
                running.discard(scope)
            finally:
                semaphore.release()

        async def cancel_after_grace() -> None:
            await batch_signal.wait()
            await anyio.sleep(abort_grace_seconds)
            for scope in tuple(running):
                scope.cancel()

        async with anyio.create_task_group() as outer:
            if grace:
                outer.start_soon(cancel_after_grace)
            async with anyio.create_task_group() as group:
                for index, call in enumerate(calls):
                    await semaphore.acquire()
                    sig = AbortController().signal if batch_signal.aborted else batch_signal
                    group.start_soon(one, index, call, sig)
            outer.cancel_scope.cancel()
        if grace:
            aborted = ErrorInfo(code="aborted", message="aborted")
            results = [
                r or ToolResult(tool_call_id=c.id, name=c.name, error=aborted)
                for r, c in zip(results, calls, strict=True)
            ]
        return tuple(r for r in results if r is not None)

    return batch


@pytest.mark.parametrize("backend", BACKENDS)
def test_row_5_fails_when_the_agent_loop_reorders_the_transcript(backend: str) -> None:
    def agent_factory(**options: Any) -> Any:
        return ReversingAgent(Agent(**options))

    subjects = ConformanceSubjects(agent_factory=agent_factory)
    expect_failure("5", subjects, backend, "out of call order")


class ReversingAgent:
    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def run(self, prompt: Any, **options: Any) -> Any:
        run = await self.inner.run(prompt, **options)
        messages = list(run.messages)
        tools = [i for i, m in enumerate(messages) if isinstance(m, ToolMessage)]
        for i, j in zip(tools, reversed(tools), strict=True):
            messages[i] = run.messages[j]
        return dataclasses.replace(run, messages=tuple(messages))


# --- rows 6 and E2 -----------------------------------------------------------------------


async def result_dropping_batch(calls: Sequence[ToolCall], **options: Any) -> Any:
    """Throws away completed results when the turn is aborted."""
    results = await dispatch_tool_calls_in_order(calls, **options)
    signal = options.get("signal")
    if signal is None or not signal.aborted:
        return results
    error = ErrorInfo(code="aborted", message="aborted")
    return tuple(dataclasses.replace(r, error=error, content=()) for r in results)


async def never_cancelling_batch(calls: Sequence[ToolCall], **options: Any) -> Any:
    options["abort_grace_seconds"] = 60.0
    return await dispatch_tool_calls_in_order(calls, **options)


def _spawn(fn: Callable[[], Any]) -> None:
    if sniffio.current_async_library() == "trio":
        import trio

        trio.lowlevel.spawn_system_task(fn)
    else:
        import asyncio

        task = asyncio.get_running_loop().create_task(fn())
        _ORPHANS.add(task)
        task.add_done_callback(_ORPHANS.discard)


_ORPHANS: set[Any] = set()


async def orphaning_batch(
    calls: Sequence[ToolCall], *, signal: AbortSignal | None = None, **options: Any
) -> tuple[ToolResult, ...]:
    """Runs calls as detached tasks and returns as soon as the turn is aborted."""
    options.pop("tool_concurrency", None)
    options.pop("abort_grace_seconds", None)
    sig = signal or AbortController().signal
    results: list[ToolResult | None] = [None] * len(calls)
    for index, call in enumerate(calls):
        if sig.aborted:
            break
        ctx = ToolExecutionContext(session_id="", run_id="", tool_call_id=call.id, signal=sig)

        async def one(i: int = index, c: ToolCall = call, x: Any = ctx) -> None:
            results[i] = await dispatch_tool_call(c, context=x, **options)

        _spawn(one)
        while results[index] is None and not sig.aborted:
            await anyio.sleep(0.005)
    error = ErrorInfo(code="aborted", message="aborted")
    return tuple(
        r or ToolResult(tool_call_id=c.id, name=c.name, error=error)
        for r, c in zip(results, calls, strict=True)
    )


# --- row 7 -----------------------------------------------------------------------------


class AllowAll:
    def check(self, request: PermissionRequest) -> bool:
        return True


async def error_dropping_batch(calls: Sequence[ToolCall], **options: Any) -> Any:
    return tuple(r for r in await dispatch_tool_calls_in_order(calls, **options) if not r.is_error)


# --- row 16 ----------------------------------------------------------------------------


class CarelessKernel:
    """Asks permission, then sets the extension up anyway."""

    def __init__(self, permission: Any = None) -> None:
        self.permission = permission
        self.inner = ExtensionKernel()

    @property
    def contributions(self) -> Any:
        return self.inner.contributions

    async def load(self, extension: Any) -> Any:
        if self.permission is not None:
            self.permission.check(
                PermissionRequest(kind="extension", target=extension.name, action="setup")
            )
        return await self.inner.load(extension)


async def filter_blind_dispatch(call: ToolCall, **options: Any) -> ToolResult:
    return await dispatch_tool_call(call, **_without(options, "tool_filter"))


# --- row E1 ----------------------------------------------------------------------------


class LimitDroppingAgent:
    """Removes the round-limit answers from the transcript."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def run(self, prompt: Any, **options: Any) -> Any:
        run = await self.inner.run(prompt, **options)
        kept = tuple(
            m
            for m in run.messages
            if not (isinstance(m, ToolMessage) and m.result.error is not None
                    and m.result.error.code == "tool_round_limit")
        )  # fmt: skip
        return dataclasses.replace(run, messages=kept)


@pytest.mark.parametrize("backend", BACKENDS)
def test_row_e1_fails_when_the_limit_is_ignored(backend: str) -> None:
    def unlimited(**options: Any) -> Any:
        options.pop("limits", None)
        return Agent(**options)

    subjects = ConformanceSubjects(agent_factory=unlimited)
    expect_failure("E1", subjects, backend, "finish_reason must be 'tool_round_limit'")


# --- row E12 ---------------------------------------------------------------------------


class NoRedaction:
    def redact(self, value: Any) -> Any:
        return value


class ResultsOnlyRedactor:
    """Redacts tool results but forgets events and ledger rows."""

    def __init__(self, secrets: Any) -> None:
        self.inner = SecretRedactor(secrets)

    def redact(self, value: Any) -> Any:
        return self.inner.redact(value) if isinstance(value, ToolResult) else value


async def redactor_dropping_dispatch(call: ToolCall, **options: Any) -> ToolResult:
    return await dispatch_tool_call(call, **_without(options, "redactor"))


@pytest.mark.parametrize("backend", BACKENDS)
def test_row_e12_fails_with_a_redactor_that_does_nothing(backend: str) -> None:
    subjects = ConformanceSubjects(redactor_factory=lambda secrets: NoRedaction())
    message = expect_failure("E12", subjects, backend, "appears unredacted")
    assert "results[0]" in message


@pytest.mark.parametrize("backend", BACKENDS)
def test_row_e12_fails_when_events_and_ledger_are_not_redacted(backend: str) -> None:
    subjects = ConformanceSubjects(redactor_factory=ResultsOnlyRedactor)
    message = expect_failure("E12", subjects, backend, "appears unredacted")
    assert "events[" in message or "ledger[" in message
    assert "results[" not in message


def test_leak_paths_name_mapping_keys() -> None:
    from prism.conformance import find_secret

    found = find_secret({"a": [{"sk-1": "x"}]}, "sk-1", "value")
    assert found == ["value['a'][0] key 'sk-1'"]


# --- the table: row, broken subject, phrases its failure message must contain ----------------

BROKEN = [
    pytest.param(
        "4",
        ConformanceSubjects(dispatch=sanitizing_dispatch),
        ("expected blocked 'invalid_arguments'", "__proto__"),
        id="row-4-polluted-arguments-are-cleaned-not-blocked",
    ),
    pytest.param(
        "4",
        ConformanceSubjects(dispatch=permission_first_dispatch),
        ("permission policy was consulted",),
        id="row-4-permission-is-asked-first",
    ),
    pytest.param(
        "4",
        ConformanceSubjects(dispatch=overblocking_dispatch),
        ("must run the handler",),
        id="row-4-everything-is-blocked",
    ),
    pytest.param(
        "5",
        ConformanceSubjects(dispatch_batch=forced_concurrency(64)),
        ("handlers ran at once with tool_concurrency=3",),
        id="row-5-the-batch-ignores-concurrency",
    ),
    pytest.param(
        "5",
        ConformanceSubjects(dispatch_batch=forced_concurrency(1)),
        ("configured concurrency is not used",),
        id="row-5-the-batch-runs-one-at-a-time",
    ),
    pytest.param(
        "5",
        ConformanceSubjects(dispatch_batch=reversed_batch),
        ("results are not in call order",),
        id="row-5-results-are-reordered",
    ),
    pytest.param(
        "5",
        ConformanceSubjects(dispatch_batch=naive_batch(exclusive="ignore")),
        ("exclusive tool must run one call at a time",),
        id="row-5-exclusive-tools-are-ignored",
    ),
    pytest.param(
        "5",
        ConformanceSubjects(dispatch_batch=naive_batch(exclusive="before_middleware")),
        ("judged on the name after tool_call middleware",),
        id="row-5-exclusivity-is-judged-before-middleware",
    ),
    pytest.param(
        "6",
        ConformanceSubjects(dispatch_batch=result_dropping_batch),
        ("completed call 'fast' must keep its result",),
        id="row-6-completed-results-are-dropped",
    ),
    pytest.param(
        "E2",
        ConformanceSubjects(dispatch_batch=result_dropping_batch),
        ("completed call 'fast' must keep its result",),
        id="row-e2-completed-results-are-dropped",
    ),
    pytest.param(
        "6",
        ConformanceSubjects(dispatch_batch=naive_batch(grace=True)),
        ("a queued call started after the abort",),
        id="row-6-new-calls-start-after-the-abort",
    ),
    pytest.param(
        "E2",
        ConformanceSubjects(dispatch_batch=naive_batch(grace=True)),
        ("a queued call started after the abort",),
        id="row-e2-new-calls-start-after-the-abort",
    ),
    pytest.param(
        "6",
        ConformanceSubjects(dispatch_batch=never_cancelling_batch),
        ("the unfinished 'ignore' call must get an 'aborted'",),
        id="row-6-a-signal-ignoring-handler-is-never-cancelled",
    ),
    pytest.param(
        "E2",
        ConformanceSubjects(dispatch_batch=orphaning_batch),
        ("still running when the batch returned",),
        id="row-e2-a-handler-outlives-the-batch",
    ),
    pytest.param(
        "7",
        ConformanceSubjects(permission_factory=lambda names: AllowAll()),
        (
            "expected blocked 'permission_denied'",
            "'danger'",
        ),
        id="row-7-with-a-permission-policy-that-allows-everything",
    ),
    pytest.param(
        "7",
        ConformanceSubjects(dispatch_batch=error_dropping_batch),
        ("results are not in call order",),
        id="row-7-the-denied-slot-is-dropped",
    ),
    pytest.param(
        "16",
        ConformanceSubjects(extension_kernel_factory=lambda permission=None: ExtensionKernel()),
        ("must ask permission 'extension:conformance-ext:setup'",),
        id="row-16-extension-setup-is-not-gated",
    ),
    pytest.param(
        "16",
        ConformanceSubjects(extension_kernel_factory=CarelessKernel),
        ("extension setup ran 1 time(s) although",),
        id="row-16-a-denied-setup-still-runs",
    ),
    pytest.param(
        "16",
        ConformanceSubjects(dispatch=filter_blind_dispatch),
        ("expected blocked 'tool_denied'",),
        id="row-16-dispatch-skips-the-filter",
    ),
    pytest.param(
        "E1",
        ConformanceSubjects(agent_factory=lambda **o: LimitDroppingAgent(Agent(**o))),
        ("has no tool result",),
        id="row-e1-unanswered-calls-get-no-result",
    ),
    pytest.param(
        "E12",
        ConformanceSubjects(dispatch=redactor_dropping_dispatch),
        ("appears unredacted",),
        id="row-e12-dispatch-drops-the-redactor",
    ),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("row", "subjects", "phrases"), BROKEN)
def test_the_row_fails_against_the_broken_subject(
    row: str, subjects: ConformanceSubjects, phrases: tuple[str, ...], backend: str
) -> None:
    expect_failure(row, subjects, backend, *phrases)
