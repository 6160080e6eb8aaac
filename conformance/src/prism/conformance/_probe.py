"""``assert_tool_dispatch_conforms``: probe a host's registry and tool through dispatch.

Blocked-reason probes (unknown tool, filter denial, bad arguments, permission and validation
gates) must each be refused before the handler runs; then the success path must run it once.
Usable without pytest: ``asyncio.run(assert_tool_dispatch_conforms(...))``.
"""

from __future__ import annotations

import dataclasses
import math
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from prism.core import (
    ErrorInfo,
    JsonObject,
    PermissionPolicy,
    PermissionRequest,
    ToolCall,
    ToolExecutionContext,
    ToolFilter,
    ToolGates,
    ToolRegistry,
    ToolResult,
    ToolValidator,
    dispatch_tool_call,
)

from ._canary import Canary, EventRecorder
from ._rows_core import SpyPermission, describe_result

__all__ = ["assert_tool_dispatch_conforms"]


class _SpyValidator:
    def __init__(self, inner: ToolValidator | None) -> None:
        self.inner = inner
        self.calls = 0

    async def __call__(self, tool: Any, args: JsonObject, ctx: ToolExecutionContext) -> Any:
        self.calls += 1
        if self.inner is None:
            return None
        outcome = self.inner(tool, args, ctx)
        return await outcome if isinstance(outcome, Awaitable) else outcome


def _filters(extra: ToolFilter, host: ToolFilter | Sequence[ToolFilter] | None) -> list[ToolFilter]:
    if host is None:
        return [extra]
    return [extra, host] if isinstance(host, ToolFilter) else [extra, *host]


class _Prober:
    def __init__(self, registry: Any, tool: str, dispatch: Callable[..., Awaitable[ToolResult]]):
        original = registry.get(tool)
        if original is None:
            raise AssertionError(f"the registry has no tool named {tool!r}")
        self.tool = tool
        self.canary = Canary(f"the handler of {tool!r}")
        wrapped = dataclasses.replace(original, execute=self.canary.wrap(original.execute))
        self.registry = ToolRegistry([wrapped if t.name == tool else t for t in registry.list()])
        self.dispatch = dispatch
        self.failures: list[str] = []
        self.probes: list[str] = []

    async def blocked(
        self, probe: str, call: ToolCall, reason: str, gates: ToolGates, *, registry: Any = None
    ) -> None:
        """Dispatch ``call``; it must be blocked with ``reason`` and never reach the handler."""
        self.probes.append(probe)
        events = EventRecorder()
        before = self.canary.count
        target = registry or self.registry
        result = await self.dispatch(call, registry=target, gates=gates, emit=events)
        code = result.error.code if result.error is not None else None
        ran = self.canary.count - before
        if code != reason:
            self.failures.append(
                f"{probe}: expected blocked {reason!r}, got {describe_result(result)}"
            )
        elif events.of_type("tool_execution_started", call.id) or ran:
            self.failures.append(
                f"{probe}: blocked, but the handler ran {ran} time(s) / a started event was emitted"
            )


async def assert_tool_dispatch_conforms(
    registry: Any,
    *,
    tool: str,
    valid_args: JsonObject,
    gates: ToolGates | None = None,
    invalid_args: JsonObject | None = None,
    dispatch: Callable[..., Awaitable[ToolResult]] = dispatch_tool_call,
) -> tuple[str, ...]:
    """Probe ``tool`` of ``registry`` through ``dispatch`` with the host's ``gates`` in place.

    Every blocked probe must be refused with its reason, with no ``tool_execution_started``
    event and the handler untouched; bad arguments must never reach ``gates.permission`` or
    ``gates.validator``; ``invalid_args`` (if given) must fail the validator. Then
    ``valid_args`` must run the handler exactly once. Raises ``AssertionError`` listing every
    failure; returns the names of the probes run. Note: the success path really runs the tool.
    """
    host = gates or ToolGates()
    permission, validator = host.permission, host.validator
    p = _Prober(registry, tool, dispatch)
    spy_permission = SpyPermission(permission) if permission is not None else None
    spy_validator = _SpyValidator(validator) if validator is not None else None
    gates = dataclasses.replace(host, permission=spy_permission, validator=spy_validator)
    unknown = f"prism-conformance-unknown-{uuid.uuid4().hex[:12]}"
    await p.blocked("unknown tool", ToolCall(id="probe-unknown", name=unknown,
                    arguments=valid_args), "unknown_tool", gates, registry=registry)  # fmt: skip
    await p.blocked(
        "tool denied by a filter", ToolCall(id="probe-filter", name=tool, arguments=valid_args),
        "tool_denied",
        dataclasses.replace(gates, tool_filter=_filters(ToolFilter(deny=[tool]), host.tool_filter)),
    )  # fmt: skip
    await _argument_probes(p, valid_args, gates)
    if spy_permission is not None and spy_permission.requests:
        p.failures.append("the permission policy was consulted for a call with bad arguments")
    if spy_validator is not None and spy_validator.calls:
        p.failures.append("the validator was consulted for a call with bad arguments")
    await _gate_probes(p, valid_args, gates, permission, validator, invalid_args)
    await _success(p, valid_args, gates, spy_permission)
    if p.failures:
        raise AssertionError(
            f"tool {tool!r} does not conform ({len(p.failures)} problem(s)):\n- "
            + "\n- ".join(p.failures)
        )
    return tuple(p.probes)


async def _argument_probes(p: _Prober, valid_args: JsonObject, gates: ToolGates) -> None:
    bad: dict[str, JsonObject] = {
        "`__proto__` in the arguments": {**valid_args, "__proto__": {"polluted": True}},
        "`constructor.prototype` in the arguments": {
            **valid_args, "constructor": {"prototype": {"polluted": True}}},
        "a non-finite number in the arguments": {**valid_args, "prism_nan": math.nan},
    }  # fmt: skip
    for index, (label, args) in enumerate(bad.items()):
        call = ToolCall(id=f"probe-args-{index}", name=p.tool, arguments=args)
        await p.blocked(label, call, "invalid_arguments", gates)
    unparsable = ToolCall(
        id="probe-args-error", name=p.tool, arguments={},
        arguments_error=ErrorInfo(message="the model sent arguments that are not JSON"),
    )  # fmt: skip
    await p.blocked("unparsable arguments", unparsable, "invalid_arguments", gates)


async def _gate_probes(
    p: _Prober,
    valid_args: JsonObject,
    gates: ToolGates,
    permission: PermissionPolicy | None,
    validator: ToolValidator | None,
    invalid_args: JsonObject | None,
) -> None:
    call = ToolCall(id="probe-gate", name=p.tool, arguments=valid_args)
    if permission is not None:

        def deny(request: PermissionRequest) -> bool:
            return False

        deny_all = type("DenyAll", (), {"check": staticmethod(deny)})()
        await p.blocked("a denying permission policy", call, "permission_denied",
                        dataclasses.replace(gates, permission=deny_all))  # fmt: skip
    if validator is not None:

        def reject(tool: Any, args: JsonObject, ctx: ToolExecutionContext) -> str:
            return "rejected by the conformance probe"

        await p.blocked("a rejecting validator", call, "validation_failed",
                        dataclasses.replace(gates, validator=reject))  # fmt: skip
        if invalid_args is not None:
            bad = ToolCall(id="probe-invalid", name=p.tool, arguments=invalid_args)
            await p.blocked("invalid_args against the host validator", bad,
                            "validation_failed", gates)  # fmt: skip


async def _success(
    p: _Prober, valid_args: JsonObject, gates: ToolGates, spy: SpyPermission | None
) -> None:
    p.probes.append("success path")
    events = EventRecorder()
    before = len(spy.requests) if spy is not None else 0
    ran_before = p.canary.count
    call = ToolCall(id="probe-success", name=p.tool, arguments=valid_args)
    result = await p.dispatch(call, registry=p.registry, gates=gates, emit=events)
    ran = p.canary.count - ran_before
    if result.error is not None or ran != 1:
        p.failures.append(
            f"success path: valid_args must run the handler once, got {describe_result(result)} "
            f"and the handler ran {ran} time(s)"
        )
    if result.tool_call_id != call.id or result.name != p.tool:
        p.failures.append(
            f"success path: the result must carry tool_call_id {call.id!r} and name {p.tool!r}"
        )
    kinds = [getattr(e, "type", None) for e in events.events]
    if kinds[:1] != ["tool_execution_started"] or "tool_execution_finished" not in kinds:
        p.failures.append(f"success path: expected started then finished events, got {kinds}")
    if spy is not None:
        asked = [f"{r.kind}:{r.target}:{r.action}" for r in spy.requests[before:]]
        if asked != [f"tool:{p.tool}:execute"]:
            p.failures.append(
                f"success path: permission must be asked tool:{p.tool}:execute once, got {asked}"
            )
