"""Conformance rows owned by prism-core about dispatch gates: 4, 7, 16, E12.

Rows 5, 6, E1 and E2 (batches, aborts, the loop) live in ``_rows_core_batch``.
"""

from __future__ import annotations

import inspect
import uuid
from collections.abc import Awaitable, Mapping
from typing import Any

from prism.core import (
    ErrorInfo,
    InMemoryRunLedger,
    JsonObject,
    PermissionPolicy,
    PermissionRequest,
    TextContent,
    ToolCall,
    ToolDefinition,
    ToolExecutionContext,
    ToolFilter,
    ToolGates,
    ToolRegistry,
    ToolResult,
)

from ._canary import Canary, EventRecorder, assert_not_invoked, canary_tool
from ._inspect import find_secret
from ._registry import conformance_row
from ._subjects import ConformanceSubjects

__all__ = ["describe_result", "expect_blocked"]


def describe_result(result: ToolResult) -> str:
    """A short account of a result for failure messages."""
    if result.error is None:
        return "a successful result"
    return f"an error result (code={result.error.code!r}, message={result.error.message!r})"


def expect_blocked(
    result: ToolResult,
    *,
    call: ToolCall,
    reason: str,
    events: EventRecorder,
    canary: Canary,
    why: str,
) -> None:
    """``result`` blocks ``call`` with ``reason``: one blocked event, handler not run."""
    if result.tool_call_id != call.id:
        raise AssertionError(
            f"the result for call {call.id!r} carries tool_call_id {result.tool_call_id!r}"
        )
    code = result.error.code if result.error is not None else None
    if code != reason:
        raise AssertionError(f"{why}: expected blocked {reason!r}, got {describe_result(result)}")
    blocked = events.of_type("tool_execution_blocked", call.id)
    if len(blocked) != 1 or getattr(blocked[0], "reason", None) != reason:
        got = [getattr(e, "reason", None) for e in blocked]
        raise AssertionError(
            f"{why}: expected one tool_execution_blocked event with reason {reason!r}, got {got}"
        )
    assert_not_invoked(call_id=call.id, canary=canary, events=events, why=why)


class SpyPermission:
    """Wraps a policy and records every request it is asked."""

    def __init__(self, inner: PermissionPolicy | None = None) -> None:
        self.inner = inner
        self.requests: list[PermissionRequest] = []

    async def check(self, request: PermissionRequest) -> Any:
        self.requests.append(request)
        if self.inner is None:
            return True
        outcome = self.inner.check(request)
        return await outcome if isinstance(outcome, Awaitable) else outcome


_POLLUTED: Mapping[str, JsonObject] = {
    "`__proto__` at the top level": {"__proto__": {"polluted": True}},
    "`__proto__` nested in an object": {"outer": {"inner": {"__proto__": {"x": 1}}}},
    "`__proto__` inside an array": {"items": [1, {"__proto__": {"polluted": True}}]},
    "`constructor.prototype` at the top level": {"constructor": {"prototype": {"polluted": 1}}},
    "`constructor.prototype` nested in an array": {"a": [{"constructor": {"prototype": {}}}]},
}

_HARMLESS: Mapping[str, JsonObject] = {
    "plain arguments": {"text": "hello"},
    "a parameter named `constructor` and one named `prototype`": {
        "constructor": "Widget",
        "prototype": 1,
    },
}


@conformance_row("4")
async def prototype_pollution_blocked(subjects: ConformanceSubjects) -> None:
    """Pollution keys are refused as invalid arguments before permission; handler not run."""
    canary = Canary("the handler of tool 'echo'")
    registry = ToolRegistry([canary_tool("echo", canary)])
    policy = SpyPermission(subjects.permission_factory(()))
    for number, (label, args) in enumerate(_POLLUTED.items()):
        events = EventRecorder()
        call = ToolCall(id=f"pollution-{number}", name="echo", arguments=args)
        result = await subjects.dispatch(
            call, registry=registry, gates=ToolGates(permission=policy), emit=events
        )
        why = f"its arguments carry {label}"
        expect_blocked(
            result, call=call, reason="invalid_arguments", events=events, canary=canary, why=why
        )
        if policy.requests:
            raise AssertionError(
                f"the permission policy was consulted although {why}: the invalid_arguments "
                "check must come before the permission check"
            )
    for number, (label, args) in enumerate(_HARMLESS.items()):
        call = ToolCall(id=f"harmless-{number}", name="echo", arguments=args)
        before = canary.count
        result = await subjects.dispatch(
            call, registry=registry, gates=ToolGates(permission=policy)
        )
        if result.error is not None or canary.count != before + 1:
            raise AssertionError(
                f"{label} must run the handler, got {describe_result(result)} "
                f"(handler ran {canary.count - before} time(s))"
            )


@conformance_row("7")
async def permission_denied_in_parallel_batch(subjects: ConformanceSubjects) -> None:
    """The denied call's slot holds ``permission_denied``; the others run; order kept."""
    names = ("alpha", "danger", "beta", "gamma")
    canaries = {name: Canary(f"the handler of tool {name!r}") for name in names}
    registry = ToolRegistry([canary_tool(n, canaries[n]) for n in names])
    calls = [ToolCall(id=f"call-{i}-{n}", name=n, arguments={}) for i, n in enumerate(names)]
    events = EventRecorder()
    results = await subjects.dispatch_batch(
        calls,
        tool_concurrency=4,
        registry=registry,
        gates=ToolGates(permission=subjects.permission_factory(["danger"])),
        emit=events,
    )
    ids = [r.tool_call_id for r in results]
    if ids != [c.id for c in calls]:
        raise AssertionError(
            f"results are not in call order: expected {[c.id for c in calls]}, got {ids}"
        )
    expect_blocked(
        results[1],
        call=calls[1],
        reason="permission_denied",
        events=events,
        canary=canaries["danger"],
        why="the permission policy denies tool 'danger'",
    )
    for index in (0, 2, 3):
        name = names[index]
        result = results[index]
        if result.error is not None or canaries[name].count != 1:
            raise AssertionError(
                f"call {calls[index].id!r} to the allowed tool {name!r} must run beside the denied "
                f"one: got {describe_result(result)}, handler ran {canaries[name].count} time(s)"
            )


class _Extension:
    def __init__(self, name: str, tool: ToolDefinition, canary: Canary) -> None:
        self.name = name
        self._tool = tool
        self._canary = canary

    def setup(self, api: Any) -> None:
        self._canary.hit()
        api.register_tool(self._tool)


class _ExtensionGate:
    """Denies ``extension:*`` requests (recording them), allows everything else."""

    def __init__(self, *, allow_extensions: bool) -> None:
        self.allow_extensions = allow_extensions
        self.requests: list[PermissionRequest] = []

    def check(self, request: PermissionRequest) -> bool:
        self.requests.append(request)
        return request.kind != "extension" or self.allow_extensions


async def _load(kernel: Any, extension: _Extension) -> BaseException | None:
    try:
        outcome = kernel.load(extension)
        if inspect.isawaitable(outcome):
            await outcome
    except Exception as exc:
        return exc
    return None


@conformance_row("16")
async def extension_tools_stay_gated(subjects: ConformanceSubjects) -> None:
    """Contributions are inert; once registered by the host every gate applies; setup gated."""
    name = "ext:conformance:echo"
    handler, setup = Canary(f"the handler of extension tool {name!r}"), Canary("extension setup")
    ext = _Extension("conformance-ext", canary_tool(name, handler), setup)
    denied_gate = _ExtensionGate(allow_extensions=False)
    error = await _load(subjects.extension_kernel_factory(permission=denied_gate), ext)
    keys = [f"{r.kind}:{r.target}:{r.action}" for r in denied_gate.requests]
    if "extension:conformance-ext:setup" not in keys:
        raise AssertionError(
            "loading an extension must ask permission 'extension:conformance-ext:setup'; "
            f"asked {keys}"
        )
    setup.assert_untouched("the permission policy denied its setup")
    if error is None:
        raise AssertionError("loading an extension whose setup permission was denied succeeded")

    kernel = subjects.extension_kernel_factory(permission=_ExtensionGate(allow_extensions=True))
    if (error := await _load(kernel, ext)) is not None:
        raise AssertionError(f"loading a permitted extension failed: {error!r}")
    contributed = tuple(kernel.contributions.tools)
    if [t.name for t in contributed] != [name]:
        raise AssertionError(
            f"the kernel should record the contributed tool {name!r}, got {contributed}"
        )
    await _expect_gates(subjects, name, contributed, handler)


async def _expect_gates(
    subjects: ConformanceSubjects,
    name: str,
    contributed: tuple[ToolDefinition, ...],
    canary: Canary,
) -> None:
    host_only = ToolRegistry([canary_tool("host_tool", Canary("host tool"))])
    call = ToolCall(id="ext-call", name=name, arguments={"q": "x"})
    events = EventRecorder()
    result = await subjects.dispatch(call, registry=host_only, emit=events)
    why = "the host never registered the extension's tool"
    expect_blocked(result, call=call, reason="unknown_tool", events=events, canary=canary, why=why)

    registry = ToolRegistry(contributed)

    def reject(tool: ToolDefinition, args: JsonObject, ctx: ToolExecutionContext) -> str:
        return "rejected by the host validator"

    gates: list[tuple[str, str, ToolGates]] = [
        (
            "tool_denied",
            "tool_filter",
            ToolGates(tool_filter=ToolFilter(deny=["ext:conformance:*"])),
        ),
        (
            "permission_denied",
            "permission",
            ToolGates(permission=subjects.permission_factory([name])),
        ),
        ("validation_failed", "validator", ToolGates(validator=reject)),
    ]
    for reason, gate, closed in gates:
        events = EventRecorder()
        result = await subjects.dispatch(call, registry=registry, emit=events, gates=closed)
        why = f"the host's {gate} refuses the registered extension tool"
        expect_blocked(result, call=call, reason=reason, events=events, canary=canary, why=why)
    result = await subjects.dispatch(call, registry=registry)
    if result.error is not None or canary.count != 1:
        raise AssertionError(
            f"once registered by the host with every gate open, the extension tool must run: "
            f"got {describe_result(result)}, handler ran {canary.count} time(s)"
        )


def _leaky_tools(secret: str) -> list[ToolDefinition]:
    async def echo(args: JsonObject, ctx: ToolExecutionContext) -> ToolResult:
        return ToolResult(
            tool_call_id=ctx.tool_call_id,
            name="echo",
            content=(TextContent(text=f"echo {args.get('token')}"),),
            value={"token": secret, secret: "as a key"},
            metadata={"note": secret},
        )

    async def boom(args: JsonObject, ctx: ToolExecutionContext) -> ToolResult:
        raise RuntimeError(f"upstream rejected token {secret}")

    async def soft_error(args: JsonObject, ctx: ToolExecutionContext) -> ToolResult:
        return ToolResult(
            tool_call_id=ctx.tool_call_id,
            name="soft_error",
            error=ErrorInfo(message=f"bad token {secret}", details={"token": secret}),
        )

    return [
        ToolDefinition(name="echo", execute=echo),
        ToolDefinition(name="boom", execute=boom),
        ToolDefinition(name="soft_error", execute=soft_error),
        canary_tool("guarded", Canary("guarded")),
    ]


@conformance_row("E12")
async def secrets_redacted_everywhere(subjects: ConformanceSubjects) -> None:
    """A secret in arguments, results, errors, events and ledger rows never leaks."""
    secret = f"sk-prism-conformance-{uuid.uuid4().hex}"
    args: JsonObject = {"token": secret, "nested": {"list": [secret], secret: "as a key"}}
    registry = ToolRegistry(_leaky_tools(secret))
    names = ["echo", "boom", "soft_error", f"missing-{secret}", "guarded"]
    calls = [ToolCall(id=f"secret-{i}", name=n, arguments=args) for i, n in enumerate(names)]
    calls.append(ToolCall(id="secret-invalid", name="echo", arguments={**args, "__proto__": {}}))
    events, ledger = EventRecorder(), InMemoryRunLedger()
    gates = ToolGates(
        permission=subjects.permission_factory(["guarded"]),
        ledger=ledger,
        redactor=subjects.redactor_factory([secret]),
    )
    options: dict[str, Any] = {"registry": registry, "gates": gates, "emit": events}
    results = [await subjects.dispatch(call, **options) for call in calls]
    batch_calls = [ToolCall(id=f"batch-{c.id}", name=c.name, arguments=c.arguments) for c in calls]
    results += await subjects.dispatch_batch(batch_calls, tool_concurrency=3, **options)
    if not ledger.records or not events.events:
        raise AssertionError(
            f"dispatch with a ledger and an emit sink recorded {len(ledger.records)} ledger rows "
            f"and {len(events.events)} events; the redaction check needs both"
        )
    leaks = (
        find_secret(results, secret, "results")
        + find_secret(events.events, secret, "events")
        + find_secret(ledger.records, secret, "ledger")
    )
    if leaks:
        shown = ", ".join(leaks[:8]) + (f" and {len(leaks) - 8} more" if len(leaks) > 8 else "")
        raise AssertionError(f"the secret appears unredacted in {len(leaks)} place(s): {shown}")
