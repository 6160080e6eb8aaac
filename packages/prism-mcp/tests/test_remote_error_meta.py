"""A remote tool error's ``_meta`` (its error code, retry hints) survives the bridge, on
``error.details["mcp_meta"]``: from an SDK server and from a Prism-served one, in memory and
over HTTP."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from prism.core.testing import scaled
from prism.mcp import (
    MCP_TOOL_ERROR,
    InMemoryTransport,
    StreamableHttpTransport,
    connect_mcp_tools,
)
from prism.mcp._content import MAX_ERROR_META_BYTES

from .conftest import Kit, server_module

pytestmark = pytest.mark.anyio

RETRY = {"code": "rate_limited", "retryAfterSeconds": 2}


@pytest.mark.parametrize("transport", ["memory", "http"])
async def test_a_remote_error_keeps_its_meta(kit: Kit, transport: str) -> None:
    with anyio.fail_after(scaled(60)):
        if transport == "memory":
            async with connect_mcp_tools(server_id="s", transport=kit.sdk_memory()) as bridge:
                result = await kit.call(bridge, "rate_limited")
                plain = await kit.call(bridge, "fetch_fails")
        else:
            async with (
                kit.http_server() as url,
                connect_mcp_tools(server_id="s", transport=StreamableHttpTransport(url)) as bridge,
            ):
                result = await kit.call(bridge, "rate_limited")
                plain = await kit.call(bridge, "fetch_fails")
    assert result.error is not None and result.error.code == MCP_TOOL_ERROR
    assert result.error.message == "slow down"
    assert result.error.details is not None
    assert result.error.details["mcp_meta"]["com.example/error"] == RETRY
    assert plain.error is not None and plain.error.details is not None
    assert "com.example/error" not in plain.error.details.get("mcp_meta", {})


async def test_a_prism_served_error_keeps_prisms_code(kit: Kit, tmp_path: Path) -> None:
    served = InMemoryTransport(server_module("prism_served").build(tmp_path))
    with anyio.fail_after(scaled(60)):
        async with connect_mcp_tools(server_id="p", transport=served) as bridge:
            result = await kit.call(bridge, "fail")
    assert result.error is not None and result.error.details is not None
    prism_error = result.error.details["mcp_meta"]["dev.prism/error"]  # type: ignore[index]
    assert prism_error["name"] == "LookupError"  # type: ignore[index]


def test_an_oversized_meta_is_left_out_and_says_so() -> None:
    from mcp import types

    from prism.mcp._content import map_call_result

    huge = {"blob": "x" * (MAX_ERROR_META_BYTES + 1)}
    result = types.CallToolResult(
        content=[types.TextContent(type="text", text="no")], is_error=True, _meta=huge
    )
    mapped = map_call_result(result, call_id="c", name="n", max_bytes=10_000_000, details={})
    assert mapped.error is not None and mapped.error.details is not None
    assert "mcp_meta" not in mapped.error.details
    assert str(MAX_ERROR_META_BYTES) in str(mapped.error.details["mcp_meta_omitted"])
