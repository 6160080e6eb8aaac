"""Options, transports and server ids are validated at construction, before anything starts."""

from __future__ import annotations

import dataclasses
import inspect
import math
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prism.core.testing import scaled
from prism.mcp import (
    McpBridgeOptions,
    StdioTransport,
    StreamableHttpTransport,
    connect_mcp_tools,
)

INT_BOUNDS = {
    "max_result_bytes": (10_000_000, 16_777_216),
    "max_tools": (500, 5_000),
    "max_schema_bytes": (262_144, 1_048_576),
    "max_list_pages": (100, 1_000),
    "max_description_bytes": (8_192, 65_536),
}
SECONDS_BOUNDS = {
    "list_cache_ttl_seconds": (30.0, 86_400.0),
    "call_timeout_seconds": (60.0, 1_800.0),
    "connect_timeout_seconds": (30.0, 300.0),
    "close_grace_seconds": (2.0, 30.0),
}


def test_defaults_are_the_design_defaults() -> None:
    options = McpBridgeOptions()
    for name, (default, _cap) in {**INT_BOUNDS, **SECONDS_BOUNDS}.items():
        assert getattr(options, name) == default, name
    assert options.on_call_fault == "reconnect"
    assert options.protocol_mode == "auto"
    assert options.name_prefix is None
    assert not hasattr(options, "drop_duplicate_text")  # one rendering rule, no switch


@pytest.mark.parametrize("name", sorted({**INT_BOUNDS, **SECONDS_BOUNDS}))
def test_exactly_the_hard_cap_is_accepted(name: str) -> None:
    cap = {**INT_BOUNDS, **SECONDS_BOUNDS}[name][1]
    assert getattr(McpBridgeOptions(**{name: cap}), name) == cap


@pytest.mark.parametrize("name", sorted(INT_BOUNDS))
@pytest.mark.parametrize("bad", [0, -1, True, 1.5, "10", None])
def test_int_bounds_reject_non_ints_bools_and_small_values(name: str, bad: object) -> None:
    with pytest.raises(ValueError if type(bad) is int else TypeError, match=name):
        McpBridgeOptions(**{name: bad})


@pytest.mark.parametrize("name", sorted(SECONDS_BOUNDS))
@pytest.mark.parametrize("bad", [0, 0.0, -1.0, math.inf, math.nan, True, "1"])
def test_seconds_bounds_reject_non_positive_non_finite_and_bools(name: str, bad: object) -> None:
    with pytest.raises(ValueError if type(bad) in (int, float) else TypeError, match=name):
        McpBridgeOptions(**{name: bad})


@settings(max_examples=40, deadline=None)
@given(name=st.sampled_from(sorted(INT_BOUNDS)), over=st.integers(min_value=1, max_value=10**9))
def test_above_the_cap_names_the_option_and_the_cap(name: str, over: int) -> None:
    cap = INT_BOUNDS[name][1]
    with pytest.raises(ValueError, match=rf"McpBridgeOptions\.{name}.*{cap:,}"):
        McpBridgeOptions(**{name: cap + over})


@settings(max_examples=40, deadline=None)
@given(
    name=st.sampled_from(sorted(SECONDS_BOUNDS)),
    over=st.floats(min_value=1e-6, max_value=1e9, allow_nan=False),
)
def test_seconds_above_the_cap_are_refused(name: str, over: float) -> None:
    cap = SECONDS_BOUNDS[name][1]
    with pytest.raises(ValueError, match=name):
        McpBridgeOptions(**{name: cap + max(over, cap * 1e-9)})


def test_int_seconds_become_floats() -> None:
    assert McpBridgeOptions(call_timeout_seconds=5).call_timeout_seconds == 5.0
    assert isinstance(McpBridgeOptions(call_timeout_seconds=5).call_timeout_seconds, float)


@pytest.mark.parametrize(
    ("field", "bad"),
    [
        ("on_call_fault", "retry"),
        ("protocol_mode", "2026-07-28"),
        ("name_prefix", "has space:"),
        ("name_prefix", "x" * 65),
        ("on_tools_changed", "not callable"),
    ],
)
def test_policies_and_flags_are_checked(field: str, bad: object) -> None:
    with pytest.raises(TypeError if field == "on_tools_changed" else ValueError, match=field):
        McpBridgeOptions(**{field: bad})


def test_options_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        McpBridgeOptions().max_tools = 1  # type: ignore[misc]


def test_stdio_transport_normalises_and_hides_env_values() -> None:
    transport = StdioTransport("server", args=["-v"], env={"TOKEN": "hunter2"}, cwd=Path("/tmp"))
    assert transport.args == ("-v",)
    assert transport.cwd == "/tmp"
    assert transport.env is not None
    assert transport.env["TOKEN"] == "hunter2"
    assert "hunter2" not in repr(transport)
    with pytest.raises(TypeError):
        transport.env["X"] = "y"  # type: ignore[index]


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"command": ""}, ValueError),
        ({"command": "a\x00b"}, ValueError),
        ({"command": "x", "args": "one string"}, TypeError),
        ({"command": "x", "args": ["ok", 3]}, TypeError),
        ({"command": "x", "env": {"A=B": "1"}}, ValueError),
        ({"command": "x", "env": {"A": 1}}, TypeError),
        ({"command": "x", "cwd": 42}, TypeError),
    ],
)
def test_stdio_transport_refuses_bad_values(kwargs: dict[str, Any], error: type) -> None:
    with pytest.raises(error, match=r"^StdioTransport\.\w+(\[.*\])? must be .+, got .+") as info:
        StdioTransport(**kwargs)
    assert not (error is ValueError and isinstance(info.value, TypeError))


def test_http_transport_hides_header_values() -> None:
    transport = StreamableHttpTransport(
        "https://mcp.example/mcp", headers={"Authorization": "Bearer x1"}
    )
    assert "Bearer x1" not in repr(transport)
    assert transport.headers["Authorization"] == "Bearer x1"


@pytest.mark.parametrize(
    ("url", "headers", "match"),
    [
        ("ftp://host/mcp", None, "http or https"),
        ("file:///etc/passwd", None, "http or https"),
        ("http:///mcp", None, "host"),
        ("https://user:pw@host/mcp", None, "credentials"),
        ("https://token@host/mcp", None, "credentials"),
        ("https://host/mcp", {"Mcp-Session-Id": "x"}, "set by the MCP transport"),
        ("https://host/mcp", {"Accept-Encoding": "gzip"}, "set by the MCP transport"),
        ("https://host/mcp", {"X-Evil": "a\r\nInjected: 1"}, "CR, LF"),
        ("https://host/mcp", {"bad header": "1"}, "valid header names"),
    ],
)
def test_http_transport_refuses_unsafe_urls_and_headers(
    url: str, headers: dict[str, str] | None, match: str
) -> None:
    with pytest.raises(ValueError, match=match):
        StreamableHttpTransport(url, headers=headers)


@pytest.mark.anyio
@pytest.mark.parametrize("server_id", ["", "-lead", "has space", "x" * 65, "mcp:docs", None])
async def test_bad_server_ids_are_refused_before_anything_starts(server_id: Any) -> None:
    error = ValueError if isinstance(server_id, str) else TypeError
    with anyio.fail_after(scaled(10)), pytest.raises(error, match=r"^connect_mcp_tools\.server_id"):
        async with connect_mcp_tools(server_id=server_id, transport=StdioTransport("true")):
            pass


@pytest.mark.anyio
async def test_bad_options_are_refused_before_anything_starts() -> None:
    with anyio.fail_after(scaled(10)), pytest.raises(ValueError, match="max_tools"):
        async with connect_mcp_tools(
            server_id="a", transport=StdioTransport("true"), options=McpBridgeOptions(max_tools=0)
        ):
            pass
    with pytest.raises(TypeError):
        async with connect_mcp_tools(server_id="a", transport=StdioTransport("true"), bogus=1):
            pass
    with pytest.raises(TypeError, match="transport"):
        async with connect_mcp_tools(server_id="a", transport="http://x"):  # type: ignore[arg-type]
            pass


def test_connect_takes_one_options_object_and_no_flattened_option_keywords() -> None:
    params = inspect.signature(connect_mcp_tools).parameters
    assert list(params) == ["server_id", "transport", "options", "signal"]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params.values())
    assert params["options"].default is None
    assert not {f.name for f in dataclasses.fields(McpBridgeOptions)} & set(params)


@pytest.mark.anyio
@pytest.mark.parametrize("options", [{"max_tools": 1}, "McpBridgeOptions()", 30.0])
async def test_options_that_are_not_mcp_bridge_options_are_refused_before_anything_starts(
    options: Any,
) -> None:
    with anyio.fail_after(scaled(10)), pytest.raises(TypeError, match="McpBridgeOptions"):
        async with connect_mcp_tools(
            server_id="a", transport=StdioTransport("true"), options=options
        ):
            pass
