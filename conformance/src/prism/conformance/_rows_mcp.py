"""Conformance rows owned by prism-mcp: 8, 9, 10, E8, E9 (checks import adapters lazily).

Every row talks to the stdlib-only hostile server in ``_hostile_mcp`` through the subject's
``mcp_stdio_transport`` and ``mcp_connect``, so a downstream host can run them against its own
bridge without the MCP SDK. Process and memory checks read ``/proc`` (Linux); elsewhere the
rows that need it are skipped.
"""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Callable
from typing import Any

from prism.core.testing import scaled

from ._process_probes import group_gone, need_proc, peak_rss_growth, process_group
from ._registry import conformance_row, require
from ._subjects import ConformanceSubjects

__all__: list[str] = []

_CAP = 1_000_000
_SLACK = 32 * 1024 * 1024
_MAX_MESSAGE = 8192


def _subjects(subjects: ConformanceSubjects) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """``connect(server_id=, transport=, **bounds)``: the bounds become the subject's options."""
    bridge = require(subjects.mcp_connect, "an MCP bridge (prism-mcp)")
    options = require(subjects.mcp_bridge_options, "MCP bridge options (prism-mcp)")
    stdio = require(subjects.mcp_stdio_transport, "an MCP stdio transport (prism-mcp)")

    def connect(*, server_id: str, transport: Any, **bounds: Any) -> Any:
        return bridge(server_id=server_id, transport=transport, options=options(**bounds))

    return connect, stdio


def _hostile(stdio: Callable[..., Any], *args: str, env: dict[str, str] | None = None) -> Any:
    argv = ("-m", "prism.conformance._hostile_mcp", *args)
    return stdio(sys.executable, args=argv, env=env)


def _tool(bridge: Any, name: str) -> Any:
    for tool in bridge.tools:
        if tool.name == name:
            return tool
    raise AssertionError(f"bridge has no tool {name!r}; it has {[t.name for t in bridge.tools]}")


async def _call(bridge: Any, name: str, arguments: dict[str, Any]) -> Any:
    from prism.core import AbortController, ToolExecutionContext, ToolResult

    ctx = ToolExecutionContext(
        session_id="conformance",
        run_id="mcp",
        tool_call_id=f"call-{uuid.uuid4().hex[:8]}",
        signal=AbortController().signal,
    )
    result = await _tool(bridge, name).execute(arguments, ctx)
    if not isinstance(result, ToolResult):
        raise AssertionError(f"{name} returned {type(result).__name__}, not a ToolResult")
    return result


def _expect_error(result: Any, codes: tuple[str, ...], what: str) -> None:
    if result.error is None or result.error.code not in codes:
        got = None if result.error is None else (result.error.code, result.error.message[:200])
        raise AssertionError(f"{what}: expected an error result with code in {codes}, got {got}")
    size = len(result.error.message.encode("utf-8"))
    if size > _MAX_MESSAGE:
        raise AssertionError(f"{what}: error message is {size} bytes, over 8 KiB")


async def _wait_stale(bridge: Any, seconds: float = 5.0) -> None:
    import anyio

    with anyio.move_on_after(scaled(seconds)):
        while not bridge.stale:
            await anyio.sleep(0.02)
    if not bridge.stale:
        raise AssertionError("tools/list_changed did not mark the bridge stale within 5 s")


@conformance_row("8")
async def mcp_tool_name_collision(subjects: ConformanceSubjects) -> None:
    connect, stdio = _subjects(subjects)
    import anyio

    from prism.core import ToolCall, ToolRegistry

    with anyio.fail_after(scaled(60)):
        async with (
            connect(server_id="alpha", transport=_hostile(stdio, "--label", "alpha")) as alpha,
            connect(server_id="beta", transport=_hostile(stdio, "--label", "beta")) as beta,
        ):
            for server, bridge in (("alpha", alpha), ("beta", beta)):
                _tool(bridge, f"mcp:{server}:search")
            registry = ToolRegistry([*alpha.tools, *beta.tools], duplicate="error")
            for server in ("alpha", "beta"):
                call = ToolCall(id=server, name=f"mcp:{server}:search", arguments={"query": "q"})
                result = await subjects.dispatch(call, registry=registry)
                texts = [getattr(c, "text", None) for c in result.content]
                if result.is_error or texts != [f"{server}:q"]:
                    raise AssertionError(f"mcp:{server}:search reached the wrong server: {result}")
            before = alpha.tools
            await _call(alpha, "mcp:alpha:add_tool", {"name": "search"})
            await _wait_stale(alpha)
            try:
                await alpha.refresh()
            except Exception as exc:
                if "Collision" not in type(exc).__name__:
                    raise AssertionError(f"a collision raised {type(exc).__name__}: {exc}") from exc
            else:
                raise AssertionError("a refresh listing 'search' twice did not fail")
            if [t.name for t in alpha.tools] != [t.name for t in before]:
                raise AssertionError("a failed refresh changed the bridge's tools")


async def _oversize_then_timeout(connect: Any, stdio: Any) -> None:
    async with connect(
        server_id="hostile",
        transport=_hostile(stdio),
        call_timeout_seconds=1.0,
        max_result_bytes=_CAP,
    ) as bridge:
        first = (await _call(bridge, "mcp:hostile:pid", {})).value["pgid"]
        with peak_rss_growth() as growth:
            big = await _call(bridge, "mcp:hostile:big", {"size": 200_000_000, "newline": False})
            grew = growth()
        _expect_error(big, ("mcp_result_too_large",), "a 200 MB result")
        if grew > 2 * _CAP + _SLACK:
            raise AssertionError(f"client RSS grew {grew >> 20} MiB while a server sent 200 MB")
        if not await group_gone(first):
            raise AssertionError(f"after an oversize result process group {first} still runs")
        second = (await _call(bridge, "mcp:hostile:pid", {})).value["pgid"]
        if second == first:
            raise AssertionError("the next call did not use a fresh connection")
        slow = await _call(bridge, "mcp:hostile:sleep", {"seconds": 30})
        _expect_error(slow, ("mcp_timeout",), "a call that never answers")
        if not await group_gone(second):
            raise AssertionError(f"after a timeout process group {second} still runs")
        echo = await _call(bridge, "mcp:hostile:echo", {"text": "again"})
        if echo.is_error:
            raise AssertionError(f"the call after a timeout failed: {echo.error}")


@conformance_row("9")
async def mcp_oversized_result_or_timeout(subjects: ConformanceSubjects) -> None:
    connect, stdio = _subjects(subjects)
    need_proc()
    import anyio

    with anyio.fail_after(scaled(60)):
        await _oversize_then_timeout(connect, stdio)


@conformance_row("10")
async def mcp_list_changed(subjects: ConformanceSubjects) -> None:
    connect, stdio = _subjects(subjects)
    import anyio

    with anyio.fail_after(scaled(60)):
        async with connect(
            server_id="lc", transport=_hostile(stdio), list_cache_ttl_seconds=3600.0
        ) as bridge:
            if bridge.stale:
                raise AssertionError("a freshly connected bridge is stale")
            await bridge.refresh()
            lists = (await _call(bridge, "mcp:lc:stats", {})).value["list_requests"]
            if lists != 1:
                raise AssertionError(f"refresh() within the TTL re-listed ({lists} tools/list)")
            await _call(bridge, "mcp:lc:add_tool", {"name": "fresh_tool"})
            await _wait_stale(bridge)
            await bridge.refresh()
            if "mcp:lc:fresh_tool" not in {t.name for t in bridge.tools}:
                raise AssertionError("the new tool did not appear after refresh()")
            if bridge.stale:
                raise AssertionError("refresh() left the bridge stale")
            await bridge.refresh()
            lists = (await _call(bridge, "mcp:lc:stats", {})).value["list_requests"]
            if lists != 2:
                raise AssertionError(f"expected exactly 2 tools/list requests, saw {lists}")


_E8_CASES = (
    ("garbage", (), None),
    ("flood", ("--size", "1000000"), None),
    ("huge-line", (), ("mcp_result_too_large",)),
    ("id-last", ("--size", "5000000"), ("mcp_result_too_large",)),
    ("deep-json", (), ("mcp_result_too_large", "mcp_protocol_error")),
    ("wide-json", ("--size", "900000"), ("mcp_result_too_large", "mcp_protocol_error")),
    ("invalid-utf8", (), ("mcp_protocol_error",)),
)


@conformance_row("E8")
async def mcp_untrusted_server_output(subjects: ConformanceSubjects) -> None:
    connect, stdio = _subjects(subjects)
    need_proc()
    import anyio

    for mode, extra, codes in _E8_CASES:
        with anyio.fail_after(scaled(30)):
            transport = _hostile(stdio, "--mode", mode, *extra)
            async with connect(
                server_id="e8",
                transport=transport,
                call_timeout_seconds=scaled(10.0),
                max_result_bytes=_CAP,
            ) as bridge:
                with peak_rss_growth() as growth:
                    result = await _call(bridge, "mcp:e8:echo", {"text": "x"})
                    grew = growth()
                if codes is None and result.is_error:
                    raise AssertionError(f"{mode}: the real answer was lost: {result.error}")
                if codes is not None:
                    _expect_error(result, codes, mode)
                if grew > 2 * _CAP + _SLACK:
                    raise AssertionError(f"{mode}: client RSS grew {grew >> 20} MiB")
                after = await _call(bridge, "mcp:e8:pid", {})
                if after.is_error:
                    raise AssertionError(
                        f"{mode}: the bridge is unusable afterwards: {after.error}"
                    )


@conformance_row("E9")
async def mcp_stdio_environment(subjects: ConformanceSubjects) -> None:
    connect, stdio = _subjects(subjects)
    need_proc()
    import anyio

    secret_name = "PRISM_CONFORMANCE_PARENT_SECRET"
    secret = f"s3cret-{uuid.uuid4().hex}"
    previous = os.environ.get(secret_name)
    os.environ[secret_name] = secret
    try:
        with anyio.fail_after(scaled(60)):
            for mode in ("ok", "stubborn"):
                transport = _hostile(stdio, "--mode", mode, env={"PRISM_GIVEN": "yes"})
                async with connect(
                    server_id="env", transport=transport, close_grace_seconds=0.5
                ) as bridge:
                    env = (await _call(bridge, "mcp:env:env", {})).value["env"]
                    if secret_name in env or secret in env.values():
                        raise AssertionError("a parent secret variable reached the server")
                    if env.get("PRISM_GIVEN") != "yes":
                        raise AssertionError("the configured env did not reach the server")
                    pgid = (await _call(bridge, "mcp:env:pid", {})).value["pgid"]
                    await _call(bridge, "mcp:env:spawn_grandchild", {})
                    if len(process_group(pgid)) < 2:
                        raise AssertionError("the grandchild did not start in the server's group")
                if not await group_gone(pgid, 2.0):
                    left = process_group(pgid)
                    raise AssertionError(f"after close, processes {left} of {mode} remain")
    finally:
        if previous is None:
            os.environ.pop(secret_name, None)
        else:
            os.environ[secret_name] = previous
