"""Every blocked reason: the result names the reason, one blocked event and ledger row, and the
handler never runs (no started event, untouched canary)."""

from __future__ import annotations

from typing import Any

import pytest

from prism.core import (
    AbortController,
    ErrorInfo,
    InMemoryRunLedger,
    MiddlewareRegistry,
    PermissionDecision,
    ToolCall,
    ToolExecutionContext,
    ToolFilter,
    ToolGates,
    ToolRegistry,
    create_static_permission_policy,
    dispatch_tool_call,
)

pytestmark = pytest.mark.anyio


def _raise(value: Any) -> Any:
    raise RuntimeError("middleware exploded")


CASES: list[tuple[str, dict[str, Any], ToolCall, str]] = [
    ("unknown_tool", {}, ToolCall(id="c", name="missing", arguments={}), "Unknown tool: missing"),
    (
        "tool_denied",
        {"tool_filter": ToolFilter(deny=["ec*"])},
        ToolCall(id="c", name="echo", arguments={}),
        "Tool denied: echo",
    ),
    (
        "tool_denied",
        {"tool_filter": [ToolFilter(allow=["echo"]), ToolFilter(allow=["other"])]},
        ToolCall(id="c", name="echo", arguments={}),
        "Tool denied: echo",
    ),
    (
        "invalid_arguments",
        {},
        ToolCall(id="c", name="echo", arguments={}, arguments_error=ErrorInfo(message="bad JSON")),
        "Tool arguments must be a JSON object: bad JSON",
    ),
    (
        "invalid_arguments",
        {},
        ToolCall(id="c", name="echo", arguments={"__proto__": {"x": 1}}),
        "Tool arguments must be a JSON object: forbidden key '__proto__'",
    ),
    (
        "invalid_arguments",
        {},
        ToolCall(id="c", name="echo", arguments=[1, 2]),  # type: ignore[arg-type]
        "Tool arguments must be a JSON object: expected an object",
    ),
    (
        "permission_denied",
        {"permission": create_static_permission_policy(deny=["tool:echo:execute"])},
        ToolCall(id="c", name="echo", arguments={}),
        "Permission denied: tool:echo:execute",
    ),
    (
        "validation_failed",
        {"validator": lambda tool, args, ctx: "x must be positive"},
        ToolCall(id="c", name="echo", arguments={}),
        "x must be positive",
    ),
    (
        "middleware_failed",
        {"middleware": "raising"},
        ToolCall(id="c", name="echo", arguments={}),
        "tool_call middleware failed: RuntimeError: middleware exploded",
    ),
]


@pytest.mark.parametrize(("reason", "options", "call", "message"), CASES)
async def test_blocked_call_never_reaches_handler(
    canary: Any, events: Any, reason: str, options: dict[str, Any], call: ToolCall, message: str
) -> None:
    if options.get("middleware") == "raising":
        registry_mw = MiddlewareRegistry()
        registry_mw.use("tool_call", _raise)
        options = {"middleware": registry_mw}
    ledger = InMemoryRunLedger()
    result = await dispatch_tool_call(
        call,
        registry=ToolRegistry([canary.tool("echo")]),
        emit=events,
        gates=ToolGates(ledger=ledger, **options),
    )
    assert result.error is not None
    assert result.error.code == reason
    assert result.error.message.startswith(message)
    assert (result.tool_call_id, result.name) == (call.id, call.name)
    assert events.types() == ["tool_execution_blocked"]
    assert events.events[0].reason == reason  # type: ignore[union-attr]
    assert [(r.status, r.reason) for r in ledger.records] == [("blocked", reason)]
    assert canary.entered == []


async def test_aborted_signal_blocks_before_start(canary: Any, events: Any) -> None:
    controller = AbortController()
    controller.abort("user pressed stop")
    context = ToolExecutionContext(
        session_id="s", run_id="r", tool_call_id="", signal=controller.signal
    )
    result = await dispatch_tool_call(
        ToolCall(id="c", name="echo", arguments={}),
        registry=ToolRegistry([canary.tool("echo")]),
        context=context,
        emit=events,
    )
    assert result.error is not None and result.error.code == "aborted"
    assert "user pressed stop" in result.error.message
    assert events.types() == ["tool_execution_blocked"]
    assert canary.entered == []


@pytest.mark.parametrize(
    "outcome",
    [False, None, "yes", PermissionDecision(allowed=False), 1],
)
async def test_anything_but_an_explicit_allow_denies(canary: Any, outcome: object) -> None:
    class Policy:
        def check(self, request: Any) -> object:
            return outcome

    result = await dispatch_tool_call(
        ToolCall(id="c", name="echo", arguments={}),
        registry=ToolRegistry([canary.tool("echo")]),
        gates=ToolGates(permission=Policy()),  # type: ignore[arg-type]
    )
    assert result.error is not None and result.error.code == "permission_denied"
    assert canary.entered == []


async def test_raising_or_async_policy(canary: Any) -> None:
    class Raising:
        def check(self, request: Any) -> bool:
            raise OSError("policy store offline")

    class AsyncAllow:
        async def check(self, request: Any) -> PermissionDecision:
            assert request.key == "tool:echo:execute"
            assert request.metadata["tool_call_id"] == "c"
            return PermissionDecision(allowed=True)

    registry = ToolRegistry([canary.tool("echo")])
    call = ToolCall(id="c", name="echo", arguments={})
    denied = await dispatch_tool_call(
        call, registry=registry, gates=ToolGates(permission=Raising())
    )
    assert denied.error is not None and "policy store offline" in denied.error.message
    allowed = await dispatch_tool_call(
        call, registry=registry, gates=ToolGates(permission=AsyncAllow())
    )
    assert not allowed.is_error
    assert canary.entered == ["c"]


async def test_argument_check_runs_before_permission(canary: Any) -> None:
    asked: list[str] = []

    class Policy:
        def check(self, request: Any) -> bool:
            asked.append(request.key)
            return True

    result = await dispatch_tool_call(
        ToolCall(id="c", name="echo", arguments={"a": {"constructor": {"prototype": {}}}}),
        registry=ToolRegistry([canary.tool("echo")]),
        gates=ToolGates(permission=Policy()),
    )
    assert result.error is not None and result.error.code == "invalid_arguments"
    assert asked == []


async def test_max_argument_bytes_is_validated_and_enforced(canary: Any) -> None:
    registry = ToolRegistry([canary.tool("echo")])
    call = ToolCall(id="c", name="echo", arguments={"s": "x" * 100})
    result = await dispatch_tool_call(
        call, registry=registry, gates=ToolGates(max_argument_bytes=50)
    )
    assert result.error is not None and result.error.code == "invalid_arguments"
    bad_limits = ((0, ValueError), (-1, ValueError), (16_777_217, ValueError))
    for bad, error in (*bad_limits, (True, TypeError), (1.5, TypeError)):
        with pytest.raises(error, match="max_argument_bytes"):
            ToolGates(max_argument_bytes=bad)  # type: ignore[arg-type]
    ok = await dispatch_tool_call(
        call, registry=registry, gates=ToolGates(max_argument_bytes=16_777_216)
    )
    assert not ok.is_error
